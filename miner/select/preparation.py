"""The data-preparation steps a README gives before its training command.

Many projects ship their data raw and say how to make it ready: `unzip dataset.zip`, `tar -xzf
data.tar.gz -C data`, `python prepare_data.py data/in.wav data/out.wav`, `python
data/shakespeare_char/prepare.py`. A training run that skips them stops for want of files the
project would have had. These steps are read from the document the training command came from
(else the root README), in the order written and above the command: a script of the checkout
whose name or folder says it prepares, processes, generates or downloads data (or a script run
in such a mode: `python main.py --mode=generate`), or an archive of the checkout unpacked. A
step whose arguments the README leaves to the user (placeholders) is not taken. The smoke run
runs them in its throw-away copy, bounded and with the network cut like training (up with
`--fetch-data`), only when the training step stopped for want of data or ended without a step,
and then trains again.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from miner.codebook import Evidence
from miner.select.entry import (
    PLACEHOLDER,
    PYTHON,
    SHELLS,
    command_segments,
    command_words,
    joined_lines,
)

MAX_STEPS = 4
# A script that makes data ready: its name, or the folder it sits in.
PREPARES = re.compile(
    r"(?i)(?:^|[_\-./])(?:prep\w*|pre_?process\w*|process\w*|data_?process\w*|unpack\w*"
    r"|build_(?:vocab|data\w*)|make_data\w*|create_data\w*|gen(?:erate)?_data\w*|download\w*"
    r")(?:[_\-./]|$)"
)
# An argument that asks the training script itself for a preparation mode (`--mode=generate`).
PREPARING_MODE = re.compile(
    r"(?i)^(?:generate|prepare|preprocess|pre_process|download\w*|build_vocab|make_data\w*"
    r"|gen_data\w*|create_data\w*)$"
)
README = re.compile(r"(?i)^readme(?:\.(?:md|rst|txt|markdown))?$")
ARCHIVE = re.compile(r"(?i)\.(?:zip|tar|tar\.gz|tgz|tar\.bz2|tar\.xz)$")


@dataclass(frozen=True)
class PreparationStep:
    """One step: the words to run (`{python}` for the environment's interpreter), the folder
    it runs in (relative to the checkout), and the README line it came from."""

    argv: tuple[str, ...]
    folder: str
    evidence: Evidence

    def note(self) -> str:
        """The step as a smoke run's notes show it."""
        return f"{self.evidence.path}:{self.evidence.line}: {self.evidence.text}"


def preparation_steps(checkout: Path, command: Evidence | None) -> tuple[PreparationStep, ...]:
    """The data-preparation steps of the document `command` (the training command's evidence)
    comes from, above that command; of the root README when there is no such document."""
    doc, before = _document(checkout, command)
    if doc is None:
        return ()
    try:
        text = (checkout / doc).read_text(encoding="utf-8", errors="replace")
    except OSError:
        return ()
    base = str(PurePosixPath(doc).parent)
    steps: list[PreparationStep] = []
    for no, line in joined_lines(text):
        if before and no >= before:
            break
        step = _step(checkout, base, doc, no, line)
        if step is not None and step.argv not in [s.argv for s in steps]:
            steps.append(step)
        if len(steps) == MAX_STEPS:
            break
    return tuple(steps)


def _document(checkout: Path, command: Evidence | None) -> tuple[str | None, int]:
    """The document to read and the line of the training command in it (0: read it all)."""
    if command is not None and command.path and (checkout / command.path).is_file():
        if command.path.lower().endswith((".md", ".rst", ".txt", ".markdown")):
            return command.path, command.line
    for path in sorted(checkout.iterdir()) if checkout.is_dir() else ():
        if path.is_file() and README.match(path.name):
            return path.name, 0
    return None, 0


def _step(checkout: Path, base: str, doc: str, no: int, line: str) -> PreparationStep | None:
    for segment in command_segments(line):
        words = command_words(segment)
        if not words:
            continue
        argv = _archive(checkout, base, words) or _script(checkout, base, words)
        if argv is None or any(_placeholder(word) for word in argv[1:]):
            continue
        folder = base if base not in ("", ".") else ""
        evidence = Evidence(doc, no, line.strip()[:300], "readme_prepare")
        return PreparationStep(argv, folder, evidence)
    return None


def _placeholder(word: str) -> bool:
    """A word the user must replace; a plain lower-case name (`-d data`) is a folder."""
    return bool(PLACEHOLDER.search(word)) and not (word.isidentifier() and word.islower())


def _exists(checkout: Path, base: str, path: str) -> bool:
    relative = path.removeprefix("./")
    return any(
        (checkout / folder / relative).is_file() for folder in {base if base != "." else "", ""}
    )


def _archive(checkout: Path, base: str, words: list[str]) -> tuple[str, ...] | None:
    """`unzip X [-d D]` or `tar -xzf X [-C D]` of an archive the checkout ships."""
    head, rest = PurePosixPath(words[0]).name, words[1:]
    if head == "unzip":
        archive = next((w for w in rest if not w.startswith("-")), None)
    elif head == "tar" and rest and re.fullmatch(r"-?[a-zA-Z]*x[a-zA-Z]*", rest[0]):
        archive = next((w for w in rest[1:] if ARCHIVE.search(w)), None)
    else:
        return None
    if archive is None or not ARCHIVE.search(archive) or not _exists(checkout, base, archive):
        return None
    if head == "unzip" and "-o" not in rest and "-n" not in rest:
        rest = ["-n", *rest]  # never stop to ask whether to overwrite
    return (head, *rest)


def _script(checkout: Path, base: str, words: list[str]) -> tuple[str, ...] | None:
    """`python X.py ...`, `bash X.sh ...` or `./X.sh ...` for a preparation script of the
    checkout."""
    head, rest = words[0], words[1:]
    if PYTHON.match(PurePosixPath(head).name):
        while rest and rest[0] in ("-u", "-B", "-O"):
            rest = rest[1:]
        if not rest or not rest[0].endswith(".py"):
            return None
        script, runner = rest[0], "{python}"
    elif head in SHELLS and rest and rest[0].endswith(".sh"):
        script, runner = rest[0], "bash"
    elif head.startswith("./") and head.endswith(".sh"):
        script, rest, runner = head, [head, *rest], "bash"
    elif head.endswith(".py") and not rest:  # "Run `prepare_data.py`.": a script named alone
        script, rest, runner = head, [head], "{python}"
    else:
        return None
    if not _exists(checkout, base, script):
        return None
    modes = (arg.partition("=")[2] or arg for arg in rest[1:])
    if not PREPARES.search(script) and not any(PREPARING_MODE.match(m) for m in modes):
        return None
    return (runner, *rest)
