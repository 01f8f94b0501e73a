"""The clones table and the checkouts the analysis stage reads from it."""

from __future__ import annotations

from pathlib import Path

from clone_repos import add_repo

from miner.models import Checkout, CloneResult
from miner.store import Store


def result(repo_id: int, name: str, path: Path | None, status: str = "cloned") -> CloneResult:
    return CloneResult(
        repo_id=repo_id,
        full_name=name,
        path=path,
        status=status,
        error_class="gone" if status == "failed" else None,
        commit_sha=None if status == "failed" else "a" * 40,
        commit_date=None if status == "failed" else "2021-03-01T00:00:00+00:00",
    )


def test_checkouts_lists_cloned_rows_with_usable_paths(tmp_path: Path, store: Store) -> None:
    for repo_id, name in ((1, "b/inside"), (2, "a/outside"), (3, "c/failed")):
        add_repo(store, repo_id, name, None)
    inside = tmp_path / "data" / "repos" / "b" / "inside"
    outside = tmp_path / "elsewhere" / "a" / "outside"
    store.save_clone(result(1, "b/inside", inside), cloned_at="t", ref="main")
    store.save_clone(result(2, "a/outside", outside), cloned_at="t")
    store.save_clone(result(3, "c/failed", None, "failed"), cloned_at="t")
    paths = {r["full_name"]: r["path"] for r in store.query("SELECT * FROM clones")}
    assert paths == {"b/inside": "repos/b/inside", "a/outside": str(outside), "c/failed": None}
    assert store.checkouts() == [
        Checkout(outside, 2, "a/outside", "a" * 40, "2021-03-01T00:00:00+00:00"),
        Checkout(inside, 1, "b/inside", "a" * 40, "2021-03-01T00:00:00+00:00"),
    ]


def test_a_moved_study_still_finds_its_checkouts(tmp_path: Path) -> None:
    with Store(tmp_path / "one" / "data" / "miner.db") as store:
        add_repo(store, 1, "a/b", None)
        store.save_clone(result(1, "a/b", tmp_path / "one/data/repos/a/b"), cloned_at="t")
    (tmp_path / "one").rename(tmp_path / "two")
    with Store(tmp_path / "two" / "data" / "miner.db") as store:
        assert store.checkouts()[0].path == tmp_path / "two" / "data" / "repos" / "a" / "b"


def test_saving_again_replaces_the_row(store: Store, tmp_path: Path) -> None:
    add_repo(store, 1, "a/b", None)
    store.save_clone(result(1, "a/b", None, "failed"), cloned_at="t1")
    store.save_clone(result(1, "a/b", tmp_path / "data/repos/a/b"), cloned_at="t2")
    rows = store.query("SELECT status, cloned_at FROM clones")
    assert [(r["status"], r["cloned_at"]) for r in rows] == [("cloned", "t2")]
