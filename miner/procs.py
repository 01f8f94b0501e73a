"""Child processes that never outlive the run that started them, and a clean Ctrl-C.

Three mechanisms, each for the case the others miss:

- `die_with_parent` (in a child): on Linux the kernel sends SIGKILL when the parent dies
  (PR_SET_PDEATHSIG); elsewhere a watchdog thread polls the parent's identity and exits.
- `Guardian` (in the parent): a tiny helper process holding the read end of a pipe. When the
  parent dies, however it dies, the kernel closes the write end; the guardian reads EOF and
  kills every process group (or process) still registered with it. It lives in its own session,
  so a signal sent to the parent's whole group does not take it down before it has done its job.
- `interruptible` (in the parent): Ctrl-C raises KeyboardInterrupt once, and a second Ctrl-C
  while the command cleans up is ignored, so cleanup is never cut short half-way.

The kernel's signal follows the thread that started the child: start children from a thread that
outlives them (the main thread, or a pool thread that waits for its child).
"""

from __future__ import annotations

import atexit
import ctypes
import ctypes.util
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from typing import IO, Any

PR_SET_PDEATHSIG = 1  # from <linux/prctl.h>
WATCH_SECONDS = 0.5
# Create times of one process read twice agree to the clock tick; a reused pid starts later.
SAME_START = 0.05


@dataclass(frozen=True)
class ProcessId:
    """A process as another process can recognise it later: pid, host and start time (a pid
    that was reused by a newer process has a later start time)."""

    pid: int
    host: str
    started: float

    @classmethod
    def current(cls) -> ProcessId:
        """This process."""
        return cls(os.getpid(), socket.gethostname(), start_time(os.getpid()) or 0.0)

    def alive(self) -> bool:
        """True while this very process runs on this host (never for another host's process:
        the store is SQLite in WAL mode, which only processes of one machine can share)."""
        if self.host != socket.gethostname():
            return False
        started = start_time(self.pid)
        return started is not None and abs(started - self.started) < SAME_START

    def describe(self) -> str:
        """'pid 1234 on host, started 2024-05-01 12:00:03'."""
        when = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(self.started))
        return f"pid {self.pid} on {self.host}, started {when}"


def start_time(pid: int) -> float | None:
    """When process `pid` started (seconds since the epoch), or None when there is none."""
    import psutil

    try:
        proc = psutil.Process(pid)
        if proc.status() == psutil.STATUS_ZOMBIE:
            return None
        return float(proc.create_time())
    except psutil.Error:
        return None


# ---------------------------------------------------------------- in the child


def _prctl() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    try:
        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
        return libc.prctl
    except (OSError, AttributeError):
        return None


_PRCTL = _prctl()


def set_parent_death_signal(sig: int = signal.SIGKILL) -> bool:
    """Ask the kernel to send `sig` to this process when its parent dies; False if it cannot.

    Safe to call between fork and exec (a Popen preexec_fn): no allocation, no locks."""
    return _PRCTL is not None and _PRCTL(PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0


def die_with_parent(parent: ProcessId, use_signal: bool = True) -> None:
    """End this process when `parent` ends: by the kernel's signal where there is one, else by
    a watchdog thread that checks the parent twice a second (idle or busy, it notices)."""
    if use_signal and set_parent_death_signal():
        if not parent.alive():  # it died before the signal was set up
            os._exit(1)
        return

    def watch() -> None:
        while parent.alive():
            time.sleep(WATCH_SECONDS)
        os._exit(1)

    if not parent.alive():
        os._exit(1)
    threading.Thread(target=watch, name="parent-watch", daemon=True).start()


def pool_worker_init(parent: ProcessId, use_signal: bool = True) -> None:
    """Initializer of pool workers: die with the parent, and leave Ctrl-C to the parent (which
    stops the pool itself) so a terminal's SIGINT prints no traceback from every worker."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if hasattr(signal, "pthread_sigmask"):  # held while the pool started it: see starting_child
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    die_with_parent(parent, use_signal)


def child_preexec() -> Callable[[], None]:
    """A Popen preexec_fn, for a child started inside `starting_child()`: it dies with this
    process where the kernel allows it (at once if this process died before the signal was set
    up), and gets Ctrl-C back with the default action it would have after exec anyway."""
    parent = os.getpid()

    def preexec() -> None:
        signal.signal(signal.SIGINT, signal.SIG_DFL)
        if hasattr(signal, "pthread_sigmask"):
            signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
        if set_parent_death_signal() and os.getppid() != parent:
            os._exit(1)

    return preexec


# ---------------------------------------------------------------- in the parent

_GUARD = r"""
import os, signal, sys
for name in ("SIGINT", "SIGTERM", "SIGHUP", "SIGQUIT", "SIGPIPE"):
    signal.signal(getattr(signal, name), signal.SIG_IGN)
fd = int(sys.argv[1])
buffer, live = b"", {}
while True:
    chunk = os.read(fd, 4096)
    if not chunk:
        break
    buffer += chunk
    *lines, buffer = buffer.split(b"\n")
    for line in lines:
        op, kind, pid = line.decode().split()
        if op == "+":
            live[int(pid)] = kind
        else:
            live.pop(int(pid), None)
for pid, kind in live.items():
    try:
        (os.killpg if kind == "group" else os.kill)(pid, signal.SIGKILL)
    except OSError:
        pass
"""


class Guardian:
    """Kills the registered process groups (and processes) if this process dies first."""

    def __init__(self) -> None:
        self._pipe: IO[bytes] | None = None
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()

    def _start(self) -> IO[bytes]:
        read, write = os.pipe()  # both ends close on exec: only the guardian gets `read`
        try:
            self._proc = subprocess.Popen(
                [sys.executable, "-I", "-S", "-c", _GUARD, str(read)],
                pass_fds=(read,),
                stdin=subprocess.DEVNULL,
                stdout=subprocess.DEVNULL,
                start_new_session=True,
            )
        finally:
            os.close(read)
        self._pipe = os.fdopen(write, "wb", buffering=0)
        return self._pipe

    def _send(self, line: str) -> None:
        with self._lock:
            pipe = self._pipe or self._start()
            with suppress(OSError):
                pipe.write(line.encode() + b"\n")

    def watch(self, pid: int, group: bool = False) -> None:
        """Kill `pid` (its whole process group with `group`) should this process die."""
        self._send(f"+ {'group' if group else 'process'} {pid}")

    def forget(self, pid: int) -> None:
        """`pid` has ended and was reaped: nothing to kill any more."""
        if self._pipe is not None:
            self._send(f"- x {pid}")

    def close(self) -> None:
        """Stop the guardian (it kills whatever is still registered, then exits)."""
        with self._lock:
            if self._pipe is not None:
                self._pipe.close()
                self._pipe = None
            if self._proc is not None:
                with suppress(subprocess.TimeoutExpired):
                    self._proc.wait(timeout=10)
                self._proc = None


_guardian = Guardian()
atexit.register(_guardian.close)


def guardian() -> Guardian:
    """This process's guardian (started on first use, stopped when the process exits)."""
    return _guardian


@contextmanager
def starting_child() -> Iterator[None]:
    """Hold Ctrl-C in this thread while a child with `child_preexec` starts: between fork and
    exec the child runs Python code, and a Ctrl-C landing there would print a stray traceback.
    A Ctrl-C meanwhile goes to another thread, or arrives when the block ends."""
    if not hasattr(signal, "pthread_sigmask"):
        yield
        return
    held = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
    try:
        yield
    finally:
        signal.pthread_sigmask(signal.SIG_SETMASK, held)


def spawn_group(argv: list[str], **popen: Any) -> subprocess.Popen[bytes]:
    """Start `argv` as the leader of a new process group (its own session), which is killed
    with every process it starts should this process die (or be interrupted while starting it)."""
    proc = None
    try:
        with starting_child():
            proc = subprocess.Popen(
                argv, start_new_session=True, preexec_fn=child_preexec(), **popen
            )
            guardian().watch(proc.pid, group=True)
    except BaseException:
        if proc is not None:
            end_group(proc)
        raise
    return proc


def kill_group(pgid: int, sig: int = signal.SIGKILL) -> None:
    """Send `sig` to every process of group `pgid`; a group already gone is fine."""
    with suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, sig)


def end_group(proc: subprocess.Popen[bytes]) -> None:
    """Kill a group started by `spawn_group` and reap its leader (if not reaped already)."""
    kill_group(proc.pid)
    if proc.returncode is None:
        with suppress(ChildProcessError):
            proc.wait()
    guardian().forget(proc.pid)


@contextmanager
def interruptible() -> Iterator[None]:
    """Ctrl-C raises KeyboardInterrupt once; further Ctrl-C while the command cleans up and
    reports are ignored, so nothing is left half-done. Off the main thread, a no-op."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    interrupted = False

    def once(signum: int, frame: object) -> None:
        nonlocal interrupted
        interrupted = True
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        raise KeyboardInterrupt

    previous: Callable[..., Any] | int | None = signal.signal(signal.SIGINT, once)
    try:
        yield
    finally:
        if not interrupted:  # after an interrupt Ctrl-C stays ignored until the process exits
            signal.signal(signal.SIGINT, previous if previous is not None else signal.SIG_DFL)
