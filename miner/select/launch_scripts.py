"""A shell script that launches training, made ready as its user would before running it.

A project's `start_train.sh` often writes its log where the authors kept logs (`python train.py
>& ../log/training_log &`, `> logs/train_bicycle.log`): the folder is not in the checkout, the
redirection fails, and the script ends before Python starts. And it often sends the training to
the background (a trailing `&`), so the script returns at once and a run waiting on it sees a
process that exited without training. In the run's throw-away copy, a line that runs Python
keeps its output on the run's log (its redirections to files go) and loses a trailing `&`, so
the script waits for its training and the run reads what it prints; the folders other lines'
redirections write into are created (inside the run's own folders only); each change is a note.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath

from miner.select.entry import SHELLS

# An output redirection and its target: `> f`, `>> f`, `2> f`, `&> f`, `>& f`, `1>f`.
REDIRECT = re.compile(r"(?:[12]?>>?|&>>?|>&)\s*(?!&?\d)([^\s;&|<>()]+)")
BACKGROUND = re.compile(r"(?<![&|])&\s*(?:#.*)?$")
PYTHON_RUN = re.compile(r"\bpython[\d.]*\b|\btorchrun\b|\baccelerate\s+launch\b|\bdeepspeed\b")


def launch_script(command: tuple[str, ...], copy: Path) -> Path | None:
    """The checkout's shell script `command` runs (`bash start_train.sh`, `./train.sh`), None
    when it runs none."""
    for i, word in enumerate(command[:3]):
        runs = i == 0 or PurePosixPath(command[i - 1]).name in SHELLS
        if not word.endswith(".sh") or not runs:
            continue
        path = copy / word
        inside = path.resolve().is_relative_to(copy.resolve())
        return path if path.is_file() and inside else None
    return None


def prepare_launch_script(command: tuple[str, ...], copy: Path) -> list[str]:
    """Make the script `command` runs ready in the copy; a note per change."""
    script = launch_script(command, copy)
    if script is None:
        return []
    try:
        text = script.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    notes: list[str] = []
    lines = text.splitlines()
    for number, line in enumerate(lines):
        code = line.split("#", 1)[0] if not line.lstrip().startswith("#!") else ""
        if PYTHON_RUN.search(code) and REDIRECT.search(code):
            # the run reads what training prints: its output stays on the run's log
            kept = REDIRECT.sub("", code).rstrip()
            if kept != code.rstrip():
                lines[number] = code = kept
                notes.append(f"launch script: its training prints to the run's log, not to a "
                             f"file ({script.name}:{number + 1})")  # fmt: skip
        for match in REDIRECT.finditer(code):
            target = match.group(1).strip("\"'")
            if target.startswith(("/", "$", "~")) or target == "/dev/null":
                continue
            folder = (copy / target).parent  # the script runs from the copy's root
            if not folder.exists() and folder.resolve().is_relative_to(copy.resolve().parent):
                folder.mkdir(parents=True, exist_ok=True)
                notes.append(f"launch script: made {target}'s folder for its log "
                             f"({script.name}:{number + 1})")  # fmt: skip
        if PYTHON_RUN.search(code) and BACKGROUND.search(code.rstrip()):
            lines[number] = BACKGROUND.sub("", code.rstrip()).rstrip()
            notes.append(f"launch script: runs its training in the foreground, not with a "
                         f"trailing & ({script.name}:{number + 1})")  # fmt: skip
    if any(n.startswith(("launch script: runs", "launch script: its training")) for n in notes):
        script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return notes
