"""Where a study's annotation files live, and the safe-write helpers every module shares.

annotations/
  audit.jsonl                         append-only log of imports, resolutions, codebook changes
  consensus.csv                       the consensus layer (sheet format) the report stage reads
  layers/<annotator>@<round>.csv      imported layers: normalised, read-only, hash in the log
  originals/<annotator>@<round>.<ext> the files exactly as the annotators returned them
  rounds/<round>/manifest.json        the repositories of a round (shared by its annotators)
  rounds/<round>/sheets/<name>.csv    blank (or pre-filled) sheets, one per annotator
  rounds/<round>/conflicts.csv        disagreements of the round's two annotators
  rounds/<round>/resolutions.jsonl    consensus decisions, append-only (the last one counts)
"""

from __future__ import annotations

import hashlib
import os
import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

from miner.errors import ConfigError

DEFAULT_ROUND = "main"
_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")


def check_name(kind: str, name: str) -> str:
    """Return `name` if it is a safe annotator or round name (used in file names)."""
    if not _NAME.match(name) or name.endswith(".") or ".." in name:
        raise ConfigError(
            f"{kind} name {name!r}: use letters, digits, '_', '-' or '.' (at most 64 characters)"
        )
    return name


@dataclass(frozen=True)
class Layout:
    """The paths of one study's annotation folder."""

    root: Path

    @property
    def audit_log(self) -> Path:
        """The append-only audit log."""
        return self.root / "audit.jsonl"

    @property
    def consensus(self) -> Path:
        """The consensus layer."""
        return self.root / "consensus.csv"

    def round_dir(self, round_name: str) -> Path:
        """The folder of one round."""
        return self.root / "rounds" / check_name("round", round_name)

    def manifest(self, round_name: str) -> Path:
        """The manifest of one round."""
        return self.round_dir(round_name) / "manifest.json"

    def sheet(self, round_name: str, annotator: str, ext: str = "csv") -> Path:
        """An annotator's prepared sheet in a round."""
        return self.round_dir(round_name) / "sheets" / f"{check_name('annotator', annotator)}.{ext}"

    def conflicts(self, round_name: str) -> Path:
        """The conflicts file of a round."""
        return self.round_dir(round_name) / "conflicts.csv"

    def resolutions(self, round_name: str) -> Path:
        """The append-only resolutions of a round."""
        return self.round_dir(round_name) / "resolutions.jsonl"

    def layer(self, annotator: str, round_name: str) -> Path:
        """An imported, immutable layer."""
        return self.root / "layers" / f"{layer_name(annotator, round_name)}.csv"

    def original(self, annotator: str, round_name: str, suffix: str) -> Path:
        """The file an annotator returned, kept byte for byte."""
        return self.root / "originals" / f"{layer_name(annotator, round_name)}{suffix}"

    def rounds(self) -> list[str]:
        """Names of the prepared rounds, oldest first (by manifest time)."""
        import json

        found = []
        for path in (self.root / "rounds").glob("*/manifest.json"):
            data = json.loads(path.read_text(encoding="utf-8"))
            found.append((str(data.get("created_at", "")), path.parent.name))
        return [name for _, name in sorted(found)]


def layer_name(annotator: str, round_name: str) -> str:
    """The name of a layer: `<annotator>@<round>`."""
    return f"{check_name('annotator', annotator)}@{check_name('round', round_name)}"


def sha256_file(path: Path) -> str:
    """Hex SHA-256 of a file's bytes."""
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 16), b""):
            digest.update(block)
    return digest.hexdigest()


def atomic_write(path: Path, data: bytes) -> None:
    """Write `data` to `path` so a crash leaves either the old file or the new one, whole."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def append_line(path: Path, line: str) -> None:
    """Append one line durably (flushed and synced) to a text file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a", encoding="utf-8") as handle:
        handle.write(line.rstrip("\n") + "\n")
        handle.flush()
        os.fsync(handle.fileno())
