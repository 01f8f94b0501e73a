"""The whole checkout for a smoke run: the files a partial clone's blob filter left out (data,
dictionaries, weights the project ships) fetched from its promisor remote into the copy.

The clone itself is never touched: a throw-away bare repository borrows the clone's objects
(git alternates), asks the same remote for the missing blobs the way git's own lazy fetch does
(no negotiation, `--filter=blob:none`, the object ids on stdin), and the blobs are written into
the copy at their paths. Every git process runs through miner.clone's GitSession (no hooks, no
credentials prompt, LFS never smudged, a deadline and a cap on the bytes received).
"""

from __future__ import annotations

import os
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from miner.clone.git import GitSession, pack_bytes
from miner.clone.steps import init_repo
from miner.errors import CloneError

GIB = 1024**3


@dataclass(frozen=True)
class BlobFetch:
    """What the promisor fetch brought into the copy."""

    paths: tuple[str, ...]  # the files written into the copy
    bytes_received: int
    seconds: float
    error: str | None = None  # why some or all of them could not be fetched

    def note(self) -> str:
        """One line for the smoke run's notes."""
        if self.error:
            return f"blobs left out by the clone not fetched: {self.error}"
        return f"fetched {len(self.paths)} file(s) the clone left out, {self.bytes_received} bytes"


def _session(work: Path, timeout: float, max_bytes: int) -> GitSession:
    hooks = work / "git-hooks"
    hooks.mkdir(parents=True, exist_ok=True)
    return GitSession(
        deadline=time.monotonic() + timeout, timeout=timeout, max_size=max_bytes,
        hooks_dir=hooks, cancel=threading.Event(),
    )  # fmt: skip


def _config(session: GitSession, git_dir: Path, key: str) -> str:
    try:
        return session.run(["config", "--get", key], git_dir).decode().strip()
    except CloneError:
        return ""


def omitted_blobs(session: GitSession, git_dir: Path) -> dict[str, tuple[str, str]]:
    """oid -> (path, mode) of each file of HEAD's tree whose blob the clone does not hold."""
    listing = session.run(["rev-list", "--objects", "--missing=print", "HEAD"], git_dir)
    missing = {line[1:].split()[0].decode() for line in listing.splitlines() if line[:1] == b"?"}
    found: dict[str, tuple[str, str]] = {}
    for entry in session.run(["ls-tree", "-r", "-z", "--full-tree", "HEAD"], git_dir).split(b"\0"):
        meta, _, path = entry.partition(b"\t")
        fields = meta.split()
        if len(fields) == 3 and fields[1] == b"blob" and fields[2].decode() in missing:
            found.setdefault(fields[2].decode(), (os.fsdecode(path), fields[0].decode()))
    return found


def fetch_omitted(
    checkout: Path, copy: Path, work: Path, timeout: float = 600.0, max_bytes: int = 2 * GIB
) -> BlobFetch | None:
    """Write the blobs the checkout's clone left out into `copy`; None when it left none out (or
    the checkout is no partial clone)."""
    git_dir = checkout / ".git"
    if not git_dir.is_dir():
        return None
    started = time.perf_counter()
    session = _session(work, timeout, max_bytes)
    try:
        url = _config(session, git_dir, "remote.origin.url")
        if not url or _config(session, git_dir, "remote.origin.promisor") != "true":
            return None
        wanted = omitted_blobs(session, git_dir)
        if not wanted:
            return None
        borrowed = work / "blobs.git"
        init_repo(session, borrowed, None, url, "blob:none")
        alternates = borrowed / "objects" / "info" / "alternates"
        alternates.write_text(f"{(git_dir / 'objects').resolve()}\n", encoding="utf-8")
        oids = "".join(f"{oid}\n" for oid in wanted).encode()
        session.run(
            ["-c", "fetch.negotiationAlgorithm=noop", "fetch", "--quiet", "--no-tags",
             "--no-write-fetch-head", "--recurse-submodules=no", "--filter=blob:none", "--stdin",
             "origin"],
            borrowed, online=True, stdin=oids, watch=borrowed,
        )  # fmt: skip
        received = pack_bytes(borrowed)
        written = _write(session, borrowed, copy, wanted)
    except CloneError as exc:
        return BlobFetch((), 0, time.perf_counter() - started, str(exc))
    return BlobFetch(written, received, time.perf_counter() - started)


def _write(
    session: GitSession, git_dir: Path, copy: Path, wanted: dict[str, tuple[str, str]]
) -> tuple[str, ...]:
    """Each fetched blob written at its path in the copy (never outside it)."""
    root = copy.resolve()
    written = []
    for oid, (path, mode) in wanted.items():
        if mode == "120000":
            continue  # a symbolic link's target: never followed out of the copy
        target = (root / path).resolve()
        if not target.is_relative_to(root):
            continue
        data = session.run(["cat-file", "blob", oid], git_dir)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(data)
        if mode == "100755":
            target.chmod(0o755)
        written.append(path)
    return tuple(sorted(written))
