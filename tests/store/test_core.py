from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from miner.errors import StoreError
from miner.models import SliceReading
from miner.search.slicing import Slice
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


def test_a_slice_reading_is_stored_with_its_page(tmp_path: Path) -> None:
    root = Slice(200)
    reading = SliceReading("dl stars:>=200", "asc", 1, 3, True, 2600, 200, 231)
    with Store(tmp_path / "m.db") as store:
        search_id = store.start_search(
            {"query_key": "k", "keyword": "dl", "query": "dl", "params": "{}", "api_url": "u",
             "started_at": "t"},
            root,
        )  # fmt: skip
        assert store.slice_reading(search_id, root.qualifier) is None
        store.save_page(search_id, "dl", root.qualifier, [], requests=1, now="t", reading=reading)
        assert store.slice_reading(search_id, root.qualifier) == reading
