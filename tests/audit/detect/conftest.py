"""Tiny repositories written by the tests, and the detectors run over them in registry order."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

import pytest
from detect_snippets import Files, write

from miner.audit.classify.exclusions import classify_project
from miner.audit.detect import AuditContext
from miner.audit.detect.frameworks import detect_frameworks
from miner.audit.detect.languages import detect_language
from miner.audit.detect.networks import detect_networks
from miner.audit.docs import Documents
from miner.audit.files import RepoTree
from miner.models import Label

Audit = Callable[..., tuple[dict[str, Label], AuditContext]]


def run_detectors(root: Path) -> tuple[dict[str, Label], AuditContext]:
    """The four detectors of this package, in the registry's order, over the folder `root`."""
    tree = RepoTree(root)
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    labels: dict[str, Label] = {}
    for detector in (detect_frameworks, detect_language, detect_networks, classify_project):
        for label in detector(ctx, labels):
            labels[label.field] = label
    return labels, ctx


@pytest.fixture
def audit(tmp_path: Path) -> Audit:
    """audit(files) -> (labels, context) for a fresh repository holding `files`."""
    counter = iter(range(1000))

    def run(files: Files, name: str = "repo") -> tuple[dict[str, Label], AuditContext]:
        root = write(tmp_path / f"{next(counter)}" / name, files)
        return run_detectors(root)

    return run
