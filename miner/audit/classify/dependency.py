"""Packages a dependency file or a document lists, and the reader the file parsers share."""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from miner.audit.classify.installs import is_pinned
from miner.audit.files import RepoTree

# Packages that are the interpreter or the operating system, not a library the project needs.
NOT_PACKAGES = frozenset({"python", "python2", "python3", "lua", "r", "pip", "ubuntu", "debian"})


@dataclass(frozen=True)
class Dependency:
    """One package a dependency file or a document lists, with its version constraint."""

    name: str
    spec: str
    path: str
    line: int
    text: str

    @property
    def pinned(self) -> bool:
        """True when the package carries a version (the interpreter's version does not count)."""
        return self.name.lower() not in NOT_PACKAGES and is_pinned(self.spec)

    def as_dict(self) -> dict[str, str]:
        """The shape stored in details["dependencies"]."""
        return {"name": self.name, "spec": self.spec, "source": f"{self.path}:{self.line}"}


@dataclass
class Manifest:
    """A dependency file with the packages it lists."""

    path: str
    kind: str  # a software_req_sources value
    rule: str
    deps: list[Dependency] = field(default_factory=list)

    @property
    def packages(self) -> list[Dependency]:
        """The listed packages other than the interpreter itself."""
        return [d for d in self.deps if d.name.lower() not in NOT_PACKAGES]


class Reader:
    """Reads one file's text and lines, and builds Dependency records for it."""

    def __init__(self, tree: RepoTree, path: str, warnings: list[str]) -> None:
        self.tree, self.path, self.warnings = tree, path, warnings
        self.text = tree.read_text(path) or ""
        self.lines = self.text.splitlines()

    def dep(self, name: str, spec: str, line: int) -> Dependency:
        """A Dependency at `line` of this file, its text being that line."""
        text = self.lines[line - 1].strip() if 0 < line <= len(self.lines) else name
        return Dependency(name.strip(), spec.strip(), self.path, line, text[:300])

    def line_of(self, needle: str, default: int = 1) -> int:
        """The first line mentioning `needle` (for parsers whose library drops line numbers)."""
        low = needle.lower()
        for n, line in enumerate(self.lines, 1):
            if low in line.lower():
                return n
        return default

    def warn(self, what: str, exc: BaseException | None = None) -> None:
        """Record that this file is malformed (and why), then go on."""
        reason = f": {str(exc).splitlines()[0][:120]}" if exc and str(exc) else ""
        self.warnings.append(f"{self.path}: {what}{reason}")


def load_json(r: Reader) -> Any:
    """The file's JSON, or None with a warning when it is malformed."""
    try:
        return json.loads(r.text)
    except ValueError as exc:
        r.warn("malformed JSON", exc)
        return None
