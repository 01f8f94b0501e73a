from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from miner.errors import ConfigError
from miner.export import export_table
from miner.store import Store


def _store(tmp_path: Path) -> Store:
    store = Store(tmp_path / "m.db")
    rows = [
        {"id": 1, "full_name": "a/x", "stars": 10, "first_seen": "t", "last_seen": "t"},
        {"id": 2, "full_name": "a/y", "stars": None, "first_seen": "t", "last_seen": "t"},
    ]
    store.upsert("repos", rows, key=["id"])
    return store


def test_integers_with_gaps_stay_integers(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        data = export_table(store, "repos", "csv", None)
        assert isinstance(data, bytes)
        frame = pd.read_csv(io.BytesIO(data))
        assert data.decode().splitlines()[1].split(",")[5] == "10"  # not 10.0
        assert list(frame["full_name"]) == ["a/x", "a/y"]
        records = json.loads(export_table(store, "repos", "json", None))  # type: ignore[arg-type]
        assert records[0]["stars"] == 10 and records[1]["stars"] is None


def test_files_carry_a_bom_for_excel_and_parquet_needs_a_file(tmp_path: Path) -> None:
    with _store(tmp_path) as store:
        out = tmp_path / "repos.csv"
        assert export_table(store, "repos", "csv", out) == 2
        assert out.read_bytes().startswith(b"\xef\xbb\xbf")
        assert list(pd.read_csv(out)["id"]) == [1, 2]
        with pytest.raises(ConfigError, match="parquet is binary"):
            export_table(store, "repos", "parquet", None)
        assert export_table(store, "repos", "parquet", tmp_path / "r.parquet") == 2
        assert len(pd.read_parquet(tmp_path / "r.parquet")) == 2
