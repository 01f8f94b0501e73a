"""SQL for snapshots: each repository's commit at every study date, and their checkouts."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from miner.models import Checkout
from miner.store.clones import CloneQueries


class SnapshotQueries(CloneQueries):
    """Queries over snapshots."""

    def save_snapshots(self, rows: Iterable[Mapping[str, Any]]) -> None:
        """Record (repository, date) outcomes in one transaction; paths stored relative."""
        prepared = []
        for row in rows:
            record = dict(row)
            if record.get("path") is not None:
                record["path"] = self._relative(Path(record["path"]))
            prepared.append(record)
        with self.transaction() as conn:
            self.upsert("snapshots", prepared, key=["repo_id", "as_of"], conn=conn)

    def snapshot_rows(self) -> list[sqlite3.Row]:
        """Every snapshot record, by repository and date."""
        return self.query(
            "SELECT * FROM snapshots ORDER BY full_name COLLATE NOCASE, repo_id, as_of"
        )

    def snapshot_checkouts(self) -> list[Checkout]:
        """One Checkout per distinct snapshot commit that was checked out, by name and date."""
        rows = self.query(
            "SELECT repo_id, full_name, commit_sha, MIN(commit_date) AS commit_date,"
            " MIN(path) AS path FROM snapshots WHERE status = 'ok' AND path IS NOT NULL"
            " GROUP BY repo_id, commit_sha ORDER BY full_name COLLATE NOCASE, repo_id, commit_date"
        )
        return [self.checkout_of(r) for r in rows]

    def audit_targets(self) -> list[Checkout]:
        """What `analyze` audits: every clone and every snapshot commit, each commit once."""
        seen: set[tuple[int | None, str | None]] = set()
        targets = []
        for checkout in [*self.checkouts(), *self.snapshot_checkouts()]:
            key = (checkout.repo_id, checkout.commit_sha)
            if key not in seen:
                seen.add(key)
                targets.append(checkout)
        return targets
