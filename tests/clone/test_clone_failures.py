"""Every failure class is recorded per repository while the rest of the batch goes on."""

from __future__ import annotations

from pathlib import Path

import pytest
from clone_repos import GitServer, Upstream, add_repo, git

from miner.clone import CloneOptions, clone_all
from miner.clone.git import classify
from miner.store import Store


def test_each_failure_class_is_recorded_while_the_batch_continues(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream], git_server: GitServer
) -> None:
    deep = upstreams["deep"]
    add_repo(store, 1, "ok/file", deep.url)
    add_repo(store, 2, "ok/http", git_server.url("git", "deep"))
    add_repo(store, 3, "x/gone-file", (tmp_path / "nowhere").as_uri())
    add_repo(store, 4, "x/gone-http", git_server.url("gone", "deep"))
    add_repo(store, 5, "x/blocked", git_server.url("blocked", "deep"))
    add_repo(store, 6, "x/private", git_server.url("private", "deep"))
    add_repo(store, 8, "x/ssh", "ssh://git@example.invalid/x/ssh.git")
    add_repo(store, 9, "x/no-url", None)
    add_repo(store, 10, "x/nofilter", upstreams["nofilter"].url)
    empty = tmp_path / "empty"
    empty.mkdir()
    git("init", "--quiet", cwd=empty)
    add_repo(store, 11, "x/empty", empty.as_uri())  # exists, but has no commit to check out
    root = tmp_path / "data" / "repos"
    summary = clone_all(store, CloneOptions(root=root, workers=4))
    rows = {r["full_name"]: r for r in store.query("SELECT * FROM clones")}
    classes = {name: (r["status"], r["error_class"]) for name, r in rows.items()}
    assert classes == {
        "ok/file": ("cloned", None),
        "ok/http": ("cloned", None),
        "x/gone-file": ("failed", "gone"),
        "x/gone-http": ("failed", "gone"),
        "x/blocked": ("failed", "blocked"),
        "x/private": ("failed", "auth"),
        "x/ssh": ("failed", "other"),
        "x/no-url": ("failed", "other"),
        "x/nofilter": ("failed", "other"),
        "x/empty": ("failed", "other"),
    }
    assert summary.cloned == 2
    assert summary.failed == {"gone": 2, "blocked": 1, "auth": 1, "other": 4}
    assert "cloned 2, skipped 0, failed 8 (auth 1, blocked 1, gone 2, other 4)" in summary.line()
    for name, row in rows.items():
        if row["status"] == "failed":
            assert row["path"] is None and row["commit_sha"] is None
            assert row["error"] and "\n" not in row["error"], name
    assert "partial clone" in rows["x/nofilter"]["error"]  # refused, not silently full
    assert "couldn't find remote ref HEAD" in rows["x/empty"]["error"]
    assert sorted(p.name for p in root.iterdir()) == [".lock", "ok"]  # nothing half-written


def test_a_server_that_never_answers_is_a_timeout(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream], git_server: GitServer
) -> None:
    add_repo(store, 1, "x/slow", git_server.url("slow", "deep"))
    add_repo(store, 2, "y/fine", upstreams["deep"].url)
    summary = clone_all(store, CloneOptions(root=tmp_path / "repos", timeout=2))
    outcome = {r.full_name: (r.status, r.error_class, r.error) for r in summary.results}
    assert outcome == {
        "x/slow": ("failed", "timeout", "timed out after 2 s"),
        "y/fine": ("cloned", None, None),  # the batch went on beside the hung one
    }
    slow = next(r for r in summary.results if r.full_name == "x/slow")
    assert 2 <= slow.seconds < 10  # killed at the deadline, not left to hang


def test_a_repository_over_max_size_is_too_large(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "big/deep", upstreams["deep"].url)
    # Source and docs of the fixture are a few KB; 1 KB forces the cap.
    summary = clone_all(store, CloneOptions(root=tmp_path / "repos", max_size=1024))
    assert summary.failed == {"too_large": 1}
    assert "more than 1.0 KiB" in (summary.results[0].error or "")
    assert not (tmp_path / "repos" / "big").exists()


@pytest.mark.parametrize(
    ("stderr", "expected"),
    [
        (
            "remote: Repository unavailable due to DMCA takedown.\n"
            "fatal: unable to access 'https://github.com/a/b.git/': "
            "The requested URL returned error: 451",
            "blocked",
        ),
        (
            "remote: Repository `a/b' is disabled.\nremote: Please ask the owner to check "
            "their account.\nfatal: unable to access 'https://github.com/a/b.git/': "
            "The requested URL returned error: 403",
            "blocked",
        ),
        (
            "remote: Repository not found.\n"
            "fatal: repository 'https://github.com/a/b.git/' not found",
            "gone",
        ),
        (
            "fatal: could not read Username for 'https://github.com': terminal prompts disabled",
            "auth",
        ),
        ("fatal: Authentication failed for 'https://github.com/a/b.git/'", "auth"),
        (
            "fatal: unable to access 'https://github.com/a/b.git/': Failed to connect to "
            "github.com port 443 after 130000 ms: Connection timed out",
            "timeout",
        ),
        ("error: RPC failed; curl 28 Operation too slow.", "timeout"),
        ("fatal: unable to access 'x': Could not resolve host: github.com", "other"),
    ],
)
def test_github_messages_map_to_classes(stderr: str, expected: str) -> None:
    assert classify(stderr) == expected
