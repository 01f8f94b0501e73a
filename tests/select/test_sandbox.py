"""The bounded step's clock: time a step waits for a CPU that other work holds is added to its
bound (up to as much again), so that runs side by side end as they would alone."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from miner.select.sandbox import Limits, QueueWatch, run_bounded

BUSY = "while True: pass"


def _one_cpu() -> int:
    return sorted(os.sched_getaffinity(0))[0]


@pytest.mark.skipif(not Path("/proc/self/schedstat").is_file(), reason="no scheduler statistics")
def test_a_step_that_shares_its_cpu_gets_the_time_it_waited(tmp_path):
    cpu = _one_cpu()
    rival = subprocess.Popen(
        [sys.executable, "-c", BUSY], preexec_fn=lambda: os.sched_setaffinity(0, {cpu})
    )
    try:
        done = run_bounded([sys.executable, "-c", BUSY], tmp_path, dict(os.environ),
                           tmp_path / "log", 2.0, Limits(cpus=(cpu,)))  # fmt: skip
    finally:
        rival.kill()
        rival.wait()
    assert done.timed_out and done.exit_code is not None
    # Two busy loops on one CPU: each waits about half the time for the other.
    assert 0.2 < done.queued <= 2.0
    assert done.seconds >= 2.0 + done.queued - 1.0


def test_the_time_added_is_capped_at_the_bound(tmp_path):
    watch = QueueWatch(os.getpgrp(), cap=0.001)
    watch.most = 5.0  # as if a process of the group had waited five seconds
    expected = 0.001 if watch.readable else 0.0
    assert watch.granted() == expected


def test_a_group_with_no_process_is_granted_nothing():
    watch = QueueWatch(2**22 + 12345, cap=10.0)  # no such process group
    assert watch.granted() == 0.0


def test_a_new_file_whose_name_says_data_is_no_weights(tmp_path):
    import time

    from miner.select.sandbox import first_new_file

    since = time.time()
    (tmp_path / "checkpoint").mkdir()
    (tmp_path / "checkpoint/test.h5").write_bytes(b"x")  # the script's preprocessed test set
    (tmp_path / "checkpoint/data_cache.h5").write_bytes(b"x")
    patterns = ("**/*.h5",)
    assert first_new_file(tmp_path, patterns, since) is None
    (tmp_path / "checkpoint/srcnn.model-2.h5").write_bytes(b"x")
    assert first_new_file(tmp_path, patterns, since) == "checkpoint/srcnn.model-2.h5"
