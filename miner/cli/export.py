"""`miner export TABLE`: stored repositories, clones, labels or searches as CSV/JSON/Parquet."""

from __future__ import annotations

import sys
from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from miner.cli import app
from miner.cli.common import DbOption, StudyOption, open_store, settings
from miner.export import export_table


class Table(str, Enum):
    repos = "repos"
    clones = "clones"
    labels = "labels"
    searches = "searches"


class Format(str, Enum):
    csv = "csv"
    json = "json"
    parquet = "parquet"


@app.command("export")
def export(
    table: Annotated[Table, typer.Argument(help="What to export.")],
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format.")] = Format.csv,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write to FILE instead of stdout.")
    ] = None,
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """Export a stored table, one row per repository, with the store's column names."""
    config = settings(study, db)
    with open_store(config) as store:
        result = export_table(store, table.value, fmt.value, output)
    if isinstance(result, bytes):
        sys.stdout.buffer.write(result)
        sys.stdout.flush()
    else:
        typer.echo(f"wrote {result} rows to {output}", err=True)
