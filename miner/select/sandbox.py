"""Run one step of an untrusted project, bounded: its own process group, resource limits, no
secrets in its environment, and (for training) no network where the OS allows cutting it.

The clone is never run in place: callers hand a throw-away copy as the working folder.
"""

from __future__ import annotations

import functools
import os
import pwd
import re
import resource
import shutil
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from miner.errors import ConfigError
from miner.procs import child_preexec, end_group, guardian, starting_child

# Any variable whose name contains one of these is a credential as far as the child is concerned.
SECRET_WORDS = ("TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")
# The host's Python setup must not leak into the project's interpreter.
HOST_PYTHON_VARS = (
    "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONSAFEPATH",
    "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV",
)  # fmt: skip
GIB = 1024**3
# The thread-pool variables the common back-ends read (OpenMP, MKL, OpenBLAS, BLIS, numexpr,
# Accelerate, TensorFlow); `miner experiment` pins runs through the same ones.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS",
    "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS", "MINER_NUM_THREADS",
)  # fmt: skip


@dataclass(frozen=True)
class Limits:
    """Resource limits set in the child before it starts (None: leave as inherited)."""

    memory_bytes: int | None = 8 * GIB  # address space (RLIMIT_AS)
    cpu_seconds: int | None = None  # CPU time (RLIMIT_CPU), a backstop behind the wall clock
    file_bytes: int | None = 4 * GIB  # largest file it may write (RLIMIT_FSIZE)
    cpus: tuple[int, ...] | None = None  # the CPUs it may run on (sched_setaffinity)


@dataclass(frozen=True)
class Finished:
    """How a bounded step ended."""

    exit_code: int | None  # None when it could not start
    timed_out: bool
    seconds: float
    error: str | None = None
    stopped: bool = False  # ended by the caller's `stop_when`, not by itself nor the time limit
    queued: float = 0.0  # seconds the bound grew by: the step was ready to run but had no CPU


def is_secret(name: str) -> bool:
    """True for environment variable names that look like credentials (GITHUB_TOKEN, AWS_*_KEY)."""
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS)


def pinned(threads: int) -> tuple[tuple[int, ...], dict[str, str]]:
    """The first `threads` CPUs this process may use, and the thread variables set to
    `threads` (OpenMP may not shrink its team behind our back)."""
    usable = sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else [0]
    env = {name: str(threads) for name in THREAD_VARIABLES}
    env.update({"OMP_DYNAMIC": "FALSE", "MKL_DYNAMIC": "FALSE"})
    return tuple(usable[: max(1, threads)]), env


def scrubbed_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment without credentials and without the host's Python settings, with the
    account's name in USER and LOGNAME as a login shell has them (containers and cron jobs often
    set neither, and training scripts name their output folders after `$USER`)."""
    clean = {k: v for k, v in env.items() if not is_secret(k) and k not in HOST_PYTHON_VARS}
    for name in ("USER", "LOGNAME"):
        clean.setdefault(name, _account())
    return clean


def _account() -> str:
    try:
        return pwd.getpwuid(os.getuid()).pw_name
    except KeyError:  # an id without a passwd entry (some containers)
        return "smoke"


@functools.cache
def network_cut_prefix() -> tuple[str, ...] | None:
    """The command prefix that runs a program in a new network namespace (`unshare -n` as root,
    `unshare -rn` through a user namespace) with only the loopback interface up, or None where
    neither works. Loopback stays: a single-process `torch.distributed` group, a local server or
    a data-loader's manager talk to 127.0.0.1, and nothing there leaves the machine."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    for prefix in ((unshare, "-n"), (unshare, "-rn")):
        if not _runs((*prefix, "true")):
            continue
        ip = shutil.which("ip")
        with_loopback = (*prefix, "sh", "-c", f'{ip} link set lo up && exec "$@"', "sh")
        return with_loopback if ip and _runs((*with_loopback, "true")) else prefix
    return None


def _runs(argv: tuple[str, ...]) -> bool:
    try:
        done = subprocess.run(list(argv), capture_output=True, timeout=10, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _set_limits(limits: Limits) -> Callable[[], None]:
    """A function the child runs between fork and exec to lower its own limits."""
    wanted = (
        (resource.RLIMIT_AS, limits.memory_bytes),
        (resource.RLIMIT_CPU, limits.cpu_seconds),
        (resource.RLIMIT_FSIZE, limits.file_bytes),
        (resource.RLIMIT_CORE, 0),
    )

    def apply() -> None:
        for kind, value in wanted:
            if value is None:
                continue
            _, hard = resource.getrlimit(kind)
            value = value if hard == resource.RLIM_INFINITY else min(value, hard)
            resource.setrlimit(kind, (value, value))  # hard too: the project cannot raise it
        if limits.cpus and hasattr(os, "sched_setaffinity"):
            os.sched_setaffinity(0, limits.cpus)  # inherited by everything it starts

    return apply


def _preexec(limits: Limits) -> Callable[[], None]:
    """Between fork and exec: die with miner (miner.procs), then lower the limits."""
    die_with_miner, lower = child_preexec(), _set_limits(limits)

    def run() -> None:
        die_with_miner()
        lower()

    return run


def run_bounded(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    log: Path,
    timeout: float,
    limits: Limits,
    stop_when: Callable[[], bool] | None = None,
) -> Finished:
    """Run `argv` in its own session and process group with `limits`, stdout and stderr appended
    to `log`; past `timeout` seconds (or once `stop_when()`, polled twice a second, is true) the
    whole group is killed. The group is killed on return too, so nothing the step left running
    in the background outlives it, and it dies with miner should miner die first.

    The bound counts the time the step could run: the seconds its processes waited, ready, for a
    CPU that other work held (Linux's scheduler statistics) are added to it, up to as much again,
    so that runs side by side on a busy machine end as they would alone."""
    with log.open("ab") as out:
        start = time.perf_counter()
        try:
            with starting_child():
                proc = subprocess.Popen(
                    list(argv), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=out,
                    stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_preexec(limits),
                )  # fmt: skip
                guardian().watch(proc.pid, group=True)
        except OSError as exc:
            out.write(f"cannot start {argv[0]}: {exc}\n".encode())
            return Finished(None, False, 0.0, f"cannot start {argv[0]}: {exc.strerror}")
        timed_out = stopped = False
        queue = QueueWatch(proc.pid, timeout)
        try:
            stopped = _wait(proc, start + timeout, stop_when, queue)
            timed_out = proc.poll() is None and not stopped
        finally:
            end_group(proc)  # the leader's pid is the group id (start_new_session)
        seconds = time.perf_counter() - start
    error = f"killed after {timeout:g} s" if timed_out else None
    return Finished(proc.returncode, timed_out, seconds, error, stopped, queue.granted())


class QueueWatch:
    """How long the processes of one group have waited for a CPU while ready to run: the most
    any one of them has waited (a process that ended keeps its figure), capped at `cap`."""

    def __init__(self, group: int, cap: float) -> None:
        self.group, self.cap, self.most = group, cap, 0.0
        self.readable = Path("/proc/self/schedstat").is_file()

    def granted(self) -> float:
        """Seconds to add to the bound now."""
        if not self.readable:
            return 0.0
        for entry in os.scandir("/proc"):
            if entry.name.isdigit():
                self.most = max(self.most, _queued_if_in(entry.name, self.group))
        return min(self.most, self.cap)


def _queued_if_in(pid: str, group: int) -> float:
    try:
        with open(f"/proc/{pid}/stat", encoding="ascii", errors="replace") as fh:
            fields = fh.read().rpartition(")")[2].split()  # after the name: state, ppid, pgrp
        if int(fields[2]) != group:
            return 0.0
        with open(f"/proc/{pid}/schedstat", encoding="ascii") as fh:
            return int(fh.read().split()[1]) / 1e9
    except (OSError, ValueError, IndexError):
        return 0.0


def _wait(
    proc: subprocess.Popen[bytes],
    deadline: float,
    stop_when: Callable[[], bool] | None,
    queue: QueueWatch,
) -> bool:
    """Wait for the process until the deadline (moved on by the time it waited for a CPU);
    True when `stop_when` asked to stop it."""
    while True:
        left = deadline + queue.granted() - time.perf_counter()
        if left <= 0:
            return False
        try:
            proc.wait(timeout=min(left, 0.5))
            return False
        except subprocess.TimeoutExpired:
            if stop_when is not None and stop_when():
                return True


def uv_binary() -> str:
    """The `uv` executable (the `uv` package ships it)."""
    try:
        from uv import find_uv_bin

        return str(find_uv_bin())
    except (ImportError, FileNotFoundError):
        found = shutil.which("uv")
        if found is None:
            raise ConfigError("smoke runs need uv: pip install uv") from None
        return found


# A file whose own name says it holds data, not weights: a script's preprocessed set
# (`checkpoint/train.h5`, `test.h5`, `features.pt`, `data_cache.pkl`).
DATA_NAMED = re.compile(
    r"(?i)(?:data|split|feature|corpus)[^/]*$|(?:^|/)(?:train|test|val|valid)\.\w+$"
)


def first_new_file(root: Path, patterns: tuple[str, ...], since: float) -> str | None:
    """The first regular file under `root` matching a glob and written since `since`, whose name
    does not say it holds data."""
    for pattern in patterns:
        for path in sorted(root.glob(pattern)):
            if path.is_file() and not path.is_symlink() and path.stat().st_mtime >= since - 1:
                relative = path.relative_to(root).as_posix()
                if not DATA_NAMED.search(relative):
                    return relative
    return None
