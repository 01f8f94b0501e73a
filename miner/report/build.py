"""Build a report from the store: the tables, their files in every format, charts and the index."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miner.errors import ConfigError, MinerError
from miner.report import charts as draw
from miner.report.crosstab import crosstab_tables
from miner.report.funnel import exclusions_table, search_table
from miner.report.index import (
    chart_entry,
    index_html,
    index_json,
    index_markdown,
    merge_entries,
    search_summary,
    table_entry,
)
from miner.report.labels import LabelSet, load_labels
from miner.report.records import (
    FORMAT_SUFFIX,
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
from miner.report.smoke import smoke_tables
from miner.report.tables import Population, coverage, coverage_detail, distribution, hardware
from miner.report.tables import distribution_detail as distribution_detail_table
from miner.report.trend import trend_chart, trend_tables

if TYPE_CHECKING:
    import pandas as pd

    from miner.store import Store

LABEL_KINDS = ("coverage", "hardware", "distribution", "crosstab")


def check_options(options: ReportOptions) -> None:
    """Reject options outside the known kinds, formats, label sources and star bands."""
    if options.kind not in KINDS:
        raise ConfigError(f"unknown report {options.kind!r}; choose {', '.join(KINDS)}")
    if options.labels not in LABEL_SOURCES:
        raise ConfigError(f"unknown labels {options.labels!r}; choose auto or consensus")
    bad = [f for f in options.formats if f not in FORMATS]
    if bad or not options.formats:
        raise ConfigError(
            f"unknown format {', '.join(bad) or '(none)'}; choose {', '.join(FORMATS)}"
        )
    bands = options.star_bands
    if not bands or bands[0] != 0 or any(b >= c for b, c in zip(bands, bands[1:], strict=False)):
        raise ConfigError("star bands must start at 0 and increase, e.g. 0,100,500,1000,5000")


def build_tables(
    kinds: tuple[str, ...],
    store: Store,
    frames: dict[str, pd.DataFrame],
    labels: LabelSet,
    options: ReportOptions,
) -> list[ReportTable]:
    """Every table of `kinds`, in index order."""
    pop = Population.of(labels, options.include_excluded)
    tables: list[ReportTable] = []
    for kind in kinds:
        if kind == "search":
            tables.append(search_table(store, frames["searches"]))
        elif kind == "exclusions":
            tables.append(exclusions_table(store, frames["repos"], frames["clones"], labels))
        elif kind == "coverage":
            tables += [coverage(pop), coverage_detail(pop)]
        elif kind == "hardware":
            tables.append(hardware(pop))
        elif kind == "distribution":
            tables += [distribution(pop), distribution_detail_table(pop)]
        elif kind == "crosstab":
            tables += crosstab_tables(pop, frames["repos"], options.star_bands)
        elif kind == "trend":
            tables += trend_tables(store, options.include_excluded)
        elif kind == "smoke":
            tables += smoke_tables([dict(row) for row in store.smoke_runs()])
    return tables


def build_charts(tables: list[ReportTable], folder: Path) -> list[Chart]:
    """The charts of whichever label tables were built."""
    by_key = {t.key: t for t in tables}
    made: list[Chart] = []
    if "coverage" in by_key:
        made.append(draw.coverage_chart(by_key["coverage"], by_key["coverage_detail"], folder))
    if "hardware" in by_key:
        made.append(draw.hardware_chart(by_key["hardware"], folder))
    if "distribution" in by_key:
        made.append(
            draw.bars_chart(by_key["distribution"], folder, "Networks, frameworks and languages")
        )
        made.append(
            draw.bars_chart(
                by_key["distribution_detail"],
                folder,
                "Network types, frameworks, primary framework, domain",
            )
        )
    crosstabs = [by_key[k] for k in KIND_TABLES["crosstab"] if k in by_key]
    if crosstabs:
        made.append(draw.crosstab_chart(crosstabs, folder))
    if "trend" in by_key:
        made.append(trend_chart(by_key["trend"], folder))
    return made


def provenance(
    store: Store, frames: dict[str, pd.DataFrame], labels: LabelSet, options: ReportOptions
) -> dict[str, Any]:
    """The facts the index states about where the report's numbers came from."""
    from miner import __version__
    from miner.codebook import CODEBOOK_VERSION

    pop = Population.of(labels, options.include_excluded)
    return {
        "store": str(store.path),
        "labels": labels.source,
        "labels_origin": labels.origin,
        "labels_as_of": labels.as_of,
        "include_excluded": options.include_excluded,
        "miner_version": __version__,
        "codebook_version": CODEBOOK_VERSION,
        "repositories": {
            "in_store": len(frames["repos"]),
            "labelled": len(labels.frame),
            "counted": len(pop.frame),
            "left_out": pop.left_out,
        },
        "search": search_summary(frames["searches"]),
        "star_bands": list(options.star_bands),
    }


def write_report(store: Store, options: ReportOptions) -> ReportResult:
    """Build the requested tables, write each in every format, draw charts, update the index."""
    from miner.export import table_frame

    check_options(options)
    kinds = tuple(KIND_TABLES) if options.kind == "all" else (options.kind,)
    frames = {name: table_frame(store, name) for name in ("repos", "searches", "clones")}
    labels = load_labels(store, options.labels, options.consensus_path)
    warnings: list[str] = []
    if labels.frame.empty and any(k in LABEL_KINDS for k in kinds):
        what = (
            f"no audited repositories in {store.path}: run `miner analyze` first"
            if labels.source == "auto"
            else f"no repositories in {labels.origin}"
        )
        if options.kind != "all":
            raise MinerError(what)
        warnings.append(f"{what}; label tables skipped")
        kinds = tuple(k for k in kinds if k not in LABEL_KINDS)
    if "trend" in kinds and options.kind == "all" and not store.snapshot_rows():
        kinds = tuple(k for k in kinds if k != "trend")  # a study without snapshots
    if "trend" in kinds and labels.source != "auto":
        raise ConfigError(
            "the trend report reads the store's labels of each snapshot: use --labels auto"
        )
    if "smoke" in kinds and not store.smoke_runs():
        if options.kind != "all":
            raise MinerError(
                f"no smoke runs in {store.path}: run `miner select --smoke` or `miner smoke` first"
            )
        kinds = tuple(k for k in kinds if k != "smoke")  # a study need not smoke-test anything

    tables = build_tables(kinds, store, frames, labels, options)
    folder = options.output_dir
    files: list[Path] = []
    for table in tables:
        for fmt in options.formats:
            files.append(
                write_file(folder / f"{table.key}{FORMAT_SUFFIX[fmt]}", render(table, fmt))
            )
    charts = build_charts(tables, folder) if options.charts else []
    for chart in charts:
        files += [chart.png, chart.pdf]

    facts = provenance(store, frames, labels, options)
    entries, chart_entries = merge_entries(
        folder / "index.json",
        facts,
        [table_entry(t, options.formats) for t in tables],
        [chart_entry(c) for c in charts],
    )
    markdown = index_markdown(facts, entries, chart_entries)
    index_md = write_file(folder / "index.md", markdown)
    index_htm = write_file(folder / "index.html", index_html(markdown))
    files += [
        index_md,
        index_htm,
        write_file(folder / "index.json", index_json(facts, entries, chart_entries)),
    ]
    return ReportResult(
        tables=tuple(tables),
        charts=tuple(charts),
        files=tuple(files),
        index_md=index_md,
        index_html=index_htm,
        provenance=facts,
        warnings=tuple(warnings),
    )


def write_file(path: Path, text: str) -> Path:
    """Write `text` as UTF-8 with \\n line ends, atomically (a crash never leaves half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(f".{path.name}.partial")
    partial.write_text(text, encoding="utf-8", newline="\n")
    os.replace(partial, path)
    return path
