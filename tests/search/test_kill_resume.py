"""A `miner search` process killed with SIGKILL mid-crawl, then re-run: nothing lost or doubled."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from conftest import TOKEN
from search_fakes import make_population

from miner.store import Store

DL = "deep learning"


def _command(api_url: str, db: Path) -> list[str]:
    return [
        sys.executable,
        "-m",
        "miner",
        "search",
        DL,
        "--min-stars",
        "200",
        "--api-url",
        api_url,
        "--db",
        str(db),
    ]


@pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="needs SIGKILL")
def test_a_crawl_killed_with_sigkill_resumes_from_its_completed_slices(
    serve, tmp_path: Path
) -> None:
    # Real time here (the process sleeps for real), a little latency so the kill lands mid-crawl.
    api = serve(make_population(2600, seed=31), clock=time.time, latency=0.04)
    expected = api.ids(f"{DL} stars:>=200")
    db = tmp_path / "miner.db"
    env = {**os.environ, "GITHUB_TOKEN": TOKEN}
    env.pop("MINER_API_URL", None)

    process = subprocess.Popen(
        _command(api.url, db), env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    deadline = time.monotonic() + 60
    while api.search_requests < 14 and process.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    assert process.poll() is None, "the crawl ended before it could be killed"
    process.send_signal(signal.SIGKILL)
    assert process.wait(timeout=30) == -signal.SIGKILL

    with Store(db) as store:
        log = store.searches()[0]
        done = {
            r["qualifier"]
            for r in store.query("SELECT qualifier FROM search_slices WHERE status != 'pending'")
        }
        stored = store.query("SELECT COUNT(*) FROM repos")[0][0]
    assert log["status"] == "running" and done and 0 < stored < len(expected)
    served_before = len(api.served)

    resumed = subprocess.run(
        _command(api.url, db), env=env, capture_output=True, text=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming, {stored:,} stored so far" in resumed.stderr

    with Store(db) as store:
        ids = [r[0] for r in store.query("SELECT id FROM repos")]
        hits = store.query("SELECT COUNT(DISTINCT repo_id) FROM repo_hits")[0][0]
        log = store.searches()[0]
    assert len(ids) == len(set(ids)) == hits and set(ids) == expected
    assert (log["status"], log["runs"], log["fetched"]) == ("done", 2, len(expected))
    asked_again = [s.params for s in api.served[served_before:]]
    root = f"{DL} stars:>=200"
    # Completed slices are not mined again; the root is asked once, for its final total.
    assert not {p["q"] for p in asked_again} & {f"{DL} {q}" for q in done} - {root}
    assert [p.get("page", "1") for p in asked_again if p["q"] == root] == ["1"]
