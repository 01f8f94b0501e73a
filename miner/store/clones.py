"""SQL for the clone stage: one checkout record per repository."""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from pathlib import Path

from miner.models import Checkout, CloneResult
from miner.store.core import StoreBase


class CloneQueries(StoreBase):
    """Queries over clones."""

    def clone_candidates(self) -> list[sqlite3.Row]:
        """Stored repositories that are neither forks, archived nor disabled, with their clone."""
        return self.query(
            "SELECT r.id, r.full_name, r.clone_url, r.default_branch,"
            " c.status, c.path, c.commit_sha, c.as_of, c.max_blob"
            " FROM repos r LEFT JOIN clones c ON c.repo_id = r.id"
            " WHERE r.fork = 0 AND r.archived = 0 AND r.disabled = 0"
            " ORDER BY r.full_name COLLATE NOCASE, r.id"
        )

    def repos_named(self, names: Sequence[str]) -> list[sqlite3.Row]:
        """Stored repositories whose full name is one of `names` (case does not matter)."""
        wanted = sorted({n.lower() for n in names})
        if not wanted:
            return []
        marks = ", ".join("?" for _ in wanted)
        return self.query(
            "SELECT id, full_name, fork, archived, disabled FROM repos"
            f" WHERE lower(full_name) IN ({marks}) ORDER BY full_name",
            wanted,
        )

    def save_clone(
        self,
        result: CloneResult,
        *,
        cloned_at: str,
        ref: str | None = None,
        as_of: str | None = None,
        max_blob: int | None = None,
        omitted_files: int | None = None,
    ) -> None:
        """Record one repository's checkout (or why there is none), replacing the old record."""
        row = {
            "repo_id": result.repo_id,
            "full_name": result.full_name,
            "path": None if result.path is None else self._relative(result.path),
            "status": "failed" if result.status == "failed" else "cloned",
            "error_class": result.error_class,
            "error": result.error,
            "commit_sha": result.commit_sha,
            "commit_date": result.commit_date,
            "ref": ref,
            "as_of": as_of,
            "max_blob": max_blob,
            "omitted_files": omitted_files,
            "bytes_received": result.bytes_received,
            "bytes_on_disk": result.bytes_on_disk,
            "seconds": round(result.seconds, 3),
            "cloned_at": cloned_at,
        }
        with self.transaction() as conn:
            self.upsert("clones", [row], key=["repo_id"], conn=conn)

    def checkouts(self) -> list[Checkout]:
        """Every successful clone as a Checkout (path, repository, commit), by full name."""
        rows = self.query(
            "SELECT repo_id, full_name, path, commit_sha, commit_date FROM clones"
            " WHERE status = 'cloned' AND path IS NOT NULL"
            " ORDER BY full_name COLLATE NOCASE, repo_id"
        )
        return [self.checkout_of(r) for r in rows]

    def checkout_of(self, row: sqlite3.Row) -> Checkout:
        """A Checkout from a row with repo_id, full_name, path, commit_sha and commit_date."""
        return Checkout(
            path=self.checkout_path(row["path"]),
            repo_id=row["repo_id"],
            full_name=row["full_name"],
            commit_sha=row["commit_sha"],
            commit_date=row["commit_date"],
        )

    def checkout_path(self, stored: str) -> Path:
        """A stored clone path as a usable path (relative ones are under the store's folder)."""
        path = Path(stored)
        return path if path.is_absolute() else self._folder() / path

    def _folder(self) -> Path:
        return Path.cwd() if str(self.path) == ":memory:" else self.path.resolve().parent

    def _relative(self, path: Path) -> str:
        """Relative to the store's folder when inside it, so a study folder can be moved."""
        absolute = path.resolve()
        folder = self._folder()
        if absolute.is_relative_to(folder):
            return absolute.relative_to(folder).as_posix()
        return str(absolute)
