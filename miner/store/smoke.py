"""SQL for smoke runs: the latest outcome per repository and commit, with its evidence."""

from __future__ import annotations

import sqlite3
from collections.abc import Mapping
from typing import Any

from miner.store.core import StoreBase


class SmokeQueries(StoreBase):
    """Queries over smoke_runs."""

    def save_smoke(self, row: Mapping[str, Any]) -> None:
        """Record a smoke run (a smoke_runs row): kept as one more attempt, and as the latest of
        its repository and commit; one of no mined repository (no id or commit) is not kept."""
        if row.get("repo_id") is None or not row.get("commit_sha"):
            return
        with self.transaction() as conn:
            self.upsert("smoke_runs", [row], key=["repo_id", "commit_sha"], conn=conn)
            columns = list(row)
            conn.execute(
                f"INSERT INTO smoke_attempts ({', '.join(columns)}) "
                f"VALUES ({', '.join('?' for _ in columns)})",
                [row[c] for c in columns],
            )

    def smoke_attempts(self) -> list[sqlite3.Row]:
        """Every smoke run ever recorded, oldest first."""
        return self.query("SELECT * FROM smoke_attempts ORDER BY attempt")

    def smoke_runs(self) -> list[sqlite3.Row]:
        """Every recorded smoke run, by full name."""
        return self.query(
            "SELECT * FROM smoke_runs ORDER BY full_name COLLATE NOCASE, repo_id, commit_sha"
        )

    def smoke_outcome(self, repo_id: int, commit_sha: str) -> sqlite3.Row | None:
        """The smoke run of one repository at one commit, if any."""
        rows = self.query(
            "SELECT * FROM smoke_runs WHERE repo_id = ? AND commit_sha = ?", (repo_id, commit_sha)
        )
        return rows[0] if rows else None
