"""`--data SRC[:DEST]`: a data set the user has, copied into a run's copy of the checkout at the
path the project reads it from, so a file-path data set no loader knows can be supplied."""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from miner.errors import ConfigError

DEFAULT_DEST = "data"


@dataclass(frozen=True)
class DataMount:
    """A folder or file to copy, and where in the checkout it goes (relative)."""

    source: Path
    dest: str = DEFAULT_DEST

    @classmethod
    def parse(cls, text: str) -> DataMount:
        """'SRC' (copied to ./data) or 'SRC:DEST' (DEST relative to the checkout's root)."""
        source, _, dest = text.partition(":")
        path = Path(source).expanduser()
        if not path.exists():
            raise ConfigError(f"--data {text}: {path} does not exist")
        dest = dest or DEFAULT_DEST
        pure = PurePosixPath(dest)
        if pure.is_absolute() or ".." in pure.parts or not pure.parts:
            raise ConfigError(f"--data {text}: DEST must be a path inside the checkout")
        return cls(path.resolve(), pure.as_posix())


def mount_data(copy: Path, mounts: tuple[DataMount, ...]) -> tuple[str, ...]:
    """Copy each mount into `copy` (over what the checkout has there); a note per mount."""
    notes = []
    for mount in mounts:
        target = copy / mount.dest
        if target.is_symlink() or target.is_file():
            target.unlink()
        elif target.is_dir() and mount.source.is_file():
            shutil.rmtree(target)
        target.parent.mkdir(parents=True, exist_ok=True)
        if mount.source.is_dir():
            shutil.copytree(mount.source, target, symlinks=True, dirs_exist_ok=True)
        else:
            shutil.copy2(mount.source, target)
        notes.append(f"--data {mount.source} copied to {mount.dest}")
    return tuple(notes)
