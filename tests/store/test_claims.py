"""Claims on repositories and the stage lock: shared work, stale holders taken over."""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

import psutil
import pytest

from miner.errors import StoreBusy
from miner.procs import ProcessId
from miner.store import Store
from miner.store.claims import BUSY, DONE, TAKEN, Claims, StageLock


def dead_process() -> ProcessId:
    """The identity a process had: it has exited since."""
    proc = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(30)"])
    me = ProcessId.current()
    dead = ProcessId(proc.pid, me.host, psutil.Process(proc.pid).create_time())
    proc.kill()
    proc.wait()
    return dead


def test_a_claim_held_by_a_live_run_is_busy_and_free_once_finished(tmp_path: Path) -> None:
    with Store(tmp_path / "miner.db") as store:
        first, second = Claims(store, "analyze"), Claims(store, "analyze")
        assert first.take(7) == TAKEN
        assert first.take(7) == TAKEN  # its own claim
        assert second.take(7) == BUSY
        assert Claims(store, "clone").take(7) == TAKEN  # another stage, another claim
        first.finish(7)
        assert second.take(7) == DONE  # finished after `second` started
        assert Claims(store, "analyze").take(7) == TAKEN  # a later run decides by itself
        assert Claims(store, "analyze").take(8, done=lambda: True) == DONE


def test_a_claim_given_up_or_left_by_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    with Store(tmp_path / "miner.db") as store:
        first = Claims(store, "analyze")
        assert first.take(1) == TAKEN and first.take(2) == TAKEN
        first.finish(2, done=False)  # not finished: free again
        with Claims(store, "analyze") as second:
            assert second.take(2) == TAKEN and second.take(1) == BUSY
        first.close()
        assert Claims(store, "analyze").take(1) == TAKEN
        # A claim of a process that is gone: killed, crashed, or with a reused pid.
        stale = Claims(store, "analyze")
        stale.owner = dead_process()
        assert stale.take(3) == TAKEN
        assert Claims(store, "analyze").take(3) == TAKEN
        me = ProcessId.current()
        reused = Claims(store, "analyze")
        reused.owner = ProcessId(me.pid, me.host, me.started - 3600)
        assert reused.take(4) == TAKEN and Claims(store, "analyze").take(4) == TAKEN


def test_each_retries_held_items_at_the_end(tmp_path: Path) -> None:
    with Store(tmp_path / "miner.db") as store:
        other = Claims(store, "clone")
        other.take(2)
        mine = Claims(store, "clone")
        states = []
        for item, state in mine.each([1, 2, 3], key=lambda n: n, done=lambda n: False):
            states.append((item, state))
            if item == 3:
                other.finish(2)  # the other run stores it meanwhile
        assert states == [(1, TAKEN), (3, TAKEN), (2, DONE)]


def test_the_stage_lock_names_its_holder_or_waits_for_it(tmp_path: Path) -> None:
    with Store(tmp_path / "miner.db") as store, Store(tmp_path / "miner.db") as other:
        holder = StageLock(store, "search", "miner search 'deep learning'").acquire()
        with pytest.raises(StoreBusy) as busy:
            StageLock(other, "search", "miner search gan").acquire()
        message = str(busy.value)
        assert "`miner search 'deep learning'`" in message and f"pid {holder.owner.pid}" in message
        assert "--wait" in message and "\n" not in message
        said: list[str] = []
        threading.Timer(1.0, holder.release).start()
        started = time.monotonic()
        StageLock(other, "search", "miner search gan").acquire(wait=True, on_wait=said.append)
        assert time.monotonic() - started >= 0.9
        assert len(said) == 1 and said[0].startswith("waiting for `miner search 'deep learning'`")


def test_the_lock_of_a_dead_process_is_taken_over(tmp_path: Path) -> None:
    with Store(tmp_path / "miner.db") as store:
        gone = StageLock(store, "search", "miner search gan")
        gone.owner = dead_process()
        gone.acquire()
        StageLock(store, "search", "miner search gan").acquire()  # no StoreBusy
