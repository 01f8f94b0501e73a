"""Run one step of an untrusted project, bounded: its own process group, resource limits, no
secrets in its environment, and (for training) no network where the OS allows cutting it.

The clone is never run in place: callers hand a throw-away copy as the working folder.
"""

from __future__ import annotations

import functools
import os
import resource
import shutil
import signal
import subprocess
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

# Any variable whose name contains one of these is a credential as far as the child is concerned.
SECRET_WORDS = ("TOKEN", "SECRET", "KEY", "PASSWORD", "PASSWD", "CREDENTIAL", "AUTH")
# The host's Python setup must not leak into the project's interpreter.
HOST_PYTHON_VARS = (
    "PYTHONPATH", "PYTHONHOME", "PYTHONSTARTUP", "PYTHONUSERBASE", "PYTHONSAFEPATH",
    "VIRTUAL_ENV", "CONDA_PREFIX", "CONDA_DEFAULT_ENV",
)  # fmt: skip
GIB = 1024**3


@dataclass(frozen=True)
class Limits:
    """Resource limits set in the child before it starts (None: leave as inherited)."""

    memory_bytes: int | None = 8 * GIB  # address space (RLIMIT_AS)
    cpu_seconds: int | None = None  # CPU time (RLIMIT_CPU), a backstop behind the wall clock
    file_bytes: int | None = 4 * GIB  # largest file it may write (RLIMIT_FSIZE)


@dataclass(frozen=True)
class Finished:
    """How a bounded step ended."""

    exit_code: int | None  # None when it could not start
    timed_out: bool
    seconds: float
    error: str | None = None


def is_secret(name: str) -> bool:
    """True for environment variable names that look like credentials (GITHUB_TOKEN, AWS_*_KEY)."""
    upper = name.upper()
    return any(word in upper for word in SECRET_WORDS)


def scrubbed_env(env: Mapping[str, str]) -> dict[str, str]:
    """The environment without credentials and without the host's Python settings."""
    return {k: v for k, v in env.items() if not is_secret(k) and k not in HOST_PYTHON_VARS}


@functools.cache
def network_cut_prefix() -> tuple[str, ...] | None:
    """The command prefix that runs a program in a new network namespace with no interfaces up
    (`unshare -n` as root, `unshare -rn` through a user namespace), or None where neither works."""
    unshare = shutil.which("unshare")
    if unshare is None:
        return None
    for prefix in ((unshare, "-n"), (unshare, "-rn")):
        try:
            done = subprocess.run(
                [*prefix, "true"], capture_output=True, timeout=10, check=False
            )  # fmt: skip
        except (OSError, subprocess.TimeoutExpired):
            continue
        if done.returncode == 0:
            return prefix
    return None


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

    return apply


def kill_group(pgid: int) -> None:
    """SIGKILL every process of a group (workers, shells, grandchildren); gone is fine."""
    try:
        os.killpg(pgid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def run_bounded(
    argv: Sequence[str],
    cwd: Path,
    env: Mapping[str, str],
    log: Path,
    timeout: float,
    limits: Limits,
) -> Finished:
    """Run `argv` in its own session and process group with `limits`, stdout and stderr appended
    to `log`; past `timeout` seconds the whole group is killed. The group is killed on return
    too, so nothing the step left running in the background outlives it."""
    with log.open("ab") as out:
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(
                list(argv), cwd=cwd, env=dict(env), stdin=subprocess.DEVNULL, stdout=out,
                stderr=subprocess.STDOUT, start_new_session=True, preexec_fn=_set_limits(limits),
            )  # fmt: skip
        except OSError as exc:
            out.write(f"cannot start {argv[0]}: {exc}\n".encode())
            return Finished(None, False, 0.0, f"cannot start {argv[0]}: {exc.strerror}")
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
        finally:
            kill_group(proc.pid)  # the leader's pid is the group id (start_new_session)
            proc.wait()
        seconds = time.perf_counter() - start
    error = f"killed after {timeout:g} s" if timed_out else None
    return Finished(proc.returncode, timed_out, seconds, error)
