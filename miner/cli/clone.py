"""`miner clone`: partial clones of every stored candidate, pinned to a commit."""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable
from typing import TYPE_CHECKING, Annotated

import typer

from miner.cli import app
from miner.cli.common import DbOption, StudyOption, is_tty, open_store, settings

if TYPE_CHECKING:
    from miner.clone import CloneEvent, CloneOptions, CloneSummary
    from miner.clone.snapshots import SnapshotEvent
    from miner.config import Settings
    from miner.models import CloneResult
    from miner.store import Store

STYLES = {"cloned": "green", "skipped": "dim", "failed": "red"}
CLONE_HELP = (
    "Clone every stored repository that is not a fork, archived or disabled.\n\n"
    "Clones are partial and shallow: files larger than --max-blob are never downloaded, hooks "
    "never run, LFS files and submodules are never fetched and no credentials are prompted for. "
    "Each checkout goes to data/repos/OWNER/NAME; its commit, date, bytes and status go to the "
    "store (see `miner export clones`). Re-running skips current checkouts and redoes failed or "
    "half-written ones. A GITHUB_TOKEN, if set, is sent as an HTTPS header and never stored.\n\n"
    "With --at DATE (repeatable) or --every STEP --since DATE, each repository is snapshotted "
    "at every date instead: its commit history is fetched once, commits only, each date "
    "resolves to the last commit before it, and each distinct commit is checked out once into "
    "data/repos/OWNER/NAME@SHA. `miner analyze` audits them; `miner report trend` compares them."
)


def result_line(result: CloneResult) -> str:
    """One repository's outcome as one line of plain text."""
    from miner.clone import human_bytes

    head = f"{result.status:<8} {result.full_name}"
    if result.status == "failed":
        return f"{head}  {result.error_class}: {result.error}"
    detail = f"{head}  {(result.commit_sha or '')[:10]}  {(result.commit_date or '')[:10]}"
    if result.status == "skipped":
        return f"{detail}  (checkout already current)"
    return (
        f"{detail}  {human_bytes(result.bytes_received)} received, "
        f"{human_bytes(result.bytes_on_disk)} on disk, {result.seconds:.1f} s"
    )


@app.command("clone", help=CLONE_HELP)
def clone(
    workers: Annotated[
        int, typer.Option("--workers", "-w", help="Repositories cloned at the same time.")
    ] = 8,
    as_of: Annotated[
        str | None,
        typer.Option(
            "--as-of",
            metavar="DATE",
            help="Pin each repository to the last commit on its default branch before DATE "
            "(YYYY-MM-DD is midnight UTC; an ISO 8601 time also works). Default: the branch tip.",
        ),
    ] = None,
    max_blob: Annotated[
        str,
        typer.Option(
            "--max-blob",
            metavar="SIZE",
            help="Never download files larger than SIZE (e.g. 1M, 500k): weights and data "
            "sets stay on GitHub and are absent from the checkout.",
        ),
    ] = "1M",
    max_size: Annotated[
        str,
        typer.Option(
            "--max-size",
            metavar="SIZE",
            help="Give up on a repository (too_large) once more than SIZE has been received.",
        ),
    ] = "1G",
    only: Annotated[
        list[str] | None,
        typer.Option(
            "--only",
            metavar="OWNER/NAME",
            help="Clone only these stored repositories (repeat, or separate with commas).",
        ),
    ] = None,
    refresh: Annotated[
        bool,
        typer.Option(
            "--refresh", help="Update checkouts whose branch has moved (re-resolve --as-of)."
        ),
    ] = False,
    timeout: Annotated[
        float,
        typer.Option("--timeout", metavar="SECONDS", help="Time limit for each repository."),
    ] = 600.0,
    at: Annotated[
        list[str] | None,
        typer.Option(
            "--at",
            metavar="DATE",
            help="Snapshot each repository at DATE too (repeatable): the last commit before "
            "each date, one history fetch per repository, for `miner report trend`.",
        ),
    ] = None,
    every: Annotated[
        str | None,
        typer.Option(
            "--every", metavar="STEP", help="Snapshot every STEP (1y, 6m, 2w, 30d) from --since."
        ),
    ] = None,
    since: Annotated[
        str | None,
        typer.Option("--since", metavar="DATE", help="First snapshot date (2018 = 2018-01-01)."),
    ] = None,
    until: Annotated[
        str | None,
        typer.Option("--until", metavar="DATE", help="Last snapshot date (default: today)."),
    ] = None,
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """Clone every stored candidate (see CLONE_HELP)."""
    from miner.clone import CloneOptions, clone_all, parse_as_of, parse_size
    from miner.errors import ConfigError

    config = settings(study, db)
    snapshots = bool(at or every or since or until)
    if snapshots and as_of is not None:
        raise ConfigError("--as-of pins one commit; with snapshots give every date as --at")
    names = tuple(n.strip() for value in only or () for n in value.split(",") if n.strip())
    options = CloneOptions(
        root=config.repos,
        workers=workers,
        as_of=None if as_of is None else parse_as_of(as_of),
        max_blob=parse_size(max_blob, "--max-blob"),
        max_size=parse_size(max_size, "--max-size"),
        timeout=timeout,
        refresh=refresh,
        only=names,
        token=config.token,
    )
    if snapshots:
        _snapshot(config, options, tuple(at or ()), every, since, until)
        return
    from miner.procs import interruptible

    tally: Counter[str] = Counter()

    def counted(handler: Callable[[CloneEvent], None]) -> Callable[[CloneEvent], None]:
        def count(event: CloneEvent) -> None:
            if event.kind == "done" and event.result is not None:
                tally[event.result.status] += 1
            handler(event)

        return count

    with open_store(config) as store:
        try:
            with interruptible():
                if is_tty():
                    summary = _clone_with_progress(store, options, counted)
                else:
                    summary = clone_all(store, options, counted(_print_line))
        except KeyboardInterrupt:
            done = ", ".join(f"{n} {status}" for status, n in sorted(tally.items())) or "none"
            typer.echo(
                f"interrupted: {sum(tally.values())} repositories done by this run ({done}), all"
                " stored; run `miner clone` again to resume",
                err=True,
            )
            raise typer.Exit(130) from None
    typer.echo(summary.line())


def _snapshot(
    config: Settings,
    options: CloneOptions,
    at: tuple[str, ...],
    every: str | None,
    since: str | None,
    until: str | None,
) -> None:
    from miner.clone.snapshots import snapshot_all, snapshot_dates

    dates = snapshot_dates(at, every, since, until)
    typer.echo(f"{len(dates)} dates: {', '.join(d.date().isoformat() for d in dates)}")

    def show(event: SnapshotEvent) -> None:
        if event.kind == "elsewhere":
            typer.echo(f"{event.done}/{event.total} {event.full_name}  (taken by another run)")
        if event.kind == "done":
            cells = [
                f"{r['as_of'][:10]}={(r.get('commit_sha') or r['status'])[:10]}" for r in event.rows
            ]
            typer.echo(f"{event.done}/{event.total} {event.full_name}  {' '.join(cells)}")

    with open_store(config) as store:
        try:
            summary = snapshot_all(store, options, dates, show)
        except KeyboardInterrupt:
            done = store.query("SELECT COUNT(DISTINCT repo_id) FROM snapshots")[0][0]
            typer.echo(
                f"interrupted: snapshots of {done} repositories stored; run the same command "
                "again to resume",
                err=True,
            )
            raise typer.Exit(130) from None
    typer.echo(summary.line())


def _print_line(event: CloneEvent) -> None:
    if event.kind == "done" and event.result is not None:
        typer.echo(result_line(event.result))
    elif event.kind == "elsewhere":
        typer.echo(f"{'elsewhere':<8} {event.full_name}  (another run on this store has it)")


def _clone_with_progress(
    store: Store,
    options: CloneOptions,
    counted: Callable[[Callable[[CloneEvent], None]], Callable[[CloneEvent], None]],
) -> CloneSummary:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn
    from rich.text import Text

    from miner.clone import clone_all

    console = Console()
    running: list[str] = []
    with Progress(
        TextColumn("cloning"),
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        TextColumn("{task.fields[running]}", markup=False),
        console=console,
        transient=True,
    ) as progress:
        task = progress.add_task("clone", total=None, running="")

        def show(event: CloneEvent) -> None:
            if event.kind == "plan":
                progress.update(task, total=event.total)
            elif event.kind == "start" and event.full_name:
                running.append(event.full_name)
            elif event.kind == "elsewhere":
                progress.update(task, completed=event.done)
            elif event.kind == "done" and event.result is not None:
                if event.full_name in running:
                    running.remove(event.full_name)
                style = STYLES.get(event.result.status, "")
                progress.console.print(Text(result_line(event.result), style=style))
                progress.update(task, completed=event.done)
            label = ", ".join(running[:3]) + (f" +{len(running) - 3}" if len(running) > 3 else "")
            progress.update(task, running=label)

        return clone_all(store, options, counted(show))
