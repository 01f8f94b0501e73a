"""Children that die with their parent, groups a guardian ends, and a Ctrl-C handled once."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator

import psutil
import pytest

from miner.procs import ProcessId

PY = psutil.Process().name()  # what this interpreter's processes are called
pytestmark = pytest.mark.skipif(not hasattr(signal, "SIGKILL"), reason="POSIX signals")

POOL = """
import os, sys, time
from concurrent.futures import ProcessPoolExecutor
from miner.procs import ProcessId, pool_worker_init
pool = ProcessPoolExecutor(2, initializer=pool_worker_init,
                           initargs=(ProcessId.current(), sys.argv[1] == "signal"))
pids = {pool.submit(os.getpid).result() for _ in range(8)}
print("ready", flush=True)
time.sleep(600)
"""
GROUP = """
import time
from miner.procs import spawn_group
spawn_group(["sh", "-c", "sleep 600 & sleep 600 & wait"])
print("ready", flush=True)
time.sleep(600)
"""
INTERRUPT = """
import time
from miner.procs import interruptible
try:
    with interruptible():
        print("ready", flush=True)
        time.sleep(600)
except KeyboardInterrupt:
    print("cleaning up", flush=True)
    time.sleep(2)  # a second Ctrl-C lands here and must not cut the cleanup short
    print("clean", flush=True)
    raise SystemExit(130)
"""


def start(
    code: str, reaped: list[psutil.Process], *args: str, **popen: object
) -> subprocess.Popen[str]:
    """A Python process running `code`, read line by line."""
    proc = subprocess.Popen(
        [sys.executable, "-c", code, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,  # type: ignore[call-overload]
    )
    reaped.append(psutil.Process(proc.pid))
    return proc


def still_running(procs: list[psutil.Process], seconds: float = 30.0) -> list[psutil.Process]:
    """The processes of `procs` still running after up to `seconds` (zombies count as gone)."""
    deadline = time.monotonic() + seconds
    while True:
        alive = []
        for proc in procs:
            try:
                if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                    alive.append(proc)
            except psutil.NoSuchProcess:
                pass
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.1)


@pytest.fixture
def reaped() -> Iterator[list[psutil.Process]]:
    """Processes a test saw (add them as soon as they exist), killed whatever the outcome."""
    seen: list[psutil.Process] = []
    yield seen
    for proc in seen:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass


def ready(
    proc: subprocess.Popen[str], reaped: list[psutil.Process], *names: str
) -> list[psutil.Process]:
    """Wait for the 'ready' line and until the processes below `proc` have these `names`."""
    assert proc.stdout is not None
    line = proc.stdout.readline()
    assert line.strip() == "ready", proc.stderr.read() if proc.stderr else line
    deadline = time.monotonic() + 30
    while True:
        family = psutil.Process(proc.pid).children(recursive=True)
        try:
            found = sorted(p.name() for p in family)
        except psutil.NoSuchProcess:
            found = []
        if found == sorted(names) or time.monotonic() > deadline:
            reaped.extend(family)
            assert found == sorted(names)
            return family
        time.sleep(0.05)


@pytest.mark.parametrize("how", ["signal", "watchdog"])
def test_pool_workers_die_with_a_killed_parent(how: str, reaped: list[psutil.Process]) -> None:
    parent = start(POOL, reaped, how)
    children = ready(parent, reaped, PY, PY)
    parent.kill()
    parent.wait()
    assert still_running(children) == []


def test_a_spawned_group_and_its_guardian_end_when_the_parent_is_killed(
    reaped: list[psutil.Process],
) -> None:
    parent = start(GROUP, reaped)
    children = ready(parent, reaped, PY, "sh", "sleep", "sleep")  # the guardian and the group
    parent.kill()
    parent.wait()
    assert still_running(children) == []


def test_the_guardian_outlives_a_kill_of_the_parent_s_whole_group(
    reaped: list[psutil.Process],
) -> None:
    parent = start(GROUP, reaped, start_new_session=True)
    children = ready(parent, reaped, PY, "sh", "sleep", "sleep")
    os.killpg(parent.pid, signal.SIGKILL)  # the parent's group; the run has its own
    parent.wait()
    assert still_running(children) == []


def test_ctrl_c_raises_once_and_cleanup_is_not_cut_short(reaped: list[psutil.Process]) -> None:
    proc = start(INTERRUPT, reaped)
    ready(proc, reaped)
    proc.send_signal(signal.SIGINT)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "cleaning up"
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130 and out.strip() == "clean"
    assert "Traceback" not in err


def test_a_process_is_recognised_by_pid_host_and_start_time() -> None:
    me = ProcessId.current()
    assert me.alive() and me.pid == os.getpid() and me.host == socket.gethostname()
    assert not ProcessId(me.pid, me.host, me.started - 60).alive()  # the pid was reused
    assert not ProcessId(me.pid, me.host + "-elsewhere", me.started).alive()
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], check=True,
                          capture_output=True, text=True)  # fmt: skip
    assert not ProcessId(int(done.stdout), me.host, me.started).alive()
    assert f"pid {me.pid} on {me.host}" in me.describe()
