"""The project's own split standing in for the one it does not ship: a training file that git
never held (`data/sudoku.csv`, a million generated games) beside a test or validation file of the
same format that it does (`data/test.csv`), in a folder of the same name. The copy is stand-in
data: the model trains on held-out rows, enough to show that it trains."""

from __future__ import annotations

import re
import shutil
from pathlib import Path, PurePath

from miner.select.standins.benchmark_files import missing_path, record_stand_in
from miner.select.standins.benchmark_layouts import WrittenFiles

# The names of the splits a project ships when its training split is too large for git, best
# first; and the suffixes of files a loader reads whole, whatever their rows hold.
SPLITS = ("val", "valid", "validation", "dev", "test", "testing", "eval", "sample", "samples",
          "small", "toy", "mini", "example", "examples")  # fmt: skip
# (molecules as SMILES and sequences as FASTA are read a record a line, as text is)
SUFFIXES = frozenset((".csv", ".tsv", ".txt", ".json", ".jsonl", ".conll", ".conllu", ".npy",
                      ".npz", ".pkl", ".pickle", ".h5", ".hdf5", ".parquet", ".smi", ".fasta",
                      ".fa"))  # fmt: skip
TOKEN = re.compile(r"[A-Za-z]+")
MAX_BYTES = 512 * 1024**2  # a shipped split larger than this is not copied


def sibling_split(
    text: str, checkout: Path, writable: tuple[Path, ...], report_dir: Path
) -> WrittenFiles | None:
    """Copy the checkout's own split for the missing file the log line `text` names (relative
    paths from the checkout) when the target lies inside `writable`; None when there is none."""
    path = missing_path(text)
    if path is None or PurePath(path).suffix.lower() not in SUFFIXES:
        return None
    target = Path(path) if Path(path).is_absolute() else checkout / path
    resolved = target.resolve()
    if resolved.exists() or not any(resolved.is_relative_to(r.resolve()) for r in writable):
        return None
    source = _shipped_split(checkout, target.name, target.parent.name)
    if source is None:
        return None
    resolved.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, resolved)
    written = WrittenFiles(resolved, 1, ())
    why = f"{text.strip()} (the project's own {source.relative_to(checkout)})"
    record_stand_in(report_dir, "the project's own split", written, why)
    return written


def _shipped_split(checkout: Path, name: str, folder: str) -> Path | None:
    """The checkout's file in a folder named `folder` with `name`'s suffix: the same name first
    (shipped at another path), else the best-ranked split name."""
    suffix = PurePath(name).suffix.lower()
    found: list[tuple[int, str, Path]] = []
    for candidate in checkout.rglob(f"*{suffix}"):
        if candidate.parent.name != folder or not candidate.is_file() or ".git" in candidate.parts:
            continue
        if candidate.stat().st_size > MAX_BYTES or candidate.suffix.lower() != suffix:
            continue
        if candidate.name == name:
            rank = -1
        else:
            words = [w.lower() for w in TOKEN.findall(candidate.stem)]
            ranks = [SPLITS.index(w) for w in words if w in SPLITS]
            if not ranks or "train" in words:
                continue
            rank = min(ranks)
        found.append((rank, str(candidate), candidate))
    return min(found)[2] if found else None
