"""Thread pinning for a run: which CPUs, which thread variables, and reading them back.

A run at `threads` T is pinned to the first min(T, usable CPUs) CPUs this process may use, and
every thread-pool variable the common back-ends read (OpenMP, MKL, OpenBLAS, BLIS, numexpr,
Accelerate, TensorFlow intra/inter-op) is set to T. T above the usable CPUs is allowed, as in the
2021 study's 12 threads on smaller machines, and recorded as oversubscribed.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from miner.errors import ExperimentError

LAUNCHER = Path(__file__).with_name("launch.py")
THREAD_ENV_VARS = (
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS",
    "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS", "MINER_NUM_THREADS",
)  # fmt: skip


@dataclass(frozen=True)
class Pinning:
    """The CPU set and thread variables of one thread-count configuration."""

    threads: int
    cpus: tuple[int, ...]
    machine_cpus: int
    oversubscribed: bool

    def env(self) -> dict[str, str]:
        """The thread variables for the child (MINER_NUM_THREADS is for torch.set_num_threads
        and other in-code hooks, see the manifest's thread snippet)."""
        values = {name: str(self.threads) for name in THREAD_ENV_VARS}
        values["OMP_DYNAMIC"] = "FALSE"  # OpenMP may not shrink the team behind our back
        values["MKL_DYNAMIC"] = "FALSE"
        return values


def usable_cpus() -> tuple[int, ...]:
    """The CPUs this process may run on (its affinity mask), sorted."""
    if hasattr(os, "sched_getaffinity"):
        return tuple(sorted(os.sched_getaffinity(0)))
    return tuple(range(os.cpu_count() or 1))


def pinning_for(threads: int, available: tuple[int, ...] | None = None) -> Pinning:
    """The pinning of a `threads` configuration on the `available` CPUs (default: usable now)."""
    if threads < 1:
        raise ExperimentError(f"thread count {threads} must be at least 1")
    cpus = available if available is not None else usable_cpus()
    chosen = cpus[: min(threads, len(cpus))]
    return Pinning(threads, tuple(chosen), len(cpus), threads > len(cpus))


def parse_threads(text: str) -> tuple[int, ...]:
    """'1,2,6,12' -> (1, 2, 6, 12), in the given order without repeats."""
    values: list[int] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            continue
        if not part.isdigit() or int(part) < 1:
            raise ExperimentError(f"--threads: {part!r} is not a positive integer")
        if int(part) not in values:
            values.append(int(part))
    if not values:
        raise ExperimentError("--threads: give at least one thread count, e.g. 1,2")
    return tuple(values)


def parse_cpu_list(text: str) -> tuple[int, ...]:
    """A kernel CPU list such as '0-2,5' -> (0, 1, 2, 5)."""
    cpus: list[int] = []
    for part in text.strip().split(","):
        if not part:
            continue
        lo, _, hi = part.partition("-")
        cpus.extend(range(int(lo), int(hi or lo) + 1))
    return tuple(cpus)


def read_proc_status(pid: int) -> dict[str, object] | None:
    """The affinity list and OS thread count of a live process, from /proc (None when gone)."""
    try:
        text = Path(f"/proc/{pid}/status").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    out: dict[str, object] = {}
    for line in text.splitlines():
        key, _, value = line.partition(":")
        if key == "Cpus_allowed_list":
            out["cpus"] = parse_cpu_list(value)
        elif key == "Threads":
            out["threads"] = int(value)
    return out
