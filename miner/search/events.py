"""What a search reports while it runs (events) and when it ends (summaries): frozen records."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class StoreWaiting:
    """Another search holds the store; this one waits for it (`--wait`)."""

    message: str


@dataclass(frozen=True)
class SearchStarted:
    """A keyword's search begins (or resumes, or is found already complete)."""

    keyword: str
    search_id: int
    query: str
    resumed: bool
    complete: bool
    fetched: int


@dataclass(frozen=True)
class SliceStarted:
    """A slice is about to be mined (going on after `pages_stored` pages an earlier run stored)."""

    keyword: str
    qualifier: str
    kind: str
    pages_stored: int = 0


@dataclass(frozen=True)
class PageFetched:
    """One page was stored."""

    keyword: str
    qualifier: str
    page: int
    total_count: int
    items: int
    new: int
    fetched: int  # distinct repositories of this keyword so far
    total_found: int | None
    rate_remaining: int | None


@dataclass(frozen=True)
class SliceFinished:
    """A slice was mined (`done`) or split into `children` slices."""

    keyword: str
    qualifier: str
    status: str
    total_count: int
    fetched: int
    shortfall: int
    children: int


@dataclass(frozen=True)
class KeywordSummary:
    """One keyword's line of the search log (the study's per-keyword table)."""

    keyword: str
    search_id: int
    query: str
    total_found: int
    fetched: int
    new: int  # not returned by an earlier keyword of the same command
    shortfall: int
    requests: int
    probes: int
    slices: int
    runs: int
    status: str
    resumed: bool
    started_at: str
    finished_at: str | None


@dataclass(frozen=True)
class SearchFinished:
    """A keyword's search is complete."""

    summary: KeywordSummary


@dataclass(frozen=True)
class SearchSummary:
    """What one `miner search` did, per keyword and merged."""

    keywords: tuple[KeywordSummary, ...]
    unique_repos: int

    @property
    def requests(self) -> int:
        """Search requests over all keywords."""
        return sum(k.requests for k in self.keywords)

    @property
    def shortfall(self) -> int:
        """Results GitHub reported but would not serve, over all keywords."""
        return sum(k.shortfall for k in self.keywords)
