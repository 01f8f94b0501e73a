"""Snapshots: one history fetch per repository, each date its last commit, each commit once."""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

import pytest
from dated_repos import NAMES, build_dated_repos, store_dated_repos

from miner.clone import CloneOptions
from miner.clone.snapshots import snapshot_all, snapshot_dates
from miner.errors import ConfigError
from miner.store import Store

DATES = ("2019-01-01", "2020-01-01", "2021-01-01", "2022-01-01", "2023-01-01")


def utc(text: str) -> datetime:
    return datetime.fromisoformat(text).replace(tzinfo=timezone.utc)


def test_every_and_at_give_exact_dates() -> None:
    every = snapshot_dates(every="1y", since="2019", until="2023-01-01")
    assert every == tuple(utc(d) for d in DATES)
    assert snapshot_dates(at=("2021-03-01", "2019-01-01")) == (utc("2019-01-01"), utc("2021-03-01"))
    months = snapshot_dates(every="6m", since="2020-01-01", until="2021-01-01")
    assert [d.date().isoformat() for d in months] == ["2020-01-01", "2020-07-01", "2021-01-01"]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"every": "1y"}, "go together"),
        ({"every": "yearly", "since": "2019"}, "use a count and a unit"),
        ({"every": "1y", "since": "2022", "until": "2021-01-01"}, "before --since"),
        ({}, "no study dates"),
    ],
)
def test_bad_dates_are_one_line_errors(kwargs: dict[str, str], message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        snapshot_dates(**kwargs)


def test_each_date_resolves_to_its_last_commit_and_each_commit_is_checked_out_once(
    tmp_path: Path, store: Store
) -> None:
    commits = build_dated_repos(tmp_path / "origins")
    store_dated_repos(store, tmp_path / "origins")
    options = CloneOptions(root=tmp_path / "data" / "repos", workers=2)
    dates = tuple(utc(d) for d in DATES)
    summary = snapshot_all(store, options, dates)
    rows = {(r["full_name"], r["as_of"][:10]): r for r in store.snapshot_rows()}
    assert len(rows) == 4 * 5

    def sha(name: str, date: str) -> str | None:
        return rows[(f"lab/{name}", date)]["commit_sha"]

    hardware = commits["adds-hardware"]
    assert [sha("adds-hardware", d) for d in DATES] == [hardware[0]] * 2 + [hardware[1]] * 3
    dropped = commits["drops-requirements"]
    assert [sha("drops-requirements", d) for d in DATES] == [dropped[0]] * 3 + [dropped[1]] * 2
    assert [rows[("lab/born-2022", d)]["status"] for d in DATES] == ["absent"] * 4 + ["ok"]
    assert {sha("never-changes", d) for d in DATES} == set(commits["never-changes"])
    # 2 + 2 + 1 + 1 distinct commits, each one checkout
    assert (summary.snapshots, summary.checkouts, summary.absent, summary.failed) == (16, 6, 4, 0)
    folders = sorted(p.name for p in (tmp_path / "data" / "repos" / "lab").iterdir())
    assert folders == sorted(f"{name}@{c[:12]}" for name, cs in commits.items() for c in cs)
    later = tmp_path / "data" / "repos" / "lab" / f"adds-hardware@{hardware[1][:12]}"
    assert "Tesla V100" in (later / "README.md").read_text()
    assert len(store.snapshot_checkouts()) == 6
    assert summary.bytes_received > 0


def test_a_rerun_resolves_the_same_commits_and_fetches_no_checkout_again(
    tmp_path: Path, store: Store
) -> None:
    build_dated_repos(tmp_path / "origins")
    store_dated_repos(store, tmp_path / "origins")
    options = CloneOptions(root=tmp_path / "data" / "repos", workers=2)
    dates = snapshot_dates(every="1y", since="2019", until="2023-01-01")
    snapshot_all(store, options, dates)
    first = [(r["full_name"], r["as_of"], r["commit_sha"]) for r in store.snapshot_rows()]
    marker = tmp_path / "data" / "repos" / "lab"
    before = {p.name: p.stat().st_ino for p in marker.iterdir()}
    snapshot_all(store, options, dates)
    assert [(r["full_name"], r["as_of"], r["commit_sha"]) for r in store.snapshot_rows()] == first
    assert {p.name: p.stat().st_ino for p in marker.iterdir()} == before


def test_a_missing_origin_fails_every_date_of_that_repository_only(
    tmp_path: Path, store: Store
) -> None:
    build_dated_repos(tmp_path / "origins")
    store_dated_repos(store, tmp_path / "origins")
    store.upsert(
        "repos",
        [
            {
                "id": 9,
                "full_name": "lab/gone",
                "html_url": "https://x/lab/gone",
                "clone_url": (tmp_path / "nowhere").as_uri(),
                "default_branch": "main",
                "fork": 0,
                "archived": 0,
                "disabled": 0,
                "stars": 1,
                "first_seen": "2024-01-01",
                "last_seen": "2024-01-01",
            }
        ],
        key=["id"],
    )
    options = CloneOptions(root=tmp_path / "data" / "repos", workers=2)
    summary = snapshot_all(store, options, (utc("2021-01-01"), utc("2022-06-01")))
    gone = [r for r in store.snapshot_rows() if r["full_name"] == "lab/gone"]
    assert [r["status"] for r in gone] == ["failed", "failed"]
    assert summary.failed == 1 and summary.snapshots == 7


def test_two_batches_at_once_snapshot_each_repository_once(tmp_path: Path) -> None:
    """Two runs on one store share the work through claims: no repository is done twice."""
    import threading

    db = tmp_path / "data" / "miner.db"
    with Store(db) as store:
        build_dated_repos(tmp_path / "origins")
        store_dated_repos(store, tmp_path / "origins")
    options = CloneOptions(root=tmp_path / "data" / "repos", workers=1)
    dates = tuple(utc(d) for d in DATES)
    done: list[list[str]] = [[], []]
    start = threading.Barrier(2)

    def batch(index: int) -> None:
        with Store(db) as own:
            start.wait()
            summary = snapshot_all(own, options, dates)
            done[index] = sorted({str(r["full_name"]) for r in summary.rows})

    threads = [threading.Thread(target=batch, args=(i,)) for i in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=300)
    assert sorted(done[0] + done[1]) == [f"lab/{n}" for n in sorted(NAMES)]  # each once
    with Store(db) as store:
        assert len(store.snapshot_rows()) == 4 * 5
