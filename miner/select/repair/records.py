"""What a repair did and why: one frozen record per change, with the evidence behind it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from miner.codebook import Evidence

# The kinds of change a smoke run's environment repair makes, in the order they are tried.
KINDS = (
    "interpreter",  # the Python the environment is made from
    "alias",  # a conda or apt name turned into the index's name (or dropped)
    "unreadable",  # a line the installer cannot read, cut to its project's name (or dropped)
    "duplicate",  # a project listed twice with different versions, listed once
    "url",  # git:// rewritten, a git/URL requirement replaced by the index's project
    "backport",  # a backport the interpreter already ships, dropped
    "platform",  # a package for another operating system, dropped
    "freeze",  # a system-wide freeze reduced to what the code imports
    "index",  # an extra index or find-links host this machine does not reach, left out
    "standard",  # a module of the standard library named as a requirement, dropped
    "era",  # an open requirement bounded by the newest release of the commit's date (pip)
    "pin",  # a pin moved to a release the index has
    "metadata",  # a release whose metadata the installer cannot parse: the next release line
    "date",  # a project resolved past the commit's date: its old release reached the index later
    "wheel",  # a sdist that fails to build replaced by the nearest release with a wheel
    "build",  # a build constraint of the project's era (setuptools<58, build-time numpy)
    "api_bound",  # an open framework pinned before the release that removed an API it calls
    "older",  # an unpinned package whose installed release lacks a part the run imports
    "companion",  # a companion version (torchvision for its torch, keras for its tensorflow)
    "drop",  # a failing requirement the entry point's imports do not need, dropped
    "import",  # an undeclared import installed
    "path",  # the checkout's root and src/ put on the path
    "setuptools",  # setuptools (pkg_resources) installed
    "python2",  # a Python 2 project given a 2.7 interpreter
    "extension",  # the project's own compiled extension built in the copy of the checkout
)


@dataclass(frozen=True)
class Repair:
    """One change to what a smoke run installs: `torch==0.4.0 -> torch==0.4.1` and why."""

    kind: str
    before: str
    after: str  # "" when the requirement was dropped
    reason: str
    evidence: Evidence

    def __post_init__(self) -> None:
        assert self.kind in KINDS, self.kind

    @property
    def summary(self) -> str:
        """`torch==0.4.0 -> torch==0.4.1: 0.4.0 was never on the index`."""
        after = self.after or "(dropped)"
        return f"{self.before} -> {after}: {self.reason}"

    def as_dict(self) -> dict[str, Any]:
        """The lock's and smoke.json's form."""
        return {
            "kind": self.kind,
            "before": self.before,
            "after": self.after,
            "reason": self.reason,
            "evidence": self.evidence.as_dict(),
        }

    @classmethod
    def of(cls, data: dict[str, Any]) -> Repair:
        """A record read back from a lock."""
        ev = data.get("evidence") or {}
        evidence = Evidence(
            str(ev.get("path", "")), int(ev.get("line", 0)), str(ev.get("text", "")),
            str(ev.get("rule", "")),
        )  # fmt: skip
        return cls(str(data["kind"]), str(data["before"]), str(data["after"]),
                   str(data["reason"]), evidence)  # fmt: skip
