"""`miner report`: the study's tables (Table I, II, X, hardware, exclusions, cross-tabulations),
rendered as Markdown, CSV, LaTeX and JSON, with charts and an index stating their provenance."""

from __future__ import annotations

from miner.report.build import build_tables, write_report
from miner.report.labels import LabelSet, load_labels
from miner.report.records import (
    FORMATS,
    KIND_TABLES,
    KINDS,
    LABEL_SOURCES,
    Chart,
    ReportOptions,
    ReportResult,
    ReportTable,
)
from miner.report.render import render

__all__ = [
    "FORMATS",
    "KINDS",
    "KIND_TABLES",
    "LABEL_SOURCES",
    "Chart",
    "LabelSet",
    "ReportOptions",
    "ReportResult",
    "ReportTable",
    "build_tables",
    "load_labels",
    "render",
    "write_report",
]
