"""Frozen records passed between stages; each stage reads and writes them through the store."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from miner.codebook import FIELD_NAMES, Evidence, LabelValue, format_value

# What a smoke run of a selected project showed (miner.select.outcomes classifies its logs).
SMOKE_OUTCOMES = (
    "ok", "no_entry", "python2", "install", "import", "usage", "needs_gpu", "needs_weights",
    "needs_data", "data", "runtime", "timeout",
)  # fmt: skip
# How far a smoke run got (miner.select.ladder): each stage needs the ones before it.
SMOKE_STAGES = (
    ("S0", "the entry point and its local import closure parse"),
    ("S1", "environment built"),
    ("S2", "entry point imports"),
    ("S3", "entry point starts (parses its arguments)"),
    ("S4", "data found (real or stand-in)"),
    ("S5", "one optimisation step"),
    ("S6", "a bounded training ends"),
)


@dataclass(frozen=True)
class RepoMeta:
    """One repository as GitHub's search API describes it."""

    id: int
    full_name: str
    html_url: str
    clone_url: str
    description: str | None
    stars: int
    forks: int
    watchers: int
    open_issues: int
    language: str | None
    topics: tuple[str, ...]
    license: str | None
    default_branch: str
    size_kb: int
    fork: bool
    archived: bool
    disabled: bool
    created_at: str
    updated_at: str
    pushed_at: str


@dataclass(frozen=True)
class SliceReading:
    """How far the reading of one search slice's query got: stored with every page, so an
    interrupted crawl goes on from the next page of the same query in the same order."""

    query: str  # GitHub's q
    order: str  # by stars: "asc", fewest first
    pass_no: int  # 1, or 2 when a slice short of its total is asked again
    pages: int  # the last page stored
    more: bool  # GitHub offers a page after it, within the total and the 1,000-result cap
    total: int  # the total_count that page reported
    first_stars: int | None  # the fewest stars on page 1
    last_stars: int | None  # the stars of the last result stored


@dataclass(frozen=True)
class Checkout:
    """A local, read-only working tree of one repository at one commit."""

    path: Path
    repo_id: int | None = None
    full_name: str | None = None
    commit_sha: str | None = None
    commit_date: str | None = None


@dataclass(frozen=True)
class CloneResult:
    """What one clone attempt produced, as recorded in the store."""

    repo_id: int
    full_name: str
    path: Path | None
    status: str  # cloned | skipped | failed
    error_class: str | None = None  # gone|blocked|auth|timeout|too_large|too_new|other
    error: str | None = None
    commit_sha: str | None = None
    commit_date: str | None = None
    bytes_received: int = 0
    bytes_on_disk: int = 0
    seconds: float = 0.0


@dataclass(frozen=True)
class Label:
    """One codebook field's value with the evidence for it."""

    field: str
    value: LabelValue
    evidence: tuple[Evidence, ...] = ()


@dataclass(frozen=True)
class AuditResult:
    """Every codebook field for one checkout, with evidence, warnings and extra structure."""

    labels: dict[str, Label]
    warnings: tuple[str, ...] = ()
    details: dict[str, Any] = field(default_factory=dict)  # e.g. framework versions, hw specs
    path: str = ""
    commit_sha: str | None = None
    analyzed_at: str = field(default_factory=lambda: datetime.now().astimezone().isoformat())

    def value(self, name: str) -> LabelValue | None:
        """The value of field `name`, or None when it was not labelled."""
        label = self.labels.get(name)
        return None if label is None else label.value

    def as_dict(self) -> dict[str, Any]:
        """JSON shape of `miner audit --format json`: codebook fields, evidence, warnings."""
        out: dict[str, Any] = {}
        for name in FIELD_NAMES:
            value = self.value(name)
            if isinstance(value, frozenset | set):
                out[name] = sorted(value)
            else:
                out[name] = value
        out["evidence"] = {
            name: [e.as_dict() for e in label.evidence]
            for name, label in self.labels.items()
            if label.evidence
        }
        out["warnings"] = list(self.warnings)
        out["details"] = self.details
        return out

    def as_row(self) -> dict[str, str]:
        """Sheet-format row: each codebook field rendered as in annotation sheets."""
        return {name: format_value(self.value(name)) for name in FIELD_NAMES}
