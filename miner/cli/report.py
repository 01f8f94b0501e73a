"""`miner report [KIND]`: the study's tables and charts, written to reports/ with an index."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from miner.cli import app
from miner.cli.common import DbOption, StudyOption, open_store, settings
from miner.errors import ConfigError
from miner.report.records import FORMATS, ReportOptions


class Kind(str, Enum):
    coverage = "coverage"
    distribution = "distribution"
    search = "search"
    hardware = "hardware"
    exclusions = "exclusions"
    crosstab = "crosstab"
    trend = "trend"
    smoke = "smoke"
    all = "all"


class Format(str, Enum):
    markdown = "markdown"
    csv = "csv"
    latex = "latex"
    json = "json"


class Labels(str, Enum):
    auto = "auto"
    consensus = "consensus"


def _bands(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(part) for part in text.split(",") if part.strip())
    except ValueError:
        raise ConfigError(
            f"--star-bands: {text!r} is not a comma-separated list of numbers"
        ) from None


@app.command("report")
def report(
    kind: Annotated[
        Kind,
        typer.Argument(
            help="coverage (Table X), distribution (Table II), search (Table I), hardware, "
            "exclusions, crosstab (with chi-square tests), trend (requirements over the dates "
            "of `miner clone --at/--every`), smoke (outcome per class of the smoke runs) or all."
        ),
    ] = Kind.all,
    labels: Annotated[
        Labels,
        typer.Option(help="auto: the store's labels; consensus: annotations/consensus.csv."),
    ] = Labels.auto,
    formats: Annotated[
        list[Format] | None,
        typer.Option("--format", "-f", help="Table format; repeat for several (default: all)."),
    ] = None,
    output_dir: Annotated[
        Path | None,
        typer.Option(
            "--output-dir",
            "-o",
            help="Folder for tables, charts and index.md.",
            show_default="reports/",
        ),
    ] = None,
    include_excluded: Annotated[
        bool,
        typer.Option("--include-excluded", help="Count projects with a non-empty `exclude` too."),
    ] = False,
    charts: Annotated[
        bool, typer.Option("--charts/--no-charts", help="Draw PNG and PDF charts.")
    ] = True,
    star_bands: Annotated[
        str,
        typer.Option("--star-bands", help="Lower bounds of the star bands in cross-tabulations."),
    ] = "0,100,500,1000,5000",
    consensus: Annotated[
        Path | None,
        typer.Option("--consensus", help="Consensus sheet (default: annotations/consensus.csv)."),
    ] = None,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Do not print the tables.")] = False,
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """Write the study's tables (Markdown, CSV, LaTeX, JSON), charts and reports/index.md.

    Tables count the store's auto labels, or with --labels consensus the annotators' consensus.
    The same store always gives byte-identical files.
    """
    from miner.report import write_report
    from miner.report.render import to_markdown

    config = settings(study, db)
    options = ReportOptions(
        kind=kind.value,
        labels=labels.value,
        formats=tuple(f.value for f in formats) if formats else FORMATS,
        output_dir=output_dir or config.reports,
        include_excluded=include_excluded,
        charts=charts,
        star_bands=_bands(star_bands),
        consensus_path=consensus or config.annotations / "consensus.csv",
    )
    with open_store(config) as store:
        result = write_report(store, options)
    for warning in result.warnings:
        typer.echo(f"Warning: {warning}", err=True)
    if not quiet and options.kind != "all":
        typer.echo("\n".join(to_markdown(t) for t in result.tables), nl=False)
    typer.echo(
        f"wrote {_count(len(result.tables), 'table')} in {_count(len(options.formats), 'format')}"
        f" and {_count(len(result.charts), 'chart')} to {options.output_dir};"
        f" index: {result.index_md}",
        err=True,
    )


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}" if n == 1 else f"{n} {noun}s"
