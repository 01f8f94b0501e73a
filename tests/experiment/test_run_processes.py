"""`miner experiment run` as a process: a killed or interrupted runner leaves no run behind."""

from __future__ import annotations

import importlib.util
import os
import signal
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import psutil
import pytest
import yaml

from miner.experiment.records import load_records

pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")
# A training run that starts a worker of its own and hangs, until the test lets it finish.
TRAINING = """
import os, subprocess, sys, time
if os.path.exists(sys.argv[1]):
    print("loss: 0.5")
    sys.exit(0)
subprocess.Popen(["sleep", "600"])
time.sleep(600)
"""


def _load() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "fakes" / "process_tree.py"
    spec = importlib.util.spec_from_file_location("process_tree", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


tree = _load()


@pytest.fixture
def manifest(tmp_path: Path) -> Path:
    path = tmp_path / "hang.yaml"
    run = {
        "command": [sys.executable, "-c", TRAINING, str(tmp_path / "go")],
        "workdir": "run_dir",
        "metric_patterns": {"loss": r"loss: ([0-9.]+)"},
    }
    path.write_text(yaml.safe_dump({"name": "hang", "run": run}))
    return path


def experiment(manifest: Path, out: Path, **popen: object) -> subprocess.Popen[str]:
    args = ("--threads", "1", "--runs", "2", "--out", str(out))
    return tree.miner("experiment", "run", str(manifest), *args, **popen)


def training_started(proc: subprocess.Popen[str]) -> list[psutil.Process]:
    """Every process below the runner once the run's own worker (`sleep`) is up."""
    found: list[psutil.Process] = []

    def has_worker() -> bool:
        found[:] = tree.descendants(proc.pid)
        try:
            return any(p.name() == "sleep" for p in found)
        except psutil.NoSuchProcess:
            return False

    tree.wait_for(lambda: proc.poll() is not None or has_worker(), what="the run to start")
    assert proc.poll() is None, proc.communicate()
    return found


def test_a_killed_runner_leaves_no_run_behind(manifest: Path, tmp_path: Path) -> None:
    proc = experiment(manifest, tmp_path / "runs")
    children: list[psutil.Process] = []
    try:
        children = training_started(proc)
        proc.kill()  # the runner only: the run, in its own process group, must go too
        proc.communicate()
        assert tree.still_running(children) == []
    finally:
        tree.kill_all(children + tree.descendants(proc.pid))
        proc.kill()


def test_ctrl_c_ends_the_run_s_group_exits_130_and_resumes(manifest: Path, tmp_path: Path) -> None:
    out = tmp_path / "runs"
    proc = experiment(manifest, out, start_new_session=True)  # a terminal's foreground group
    children: list[psutil.Process] = []
    try:
        children = training_started(proc)
        os.killpg(proc.pid, signal.SIGINT)
        _, err = proc.communicate(timeout=120)
    finally:
        tree.kill_all(children + tree.descendants(proc.pid))
        proc.kill()
    assert proc.returncode == 130, err
    last = err.strip().splitlines()[-1]
    assert "Traceback" not in err and last.startswith("interrupted: 0 runs recorded by this run")
    assert tree.still_running(children) == []
    assert not list(out.glob("*/run-*"))  # the interrupted run is not left half-written
    (tmp_path / "go").touch()
    again = experiment(manifest, out)
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert sorted((r.run, r.status) for r in load_records(out)) == [(1, "ok"), (2, "ok")]
