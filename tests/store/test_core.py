from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from miner.errors import StoreError
from miner.store import Store
from miner.store.core import _migrations


def test_migrations_apply_once_and_in_order(tmp_path: Path) -> None:
    path = tmp_path / "study" / "miner.db"
    numbers = [n for n, _, _ in _migrations()]
    assert numbers == sorted(numbers) and numbers[0] == 1
    with Store(path) as store:
        assert store.schema_version == numbers[-1]
    with Store(path) as store:  # re-opening applies nothing twice
        assert store.schema_version == numbers[-1]


def test_upsert_is_idempotent(tmp_path: Path) -> None:
    with Store(tmp_path / "m.db") as store:
        row = {"id": 1, "full_name": "a/b", "stars": 5, "first_seen": "t", "last_seen": "t"}
        store.upsert("repos", [row], key=["id"])
        store.upsert("repos", [{**row, "stars": 7}], key=["id"])
        rows = store.query("SELECT id, stars FROM repos")
        assert [(r["id"], r["stars"]) for r in rows] == [(1, 7)]


def test_transaction_rolls_back_everything_on_error(tmp_path: Path) -> None:
    with Store(tmp_path / "m.db") as store:
        with pytest.raises(sqlite3.IntegrityError), store.transaction() as conn:
            conn.execute(
                "INSERT INTO repos (id, full_name, first_seen, last_seen) VALUES (1,'a/b','t','t')"
            )
            conn.execute("INSERT INTO repos (id, full_name) VALUES (2, NULL)")
        assert store.query("SELECT COUNT(*) FROM repos")[0][0] == 0


def test_a_file_that_is_not_sqlite_is_a_store_error(tmp_path: Path) -> None:
    bad = tmp_path / "m.db"
    bad.write_bytes(b"not a database at all" * 100)
    with pytest.raises(StoreError, match="cannot open the store"):
        Store(bad)
