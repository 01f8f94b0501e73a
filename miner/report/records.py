"""The records a report passes around: one table with its notes, the options, what was written."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import pandas as pd

# Each report kind and the tables it produces, in the order the index lists them.
KIND_TABLES: dict[str, tuple[str, ...]] = {
    "search": ("search",),
    "exclusions": ("exclusions",),
    "coverage": ("coverage", "coverage_detail"),
    "hardware": ("hardware",),
    "distribution": ("distribution", "distribution_detail"),
    "crosstab": (
        "hardware_req_by_primary_framework",
        "hardware_req_by_star_band",
        "hardware_req_by_push_year",
        "software_req_by_primary_framework",
        "software_req_by_star_band",
        "software_req_by_push_year",
        "crosstab_tests",
    ),
    "trend": ("trend", "trend_transitions", "trend_changes"),
    "smoke": ("smoke_ladder", "smoke_outcomes", "smoke"),  # and smoke_repairs when any
}
KINDS: tuple[str, ...] = (*KIND_TABLES, "all")
FORMATS: tuple[str, ...] = ("markdown", "csv", "latex", "json")
FORMAT_SUFFIX = {"markdown": ".md", "csv": ".csv", "latex": ".tex", "json": ".json"}
LABEL_SOURCES = ("auto", "consensus")
# Star bands of the cross-tabulations: lower bounds of each band.
DEFAULT_STAR_BANDS: tuple[int, ...] = (0, 100, 500, 1000, 5000)


@dataclass(frozen=True, eq=False)
class ReportTable:
    """One table of a report: a stable file stem, a caption, the rows and notes printed below."""

    key: str
    title: str
    frame: pd.DataFrame
    notes: tuple[str, ...] = ()
    # Column whose repeated values are blanked (and separated by a rule) in markdown and LaTeX.
    group: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)  # machine-readable additions for JSON


@dataclass(frozen=True)
class Chart:
    """One chart written as PNG and PDF."""

    key: str
    title: str
    png: Path
    pdf: Path


@dataclass(frozen=True)
class ReportOptions:
    """What to report, from which labels, in which formats, and where to write it."""

    kind: str = "all"
    labels: str = "auto"
    formats: tuple[str, ...] = FORMATS
    output_dir: Path = Path("reports")
    include_excluded: bool = False
    charts: bool = True
    star_bands: tuple[int, ...] = DEFAULT_STAR_BANDS
    consensus_path: Path | None = None  # default: the study's annotations/consensus.csv


@dataclass(frozen=True)
class ReportResult:
    """Everything a report run wrote, with the provenance stated in the index."""

    tables: tuple[ReportTable, ...]
    charts: tuple[Chart, ...]
    files: tuple[Path, ...]
    index_md: Path
    index_html: Path
    provenance: dict[str, Any]
    warnings: tuple[str, ...] = ()
