"""Label tables as DataFrames: coverage (Table X), hardware breakdown, distributions (Table II).

Rows follow the codebook's value order (or count order for long vocabularies), so the same labels
always give the same table. `unclear` and `n/a` (consensus only) and empty cells get rows of their
own and are never counted as `no`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from miner.codebook import FIELD_BY_NAME
from miner.report.labels import SPECIAL_VALUES, LabelSet, excluded, included, set_values
from miner.report.records import ReportTable

if TYPE_CHECKING:
    import pandas as pd

MISSING = "(missing)"  # a field the labels leave empty
NONE = "(none)"  # an empty set
DEVICES = (("hw_gpu", "GPU"), ("hw_cpu", "CPU"), ("hw_memory", "memory"), ("hw_other", "other"))
SET_NOTE = "A project can have several values; percentages are of all projects."


@dataclass(frozen=True, eq=False)
class Population:
    """The labelled repositories a table counts, and how many were left out as excluded."""

    labels: LabelSet
    frame: pd.DataFrame
    left_out: int
    include_excluded: bool

    @classmethod
    def of(cls, labels: LabelSet, include_excluded: bool = False) -> Population:
        """Select the counted rows of `labels` (excluded repositories left out by default)."""
        frame = included(labels.frame, include_excluded)
        left_out = (
            sum(excluded(str(c)) for c in labels.frame["exclude"]) if len(labels.frame) else 0
        )
        return cls(labels, frame, 0 if include_excluded else left_out, include_excluded)

    def note(self) -> str:
        """One sentence saying what was counted."""
        n = len(self.frame)
        source = "auto labels" if self.labels.source == "auto" else "human consensus labels"
        text = f"N = {n} projects ({source})"
        if self.include_excluded:
            return text + "; excluded projects included."
        return text + f"; {projects(self.left_out)} with a non-empty `exclude` left out."


def projects(count: int) -> str:
    """`1 project`, `2 projects`."""
    return f"{count} project" if count == 1 else f"{count} projects"


def percent(count: int, base: int) -> float | None:
    """`count` as a percentage of `base`, one decimal; None when the base is empty."""
    return round(100.0 * count / base, 1) if base else None


def value_counts(frame: pd.DataFrame, field: str) -> dict[str, int]:
    """How many rows carry each value of `field` (each member once, for set fields)."""
    counts: dict[str, int] = {}
    kind = FIELD_BY_NAME[field].kind
    for cell in frame[field]:
        cell = str(cell)
        if kind == "set":
            members = set_values(cell) or [NONE]
        else:
            members = [cell or MISSING]
        for member in members:
            counts[member] = counts.get(member, 0) + 1
    return counts


def ordered_values(
    field: str, counts: dict[str, int], zeros: bool, by_count: bool = False
) -> list[str]:
    """Values to list for `field`: codebook order (or by count); open and special values last."""
    spec = FIELD_BY_NAME[field]
    vocabulary = ["yes", "no"] if spec.kind == "bool" else list(spec.values)
    trailing = [*SPECIAL_VALUES, NONE, MISSING]
    known = [v for v in vocabulary if zeros or counts.get(v, 0)]
    extra = sorted(v for v in counts if v not in vocabulary and v not in trailing)
    if by_count:
        rank = {v: i for i, v in enumerate(vocabulary)}
        known = sorted(
            [*known, *extra], key=lambda v: (-counts.get(v, 0), rank.get(v, len(rank)), v)
        )
        extra = []
    return [*known, *extra, *(v for v in trailing if counts.get(v, 0))]


def field_rows(
    frame: pd.DataFrame, field: str, zeros: bool = True, by_count: bool = False
) -> list[dict[str, Any]]:
    """One row per value of `field`: projects and percent of all rows of `frame`."""
    counts = value_counts(frame, field)
    base = len(frame)
    return [
        {
            "field": field,
            "value": v,
            "projects": counts.get(v, 0),
            "percent": percent(counts.get(v, 0), base),
        }
        for v in ordered_values(field, counts, zeros, by_count)
    ]


def make_frame(rows: Sequence[dict[str, Any]], columns: Sequence[str]) -> pd.DataFrame:
    """A DataFrame of `rows` with `columns`, object dtype so ints stay ints and gaps stay None."""
    import pandas as pd

    # object dtype keeps ints as ints and empty cells as None in every renderer.
    return pd.DataFrame(list(rows), columns=list(columns), dtype=object)


def _subset(frame: pd.DataFrame, field: str, value: str = "yes") -> pd.DataFrame:
    return frame[[str(c) == value for c in frame[field]]]


def coverage(pop: Population) -> ReportTable:
    """Table X: software and hardware requirements stated, yes/no counts and percentages."""
    rows = [*field_rows(pop.frame, "software_req"), *field_rows(pop.frame, "hardware_req")]
    return ReportTable(
        key="coverage",
        title="Software and hardware requirements stated",
        frame=make_frame(rows, ["field", "value", "projects", "percent"]),
        notes=(pop.note(),),
        group="field",
    )


def coverage_detail(pop: Population) -> ReportTable:
    """The finer breakdown: dependency files, sources, pinned versions, hardware kinds."""
    everyone = pop.frame
    software = _subset(everyone, "software_req")
    hardware = _subset(everyone, "hardware_req")
    groups: list[tuple[str, pd.DataFrame, str]] = [
        ("dependency_file", everyone, "all projects"),
        ("versions_pinned", software, "software_req = yes"),
        ("software_req_sources", software, "software_req = yes"),
        *((name, hardware, "hardware_req = yes") for name, _ in DEVICES),
    ]
    rows = []
    for field, subset, among in groups:
        for row in field_rows(subset, field):
            rows.append({**row, "among": among, "base": len(subset)})
    notes = (
        pop.note(),
        "Percentages are of the projects in `among` (base = their number). "
        "software_req_sources is a set: a project can have several sources.",
    )
    return ReportTable(
        key="coverage_detail",
        title="Requirement details: dependency files, sources, pinned versions, hardware kinds",
        frame=make_frame(rows, ["field", "value", "projects", "percent", "among", "base"]),
        notes=notes,
        group="field",
    )


def hardware(pop: Population) -> ReportTable:
    """GPU vs CPU vs memory vs other among projects with hardware requirements."""
    stated = _subset(pop.frame, "hardware_req")
    base, everyone = len(stated), len(pop.frame)
    rows: list[dict[str, Any]] = []
    for field, name in DEVICES:
        count = sum(str(c) == "yes" for c in stated[field])
        rows.append(_hw_row("device", name, count, base, everyone))
    combos: dict[tuple[int, ...], int] = {}
    for _, record in stated.iterrows():
        combo = tuple(i for i, (field, _) in enumerate(DEVICES) if str(record[field]) == "yes")
        combos[combo] = combos.get(combo, 0) + 1
    for combo in sorted(combos, key=lambda c: (-combos[c], len(c), c)):
        rows.append(_hw_row("combination", _combo_name(combo), combos[combo], base, everyone))
    notes = (
        pop.note(),
        f"{projects(base)} with hardware requirements. Devices overlap (a project can name a "
        "GPU and memory); combinations do not and sum to 100%.",
    )
    return ReportTable(
        key="hardware",
        title="Hardware named by projects that state hardware requirements",
        frame=make_frame(rows, ["breakdown", "hardware", "projects", "percent", "percent_all"]),
        notes=notes,
        group="breakdown",
    )


def _hw_row(section: str, name: str, count: int, base: int, everyone: int) -> dict[str, Any]:
    return {
        "breakdown": section,
        "hardware": name,
        "projects": count,
        "percent": percent(count, base),
        "percent_all": percent(count, everyone),
    }


def _combo_name(combo: tuple[int, ...]) -> str:
    if not combo:
        return "none specified"
    names = [DEVICES[i][1] for i in combo]
    return f"{names[0]} only" if len(names) == 1 else " + ".join(names)


def distribution(pop: Population) -> ReportTable:
    """Table II: networks, frameworks and languages as in the 2021 study."""
    rows = [
        *field_rows(pop.frame, "paper_network"),
        *field_rows(pop.frame, "paper_framework"),
        *field_rows(pop.frame, "language", zeros=False, by_count=True),
    ]
    return ReportTable(
        key="distribution",
        title="Networks, frameworks and languages",
        frame=make_frame(rows, ["field", "value", "projects", "percent"]),
        notes=(pop.note(),),
        group="field",
    )


def distribution_detail(pop: Population) -> ReportTable:
    """The finer codebook values: network types, frameworks, primary framework, domain."""
    rows = []
    for field in ("network_types", "frameworks", "primary_framework", "domain"):
        rows.extend(field_rows(pop.frame, field, zeros=False, by_count=True))
    return ReportTable(
        key="distribution_detail",
        title="Network types, frameworks, primary framework and domain",
        frame=make_frame(rows, ["field", "value", "projects", "percent"]),
        notes=(pop.note(), f"network_types and frameworks are sets. {SET_NOTE}"),
        group="field",
    )
