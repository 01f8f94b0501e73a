"""The only GitPython importer: every git process of the clone stage runs through GitSession.

Clones are untrusted input, so every git process runs with an environment that never runs hooks,
never smudges LFS, never touches submodules, never prompts for credentials and never writes the
token anywhere: it travels as an HTTP header in the process environment only. Git's repository
location variables inherited from a caller (for example a pre-commit hook's GIT_DIR or
GIT_INDEX_FILE) are overridden, so a clone can never write into someone else's repository.
"""

from __future__ import annotations

import base64
import os
import re
import subprocess
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import cast
from urllib.parse import urlsplit, urlunsplit

from miner.clone.options import human_bytes
from miner.errors import CloneError
from miner.procs import child_preexec, end_group, guardian, kill_group, starting_child

POLL_SECONDS = 0.1
ONLINE_PROTOCOLS = "https:http:file"
LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "::1"}

# Overrides applied to every git process through GIT_CONFIG_COUNT: they win over the user's
# global and system config, and they are never written into a clone's .git/config.
SAFE_CONFIG: tuple[tuple[str, str], ...] = (
    ("core.fsmonitor", "false"),
    ("core.askPass", ""),
    ("credential.helper", ""),  # an empty value resets the helper list: no stored credentials
    ("submodule.recurse", "false"),
    ("fetch.recurseSubmodules", "false"),
    ("filter.lfs.smudge", ""),
    ("filter.lfs.process", ""),
    ("filter.lfs.required", "false"),
    # A batch flushes once at its end (see layout.py) rather than after every pack and index.
    ("core.fsync", "none"),
    ("gc.auto", "0"),
    ("maintenance.auto", "false"),
    ("fetch.writeCommitGraph", "false"),
    # Keep every received pack as a pack, so its size is the number of bytes received.
    ("fetch.unpackLimit", "1"),
    ("transfer.unpackLimit", "1"),
    # A stalled transfer ends by itself, even in a git orphaned by a killed batch.
    ("http.lowSpeedLimit", "1000"),
    ("http.lowSpeedTime", "60"),
    ("init.defaultBranch", "main"),
    ("advice.detachedHead", "false"),
)

# How git's messages map onto the stored error classes; the first match wins.
ERROR_CLASSES: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("blocked", re.compile(r"error: 451|dmca|unavailable due to|access blocked|is disabled|"
                           r"disabled by github|unavailable for legal reasons", re.I)),
    ("auth", re.compile(r"error: 40[13]\b|could not read (username|password)|authentication "
                        r"failed|terminal prompts disabled", re.I)),
    ("gone", re.compile(r"not found|error: 404|error: 410|does not appear to be a git "
                        r"repository", re.I)),
    ("timeout", re.compile(r"timed out|timeout|curl 28|operation too slow", re.I)),
    ("too_large", re.compile(r"too large|exceeds maximum|out of memory|cannot allocate", re.I)),
)  # fmt: skip
NO_FILTER = re.compile(r"filtering not recognized by server", re.I)
PREFIX = re.compile(r"^(fatal|error|remote|warning):\s*", re.I)
NO_SHALLOW = re.compile(r"no commits selected for shallow requests", re.I)


class Cancelled(Exception):
    """The batch was interrupted (Ctrl-C): the repository is neither cloned nor failed."""


def classify(stderr: str) -> str:
    """The error class of a failed git command from its messages ('other' when unknown)."""
    for name, pattern in ERROR_CLASSES:
        if pattern.search(stderr):
            return name
    return "other"


def public_url(url: str) -> str:
    """The URL without any user name or password in it (what is written to .git/config)."""
    parts = urlsplit(url)
    if parts.scheme in ("http", "https") and "@" in parts.netloc:
        return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))
    return url


def auth_config(url: str, token: str | None) -> tuple[tuple[str, str], ...]:
    """The HTTP header carrying the token, scoped to the URL's host; none without TLS.

    The token is sent over https only (or to a loopback address, which never leaves the machine).
    """
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    if not token or not (
        parts.scheme == "https" or (parts.scheme == "http" and host in LOOPBACK_HOSTS)
    ):
        return ()
    netloc = parts.netloc.rsplit("@", 1)[-1]
    basic = base64.b64encode(f"x-access-token:{token}".encode()).decode("ascii")
    return ((f"http.{parts.scheme}://{netloc}/.extraHeader", f"Authorization: Basic {basic}"),)


@dataclass
class GitSession:
    """Runs git for one repository under a deadline, a received-bytes cap and a batch's cancel."""

    deadline: float
    timeout: float
    max_size: int
    hooks_dir: Path
    cancel: threading.Event
    extra_config: tuple[tuple[str, str], ...] = ()
    secret: str | None = None
    last_stderr: str = ""

    @classmethod
    def for_repository(
        cls,
        url: str,
        *,
        started: float,
        timeout: float,
        max_size: int,
        hooks_dir: Path,
        cancel: threading.Event,
        token: str | None,
    ) -> GitSession:
        """A session for one repository: its deadline from `started`, the token as a header."""
        return cls(
            deadline=started + timeout,
            timeout=timeout,
            max_size=max_size,
            hooks_dir=hooks_dir,
            cancel=cancel,
            extra_config=auth_config(url, token),
            secret=token,
        )

    def env(self, git_dir: Path, work_tree: Path | None, online: bool) -> dict[str, str]:
        """The environment of one git process (see the module docstring for why)."""
        config = (
            (("core.hooksPath", str(self.hooks_dir)),)
            + SAFE_CONFIG
            + (self.extra_config if online else ())
        )
        env = {
            "GIT_DIR": str(git_dir),
            "GIT_COMMON_DIR": str(git_dir),
            "GIT_OBJECT_DIRECTORY": str(git_dir / "objects"),
            "GIT_INDEX_FILE": str(git_dir / "index"),
            "GIT_ALTERNATE_OBJECT_DIRECTORIES": "",
            "GIT_NAMESPACE": "",
            "GIT_CONFIG_PARAMETERS": "",
            "GIT_NO_REPLACE_OBJECTS": "1",
            "GIT_TERMINAL_PROMPT": "0",
            "GIT_ASKPASS": "",
            "SSH_ASKPASS": "",
            "GIT_LFS_SKIP_SMUDGE": "1",
            "GIT_TRACE_REDACT": "1",
            # Offline steps must never fetch a missing (filtered-out) blob back: with no protocol
            # allowed, an unexpected lazy fetch fails loudly instead of downloading weights.
            "GIT_ALLOW_PROTOCOL": ONLINE_PROTOCOLS if online else "none",
            "GIT_NO_LAZY_FETCH": "0" if online else "1",
            "GIT_CONFIG_COUNT": str(len(config)),
        }
        for i, (key, value) in enumerate(config):
            env[f"GIT_CONFIG_KEY_{i}"] = key
            env[f"GIT_CONFIG_VALUE_{i}"] = value
        if work_tree is not None:
            env["GIT_WORK_TREE"] = str(work_tree)
        return env

    def run(
        self,
        args: list[str],
        git_dir: Path,
        work_tree: Path | None = None,
        *,
        online: bool = False,
        stdin: bytes | None = None,
        watch: Path | None = None,
    ) -> bytes:
        """Run `git args`; raise CloneError with the failure class, or Cancelled."""
        from git.cmd import Git

        self._check(None)
        cwd = work_tree if work_tree is not None else git_dir.parent
        command = [Git.GIT_PYTHON_GIT_EXECUTABLE or "git", *args]
        proc = None
        try:
            with starting_child():
                handle = Git(str(cwd)).execute(
                    command,
                    as_process=True,
                    env=self.env(git_dir, work_tree, online),
                    istream=subprocess.PIPE if stdin is not None else None,
                    # Its own process group (git starts helpers: remote-https, index-pack...),
                    # ended whole on a cancel, a timeout, or by the guardian should this die.
                    start_new_session=True,
                    preexec_fn=child_preexec(),
                )
                proc = cast("subprocess.Popen[bytes]", handle.proc)
                guardian().watch(proc.pid, group=True)
        except BaseException:
            if proc is not None:
                end_group(proc)
            raise
        pending = stdin
        try:
            while True:
                try:
                    out, err = proc.communicate(input=pending, timeout=POLL_SECONDS)
                    break
                except subprocess.TimeoutExpired:
                    pending = None  # communicate() keeps the input it was first given
                    self._check(watch)
        finally:
            if proc.poll() is None:
                kill_group(proc.pid)
                proc.communicate()
            guardian().forget(proc.pid)
        self.last_stderr = err.decode("utf-8", "replace")
        if proc.returncode != 0:
            raise CloneError(self.message(self.last_stderr, args[0]), classify(self.last_stderr))
        self._check_size(watch)  # a fast fetch can finish between two polls
        return out

    def _check(self, watch: Path | None) -> None:
        if self.cancel.is_set():
            raise Cancelled()
        if time.monotonic() > self.deadline:
            raise CloneError(f"timed out after {self.timeout:g} s", "timeout")
        self._check_size(watch)

    def _check_size(self, watch: Path | None) -> None:
        if watch is not None and pack_bytes(watch, partial=True) > self.max_size:
            raise CloneError(f"more than {human_bytes(self.max_size)} to receive", "too_large")

    def message(self, stderr: str, step: str) -> str:
        """One line from git's messages, with the token (if any) blanked out."""
        lines = [ln.strip() for ln in re.split(r"[\r\n]+", stderr) if ln.strip()]
        useful = [ln for ln in lines if PREFIX.match(ln)] or lines[-2:]
        parts = dict.fromkeys(PREFIX.sub("", ln).strip() for ln in useful)  # ordered, no repeats
        text = "; ".join(p for p in parts if p)[:400] or f"git {step} failed"
        return text.replace(self.secret, "***") if self.secret else text


def pack_bytes(git_dir: Path, partial: bool = False) -> int:
    """Bytes of the packs received into `git_dir` (with `partial`, packs still arriving too)."""
    total = 0
    try:
        entries = list(os.scandir(git_dir / "objects" / "pack"))
    except OSError:
        return 0
    for entry in entries:
        if entry.name.endswith(".pack") or (partial and entry.name.startswith("tmp_pack_")):
            try:
                total += entry.stat(follow_symlinks=False).st_size
            except OSError:
                pass
    return total
