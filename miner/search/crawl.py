"""`miner search`: every repository matching a keyword, past GitHub's 1,000-result cap, resumably.

Each keyword is one logged search, mined slice by slice (see miner.search.slicing). Every page is
stored with its provenance and with how far its slice's reading got (query, order, page number)
in one transaction, and a slice is marked done only once mined, so a crawl killed at any moment
skips its completed slices and goes on after the last stored page of the one it was reading,
with nothing lost or duplicated.
"""

from __future__ import annotations

import hashlib
import json
import math
import shlex
from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from miner.errors import ConfigError
from miner.models import SliceReading
from miner.search.events import (
    KeywordSummary,
    PageFetched,
    SearchFinished,
    SearchStarted,
    SearchSummary,
    SliceFinished,
    SliceStarted,
    StoreWaiting,
)
from miner.search.github import PER_PAGE, RESULT_CAP, GitHubClient, SearchPage, public_url
from miner.search.slicing import (
    UTC,
    SearchFilters,
    Slice,
    parse_when,
    split_by_date,
    split_by_stars,
)

if TYPE_CHECKING:
    import sqlite3

    from miner.config import Settings
    from miner.store import Store

EventHandler = Callable[[object], None]
ORDER = "asc"  # by stars, fewest first: the crawl moves up the star range (miner.search.slicing)
__all__ = [
    "KeywordSummary",
    "PageFetched",
    "SearchFinished",
    "SearchStarted",
    "SearchSummary",
    "SliceFinished",
    "SliceStarted",
    "StoreWaiting",
    "run_search",
    "search",
]


def now_iso() -> str:
    """The current UTC time, to the second."""
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def query_key(keyword: str, filters: SearchFilters, api_url: str) -> str:
    """The resume key: the same keyword, filters and API always continue the same search."""
    payload = {"keyword": keyword, "filters": filters.as_params(), "api": public_url(api_url)}
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode()).hexdigest()


def _slice_of(row: sqlite3.Row) -> Slice:
    return Slice(
        row["stars_lo"], row["stars_hi"], row["created_lo"], row["created_hi"], row["kind"]
    )


def _keywords(keywords: Sequence[str]) -> list[str]:
    """Keywords in order, blanks refused, repeats (GitHub ignores case) dropped."""
    seen: set[str] = set()
    kept = []
    for keyword in keywords:
        keyword = " ".join(keyword.split())
        if not keyword:
            raise ConfigError("a keyword is empty")
        if keyword.casefold() not in seen:
            seen.add(keyword.casefold())
            kept.append(keyword)
    if not kept:
        raise ConfigError("give at least one keyword")
    return kept


class _Crawl:
    """Mines the pending slices of one search until none is left."""

    def __init__(
        self,
        store: Store,
        client: GitHubClient,
        keyword: str,
        filters: SearchFilters,
        row: sqlite3.Row,
        emit: EventHandler,
    ) -> None:
        self.store = store
        self.client = client
        self.keyword = keyword
        self.filters = filters
        self.search_id = int(row["id"])
        self.as_of = parse_when(row["started_at"])
        self.total_found: int | None = row["total_found"]
        self.fetched = store.fetched_for(self.search_id)
        self.emit = emit
        # The pages still to come of the slice's current reading; None until one is asked for.
        self.source: Iterator[SearchPage] | None = None

    def run(self) -> None:
        """Mine slices, newest pending first, until the search is complete; then check its total."""
        while (row := self.store.next_slice(self.search_id)) is not None:
            self.mine(_slice_of(row))
        if self.store.slice_counts(self.search_id)["split"]:
            self.final_check()

    def final_check(self) -> None:
        """Ask for the whole search's total once more: what GitHub counts now but the store lacks
        (stars drift while a crawl runs) is logged as shortfall rather than lost silently."""
        root = self.filters.root()
        page = next(self.client.search_pages(root.query(self.keyword, self.filters), ORDER))
        self._save(root, page, None, final=True)
        self.store.set_total_end(self.search_id, page.total_count)

    def _save(
        self, piece: Slice, page: SearchPage, reading: SliceReading | None, final: bool = False
    ) -> None:
        first = piece.kind == "root" and page.number == 1 and not final
        root_total = page.total_count if first else None
        if root_total is not None:
            self.total_found = root_total
        new = self.store.save_page(
            self.search_id,
            self.keyword,
            piece.qualifier,
            page.repos,
            requests=page.requests,
            now=now_iso(),
            total_found=root_total,
            reading=reading,
        )
        self.fetched += new
        rate = page.rate.remaining if page.rate else None
        self.emit(
            PageFetched(
                self.keyword,
                piece.qualifier,
                page.number,
                page.total_count,
                len(page.repos),
                new,
                self.fetched,
                self.total_found,
                rate,
            )
        )

    def _store(
        self, piece: Slice, page: SearchPage, previous: SliceReading | None, pass_no: int
    ) -> SliceReading:
        """Store a page of the slice's reading, with how far that reading now got."""
        reading = _advance(previous, piece.query(self.keyword, self.filters), pass_no, page)
        self._save(piece, page, reading)
        return reading

    def _read(self, piece: Slice, pass_no: int) -> SliceReading:
        """Start a reading of the slice's query: ask for its first page and store it."""
        self.source = self.client.search_pages(piece.query(self.keyword, self.filters), ORDER)
        return self._store(piece, next(self.source), None, pass_no)

    def _read_on(self, piece: Slice, reading: SliceReading) -> SliceReading:
        """Store pages until the slice's results (to the cap) are read. A reading stored by an
        earlier run goes on from the page after its last one: GitHub numbers the pages of a query
        in one order, and what moved between the pages (stars drift) is caught as for pages read
        in one run, by comparing the stored count with the total."""
        while reading.more:
            if self.source is None:
                self.source = self.client.search_pages(reading.query, ORDER, reading.pages + 1)
            page = next(self.source, None)
            if page is None:
                break
            reading = self._store(piece, page, reading, reading.pass_no)
        return reading

    def _stored_reading(self, piece: Slice) -> SliceReading | None:
        """The reading an earlier run stored of this slice, if it asked the same query."""
        reading = self.store.slice_reading(self.search_id, piece.qualifier)
        query = piece.query(self.keyword, self.filters)
        if reading is None or (reading.query, reading.order) != (query, ORDER):
            return None  # no page stored, or stored for another query: the slice starts over
        return reading

    def mine(self, piece: Slice) -> None:
        """Mine one slice: read its total, then fetch it, split it, or mine it to the cap. A slice
        an earlier run left part-read goes on after its last stored page."""
        self.source = None
        reading = self._stored_reading(piece)
        stored = reading.pages if reading else 0
        self.emit(SliceStarted(self.keyword, piece.qualifier, piece.kind, stored))
        if reading is None:
            reading = self._read(piece, pass_no=1)
        total = reading.total
        if total > RESULT_CAP:
            self._split(piece, reading)
            return
        known = self.store.known_in_slice(self.search_id, piece)
        # A "mined" slice was fetched by its parent's query: its first page only checks the total.
        probes = int(
            known >= total and piece.kind == "mined" and (reading.pass_no, reading.pages) == (1, 1)
        )
        if known < total:
            reading = self._read_on(piece, reading)
            total = reading.total
            known = self.store.known_in_slice(self.search_id, piece)
        if known < total and reading.pass_no == 1:
            # Short of the total (results moved while paging): ask for the slice once more.
            reading = self._read_on(piece, self._read(piece, pass_no=2))
            total = reading.total
            known = self.store.known_in_slice(self.search_id, piece)
        self._finish(piece, "done", total, max(0, total - known), probes=probes)

    def _split(self, piece: Slice, reading: SliceReading) -> None:
        total = reading.total
        first = reading.first_stars
        if piece.star_splittable and first is not None:
            reading = self._read_on(piece, reading)
            tail = first if reading.last_stars is None else reading.last_stars
            children = split_by_stars(piece, first, tail)
            self._finish(piece, "split", total, 0, children=children)
            return
        halves = split_by_date(piece, self.as_of)
        if halves is not None:
            self._finish(piece, "split", total, 0, children=halves, probes=1)
            return
        # One star count, one second: nothing narrower exists. Mine to the cap, log the rest.
        reading = self._read_on(piece, reading)
        known = self.store.known_in_slice(self.search_id, piece)
        self._finish(piece, "done", reading.total, max(0, reading.total - known))

    def _finish(
        self,
        piece: Slice,
        status: str,
        total: int,
        shortfall: int,
        *,
        children: Sequence[Slice] = (),
        probes: int = 0,
    ) -> None:
        self.store.finish_slice(
            self.search_id,
            piece,
            status=status,
            total_count=total,
            shortfall=shortfall,
            now=now_iso(),
            children=children,
            probes=probes,
        )
        fetched = self.store.known_in_slice(self.search_id, piece)
        self.emit(
            SliceFinished(
                self.keyword, piece.qualifier, status, total, fetched, shortfall, len(children)
            )
        )


def _read_all(page: SearchPage) -> bool:
    """True when `page` is the last one worth asking for: never a request past the total or the
    cap (GitHub's Link header is followed, but not trusted to stop there)."""
    wanted = min(page.total_count, RESULT_CAP)
    return (
        page.next_url is None
        or page.number * PER_PAGE >= wanted
        or page.number >= math.ceil(RESULT_CAP / PER_PAGE)
    )


def _advance(
    previous: SliceReading | None, query: str, pass_no: int, page: SearchPage
) -> SliceReading:
    """The reading after `page` is stored: page 1 starts a reading, later pages go on from
    `previous`; a page without results keeps the star counts seen before it."""
    stars = [r.stars for r in page.repos]
    first_stars = last_stars = None
    if page.number > 1 and previous is not None:
        first_stars, last_stars = previous.first_stars, previous.last_stars
    elif stars:
        first_stars = min(stars)
    return SliceReading(
        query=query,
        order=ORDER,
        pass_no=pass_no,
        pages=page.number,
        more=not _read_all(page),
        total=page.total_count,
        first_stars=first_stars,
        last_stars=stars[-1] if stars else last_stars,
    )


def _summary(row: sqlite3.Row, new: int, resumed: bool) -> KeywordSummary:
    return KeywordSummary(
        keyword=row["keyword"],
        search_id=int(row["id"]),
        query=row["query"],
        total_found=int(row["total_found"] or 0),
        fetched=int(row["fetched"]),
        new=new,
        shortfall=int(row["shortfall"]),
        requests=int(row["requests"]),
        probes=int(row["probes"]),
        slices=int(row["slices"]),
        runs=int(row["runs"]),
        status=row["status"],
        resumed=resumed,
        started_at=row["started_at"],
        finished_at=row["finished_at"],
    )


def _open_search(
    store: Store, client: GitHubClient, keyword: str, filters: SearchFilters, refresh: bool
) -> tuple[sqlite3.Row, bool]:
    """The search to continue (True) or a newly logged one (False)."""
    key = query_key(keyword, filters, client.api_url)
    row = store.latest_search(key)
    if row is not None and (row["status"] != "done" or not refresh):
        if row["status"] != "done":
            store.resume_search(int(row["id"]))
        return store.search_row(int(row["id"])), True
    root = filters.root()
    values: dict[str, Any] = {
        "query_key": key,
        "keyword": keyword,
        "query": root.query(keyword, filters),
        "params": json.dumps(filters.as_params(), sort_keys=True),
        "api_url": client.api_url,
        "min_stars": filters.min_stars,
        "max_stars": filters.max_stars,
        "created_after": filters.created_after,
        "created_before": filters.created_before,
        "pushed_after": filters.pushed_after,
        "language": filters.language,
        "in_fields": ",".join(filters.in_fields) or None,
        "include_forks": int(filters.include_forks),
        "started_at": now_iso(),
    }
    return store.search_row(store.start_search(values, root)), False


def search(
    store: Store,
    client: GitHubClient,
    keywords: Sequence[str],
    filters: SearchFilters,
    *,
    on_event: EventHandler | None = None,
    refresh: bool = False,
) -> SearchSummary:
    """Mine every repository matching each keyword into the store; resumes unfinished searches
    with the same arguments, and with `refresh` starts completed ones over."""
    emit: EventHandler = on_event or (lambda event: None)
    summaries: list[KeywordSummary] = []
    for keyword in _keywords(keywords):
        row, existed = _open_search(store, client, keyword, filters, refresh)
        search_id = int(row["id"])
        complete = row["status"] == "done"
        resumed = existed and not complete
        emit(SearchStarted(keyword, search_id, row["query"], resumed, complete, row["fetched"]))
        if not complete:
            _Crawl(store, client, keyword, filters, row, emit).run()
            store.finish_search(search_id, now_iso())
        earlier = [s.search_id for s in summaries]
        summary = _summary(
            store.search_row(search_id), store.new_repos(search_id, earlier), resumed
        )
        summaries.append(summary)
        emit(SearchFinished(summary))
    unique = store.unique_repos([s.search_id for s in summaries])
    return SearchSummary(tuple(summaries), unique)


def run_search(
    config: Settings,
    keywords: Sequence[str],
    filters: SearchFilters,
    *,
    on_event: EventHandler | None = None,
    refresh: bool = False,
    wait: bool = False,
) -> SearchSummary:
    """`miner search`: open the study's store and GitHub (config.api_url, config.token), search.

    One search at a time per store: while another holds it, wait (`wait`, announced by a
    StoreWaiting event) or raise StoreBusy naming the holder."""
    from miner.store import Store
    from miner.store.claims import StageLock

    keywords = _keywords(keywords)
    emit: EventHandler = on_event or (lambda event: None)
    with Store(config.db) as store:
        lock = StageLock(store, "search", "miner search " + shlex.join(keywords))
        lock.acquire(wait, on_wait=lambda text: emit(StoreWaiting(text)))
        try:
            with GitHubClient(config.api_url, config.token, on_event=on_event) as client:
                return search(store, client, keywords, filters, on_event=on_event, refresh=refresh)
        finally:
            lock.release()
