"""`miner search`: every repository matching a keyword, past GitHub's 1,000-result cap, resumably.

Each keyword is one logged search, mined slice by slice (see miner.search.slicing). Every page is
stored with its provenance in one transaction and a slice is marked done only once mined, so a crawl
killed at any moment resumes from its completed slices with nothing lost or duplicated.
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
        page = next(self.client.search_pages(root.query(self.keyword, self.filters)))
        self._store(root, page, final=True)
        self.store.set_total_end(self.search_id, page.total_count)

    def _store(self, piece: Slice, page: SearchPage, final: bool = False) -> None:
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

    def _pages(self, piece: Slice, pages: Iterator[SearchPage], last: SearchPage) -> SearchPage:
        """Store pages until the slice's results (to the cap) are read; returns the last page."""
        while not _read_all(last):
            following = next(pages, None)
            if following is None:
                break
            self._store(piece, following)
            last = following
        return last

    def mine(self, piece: Slice) -> None:
        """Mine one slice: read its total, then fetch it, split it, or mine it to the cap."""
        self.emit(SliceStarted(self.keyword, piece.qualifier, piece.kind))
        query = piece.query(self.keyword, self.filters)
        pages = self.client.search_pages(query)
        first = next(pages)
        self._store(piece, first)
        total = first.total_count
        if total > RESULT_CAP:
            self._split(piece, pages, first)
            return
        known = self.store.known_in_slice(self.search_id, piece)
        # A "mined" slice was fetched by its parent's query: its first page only checks the total.
        probes = int(known >= total and piece.kind == "mined")
        if known < total:
            total = self._pages(piece, pages, first).total_count
            known = self.store.known_in_slice(self.search_id, piece)
        if known < total:
            # Short of the total (results moved while paging): ask for the slice once more.
            again = self.client.search_pages(query)
            first_again = next(again)
            self._store(piece, first_again)
            total = self._pages(piece, again, first_again).total_count
            known = self.store.known_in_slice(self.search_id, piece)
        self._finish(piece, "done", total, max(0, total - known), probes=probes)

    def _split(self, piece: Slice, pages: Iterator[SearchPage], first: SearchPage) -> None:
        total = first.total_count
        if piece.star_splittable and first.repos:
            last = self._pages(piece, pages, first)
            tail = last.repos[-1] if last.repos else first.repos[-1]
            children = split_by_stars(piece, min(r.stars for r in first.repos), tail.stars)
            self._finish(piece, "split", total, 0, children=children)
            return
        halves = split_by_date(piece, self.as_of)
        if halves is not None:
            self._finish(piece, "split", total, 0, children=halves, probes=1)
            return
        # One star count, one second: nothing narrower exists. Mine to the cap, log the rest.
        last = self._pages(piece, pages, first)
        known = self.store.known_in_slice(self.search_id, piece)
        self._finish(piece, "done", last.total_count, max(0, last.total_count - known))

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
