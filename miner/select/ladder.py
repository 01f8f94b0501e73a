"""How far a smoke run got: the stages S0..S6 (miner.models.SMOKE_STAGES), from what the run left
behind: the static check of S0, the install, the marks the start-up hook wrote while the entry
point ran (`hooks/sitecustomize.py`: arguments parsed, data arrived), and the training log.

A stage is only counted with evidence of it: S2 when the run got past its imports, S3 when an
argument parser returned (or, for a script that parses none, when it got past its imports
without a usage error), S4 when data arrived (a mark, or a training step, which needs data), S5
on a training-step line or the hook's `step` mark (an optimizer's step returned), even when the
run crashed later (the outcome says how it ended), S6 when the bounded training then ended by
itself.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from miner.models import SMOKE_STAGES

HOOK_DIR = Path(__file__).with_name("hooks")
STAGES = tuple(name for name, _ in SMOKE_STAGES)
# A line that shows an optimisation step was taken: a loss or metric with its value, or a Keras
# progress bar (`train_loss=0.3` too); an `Epoch 1/10` header alone is printed before the first
# step.
# A progress bar of the training loop itself past its first iteration (tqdm's `Inner Epoch Loop:
# 10%|▉ | 92/937 [01:49<16:00`, `Epoch 0:  3%|▎ | 12/400 [`, `Training: 5%|`); a bar of
# downloads, loading or evaluation names none of these words.
TRAINING_BAR = (
    r"\b(?:[Tt]rain\w*|TRAIN\w*|[Ee]pochs?|EPOCHS?|[Ss]teps?|[Ii]ter\w*|[Bb]atch\w*)\b"
    r"[^|:\r\n]{0,40}:\s*\d+%\|[^|\r\n]*\|\s*[1-9]\d*/\d+\s*\["
)
STEP = re.compile(
    r"(?i)(?<![a-z0-9])(?:loss|acc|accuracy|perplexity|ppl|f1|bleu|mse|mae)(?![a-z0-9_])"
    r"[^\d\n]{0,20}[-+]?\d*\.\d+"
    r"|\d+/\d+\s*\[[=>.]+\].*\bloss\b"
    rf"|{TRAINING_BAR}"
)
# A line that prints the run's settings (`Namespace(..., loss='MSE', lradj='type1', ...)`,
# `args: {...}`): its numbers are options, not a step's loss. A metrics line with commas
# (`epoch=1, loss=0.5, lr=0.001`) is a step.
SETTINGS_LINE = re.compile(
    r"\b(?:Namespace|EasyDict|DictConfig|Arguments|TrainingArguments|Config)\("
    r"|^\W*(?:args|arguments|config|configs|hparams|hyperparameters|opts?|options|flags)\s*[:=]"
    # a member of a JSON dump of the options (`"class_name": "training.loss.StyleGAN2Loss",`)
    r"|^\s*\"[\w.-]+\"\s*:\s*(?:\"[^\"]*\"|[-+\d.eE]+|true|false|null|\{|\[)\s*,?\s*$",
    re.IGNORECASE,
)


def shows_step(line: str, pattern: re.Pattern[str] = STEP) -> bool:
    """True for a log line that shows an optimisation step by `pattern` (not a traceback, not
    settings)."""
    return bool(pattern.search(line)) and "Traceback" not in line and not SETTINGS_LINE.search(line)


# Outcomes that end before the entry point got past its imports.
NOT_IMPORTED = ("install", "import", "python2", "no_entry")
# Outcomes that say the data (or the weights) were not there, whatever was opened before.
DATA_FAILURES = ("needs_data", "data", "needs_weights")


@dataclass
class Marks:
    """The stage marks a run wrote: stage -> seconds since the smoke run started."""

    at: dict[str, float] = field(default_factory=dict)
    detail: dict[str, str] = field(default_factory=dict)

    @classmethod
    def read(cls, path: Path, started_epoch: float) -> Marks:
        """The marks of the hook's file (the first of each stage), relative to the start."""
        marks = cls()
        try:
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return marks
        for line in lines:
            parts = line.split(" ", 2)
            if len(parts) < 2 or parts[0] in marks.at:
                continue
            try:
                marks.at[parts[0]] = max(0.0, float(parts[1]) - started_epoch)
            except ValueError:
                continue
            marks.detail[parts[0]] = parts[2] if len(parts) > 2 else ""
        return marks


class ProgressWatch:
    """Polled while training runs: True once an optimisation step (S5) shows, as a step line in
    the log or as the stage hook's `step` mark (a project that prints its loss only every
    hundred steps has taken its first step long before)."""

    def __init__(self, log: Path, marks_file: Path | None = None) -> None:
        self.log = log
        self.marks_file = marks_file
        self.offset = 0
        self.rest = b""
        self.line: str | None = None  # the log's step line
        self.mark: tuple[int, str] | None = None  # the marks file's `step` line: (number, text)

    def __call__(self) -> bool:
        """Read what the log gained since the last call; True when a step line is in it, or
        when the hook marked a step."""
        return self._log_step() or self._marked_step()

    def _log_step(self) -> bool:
        try:
            with self.log.open("rb") as fh:
                fh.seek(self.offset)
                chunk = fh.read()
        except OSError:
            return False
        self.offset += len(chunk)
        text = (self.rest + chunk).decode("utf-8", "replace")
        lines = re.split(r"[\r\n]", text)
        self.rest = lines.pop().encode()
        for line in lines:
            if shows_step(line):
                self.line = line
                return True
        return False

    def _marked_step(self) -> bool:
        if self.marks_file is None:
            return False
        try:
            lines = self.marks_file.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            return False
        for number, line in enumerate(lines, start=1):
            if line.startswith("step "):
                self.mark = (number, line)
                return True
        return False


def stage_reached(
    outcome: str,
    marks: Marks,
    parses_arguments: bool,
    ended_after_progress: bool,
    progress: bool,
) -> int:
    """The last stage reached (index into STAGES) once the entry point was run."""
    if outcome in NOT_IMPORTED and not {"args", "data"} & set(marks.at):
        return 1  # a module imported late (a data set's, by name) fails after the start
    stage = 2
    if "args" in marks.at or (not parses_arguments and outcome != "usage"):
        stage = 3
    if stage == 3 and "data" in marks.at and outcome not in DATA_FAILURES:
        stage = 4
    if progress:  # a step needs data and arguments: S5 whatever ended the run afterwards
        stage = 6 if ended_after_progress and outcome == "ok" else 5
    return stage


def stage_seconds(
    static: float, install: float, marks: Marks, step_at: float | None, end: float, stage: int
) -> dict[str, float]:
    """Seconds spent on each stage reached, since the stage before it (all times are seconds
    since the smoke run started). S2 is established by the build's import check, so it ends with
    S1 and the run's start-up up to its parsed arguments is S3's; any other stage without a mark
    ends when the next one begins."""
    at: dict[str, float] = {"S0": static}
    if stage >= 1:
        at["S1"] = static + install
    for name, mark in (("S3", "args"), ("S4", "data")):
        if mark in marks.at and STAGES.index(name) <= stage:
            at[name] = marks.at[mark]
    if stage >= 5 and step_at is not None:
        at["S5"] = step_at
    if stage >= 6:
        at["S6"] = end
    if stage >= 2:
        at["S2"] = at["S1"]
    for name in STAGES[: stage + 1]:  # a stage without a mark ends when the next one begins
        if name not in at:
            at[name] = min([v for k, v in at.items() if k > name] + [end])
    spent: dict[str, float] = {}
    previous = 0.0
    for name in STAGES:
        if name in at:
            spent[name] = round(max(0.0, at[name] - previous), 3)
            previous = max(previous, at[name])
    return spent


def stage_name(stage: int) -> str:
    """'S3' for 3, '-' before S0."""
    return STAGES[stage] if 0 <= stage < len(STAGES) else "-"


def hook_env(marks_file: Path, base: Mapping[str, str]) -> dict[str, str]:
    """The variables that load the stage hook in the entry point's interpreters."""
    path = base.get("PYTHONPATH", "")
    return {
        "MINER_SMOKE_MARKS": str(marks_file),
        "PYTHONPATH": str(HOOK_DIR) + (f":{path}" if path else ""),
    }
