"""The clone root on disk: safe paths, batches side by side, half-written clones and the marker.

A clone is built in the batch's own folder `<root>/.partial/batch-*/` and renamed into
`<root>/<owner>/<name>` only once it is complete, with a marker file (`.git/miner-clone.json`)
written last. So a folder under the root either holds a complete checkout with its marker, or it
is half-written and is redone. Batches running at the same time (sharing the work through claims
in the store) each hold a lock on their own folder; the folder of a batch that is gone is swept.

Clones are not flushed to disk one by one (that stalls the pool): a batch flushes once when it
ends, and removes its folder only then. A batch that finds the folder of a dead batch knows that
batch was killed, or the machine went down, so it checks each checkout against its index before
trusting it.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import tempfile
from pathlib import Path
from typing import IO, Any

from miner.errors import ConfigError

MARKER = "miner-clone.json"
PARTIAL = ".partial"
LOCK = ".lock"
OWNER = ".owner"  # in a batch's folder, locked while the batch runs
RUNNING = ".running"
_UNSAFE = re.compile(r"[^A-Za-z0-9._-]")
_MAX_PART = 100


def safe_part(text: str) -> str:
    """One path component from an owner or repository name: no separators, no dot-only names."""
    part = _UNSAFE.sub("_", text)[:_MAX_PART]
    if not part.strip("."):
        part = "_" * max(1, len(part))  # '.', '..' and '' cannot escape or vanish
    return part


def clone_path(root: Path, full_name: str, repo_id: int) -> Path:
    """Where a repository's checkout lives: `<root>/<owner>/<name>`, never outside the root."""
    owner, _, name = full_name.strip().partition("/")
    if not name:
        owner, name = f"id-{repo_id}", owner
    owner_part = safe_part(owner)
    if owner_part.startswith("."):  # the root's own entries (.partial, .lock) start with a dot
        owner_part = "_" + owner_part[1:]
    path = root / owner_part / safe_part(name.replace("/", "_"))
    if not path.resolve().is_relative_to(root.resolve()):  # e.g. a symlinked owner folder
        raise ConfigError(f"{full_name}: the clone path {path} leaves the clone root")
    return path


def read_marker(path: Path) -> dict[str, Any] | None:
    """The marker of a complete checkout at `path`, or None when it is missing or unreadable."""
    try:
        data = json.loads((path / ".git" / MARKER).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) and data.get("commit_sha") else None


def write_marker(path: Path, data: dict[str, Any]) -> None:
    """Write the marker: the last step of a clone, just before it is moved into place."""
    text = json.dumps(data, indent=1, sort_keys=True)
    (path / ".git" / MARKER).write_text(text, encoding="utf-8")


def disk_bytes(path: Path) -> int:
    """Bytes of every file under `path` (the checkout and its .git), links not followed."""
    total = 0
    for dirpath, _dirs, files in os.walk(path, followlinks=False):
        for name in files:
            try:
                total += os.lstat(os.path.join(dirpath, name)).st_size
            except OSError:
                pass
    return total


def remove_tree(path: Path) -> None:
    """Delete a folder (or a stray file or link) under the clone root; missing is fine."""
    if path.is_symlink() or path.is_file():
        path.unlink(missing_ok=True)
    elif path.exists():
        shutil.rmtree(path, ignore_errors=True)


class CloneRoot:
    """The clone root as one batch uses it: its own folder for temp dirs, the dead swept."""

    def __init__(self, root: Path) -> None:
        self.root = root
        self.partial = root / PARTIAL
        self._owner: IO[str] | None = None
        self.unclean = False

    def __enter__(self) -> CloneRoot:
        import fcntl

        self.root.mkdir(parents=True, exist_ok=True)
        # Held only while sweeping and setting up, so no batch sweeps one still starting.
        with open(self.root / LOCK, "w", encoding="utf-8") as setup:
            fcntl.flock(setup, fcntl.LOCK_EX)
            self.partial.mkdir(exist_ok=True)
            for entry in self.partial.iterdir():
                if not _batch_alive(entry):  # whatever a killed batch was writing
                    self.unclean = True
                    remove_tree(entry)
            self.unclean |= (self.root / RUNNING).exists()  # left by an older miner
            self.batch = Path(tempfile.mkdtemp(prefix="batch-", dir=self.partial))
            self._owner = open(self.batch / OWNER, "w", encoding="utf-8")  # noqa: SIM115
            fcntl.flock(self._owner, fcntl.LOCK_EX | fcntl.LOCK_NB)
            self._owner.write(f"{os.getpid()}\n")
            self._owner.flush()
        self.hooks = Path(tempfile.mkdtemp(prefix="hooks-", dir=self.batch))
        return self

    def __exit__(self, *exc: object) -> None:
        import fcntl

        os.sync()  # every checkout of this batch is on disk before its folder goes
        if self.unclean:
            (self.root / RUNNING).unlink(missing_ok=True)
        remove_tree(self.batch)
        if self._owner is not None:
            self._owner.close()
        with open(self.root / LOCK, "w", encoding="utf-8") as setup:
            fcntl.flock(setup, fcntl.LOCK_EX)
            try:
                self.partial.rmdir()  # the last batch out leaves no trace
            except OSError:
                pass  # another batch's folder is still there

    def workspace(self, dest: Path) -> Path:
        """A fresh folder in `.partial/` on the same file system as `dest`, for one attempt."""
        label = f"{dest.parent.name}+{dest.name}"[:150]
        return Path(tempfile.mkdtemp(prefix=f"{label}.", dir=self.batch))

    def install(self, built: Path, dest: Path) -> None:
        """Move a complete checkout into place atomically, replacing what was there."""
        dest.parent.mkdir(parents=True, exist_ok=True)
        old = None
        if dest.exists() or dest.is_symlink():
            old = Path(tempfile.mkdtemp(prefix="old.", dir=self.batch)) / "tree"
            os.rename(dest, old)
        os.rename(built, dest)
        if old is not None:
            remove_tree(old.parent)


def _batch_alive(folder: Path) -> bool:
    """True when `folder` belongs to a batch still running (it holds the lock on its owner
    file; the kernel drops the lock when the process dies, however it dies)."""
    import fcntl

    try:
        with open(folder / OWNER, "r+", encoding="utf-8") as owner:
            fcntl.flock(owner, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:  # locked (alive), or no owner file (not a batch folder: a leftover)
        return (folder / OWNER).exists()
    return False
