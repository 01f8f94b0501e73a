"""The processes a command started, found by PID (never by name) before it is killed, and
checked afterwards. Loaded by path (tests/ is no package): see `tree = _load()` in its users."""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable

import psutil


def descendants(pid: int) -> list[psutil.Process]:
    """Every process below `pid` now (children, grandchildren...)."""
    try:
        return psutil.Process(pid).children(recursive=True)
    except psutil.NoSuchProcess:
        return []


def wait_for(condition: Callable[[], object], seconds: float = 90.0, what: str = "") -> None:
    """Poll `condition` until it holds; fail (rather than hang) after `seconds`."""
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what or condition}")
        time.sleep(0.05)


def still_running(procs: list[psutil.Process], seconds: float = 10.0) -> list[psutil.Process]:
    """Those of `procs` still running after up to `seconds` (a zombie has ended: only its
    exit status is left). psutil tells a reused PID apart by its start time."""

    def running() -> list[psutil.Process]:
        alive = []
        for proc in procs:
            try:
                if proc.is_running() and proc.status() != psutil.STATUS_ZOMBIE:
                    alive.append(proc)
            except psutil.NoSuchProcess:
                pass
        return alive

    deadline = time.monotonic() + seconds
    while (alive := running()) and time.monotonic() < deadline:
        time.sleep(0.1)
    return alive


def kill_all(procs: list[psutil.Process]) -> None:
    """Clean up after a failed test: kill whatever of `procs` still runs."""
    for proc in procs:
        try:
            proc.kill()
        except psutil.NoSuchProcess:
            pass


def miner(*args: str, **popen: object) -> subprocess.Popen[str]:
    """`python -m miner ARGS` with its output read as text."""
    return subprocess.Popen(
        [sys.executable, "-m", "miner", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **popen,  # type: ignore[call-overload]
    )
