"""Partial clones pinned to a commit: large blobs never transferred, --as-of, skip and refresh."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from clone_repos import DATA_BYTES, WEIGHTS_BYTES, Upstream, add_repo, git

from miner.clone import MARKER, CloneOptions, clone_all, parse_as_of
from miner.store import Store


def options(tmp_path: Path, **kw: object) -> CloneOptions:
    """Options for a batch into <tmp>/data/repos."""
    return CloneOptions(root=tmp_path / "data" / "repos", **kw)  # type: ignore[arg-type]


def packed_objects(checkout: Path) -> set[str]:
    """Every object id in the clone's packs, read from the pack indexes themselves."""
    ids: set[str] = set()
    for idx in (checkout / ".git" / "objects" / "pack").glob("*.idx"):
        listing = subprocess.run(
            ["git", "show-index"], input=idx.read_bytes(), capture_output=True, check=True
        )
        ids.update(line.split()[1].decode() for line in listing.stdout.splitlines())
    return ids


def test_large_blobs_are_never_transferred_nor_written(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    deep = upstreams["deep"]
    add_repo(store, 1, "acme/deep", deep.url)
    summary = clone_all(store, options(tmp_path))
    assert (summary.cloned, summary.skipped, summary.failed) == (1, 0, {})
    result = summary.results[0]
    assert result.path == tmp_path / "data" / "repos" / "acme" / "deep"
    checkout = result.path
    assert (checkout / "README.md").read_text().startswith("# Deep v3")
    assert (checkout / "requirements.txt").is_file() and (checkout / "train.py").is_file()
    assert not (checkout / "models" / "weights.bin").exists()
    assert not (checkout / "data" / "train.npy").exists()
    objects = packed_objects(checkout)
    assert git("rev-parse", "HEAD:README.md", cwd=deep.path) in objects
    assert not set(deep.blobs.values()) & objects
    assert result.bytes_received < 50_000 < WEIGHTS_BYTES + DATA_BYTES
    assert result.bytes_on_disk < 200_000
    marker = json.loads((checkout / ".git" / MARKER).read_text())
    assert marker["omitted"] == ["data/train.npy", "models/weights.bin"]
    row = store.query("SELECT * FROM clones")[0]
    assert (row["status"], row["commit_sha"]) == ("cloned", deep.commits[-1])
    assert row["omitted_files"] == 2
    assert row["commit_date"] == "2021-03-01T00:00:00+00:00" and row["ref"] == "main"
    assert row["bytes_received"] == result.bytes_received and row["path"] == "repos/acme/deep"
    # To git the absent files are skip-worktree, not deletions, and nothing is fetched back.
    assert git("status", "--porcelain", cwd=checkout, offline=True) == ""
    assert not set(deep.blobs.values()) & packed_objects(checkout)


def test_a_higher_max_blob_does_fetch_the_weights(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "acme/deep", upstreams["deep"].url)
    summary = clone_all(store, options(tmp_path, max_blob=10 * 1024 * 1024))
    checkout = summary.results[0].path
    assert checkout is not None
    assert (checkout / "models" / "weights.bin").stat().st_size == WEIGHTS_BYTES
    assert summary.results[0].bytes_received > WEIGHTS_BYTES


@pytest.mark.parametrize(
    ("as_of", "index", "text"),
    [
        ("2021-01-01", 1, "# Deep v2"),
        ("2021-03-01T00:00:00Z", 1, "# Deep v2"),  # strictly before: not the commit at that time
        ("2021-03-01T00:00:01Z", 2, "# Deep v3"),
        ("2020-03-01", 0, "# Deep\n"),
        ("2030-01-01", 3, "# Deep v3"),  # the tip itself is older than the date
    ],
)
def test_as_of_checks_out_the_last_commit_before_the_date(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream], as_of: str, index: int, text: str
) -> None:
    upstream = upstreams["history"]  # commits of 2020-01-01, 2020-06-01, 2021-03-01, 2021-06-01
    add_repo(store, 1, "acme/deep", upstream.url)
    summary = clone_all(store, options(tmp_path, as_of=parse_as_of(as_of)))
    result = summary.results[0]
    assert result.status == "cloned", result.error
    assert result.commit_sha == upstream.commits[index]
    assert result.path is not None
    assert (result.path / "README.md").read_text().startswith(text)
    row = store.query("SELECT as_of, commit_sha FROM clones")[0]
    assert row["as_of"] == parse_as_of(as_of).isoformat() and row["commit_sha"] == result.commit_sha
    assert result.bytes_received < 50_000  # older commits' weights were not fetched either


def test_as_of_follows_the_first_parent_chain_past_backdated_commits(
    tmp_path: Path, store: Store, upstream: Upstream
) -> None:
    # A commit dated 2020-12 on top of one dated 2021-03: the fetch since 2021-01-01 stops at the
    # tip, so the history has to be deepened to find it.
    backdated = upstream.add_commit("2020-12-15T00:00:00Z")
    upstream.add_commit("2021-06-01T00:00:00Z", name="LATER.md")
    add_repo(store, 1, "acme/deep", upstream.url)
    result = clone_all(store, options(tmp_path, as_of=parse_as_of("2021-01-01"))).results[0]
    assert result.commit_sha == backdated


def test_no_commit_before_the_date_is_recorded_as_too_new(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "acme/deep", upstreams["deep"].url)
    summary = clone_all(store, options(tmp_path, as_of=parse_as_of("2019-06-01")))
    assert summary.failed == {"too_new": 1}
    row = store.query("SELECT status, error_class, error, path FROM clones")[0]
    assert (row["status"], row["error_class"], row["path"]) == ("failed", "too_new", None)
    assert "2019-06-01" in row["error"]


def test_a_current_checkout_is_skipped_without_touching_the_network(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "acme/deep", upstreams["deep"].url)
    first = clone_all(store, options(tmp_path)).results[0]
    add_repo(store, 1, "acme/deep", (tmp_path / "moved-away").as_uri())  # would fail if used
    again = clone_all(store, options(tmp_path))
    assert (again.cloned, again.skipped, again.failed) == (0, 1, {})
    assert again.results[0].commit_sha == first.commit_sha
    assert store.query("SELECT status FROM clones")[0]["status"] == "cloned"


def test_refresh_updates_a_checkout_whose_branch_moved(
    tmp_path: Path, store: Store, upstream: Upstream
) -> None:
    add_repo(store, 1, "acme/deep", upstream.url)
    clone_all(store, options(tmp_path))
    new = upstream.add_commit("2021-07-01T00:00:00Z", text="fresh\n")
    assert clone_all(store, options(tmp_path)).skipped == 1  # no --refresh: kept as it is
    refreshed = clone_all(store, options(tmp_path, refresh=True))
    assert refreshed.cloned == 1 and refreshed.results[0].commit_sha == new
    assert (tmp_path / "data/repos/acme/deep/NEWS.md").read_text() == "fresh\n"
    assert store.query("SELECT commit_sha FROM clones")[0]["commit_sha"] == new
    assert clone_all(store, options(tmp_path, refresh=True)).skipped == 1  # tip unchanged


def test_a_failed_refresh_keeps_the_checkout_it_had(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "acme/deep", upstreams["deep"].url)
    clone_all(store, options(tmp_path))
    add_repo(store, 1, "acme/deep", (tmp_path / "deleted").as_uri())
    summary = clone_all(store, options(tmp_path, refresh=True))
    assert summary.failed == {"gone": 1}
    assert store.query("SELECT status FROM clones")[0]["status"] == "cloned"
    assert [c.full_name for c in store.checkouts()] == ["acme/deep"]
    assert (tmp_path / "data/repos/acme/deep/README.md").is_file()


def test_other_settings_mean_another_checkout(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "acme/deep", upstreams["deep"].url)
    clone_all(store, options(tmp_path))
    pinned = clone_all(store, options(tmp_path, as_of=parse_as_of("2020-03-01")))
    assert pinned.cloned == 1 and pinned.results[0].commit_sha == upstreams["deep"].commits[0]
    latest = clone_all(store, options(tmp_path))
    assert latest.cloned == 1 and latest.results[0].commit_sha == upstreams["deep"].commits[-1]


def test_forks_archived_and_disabled_repositories_are_not_candidates(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    url = upstreams["deep"].url
    add_repo(store, 1, "a/kept", url)
    add_repo(store, 2, "b/fork", url, fork=1)
    add_repo(store, 3, "c/archived", url, archived=1)
    add_repo(store, 4, "d/disabled", url, disabled=1)
    summary = clone_all(store, options(tmp_path, workers=2))
    assert [r.full_name for r in summary.results] == ["a/kept"]
    assert sorted(p.name for p in (tmp_path / "data" / "repos").iterdir()) == [".lock", "a"]


def test_only_restricts_the_batch(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "a/one", upstreams["deep"].url)
    add_repo(store, 2, "b/two", upstreams["deep"].url)
    summary = clone_all(store, options(tmp_path, only=("B/Two",)))
    assert [r.full_name for r in summary.results] == ["b/two"]
