"""SQL for the search stage: repositories, the search log, slices and provenance."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Protocol

from miner.models import SliceReading
from miner.store.core import StoreBase

if TYPE_CHECKING:
    from miner.models import RepoMeta


class Slice(Protocol):
    """What the store reads of a search slice (the search stage's Slice): its bounds and name."""

    @property
    def stars_lo(self) -> int: ...
    @property
    def stars_hi(self) -> int | None: ...
    @property
    def created_lo(self) -> str | None: ...
    @property
    def created_hi(self) -> str | None: ...
    @property
    def kind(self) -> str: ...
    @property
    def qualifier(self) -> str: ...
    def sql_bounds(self) -> tuple[str | None, str | None]: ...


_REPO_COLUMNS = (
    "id, full_name, html_url, clone_url, description, stars, forks, watchers, open_issues, "
    "language, topics, license, default_branch, size_kb, fork, archived, disabled, created_at, "
    "updated_at, pushed_at, first_seen, last_seen"
)
# first_seen is kept; everything else takes the newest values GitHub served.
_UPSERT_REPO = (
    f"INSERT INTO repos ({_REPO_COLUMNS}) VALUES ({', '.join('?' * 22)}) "
    "ON CONFLICT (id) DO UPDATE SET "
    + ", ".join(
        f"{c.strip()} = excluded.{c.strip()}"
        for c in _REPO_COLUMNS.split(",")
        if c.strip() not in ("id", "first_seen")
    )
)


def _repo_row(repo: RepoMeta, now: str) -> tuple[Any, ...]:
    return (
        repo.id,
        repo.full_name,
        repo.html_url,
        repo.clone_url,
        repo.description,
        repo.stars,
        repo.forks,
        repo.watchers,
        repo.open_issues,
        repo.language,
        json.dumps(list(repo.topics)),
        repo.license,
        repo.default_branch,
        repo.size_kb,
        int(repo.fork),
        int(repo.archived),
        int(repo.disabled),
        repo.created_at,
        repo.updated_at,
        repo.pushed_at,
        now,
        now,
    )


class RepoQueries(StoreBase):
    """Queries over repos, searches, search_slices and repo_hits."""

    def latest_search(self, query_key: str) -> sqlite3.Row | None:
        """The newest search log entry with this resume key, if any."""
        rows = self.query(
            "SELECT * FROM searches WHERE query_key = ? ORDER BY id DESC LIMIT 1", (query_key,)
        )
        return rows[0] if rows else None

    def search_row(self, search_id: int) -> sqlite3.Row:
        """One search log entry."""
        return self.query("SELECT * FROM searches WHERE id = ?", (search_id,))[0]

    def searches(self) -> list[sqlite3.Row]:
        """The whole search log, oldest first."""
        return self.query("SELECT * FROM searches ORDER BY id")

    def start_search(self, values: dict[str, Any], root: Slice) -> int:
        """Log a new search and its root slice; returns the search id."""
        with self.transaction() as conn:
            cols = list(values)
            cursor = conn.execute(
                f"INSERT INTO searches ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})",
                [values[c] for c in cols],
            )
            search_id = int(cursor.lastrowid or 0)
            self._add_slices(conn, search_id, [root])
        return search_id

    def resume_search(self, search_id: int) -> None:
        """Count one more run of an unfinished search."""
        with self.transaction() as conn:
            conn.execute("UPDATE searches SET runs = runs + 1 WHERE id = ?", (search_id,))

    def _add_slices(
        self, conn: sqlite3.Connection, search_id: int, slices: Sequence[Slice]
    ) -> None:
        seq = conn.execute(
            "SELECT COALESCE(MAX(seq), 0) FROM search_slices WHERE search_id = ?", (search_id,)
        ).fetchone()[0]
        # Stored in reverse so the first child has the highest seq and runs next.
        for offset, piece in enumerate(reversed(slices), start=1):
            conn.execute(
                "INSERT OR IGNORE INTO search_slices (search_id, qualifier, seq, kind, stars_lo, "
                "stars_hi, created_lo, created_hi) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    search_id,
                    piece.qualifier,
                    seq + offset,
                    piece.kind,
                    piece.stars_lo,
                    piece.stars_hi,
                    piece.created_lo,
                    piece.created_hi,
                ),
            )

    def next_slice(self, search_id: int) -> sqlite3.Row | None:
        """The pending slice to mine next (the newest first: children right after the split)."""
        rows = self.query(
            "SELECT * FROM search_slices WHERE search_id = ? AND status = 'pending' "
            "ORDER BY seq DESC LIMIT 1",
            (search_id,),
        )
        return rows[0] if rows else None

    def slice_counts(self, search_id: int) -> dict[str, int]:
        """How many slices of the search are pending, split and done."""
        rows = self.query(
            "SELECT status, COUNT(*) FROM search_slices WHERE search_id = ? GROUP BY status",
            (search_id,),
        )
        counts = {"pending": 0, "split": 0, "done": 0}
        counts.update({row[0]: int(row[1]) for row in rows})
        return counts

    def save_page(
        self,
        search_id: int,
        keyword: str,
        qualifier: str,
        repos: Sequence[RepoMeta],
        *,
        requests: int,
        now: str,
        total_found: int | None = None,
        reading: SliceReading | None = None,
    ) -> int:
        """Store one page's repositories and provenance atomically, with how far the reading of
        its slice got (`reading`); returns how many are new to this search. Re-storing a page
        changes nothing but the `seen` times."""
        with self.transaction() as conn:
            ids = [r.id for r in repos]
            known = {
                row[0]
                for row in conn.execute(
                    f"SELECT DISTINCT repo_id FROM repo_hits WHERE search_id = ? "
                    f"AND repo_id IN ({', '.join('?' * len(ids))})",
                    [search_id, *ids],
                )
            }
            conn.executemany(_UPSERT_REPO, [_repo_row(r, now) for r in repos])
            conn.executemany(
                "INSERT INTO repo_hits (repo_id, search_id, keyword, qualifier, fetched_at) "
                "VALUES (?, ?, ?, ?, ?) ON CONFLICT (repo_id, search_id, qualifier) "
                "DO UPDATE SET fetched_at = excluded.fetched_at",
                [(r.id, search_id, keyword, qualifier, now) for r in repos],
            )
            conn.execute(
                "UPDATE searches SET requests = requests + ?, "
                "total_found = COALESCE(?, total_found), fetched = fetched + ? WHERE id = ?",
                (requests, total_found, len(set(ids) - known), search_id),
            )
            conn.execute(
                "UPDATE search_slices SET requests = requests + ? "
                "WHERE search_id = ? AND qualifier = ?",
                (requests, search_id, qualifier),
            )
            if reading is not None:
                conn.execute(
                    "UPDATE search_slices SET read_query = ?, read_order = ?, read_pass = ?, "
                    "read_pages = ?, read_more = ?, read_total = ?, first_stars = ?, "
                    "last_stars = ? WHERE search_id = ? AND qualifier = ?",
                    (
                        reading.query,
                        reading.order,
                        reading.pass_no,
                        reading.pages,
                        int(reading.more),
                        reading.total,
                        reading.first_stars,
                        reading.last_stars,
                        search_id,
                        qualifier,
                    ),
                )
        return len(set(ids) - known)

    def slice_reading(self, search_id: int, qualifier: str) -> SliceReading | None:
        """How far the reading of a slice's query got, or None when no page of it is stored."""
        rows = self.query(
            "SELECT * FROM search_slices WHERE search_id = ? AND qualifier = ? AND read_pages > 0",
            (search_id, qualifier),
        )
        if not rows:
            return None
        row = rows[0]
        return SliceReading(
            query=row["read_query"],
            order=row["read_order"],
            pass_no=int(row["read_pass"]),
            pages=int(row["read_pages"]),
            more=bool(row["read_more"]),
            total=int(row["read_total"] or 0),
            first_stars=row["first_stars"],
            last_stars=row["last_stars"],
        )

    def known_in_slice(self, search_id: int, piece: Slice) -> int:
        """Distinct repositories of this search that the slice's own queries returned or whose
        stored stars and creation date fall inside it."""
        created_lo, created_hi = piece.sql_bounds()
        row = self.query(
            "SELECT COUNT(DISTINCT h.repo_id) FROM repo_hits h JOIN repos r ON r.id = h.repo_id "
            "WHERE h.search_id = :sid AND (h.qualifier = :q OR (r.stars >= :lo "
            "AND (:hi IS NULL OR r.stars <= :hi) AND (:clo IS NULL OR r.created_at >= :clo) "
            "AND (:chi IS NULL OR r.created_at <= :chi)))",
            {
                "sid": search_id,
                "q": piece.qualifier,
                "lo": piece.stars_lo,
                "hi": piece.stars_hi,
                "clo": created_lo,
                "chi": created_hi,
            },
        )
        return int(row[0][0])

    def finish_slice(
        self,
        search_id: int,
        piece: Slice,
        *,
        status: str,
        total_count: int,
        shortfall: int,
        now: str,
        children: Sequence[Slice] = (),
        probes: int = 0,
    ) -> None:
        """Mark a slice done (or split, queueing its children) in one transaction; `probes`
        counts requests of this slice that only served to read its total_count."""
        with self.transaction() as conn:
            fetched = conn.execute(
                "SELECT COUNT(*) FROM repo_hits WHERE search_id = ? AND qualifier = ?",
                (search_id, piece.qualifier),
            ).fetchone()[0]
            conn.execute(
                "UPDATE search_slices SET status = ?, total_count = ?, fetched = ?, "
                "shortfall = ?, completed_at = ? WHERE search_id = ? AND qualifier = ?",
                (status, total_count, fetched, shortfall, now, search_id, piece.qualifier),
            )
            conn.execute(
                "UPDATE searches SET probes = probes + ? WHERE id = ?", (probes, search_id)
            )
            self._add_slices(conn, search_id, children)

    def set_total_end(self, search_id: int, total: int) -> None:
        """Log the search's total_count after its last slice (that request was a probe)."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE searches SET total_end = ?, probes = probes + 1 WHERE id = ?",
                (total, search_id),
            )

    def finish_search(self, search_id: int, now: str) -> None:
        """Close a search whose slices are all mined. Its shortfall is the larger of what its
        slices could not serve and what GitHub counted at the end but the store lacks."""
        with self.transaction() as conn:
            conn.execute(
                "UPDATE searches SET status = 'done', finished_at = :now, "
                "fetched = (SELECT COUNT(DISTINCT repo_id) FROM repo_hits WHERE search_id = :id), "
                "shortfall = MAX(0, COALESCE(total_end, 0) - (SELECT COUNT(DISTINCT repo_id) "
                "  FROM repo_hits WHERE search_id = :id), (SELECT COALESCE(SUM(shortfall), 0) "
                "  FROM search_slices WHERE search_id = :id AND status = 'done')), "
                "slices = (SELECT COUNT(*) FROM search_slices "
                "  WHERE search_id = :id AND status = 'done') "
                "WHERE id = :id",
                {"now": now, "id": search_id},
            )

    def fetched_for(self, search_id: int) -> int:
        """Distinct repositories stored for one search."""
        row = self.query(
            "SELECT COUNT(DISTINCT repo_id) FROM repo_hits WHERE search_id = ?", (search_id,)
        )
        return int(row[0][0])

    def repo_count(self) -> int:
        """Every repository in the store."""
        return int(self.query("SELECT COUNT(*) FROM repos")[0][0])

    def unique_repos(self, search_ids: Sequence[int]) -> int:
        """Distinct repositories over several searches (keywords merged)."""
        if not search_ids:
            return 0
        row = self.query(
            f"SELECT COUNT(DISTINCT repo_id) FROM repo_hits "
            f"WHERE search_id IN ({', '.join('?' * len(search_ids))})",
            list(search_ids),
        )
        return int(row[0][0])

    def new_repos(self, search_id: int, earlier: Sequence[int]) -> int:
        """Repositories of `search_id` not returned by any of the `earlier` searches."""
        marks = ", ".join("?" * len(earlier)) or "NULL"
        row = self.query(
            f"SELECT COUNT(DISTINCT repo_id) FROM repo_hits WHERE search_id = ? "
            f"AND repo_id NOT IN (SELECT repo_id FROM repo_hits WHERE search_id IN ({marks}))",
            [search_id, *earlier],
        )
        return int(row[0][0])
