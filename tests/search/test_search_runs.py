"""`miner search` as a process: one search per store at a time, killed or interrupted cleanly."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import time
from pathlib import Path
from types import ModuleType

import psutil
import pytest
from conftest import TOKEN
from search_fakes import make_population

from miner.store import Store

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
DL = "deep learning"


def _load() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "fakes" / "process_tree.py"
    spec = importlib.util.spec_from_file_location("process_tree", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tree = _load()


@pytest.fixture
def env() -> dict[str, str]:
    values = {**os.environ, "GITHUB_TOKEN": TOKEN}
    values.pop("MINER_API_URL", None)
    return values


def search(
    api_url: str, db: Path, env: dict[str, str], *extra: str, **popen: object
) -> subprocess.Popen[str]:
    args = (DL, "--min-stars", "200", "--api-url", api_url, "--db", str(db), *extra)
    return tree.miner("search", *args, env=env, **popen)


def stored(db: Path) -> int:
    with Store(db) as store:
        return int(store.query("SELECT COUNT(*) FROM repos")[0][0])


@pytest.fixture
def slow_api(serve):  # type: ignore[no-untyped-def]  # noqa: ANN201
    """A fake GitHub slow enough that a search is still running when the test acts."""
    return serve(make_population(2600, seed=31), clock=time.time, latency=0.05)


def test_a_second_search_says_who_holds_the_store_or_waits_with_wait(
    slow_api, tmp_path: Path, env: dict[str, str]
) -> None:
    db = tmp_path / "miner.db"
    first = search(slow_api.url, db, env)
    children: list[psutil.Process] = []
    try:
        tree.wait_for(lambda: slow_api.search_requests >= 3, what="the first search to run")
        second = search(slow_api.url, db, env)
        _, err = second.communicate(timeout=120)
        assert second.returncode == 1
        assert err.strip().splitlines() == [err.strip()]  # one line
        assert f"in use by `miner search '{DL}'` (pid {first.pid} on " in err
        assert "--wait" in err
        queued = search(slow_api.url, db, env, "--wait")
        _, waited = queued.communicate(timeout=300)
        assert first.wait(timeout=300) == 0
        assert queued.returncode == 0, waited
        assert "waiting for `miner search" in waited and "already complete" in waited
    finally:
        tree.kill_all(children + tree.descendants(first.pid))
        first.kill()


def test_a_killed_search_leaves_nothing_running_and_its_lock_is_taken_over(
    slow_api, tmp_path: Path, env: dict[str, str]
) -> None:
    db = tmp_path / "miner.db"
    proc = search(slow_api.url, db, env)
    children: list[psutil.Process] = []
    try:
        tree.wait_for(lambda: slow_api.search_requests >= 5, what="the search to run")
        children = tree.descendants(proc.pid)
        proc.kill()
        proc.communicate()
        assert tree.still_running(children) == []
    finally:
        tree.kill_all(children)
        proc.kill()
    before = stored(db)
    again = search(slow_api.url, db, env)  # no "in use": the dead holder's lock is stale
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert f"resuming, {before:,} stored so far" in err


def test_ctrl_c_stops_with_one_line_exit_130_and_resumes(
    slow_api, tmp_path: Path, env: dict[str, str]
) -> None:
    db = tmp_path / "miner.db"
    proc = search(slow_api.url, db, env, start_new_session=True)
    try:
        tree.wait_for(lambda: slow_api.search_requests >= 5, what="the search to run")
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    last = err.strip().splitlines()[-1]
    assert "Traceback" not in err
    assert last.startswith("interrupted: ") and "run the same command to resume" in last
    before = stored(db)
    assert f"{before:,} new repositories stored by this run ({before:,} in the store)" in last
    again = search(slow_api.url, db, env)
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0 and f"resuming, {before:,} stored so far" in err
