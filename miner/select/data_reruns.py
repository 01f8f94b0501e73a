"""What a smoke run reads in a training step that stopped for want of data: whether it did, and
the stand-in files for the public data sets its log says are missing."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

from miner.select.smoke_records import SmokeOptions
from miner.select.standins.assists import REPORT_DIR
from miner.select.standins.benchmark_files import missing_path, record_stand_in, stand_in_files
from miner.select.standins.benchmark_layouts import WrittenFiles
from miner.select.standins.image_folder import image_layout, write_image_folder
from miner.select.standins.sibling_split import sibling_split
from miner.select.training import Training

MAX_STAND_INS = 8  # data sets written before one rerun


def stand_in_files_for(
    training: Training, copy: Path, work: Path, logs: Path, options: SmokeOptions,
    notes: list[str],
) -> bool:  # fmt: skip
    """Whether stand-ins were written for the public data sets a failed run's missing paths name
    (inside the run's own folders only), so that the run is worth repeating. The error that
    ended the run is read first, then the log's other missing paths: a shell script that runs
    one training command per data set goes on past each one's error, to its time bound."""
    if training.progress or not options.stand_in_data:
        return False
    if training.outcome not in ("needs_data", "runtime", "data", "timeout"):
        return False
    writable = (work, logs / "stand-in-data")
    try:
        log = (logs / training.evidence.path).read_text(encoding="utf-8", errors="replace")
    except OSError:
        log = ""
    lines = [training.evidence.text, *(ln for ln in log.splitlines() if missing_path(ln))]
    lines += _unmade_stand_in_paths(training, logs)
    wrote = 0
    for line in dict.fromkeys(lines):
        written = stand_in_files(line, copy, writable, logs / REPORT_DIR)
        if written is None:
            written = _image_folder(line, copy, logs)
        if written is None:
            written = sibling_split(line, copy, writable, logs / REPORT_DIR)
        if written is None:
            continue
        where = (
            written.root.relative_to(copy) if written.root.is_relative_to(copy) else written.root
        )
        notes.append(f"stand-in files: {written.files} written at {where} after "
                     f"'{line.strip()[:200]}'")  # fmt: skip
        wrote += 1
        if wrote == MAX_STAND_INS:
            break
    return wrote > 0


def _unmade_stand_in_paths(training: Training, logs: Path) -> list[str]:
    """For a failed check that names no path (`assert os.path.exists(root)`), the run's own
    stand-in data paths in its command that do not exist, each as a line saying so."""
    if training.evidence.rule != "smoke.needs_data.assert":
        return []
    own = str(logs / "stand-in-data") + "/"
    try:
        words = shlex.split(training.command)
    except ValueError:
        return []
    # the path alone out of a longer value (`root=<path>:extra=...`)
    paths = (re.split(r"[:,;]", word[word.index(own) :])[0] for word in words if own in word)
    return [f"No such file or directory: '{path}'" for path in dict.fromkeys(paths)
            if not Path(path).exists()]  # fmt: skip


def _image_folder(line: str, copy: Path, logs: Path) -> WrittenFiles | None:
    """A folder of images at the run's own stand-in data path that `line` says is missing (a
    README placeholder's), when the project's code reads image files."""
    path = missing_path(line)
    if path is None:
        return None
    folder = Path(path) if Path(path).is_absolute() else copy / path
    own = (logs / "stand-in-data").resolve()
    if not folder.resolve().is_relative_to(own) or folder.suffix or folder.resolve() == own:
        return None
    if folder.exists() and (not folder.is_dir() or any(folder.iterdir())):
        return None  # written before, or not a folder: nothing more to add
    layout = image_layout(copy)
    if layout is None:
        return None
    written = write_image_folder(folder, 0, layout)
    record_stand_in(logs / REPORT_DIR, "image folder", written, line)
    return written


def wants_data(training: Training) -> bool:
    """Whether the run stopped, before any step, for data it did not find (or ended without a
    step, as a script does that finds nothing prepared to train on)."""
    if training.progress:
        return False
    if training.outcome in ("needs_data", "data"):
        return True
    if training.evidence.rule == "smoke.runtime.no_progress":
        return True
    return training.outcome == "runtime" and missing_path(training.evidence.text) is not None
