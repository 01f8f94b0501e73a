"""Detectors: pure functions of a checkout that return codebook labels with evidence."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from miner.audit.docs import Documents
from miner.audit.files import RepoTree
from miner.models import Label


@dataclass
class AuditContext:
    """What every detector may read: the files, the parsed docs, and shared notes."""

    tree: RepoTree
    docs: Documents
    details: dict[str, Any] = field(default_factory=dict)  # structured extras, e.g. versions
    # Intermediate results shared by detectors (e.g. the scanned source index); not output.
    cache: dict[str, Any] = field(default_factory=dict)

    @property
    def warnings(self) -> list[str]:
        """Warnings shown with the audit (unreadable files, malformed manifests ...)."""
        return self.tree.warnings


# A detector reads the context and the labels decided before it (the registry's order), and
# returns the labels it decides. Adding a detector is one entry in `miner.audit.auditor._registry`.
Detector = Callable[[AuditContext, Mapping[str, Label]], Iterable[Label]]
