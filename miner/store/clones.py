"""SQL for the clone stage: one checkout record per repository."""

from __future__ import annotations

from miner.store.core import StoreBase


class CloneQueries(StoreBase):
    """Queries over clones."""
