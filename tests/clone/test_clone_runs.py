"""`miner clone` as a process: killed, interrupted, or run twice at once on one store."""

from __future__ import annotations

import importlib.util
import os
import re
import signal
import subprocess
from collections import Counter
from pathlib import Path
from types import ModuleType

import psutil
import pytest
from clone_repos import GitServer, Upstream, add_repo

from miner.store import Store

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
CLONED = re.compile(r"^cloned +(\S+)  ", re.MULTILINE)


def _load() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "fakes" / "process_tree.py"
    spec = importlib.util.spec_from_file_location("process_tree", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tree = _load()


def clone(study: Path, **popen: object) -> subprocess.Popen[str]:
    return tree.miner("clone", "--study", str(study), "--workers", "2", **popen)


def cloned(store: Store) -> list[str]:
    rows = store.query("SELECT full_name FROM clones WHERE status = 'cloned' ORDER BY full_name")
    return [r[0] for r in rows]


def git_running(proc: subprocess.Popen[str]) -> list[psutil.Process]:
    """The processes below `proc` once a git is among them (the hanging clone is under way)."""
    found: list[psutil.Process] = []

    def has_git() -> bool:
        found[:] = tree.descendants(proc.pid)
        try:
            return any(p.name().startswith("git") for p in found)
        except psutil.NoSuchProcess:
            return False

    tree.wait_for(lambda: proc.poll() is not None or has_git(), what="git to start")
    assert proc.poll() is None, proc.communicate()
    return found


def hanging_batch(store: Store, deep: Upstream, git_server: GitServer) -> None:
    add_repo(store, 1, "a/fast", deep.url)
    add_repo(store, 2, "b/slow", git_server.url("slow", "deep"))  # never answers


def test_a_killed_clone_leaves_no_git_behind_and_resumes(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream], git_server: GitServer
) -> None:
    hanging_batch(store, upstreams["deep"], git_server)
    proc = clone(tmp_path)
    children: list[psutil.Process] = []
    try:
        tree.wait_for(lambda: cloned(store) == ["a/fast"], what="a/fast to be stored")
        children = git_running(proc)
        proc.kill()  # the parent only: git and its helpers must end by themselves
        proc.communicate()
        assert tree.still_running(children) == []
    finally:
        tree.kill_all(children + tree.descendants(proc.pid))
        proc.kill()
    add_repo(store, 2, "b/slow", upstreams["deep"].url)  # reachable now
    again = clone(tmp_path)
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert CLONED.findall(out) == ["b/slow"] and "skipped  a/fast" in out
    assert cloned(store) == ["a/fast", "b/slow"]


def test_two_runs_at_once_clone_each_repository_once(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    names = [f"owner/repo{i}" for i in range(1, 9)]
    for repo_id, name in enumerate(names, start=1):
        add_repo(store, repo_id, name, upstreams["deep"].url)
    runs = [clone(tmp_path), clone(tmp_path)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err for _, err in outputs]
    counts = Counter(name for out, _ in outputs for name in CLONED.findall(out))
    assert sorted(counts) == names and max(counts.values()) == 1, outputs
    assert cloned(store) == names
    assert not (tmp_path / "data" / "repos" / ".partial").exists()


def test_ctrl_c_stops_with_one_line_exit_130_and_a_resumable_store(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream], git_server: GitServer
) -> None:
    hanging_batch(store, upstreams["deep"], git_server)
    proc = clone(tmp_path, start_new_session=True)  # a terminal: Ctrl-C reaches the group
    children: list[psutil.Process] = []
    try:
        tree.wait_for(lambda: cloned(store) == ["a/fast"], what="a/fast to be stored")
        children = git_running(proc)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        tree.kill_all(children + tree.descendants(proc.pid))
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith("interrupted: 1 repositories done by this run (1 cloned), all stored")
    assert tree.still_running(children) == []
    assert not (tmp_path / "data" / "repos" / ".partial").exists()  # nothing half-written
    add_repo(store, 2, "b/slow", upstreams["deep"].url)
    again = clone(tmp_path)
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert CLONED.findall(out) == ["b/slow"] and cloned(store) == ["a/fast", "b/slow"]
