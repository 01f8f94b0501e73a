"""The smoke-ladder migration: a store of the schema before it keeps its smoke runs, gains a
stage for each, renames `gpu_only` to `needs_gpu`, and from then on keeps every attempt."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

from miner.store import Store
from miner.store.core import _migrations

LADDER = next(n for n, name, _ in _migrations() if name.endswith("_smoke_ladder.sql"))
OLD_ROW = {
    "repo_id": 7, "commit_sha": "a" * 40, "full_name": "lab/old", "outcome": "gpu_only",
    "rule": "smoke.gpu_only", "evidence_path": "train.log", "evidence_line": 3,
    "evidence_text": "AssertionError: Torch not compiled with CUDA enabled", "exit_code": 1,
    "install_seconds": 12.0, "train_seconds": 2.0, "seconds": 15.0, "timeout": 120.0,
    "network_cut": 1, "python": "3.7.16", "requirements": 4, "command": "python train.py",
    "environment": None, "log_dir": "smoke/lab__old", "smoked_at": "2026-11-01T00:00:00+00:00",
}  # fmt: skip


def store_before_ladder(path: Path) -> None:
    """A store with every migration before the ladder applied, and one smoke run in it."""
    conn = sqlite3.connect(path)
    for number, _, sql in _migrations():
        if number >= LADDER:
            break
        for statement in sql.split(";\n"):
            if statement.strip():
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {number}")
    conn.execute(
        "INSERT INTO repos (id, full_name, first_seen, last_seen) VALUES (7, 'lab/old', 'x', 'x')"
    )
    columns = ", ".join(OLD_ROW)
    conn.execute(
        f"INSERT INTO smoke_runs ({columns}) VALUES ({', '.join('?' for _ in OLD_ROW)})",
        list(OLD_ROW.values()),
    )
    conn.commit()
    conn.close()


def test_old_smoke_runs_migrate_with_a_stage_and_an_attempt(tmp_path):
    path = tmp_path / "miner.db"
    store_before_ladder(path)
    with Store(path) as store:
        assert store.schema_version == max(n for n, _, _ in _migrations())
        [row] = store.smoke_runs()
        assert (row["outcome"], row["stage"], row["repairs"], row["blob_files"]) == (
            "needs_gpu",
            2,
            "[]",
            0,
        )
        [attempt] = store.smoke_attempts()
        assert (attempt["full_name"], attempt["outcome"], attempt["stage"]) == (
            "lab/old",
            "needs_gpu",
            2,
        )


def test_every_attempt_is_kept_and_the_latest_is_the_run(tmp_path):
    path = tmp_path / "miner.db"
    store_before_ladder(path)
    with Store(path) as store:
        for outcome, stage in (("import", 1), ("ok", 5)):
            row = {**OLD_ROW, "outcome": outcome, "stage": stage,
                   "stage_seconds": json.dumps({"S0": 1.0}), "repairs": "[]"}  # fmt: skip
            store.save_smoke(row)
        assert [(a["outcome"], a["stage"]) for a in store.smoke_attempts()] == [
            ("needs_gpu", 2),
            ("import", 1),
            ("ok", 5),
        ]
        [latest] = store.smoke_runs()
        assert (latest["outcome"], latest["stage"]) == ("ok", 5)
