"""Kill and resume: half-written clones are detected and redone, an interrupted batch resumes."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from clone_repos import GitServer, Upstream, add_repo

from miner.clone import MARKER, CloneOptions, clone_all
from miner.store import Store


def wait_for(condition, seconds: float = 30.0) -> None:  # type: ignore[no-untyped-def]
    """Poll `condition` until it holds (bounded: the test fails rather than hangs)."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError("timed out waiting for the batch")
        time.sleep(0.05)


def test_a_killed_batch_leaves_a_half_written_clone_that_the_next_run_redoes(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream], git_server: GitServer
) -> None:
    deep = upstreams["deep"]
    add_repo(store, 1, "a/fast", deep.url)
    add_repo(store, 2, "b/slow", git_server.url("slow", "deep"))  # hangs until killed
    partial = tmp_path / "data" / "repos" / ".partial"
    batch = subprocess.Popen(
        [sys.executable, "-m", "miner", "clone", "--study", str(tmp_path), "--workers", "1"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,  # its own process group: git children die with it
    )
    try:
        # the slow clone has begun writing (its .git exists), not only named its folder
        wait_for(lambda: any((p / "tree" / ".git").is_dir() for p in partial.glob("*/b+slow.*")))
        wait_for(lambda: len(store.query("SELECT 1 FROM clones WHERE status = 'cloned'")) == 1)
    finally:
        os.killpg(batch.pid, signal.SIGKILL)
        batch.wait()
    half = list(partial.glob("batch-*/b+slow.*"))
    assert half and (half[0] / "tree" / ".git").is_dir()  # what the kill left behind
    assert not (tmp_path / "data" / "repos" / "b").exists()
    assert [r["full_name"] for r in store.query("SELECT full_name FROM clones")] == ["a/fast"]

    add_repo(store, 2, "b/slow", deep.url)  # reachable now
    summary = clone_all(store, CloneOptions(root=tmp_path / "data" / "repos"))
    assert sorted((r.full_name, r.status) for r in summary.results) == [
        ("a/fast", "skipped"),
        ("b/slow", "cloned"),
    ]
    assert not partial.exists()  # swept
    assert [c.full_name for c in store.checkouts()] == ["a/fast", "b/slow"]


def test_a_checkout_without_its_marker_is_half_written_and_redone(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "acme/deep", upstreams["deep"].url)
    options = CloneOptions(root=tmp_path / "repos")
    clone_all(store, options)
    checkout = tmp_path / "repos" / "acme" / "deep"
    (checkout / ".git" / MARKER).unlink()  # as if the writer died before finishing
    (checkout / "README.md").write_text("truncated")
    (checkout / "junk.tmp").write_text("left over")
    again = clone_all(store, options)
    assert (again.cloned, again.skipped) == (1, 0)
    assert (checkout / "README.md").read_text().startswith("# Deep v3")
    assert not (checkout / "junk.tmp").exists() and (checkout / ".git" / MARKER).is_file()


def test_after_a_crash_checkouts_are_checked_before_they_are_trusted(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "acme/deep", upstreams["deep"].url)
    add_repo(store, 2, "acme/fine", upstreams["deep"].url)
    root = tmp_path / "repos"
    options = CloneOptions(root=root)
    clone_all(store, options)
    (root / "acme" / "deep" / "README.md").write_text("")  # cut short: never reached the disk
    (root / ".running").write_text("4242\n")  # the batch that wrote it never flushed
    again = clone_all(store, options)
    assert {r.full_name: r.status for r in again.results} == {
        "acme/deep": "cloned",
        "acme/fine": "skipped",
    }
    assert (root / "acme" / "deep" / "README.md").read_text().startswith("# Deep v3")
    assert not (root / ".running").exists()


def test_a_checkout_at_another_commit_than_its_marker_is_redone(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    deep = upstreams["deep"]
    add_repo(store, 1, "acme/deep", deep.url)
    options = CloneOptions(root=tmp_path / "repos")
    clone_all(store, options)
    head = tmp_path / "repos" / "acme" / "deep" / ".git" / "refs" / "heads" / "main"
    head.write_text(deep.commits[0] + "\n")  # someone moved the branch by hand
    assert clone_all(store, options).cloned == 1
    assert head.read_text().strip() == deep.commits[-1]


def test_a_clone_finished_but_not_stored_is_adopted_without_cloning_again(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "acme/deep", upstreams["deep"].url)
    options = CloneOptions(root=tmp_path / "repos")
    first = clone_all(store, options).results[0]
    store.conn.execute("DELETE FROM clones")  # killed between the rename and the store write
    add_repo(store, 1, "acme/deep", (tmp_path / "offline").as_uri())
    again = clone_all(store, options)
    assert again.skipped == 1
    row = store.query("SELECT status, commit_sha, bytes_received, omitted_files FROM clones")[0]
    assert (row["status"], row["commit_sha"]) == ("cloned", first.commit_sha)
    assert row["bytes_received"] == first.bytes_received and row["omitted_files"] == 2
