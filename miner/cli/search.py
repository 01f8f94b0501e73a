"""`miner search` (crawl GitHub into the store) and `miner searches` (the search log)."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.console import Console
from rich.table import Table

from miner.cli import app
from miner.cli.common import DbOption, StudyOption, is_tty, open_store, settings
from miner.config import DEFAULT_API_URL, Settings
from miner.procs import interruptible
from miner.search.crawl import (
    PageFetched,
    SearchFinished,
    SearchStarted,
    SearchSummary,
    SliceFinished,
    SliceStarted,
    StoreWaiting,
    run_search,
)
from miner.search.github import Waiting
from miner.search.slicing import IN_FIELDS, SearchFilters


class LineProgress:
    """Quiet progress for logs and pipes: one line per slice, wait and keyword, on stderr."""

    def __init__(self) -> None:
        self.pending: str | None = None

    def __call__(self, event: object) -> None:
        line = self.line(event)
        if isinstance(event, SearchStarted) and not event.complete:
            # Held back until GitHub answers, so a rejected token or query is the only line.
            self.pending = line
            return
        if self.pending and (line or isinstance(event, PageFetched)):
            typer.echo(self.pending, err=True)
            self.pending = None
        if line:
            typer.echo(line, err=True)

    @staticmethod
    def line(event: object) -> str | None:
        """The line for `event`, or None for events too frequent to print (pages, ticks)."""
        if isinstance(event, StoreWaiting):
            return event.message
        if isinstance(event, SearchStarted):
            if event.complete:
                return f"search {event.keyword!r}: already complete ({event.fetched:,} stored)"
            state = f"resuming, {event.fetched:,} stored so far" if event.resumed else "starting"
            return f"search {event.keyword!r}: {state} (q: {event.query})"
        if isinstance(event, SliceStarted) and event.pages_stored:
            return f"  slice {event.qualifier}: going on after page {event.pages_stored}"
        if isinstance(event, SliceFinished):
            if event.status == "split":
                total, children = event.total_count, event.children
                return f"  slice {event.qualifier}: {total:,} results, split in {children}"
            short = f", {event.shortfall:,} short" if event.shortfall else ""
            return f"  slice {event.qualifier}: {event.fetched:,} of {event.total_count:,}{short}"
        if isinstance(event, Waiting) and event.first_tick and event.seconds_total > 0:
            return f"  waiting {event.seconds_total:.0f} s: {event.reason}"
        if isinstance(event, SearchFinished):
            s = event.summary
            return (
                f"done {s.keyword!r}: {s.fetched:,} of {s.total_found:,} repositories, "
                f"{s.requests:,} requests, shortfall {s.shortfall:,}"
            )
        return None


class LiveProgress:
    """A rich display on a terminal: slices, pages and repositories per keyword; wait countdowns."""

    def __init__(self, console: Console) -> None:
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

        self.progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TextColumn("{task.fields[detail]}"),
            console=console,
            transient=False,
        )
        self.task: Any = None
        self.wait_task = self.progress.add_task("", total=1, visible=False, detail="")
        self.slices = self.pages = 0

    def __enter__(self) -> LiveProgress:
        self.progress.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.progress.stop()

    def __call__(self, event: object) -> None:
        progress = self.progress
        if isinstance(event, StoreWaiting):
            progress.console.print(event.message, highlight=False)
        elif isinstance(event, SearchStarted):
            self.slices = self.pages = 0
            self.task = progress.add_task(
                event.keyword, total=None, completed=event.fetched, detail="starting"
            )
        elif isinstance(event, SliceStarted):
            self.detail(f"slice {event.qualifier}")
        elif isinstance(event, PageFetched):
            self.pages += 1
            rate = "" if event.rate_remaining is None else f" · {event.rate_remaining} left"
            progress.update(self.task, total=event.total_found, completed=event.fetched)
            self.detail(f"{event.qualifier} p{event.page}{rate}")
        elif isinstance(event, SliceFinished):
            self.slices += event.status == "done"
        elif isinstance(event, Waiting):
            visible = event.seconds_left > 1 or event.seconds_total > 1
            progress.update(
                self.wait_task,
                description=f"waiting: {event.reason}",
                total=max(event.seconds_total, 1),
                completed=event.seconds_total - event.seconds_left,
                detail=f"{event.seconds_left:.0f} s left",
                visible=visible,
            )
        elif isinstance(event, SearchFinished):
            s = event.summary
            progress.update(self.task, total=max(s.fetched, 1), completed=s.fetched)
            self.detail(f"done: {s.slices} slices, {s.requests} requests")
        if not isinstance(event, Waiting):
            progress.update(self.wait_task, visible=False)

    def detail(self, text: str) -> None:
        """Update the keyword line's detail column."""
        if self.task is not None:
            detail = f"slices {self.slices} · pages {self.pages} · {text}"
            self.progress.update(self.task, detail=detail)


def _summary_table(summary: SearchSummary) -> Table:
    table = Table(title=None, show_edge=False)
    for name in ("keyword", "matches", "fetched", "new", "shortfall", "requests", "slices"):
        table.add_column(name, justify="left" if name == "keyword" else "right")
    table.add_column("status")
    for k in summary.keywords:
        status = k.status + (f" (run {k.runs})" if k.runs > 1 else "")
        table.add_row(
            k.keyword,
            f"{k.total_found:,}",
            f"{k.fetched:,}",
            f"{k.new:,}",
            f"{k.shortfall:,}",
            f"{k.requests:,}",
            f"{k.slices:,}",
            status,
        )
    return table


def _repo_count(config: Settings) -> int:
    if not config.db.exists():
        return 0
    with open_store(config) as store:
        return store.repo_count()


@app.command("search")
def search_command(
    keywords: Annotated[
        list[str],
        typer.Argument(
            help="Keyword(s), each searched separately, results merged. Words of a keyword must "
            "all match; for an exact phrase add inner quotes: '\"deep learning\"'.",
            metavar="KEYWORD",
            show_default=False,
        ),
    ],
    min_stars: Annotated[
        int, typer.Option("--min-stars", min=0, help="Only repositories with at least N stars.")
    ] = 0,
    max_stars: Annotated[
        int | None,
        typer.Option("--max-stars", min=0, help="Only repositories with at most N stars."),
    ] = None,
    created_after: Annotated[
        str | None,
        typer.Option(
            "--created-after", help="Created on or after DATE (YYYY-MM-DD).", metavar="DATE"
        ),
    ] = None,
    created_before: Annotated[
        str | None,
        typer.Option(
            "--created-before",
            help="Created up to and including DATE: the study's time frame.",
            metavar="DATE",
        ),
    ] = None,
    pushed_after: Annotated[
        str | None,
        typer.Option("--pushed-after", help="Pushed to on or after DATE.", metavar="DATE"),
    ] = None,
    language: Annotated[
        str | None, typer.Option("--language", help="GitHub's primary language, e.g. Python.")
    ] = None,
    in_fields: Annotated[
        str | None,
        typer.Option(
            "--in",
            help=f"Where keywords must appear, comma-separated from {','.join(IN_FIELDS)} "
            "(GitHub's default: name, description, topics).",
            metavar="FIELDS",
        ),
    ] = None,
    include_forks: Annotated[
        bool, typer.Option("--include-forks", help="Include forks (left out by default).")
    ] = False,
    refresh: Annotated[
        bool,
        typer.Option(
            "--refresh", help="Search again even if a search with these arguments is complete."
        ),
    ] = False,
    token: Annotated[
        str | None,
        typer.Option(
            "--token",
            envvar="GITHUB_TOKEN",
            help="GitHub token (default: env GITHUB_TOKEN); never stored, logged or printed.",
            show_default=False,
        ),
    ] = None,
    api_url: Annotated[
        str | None,
        typer.Option(
            "--api-url",
            envvar="MINER_API_URL",
            help=f"GitHub API root (default: {DEFAULT_API_URL}; "
            "GitHub Enterprise: https://HOST/api/v3).",
            show_default=False,
        ),
    ] = None,
    wait: Annotated[
        bool,
        typer.Option("--wait", help="If another search holds the store, wait for it to finish."),
    ] = False,
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """Find every repository matching the keywords, past GitHub's 1,000-result cap.

    Results go to the store; re-running the same command resumes an interrupted search.
    """
    filters = SearchFilters(
        min_stars=min_stars,
        max_stars=max_stars,
        created_after=created_after,
        created_before=created_before,
        pushed_after=pushed_after,
        language=language,
        in_fields=tuple(f.strip().lower() for f in (in_fields or "").split(",") if f.strip()),
        include_forks=include_forks,
    )
    config = settings(study, db, api_url=api_url, token=token)
    tty = is_tty()
    before = _repo_count(config)
    try:
        with interruptible():
            if tty:
                with LiveProgress(Console(stderr=True)) as live:
                    summary = run_search(
                        config, keywords, filters, on_event=live, refresh=refresh, wait=wait
                    )
            else:
                summary = run_search(
                    config, keywords, filters, on_event=LineProgress(), refresh=refresh, wait=wait
                )
    except KeyboardInterrupt:
        after = _repo_count(config)
        typer.echo(
            f"interrupted: {after - before:,} new repositories stored by this run ({after:,} in"
            " the store); run the same command to resume",
            err=True,
        )
        raise typer.Exit(130) from None
    console = Console(width=None if tty else 120, force_terminal=tty)
    console.print(_summary_table(summary))
    console.print(
        f"{summary.unique_repos:,} unique repositories over {len(summary.keywords)} keyword(s), "
        f"{summary.requests:,} search requests; store: {config.db}"
    )


@app.command("searches")
def searches_command(study: StudyOption = None, db: DbOption = None) -> None:
    """List the search log: one line per keyword search, with its counts and time frame."""
    config = settings(study, db)
    with open_store(config) as store:
        rows = store.searches()
    table = Table(show_edge=False)
    columns = ("id", "keyword", "stars", "created", "matches", "fetched", "shortfall", "requests")
    for name in (*columns, "status", "started", "finished"):
        table.add_column(name, justify="right" if name in columns[4:] or name == "id" else "left")
    for r in rows:
        stars = (
            f">={r['min_stars']}"
            if r["max_stars"] is None
            else f"{r['min_stars']}..{r['max_stars']}"
        )
        created = f"{r['created_after'] or '*'}..{r['created_before'] or '*'}"
        table.add_row(
            str(r["id"]),
            r["keyword"],
            stars,
            created,
            f"{r['total_found'] or 0:,}",
            f"{r['fetched']:,}",
            f"{r['shortfall']:,}",
            f"{r['requests']:,}",
            r["status"],
            r["started_at"],
            r["finished_at"] or "",
        )
    tty = is_tty()
    Console(width=None if tty else 160, force_terminal=tty).print(table)
