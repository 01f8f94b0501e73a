"""A `miner search` process killed with SIGKILL mid-slice, then re-run: it goes on after the last
stored page, and nothing is lost or doubled."""

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
@pytest.mark.parametrize("kill_after", [9, 14], ids=["in-the-root-slice", "in-a-child-slice"])
def test_a_crawl_killed_with_sigkill_resumes_after_its_last_stored_page(
    serve, tmp_path: Path, kill_after: int
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
    while (
        api.search_requests < kill_after and process.poll() is None and time.monotonic() < deadline
    ):
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
        part_read = store.query(
            "SELECT qualifier, read_pages FROM search_slices "
            "WHERE status = 'pending' AND read_pages > 0"
        )
        stored = store.query("SELECT COUNT(*) FROM repos")[0][0]
    assert log["status"] == "running" and 0 < stored < len(expected)
    # Killed in the middle of a slice: some of its pages are stored, the slice is not done.
    assert part_read and all(row["read_pages"] >= 1 for row in part_read)
    served_before = len(api.served)
    asked_before = [_page(s.params) for s in api.served]

    resumed = subprocess.run(
        _command(api.url, db), env=env, capture_output=True, text=True, timeout=120
    )
    assert resumed.returncode == 0, resumed.stderr
    assert f"resuming, {stored:,} stored so far" in resumed.stderr
    assert "going on after page" in resumed.stderr

    with Store(db) as store:
        ids = [r[0] for r in store.query("SELECT id FROM repos")]
        hits = store.query("SELECT COUNT(DISTINCT repo_id) FROM repo_hits")[0][0]
        log = store.searches()[0]
    assert len(ids) == len(set(ids)) == hits and set(ids) == expected
    assert (log["status"], log["runs"], log["fetched"]) == ("done", 2, len(expected))
    asked_again = [_page(s.params) for s in api.served[served_before:]]
    root = f"{DL} stars:>=200"
    # Completed slices are not mined again; the root's first page is asked once, at the end, for
    # the search's final total.
    assert not {q for q, _ in asked_again} & {f"{DL} {q}" for q in done} - {root}
    assert [n for q, n in asked_again if q == root].count(1) == 1
    assert asked_again[-1] == (root, 1)
    # No page stored before the kill is asked again; only the one in flight may be.
    repeated = set(asked_again[:-1]) & set(asked_before)
    assert repeated <= {asked_before[-1]}, f"pages asked again: {sorted(repeated)}"


def _page(params: dict[str, str]) -> tuple[str, int]:
    """(q, page number) of one search request."""
    return params["q"], int(params.get("page", "1"))
