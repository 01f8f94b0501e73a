"""`miner analyze` as a process: killed, interrupted, or run twice at once on one store."""

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
from test_audit_batch import _project

from miner.store import Store

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
REPOS = 24
AUDITED = re.compile(r"^\[\d+/\d+\] audited (\S+)$", re.MULTILINE)


def _load() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "fakes" / "process_tree.py"
    spec = importlib.util.spec_from_file_location("process_tree", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tree = _load()


@pytest.fixture(scope="module")
def heavy_files(tmp_path_factory: pytest.TempPathFactory) -> list[Path]:
    """Source files big enough that one audit takes a moment (so a kill lands mid-run);
    linked, not copied, into every checkout."""
    folder = tmp_path_factory.mktemp("heavy")
    body = "import torch.nn as nn\n" + "".join(
        f"def layer{j}(x):\n    return nn.Conv2d(3, 8, 3)(x) + {j}\n" for j in range(300)
    )
    files = []
    for i in range(15):
        path = folder / f"layers{i}.py"
        path.write_text(body)
        files.append(path)
    return files


@pytest.fixture
def db(tmp_path: Path, heavy_files: list[Path]) -> Path:
    """A store with REPOS cloned repositories, none audited yet."""
    path = tmp_path / "data" / "miner.db"
    with Store(path) as store:
        for repo_id in range(1, REPOS + 1):
            name = f"owner/repo{repo_id:02d}"
            checkout = _project(tmp_path / "repos" / name)
            for source in heavy_files:
                os.link(source, checkout / source.name)
            row = {"id": repo_id, "full_name": name, "first_seen": "t", "last_seen": "t"}
            store.upsert("repos", [row], key=["id"])
            clone = {
                "repo_id": repo_id,
                "full_name": name,
                "path": str(checkout),
                "status": "cloned",
                "commit_sha": f"{repo_id:040x}",
                "cloned_at": "t",
            }
            store.upsert("clones", [clone], key=["repo_id"])
    return path


def analyze(db: Path, **popen: object) -> subprocess.Popen[str]:
    return tree.miner("analyze", "--db", str(db), "--workers", "2", **popen)


def audits(db: Path) -> int:
    with Store(db) as store:
        return int(store.query("SELECT COUNT(*) FROM audits WHERE status = 'ok'")[0][0])


def first_audit(proc: subprocess.Popen[str]) -> str:
    """Read the output up to the first audited repository; the lines read."""
    assert proc.stdout is not None
    seen = ""
    while not AUDITED.search(seen):
        line = proc.stdout.readline()
        assert line, f"analyze ended early: {seen}"
        seen += line
    return seen


def test_a_killed_analyze_leaves_no_worker_behind_and_resumes(db: Path) -> None:
    proc = analyze(db)
    children: list[psutil.Process] = []
    try:
        first_audit(proc)
        children = tree.descendants(proc.pid)
        assert children, "no pool workers to watch"
        proc.kill()  # the parent only: its workers must notice by themselves
        proc.communicate()
        assert tree.still_running(children) == []
    finally:
        tree.kill_all(children + tree.descendants(proc.pid))
        proc.kill()
    stored = audits(db)
    assert 0 < stored < REPOS, "the kill did not land mid-run"
    again = analyze(db)
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert len(AUDITED.findall(out)) == REPOS - stored  # only what was missing, each once
    assert audits(db) == REPOS


def test_two_runs_at_once_audit_each_repository_once(db: Path) -> None:
    runs = [analyze(db), analyze(db)]
    outputs = [run.communicate(timeout=300) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], [err for _, err in outputs]
    audited = Counter(name for out, _ in outputs for name in AUDITED.findall(out))
    assert set(audited) == {f"owner/repo{i:02d}" for i in range(1, REPOS + 1)}
    assert max(audited.values()) == 1, [n for n, c in audited.items() if c > 1]
    assert audits(db) == REPOS


def test_ctrl_c_stops_with_one_line_exit_130_and_a_resumable_store(db: Path) -> None:
    # A terminal's Ctrl-C reaches the whole foreground group: the command and its workers.
    proc = analyze(db, start_new_session=True)
    children: list[psutil.Process] = []
    try:
        first_audit(proc)
        children = tree.descendants(proc.pid)
        os.killpg(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=120)
    finally:
        tree.kill_all(children + tree.descendants(proc.pid))
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert err.startswith("interrupted: audited ") and "run `miner analyze` again" in err
    assert tree.still_running(children) == []
    stored = audits(db)
    again = analyze(db)
    out, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert len(AUDITED.findall(out)) == REPOS - stored and audits(db) == REPOS
