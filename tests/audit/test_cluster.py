"""`miner analyze --dask`: a real distributed LocalCluster (worker processes) on local origins."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

pytest.importorskip("distributed")

from miner.audit.cluster import analyze_on_dask  # noqa: E402
from miner.clone import CloneOptions  # noqa: E402
from miner.store import Store  # noqa: E402

_PATH = Path(__file__).resolve().parents[1] / "clone" / "dated_repos.py"
_spec = importlib.util.spec_from_file_location("dated_repos", _PATH)
assert _spec is not None and _spec.loader is not None
dated_repos = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("dated_repos", dated_repos)
_spec.loader.exec_module(dated_repos)


def make_study(root: Path, copies: int = 1) -> Path:
    """A store of 4 x `copies` repositories served from local origins; returns the store path."""
    db = root / "data" / "miner.db"
    with Store(db) as store:
        for copy in range(copies):
            origins = root / f"origins{copy}"
            dated_repos.build_dated_repos(origins)
            dated_repos.store_dated_repos(store, origins)
            # move them out of the way of the next copy's ids 1-4, renamed after the first
            store.conn.execute(
                "UPDATE repos SET id = id + ?, full_name = full_name || ? WHERE id <= 4",
                (100 * (copy + 1), f"-{copy}" if copy else ""),
            )
    return db


def labels(db: Path) -> list[tuple[object, ...]]:
    with Store(db) as store:
        frame = store.labels_frame().drop(columns=["analyzed_at"])
        evidence = store.query(
            "SELECT repo_id, commit_sha, field, seq, path, line, text, rule FROM evidence"
            " ORDER BY 1, 2, 3, 4"
        )
    rows = [tuple(r) for r in frame.sort_values("repo_id").itertuples(index=False)]
    return rows + [tuple(r) for r in evidence]


@pytest.fixture(scope="module")
def cluster() -> object:
    from distributed import LocalCluster

    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as running:
        yield running


def run(db: Path, address: str, **kwargs: object) -> list[str]:
    with Store(db) as store:
        return [
            e.status
            for e in analyze_on_dask(
                store, address, CloneOptions(root=db.parent / "repos"), **kwargs
            )
        ]


def test_labels_and_evidence_are_those_of_clone_then_analyze(
    tmp_path: Path, cluster: object
) -> None:
    local = make_study(tmp_path / "local")
    env = {**os.environ, "MINER_DB": str(local)}
    for args in (["clone"], ["analyze"]):
        done = subprocess.run(
            [sys.executable, "-m", "miner", *args], env=env, capture_output=True, text=True
        )
        assert done.returncode == 0, done.stderr
    remote = make_study(tmp_path / "remote")
    assert run(remote, cluster.scheduler_address) == ["audited"] * 4  # type: ignore[attr-defined]
    assert labels(remote) == labels(local)
    with Store(remote) as store:
        clones = store.query("SELECT status, path, commit_sha FROM clones")
    assert [(c["status"], c["path"]) for c in clones] == [("cloned", None)] * 4  # deleted after
    assert not list((tmp_path / "remote" / "data").glob("repos/*"))


def test_a_failing_repository_is_recorded_and_the_batch_goes_on(
    tmp_path: Path, cluster: object
) -> None:
    db = make_study(tmp_path)
    with Store(db) as store:
        store.conn.execute(
            "UPDATE repos SET clone_url = ? WHERE id = 102", ((tmp_path / "gone").as_uri(),)
        )
    statuses = run(db, cluster.scheduler_address)  # type: ignore[attr-defined]
    assert sorted(statuses) == ["audited", "audited", "audited", "failed"]
    with Store(db) as store:
        failed = store.query("SELECT full_name, error_class FROM clones WHERE status = 'failed'")
    assert [tuple(r) for r in failed] == [("lab/drops-requirements", "gone")]


def test_a_killed_worker_has_its_tasks_run_elsewhere(tmp_path: Path) -> None:
    from distributed import Client, LocalCluster

    db = make_study(tmp_path, copies=3)
    with LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cl:
        with Store(db) as store:
            events = analyze_on_dask(store, cl.scheduler_address, CloneOptions(root=tmp_path / "r"))
            statuses = [next(events).status]
            with Client(cl.scheduler_address) as client:
                pids = sorted(client.run(os.getpid).values())
            os.kill(pids[0], signal.SIGKILL)  # one worker dies with tasks queued or running
            statuses += [e.status for e in events]
    assert statuses.count("audited") == 12
    with Store(db) as store:
        assert store.query("SELECT COUNT(*) FROM audits WHERE status = 'ok'")[0][0] == 12


def test_a_killed_driver_resumes_with_nothing_lost_or_done_twice(tmp_path: Path) -> None:
    db = make_study(tmp_path, copies=3)
    env = {**os.environ, "MINER_DB": str(db)}
    command = [sys.executable, "-m", "miner", "analyze", "--dask", "local:2"]
    driver = subprocess.Popen(
        command, env=env, stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    family: set[int] = set()
    deadline = time.monotonic() + 240
    stored = 0
    while time.monotonic() < deadline and stored < 3:
        time.sleep(0.2)
        try:
            family |= {p.pid for p in psutil.Process(driver.pid).children(recursive=True)}
        except psutil.NoSuchProcess:
            break
        with Store(db) as store:
            stored = store.query("SELECT COUNT(*) FROM audits")[0][0]
    assert 0 < stored < 12, "the driver finished before it could be killed"
    driver.kill()
    driver.wait()
    time.sleep(8)  # workers and nannies notice their parent is gone
    survivors = [
        pid
        for pid in family
        if psutil.pid_exists(pid) and psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    ]
    for pid in survivors:  # do not leave them behind, whatever the assertion says
        os.kill(pid, signal.SIGKILL)
    assert survivors == []
    again = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert again.returncode == 0, again.stderr
    with Store(db) as store:
        assert store.query("SELECT COUNT(*) FROM audits WHERE status = 'ok'")[0][0] == 12
    skipped = int(again.stdout.split("skipped ")[-1].split(",")[0])
    assert skipped >= stored  # what the killed run stored was not audited again
