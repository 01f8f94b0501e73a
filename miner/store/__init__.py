"""The study's one store: SQLite with numbered migrations; the only place with SQL."""

from __future__ import annotations

from miner.store.claims import ClaimQueries
from miner.store.clones import CloneQueries
from miner.store.core import StoreBase
from miner.store.labels import LabelQueries
from miner.store.repos import RepoQueries
from miner.store.smoke import SmokeQueries
from miner.store.snapshots import SnapshotQueries


class Store(
    RepoQueries, SnapshotQueries, CloneQueries, LabelQueries, ClaimQueries, SmokeQueries, StoreBase
):
    """All of a study's tables; each stage's queries live in their own mixin module."""

    def __enter__(self) -> Store:
        return self


__all__ = ["Store", "StoreBase"]
