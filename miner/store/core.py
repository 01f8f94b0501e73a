"""The SQLite connection, numbered migrations and the generic idempotent upsert."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from importlib import resources
from pathlib import Path
from typing import Any

from miner.errors import StoreError


def _migrations() -> list[tuple[int, str, str]]:
    """(number, name, sql) for every file in miner/store/migrations, in order."""
    found = []
    for entry in resources.files("miner.store").joinpath("migrations").iterdir():
        name = entry.name
        if name.endswith(".sql") and name[:4].isdigit():
            found.append((int(name[:4]), name, entry.read_text(encoding="utf-8")))
    return sorted(found)


class StoreBase:
    """One study's SQLite file: opened in WAL mode, migrated on open, safe to re-open."""

    def __init__(self, path: Path | str) -> None:
        self.path = Path(path)
        try:
            if str(path) != ":memory:":
                self.path.parent.mkdir(parents=True, exist_ok=True)
            # isolation_level=None: we open transactions ourselves, so a crash loses at most the
            # one in flight and never leaves a half-applied batch.
            self.conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False)
            self.conn.row_factory = sqlite3.Row
            self.conn.execute("PRAGMA journal_mode=WAL")
            self.conn.execute("PRAGMA synchronous=NORMAL")
            self.conn.execute("PRAGMA foreign_keys=ON")
            self.conn.execute("PRAGMA busy_timeout=30000")
            self.migrate()
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{path}: cannot open the store ({exc})") from None

    def close(self) -> None:
        """Close the connection."""
        self.conn.close()

    def __enter__(self) -> StoreBase:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def schema_version(self) -> int:
        """The number of the last applied migration."""
        return int(self.conn.execute("PRAGMA user_version").fetchone()[0])

    def migrate(self) -> None:
        """Apply every migration newer than the store's user_version, each atomically."""
        current = self.schema_version
        for number, name, sql in _migrations():
            if number <= current:
                continue
            try:
                self.conn.execute("BEGIN IMMEDIATE")
                for statement in sql.split(";\n"):
                    if statement.strip():
                        self.conn.execute(statement)
                self.conn.execute(f"PRAGMA user_version = {number}")
                self.conn.execute("COMMIT")
            except sqlite3.DatabaseError as exc:
                self.conn.execute("ROLLBACK")
                raise StoreError(f"migration {name} failed: {exc}") from None

    @contextmanager
    def transaction(self) -> Iterator[sqlite3.Connection]:
        """Run a block atomically: all of it is stored, or none of it."""
        self.conn.execute("BEGIN IMMEDIATE")
        try:
            yield self.conn
        except BaseException:
            self.conn.execute("ROLLBACK")
            raise
        self.conn.execute("COMMIT")

    def query(self, sql: str, params: Sequence[Any] | Mapping[str, Any] = ()) -> list[sqlite3.Row]:
        """Run a read query and return all rows."""
        return self.conn.execute(sql, params).fetchall()

    def upsert(
        self,
        table: str,
        rows: Iterable[Mapping[str, Any]],
        key: Sequence[str],
        conn: sqlite3.Connection | None = None,
    ) -> int:
        """Insert rows or update them in place by `key`; re-running the same rows is a no-op."""
        count = 0
        target = conn or self.conn
        for row in rows:
            cols = list(row)
            updates = [c for c in cols if c not in key]
            conflict = (
                f"DO UPDATE SET {', '.join(f'{c}=excluded.{c}' for c in updates)}"
                if updates
                else "DO NOTHING"
            )
            sql = (
                f"INSERT INTO {table} ({', '.join(cols)}) "
                f"VALUES ({', '.join('?' for _ in cols)}) "
                f"ON CONFLICT ({', '.join(key)}) {conflict}"
            )
            target.execute(sql, [row[c] for c in cols])
            count += 1
        return count
