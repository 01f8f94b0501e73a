"""SQL for the search stage: repositories, the search log, slices and provenance."""

from __future__ import annotations

from miner.store.core import StoreBase


class RepoQueries(StoreBase):
    """Queries over repos, searches, search_slices and repo_hits."""
