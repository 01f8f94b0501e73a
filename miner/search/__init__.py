"""The search stage: find repositories on GitHub by keyword and star threshold, into the store.

GitHub's search answers at most 1,000 results a query, so a query is cut into slices by stars
(and, where one star count holds more than 1,000, by creation date) until every slice fits.
Each page is stored in one transaction, so a killed crawl resumes from its last stored page.

- `crawl`: the slicing crawl and its resume logic (`search`, `run_search`);
- `slicing`: the filters and slices of a query, and how an oversized slice is split;
- `github`: the HTTP client, rate-limit waits and retries (the only PyGithub importer);
- `events`: the progress events a crawl yields, rendered by the CLI.

May import: `miner.store`, `miner.config`, `miner.errors`, `miner.models`, `miner.codebook`.
"""

from __future__ import annotations

from miner.search.crawl import run_search, search
from miner.search.events import KeywordSummary, SearchSummary
from miner.search.slicing import SearchFilters

__all__ = ["KeywordSummary", "SearchFilters", "SearchSummary", "run_search", "search"]
