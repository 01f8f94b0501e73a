"""`miner audit PATH` (one folder, offline) and `miner analyze` (every stored clone)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from enum import Enum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from miner.cli import app
from miner.cli.common import DbOption, StudyOption, is_tty, open_store, settings
from miner.models import AuditResult

if TYPE_CHECKING:
    from miner.audit import AnalyzeEvent


class AuditFormat(str, Enum):
    text = "text"
    json = "json"


def _render_text(result: AuditResult, all_evidence: bool) -> None:
    from rich.console import Console
    from rich.table import Table

    from miner.codebook import FIELD_NAMES, format_value

    console = Console(soft_wrap=not is_tty())
    table = Table(title=f"miner audit {result.path}", show_lines=False, expand=False)
    table.add_column("field", style="bold")
    table.add_column("value")
    table.add_column("evidence (file:line  rule  text)", overflow="fold")
    for name in FIELD_NAMES:
        label = result.labels.get(name)
        if label is None:
            table.add_row(name, "[red]not labelled[/red]", "")
            continue
        shown = label.evidence if all_evidence else label.evidence[:2]
        lines = [f"{e.path}:{e.line}  {e.rule}  {e.text.strip()[:160]}" for e in shown]
        if len(label.evidence) > len(shown):
            lines.append(f"... {len(label.evidence) - len(shown)} more (--all-evidence)")
        table.add_row(name, format_value(label.value) or "-", "\n".join(lines))
    console.print(table)
    for warning in result.warnings:
        console.print(f"[yellow]warning:[/yellow] {warning}", highlight=False)


@app.command("audit")
def audit_command(
    path: Annotated[
        Path, typer.Argument(help="A local checkout or any folder (no .git needed).", exists=True)
    ],
    fmt: Annotated[
        AuditFormat, typer.Option("--format", "-f", help="text (a table) or json.")
    ] = AuditFormat.text,
    all_evidence: Annotated[
        bool, typer.Option("--all-evidence", help="Show every piece of evidence in text output.")
    ] = False,
) -> None:
    """Audit one folder: every codebook field with the file, line, text and rule behind it."""
    from miner.audit import audit

    result = audit(path)
    if fmt is AuditFormat.json:
        typer.echo(json.dumps(result.as_dict(), indent=2, ensure_ascii=False, default=str))
    else:
        _render_text(result, all_evidence)


@app.command("analyze")
def analyze_command(
    workers: Annotated[
        int, typer.Option("--workers", "-w", min=1, help="Parallel audit processes.")
    ] = 2,
    refresh: Annotated[
        bool, typer.Option("--refresh", help="Audit again commits that were already audited.")
    ] = False,
    dask: Annotated[
        str | None,
        typer.Option(
            "--dask",
            metavar="ADDRESS",
            help="Clone and audit on a Dask cluster instead: a scheduler address "
            "(tcp://host:8786) or local:N for N local worker processes. Each repository is one "
            "task (clone at the pinned commit into the worker's scratch, audit, delete); only "
            "this process writes the store. Needs no `miner clone` first.",
        ),
    ] = None,
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            metavar="DATE",
            help="With --dask: pin uncloned repositories "
            "to the last commit before DATE (as `miner clone --as-of`).",
        ),
    ] = None,
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """Audit every cloned repository and store its labels and evidence (resumable).

    Runs started at the same time on one store share the work: each repository is audited once.
    """
    from miner.audit import analyze
    from miner.procs import interruptible

    config = settings(study, db)
    counts = {"audited": 0, "skipped": 0, "failed": 0, "elsewhere": 0}
    try:
        with interruptible(), open_store(config) as store:
            if dask:
                from miner.audit.cluster import analyze_on_dask
                from miner.clone import CloneOptions, parse_as_of

                options = CloneOptions(
                    root=config.repos,
                    as_of=None if as_of is None else parse_as_of(as_of),
                    token=config.token,
                )
                events = analyze_on_dask(store, dask, options, refresh=refresh)
            else:
                events = analyze(store, workers=workers, refresh=refresh)
            if is_tty():
                _analyze_with_progress(events, counts)
            else:
                for event in events:
                    _count(counts, event)
                    if event.status == "skipped":
                        typer.echo(f"skipped {event.done} already audited")
                        continue
                    suffix = f": {event.error}" if event.error else ""
                    typer.echo(
                        f"[{event.done}/{event.total}] {event.status} {event.full_name}{suffix}"
                    )
    except KeyboardInterrupt:
        typer.echo(
            f"interrupted: {_counts_line(counts)}, all stored; run `miner analyze` again to resume",
            err=True,
        )
        raise typer.Exit(130) from None
    typer.echo(_counts_line(counts))


def _count(counts: dict[str, int], event: AnalyzeEvent) -> None:
    if event.status == "skipped":
        counts["skipped"] = event.done
    else:
        counts[event.status] += 1


def _counts_line(counts: dict[str, int]) -> str:
    line = f"audited {counts['audited']}, skipped {counts['skipped']}, failed {counts['failed']}"
    if counts["elsewhere"]:
        line += f", {counts['elsewhere']} by another run"
    return line


def _analyze_with_progress(events: Iterator[AnalyzeEvent], counts: dict[str, int]) -> None:
    from rich.progress import Progress

    with Progress() as progress:
        task = progress.add_task("analyzing", total=None)
        for event in events:
            progress.update(task, total=event.total, completed=event.done)
            _count(counts, event)
            if event.status == "failed":
                progress.console.print(f"[red]failed[/red] {event.full_name}: {event.error}")
