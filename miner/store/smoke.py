"""SQL for smoke runs: the latest outcome per repository and commit, with its evidence."""

from __future__ import annotations

import sqlite3
from typing import TYPE_CHECKING

from miner.store.core import StoreBase

if TYPE_CHECKING:
    from miner.select.smoke import SmokeResult


class SmokeQueries(StoreBase):
    """Queries over smoke_runs."""

    def save_smoke(self, result: SmokeResult) -> None:
        """Record a smoke run, replacing the earlier one of the same repository and commit."""
        if result.repo_id is None or not result.commit_sha:
            return  # not a mined repository (e.g. a hand-written manifest): nothing to key it by
        row = {
            "repo_id": result.repo_id,
            "commit_sha": result.commit_sha,
            "full_name": result.full_name,
            "outcome": result.outcome,
            "rule": result.evidence.rule,
            "evidence_path": result.evidence.path,
            "evidence_line": result.evidence.line,
            "evidence_text": result.evidence.text,
            "exit_code": result.exit_code,
            "install_seconds": round(result.install_seconds, 3),
            "train_seconds": round(result.train_seconds, 3),
            "seconds": round(result.seconds, 3),
            "timeout": result.timeout,
            "network_cut": int(result.network_cut),
            "python": result.python,
            "requirements": len(result.requirements),
            "command": result.command,
            "environment": result.environment,
            "log_dir": result.log_dir,
            "smoked_at": result.smoked_at,
        }
        with self.transaction() as conn:
            self.upsert("smoke_runs", [row], key=["repo_id", "commit_sha"], conn=conn)

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
