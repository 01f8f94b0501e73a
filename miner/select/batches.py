"""A small batch for the first step on a CPU.

A README's training command asks for the batch its authors used on their GPUs (`--batch-size
256`, `DATA.BATCH_SIZE 128`, `train.batch_size=64`), or leaves it to a parser default of that
size (`click.option('--batch', default=512)`). On a CPU under the smoke run's memory bound such a
batch runs out of memory building its first activations, or takes minutes for one step, and the
run ends `runtime` or `timeout` although the code trains. A smoke run asks whether the code
trains, not how fast, so it asks for a batch of `SMALL_BATCH`: every batch option the command
gives is lowered to it, and where the command gives none, the entry script's own batch option
(read with `ast`, never run) is passed with it when its default is larger. Evaluation batches
are left as they are. Each change is a note of the run.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from miner.select.arguments import SMALL_BATCH, devices_asked
from miner.select.declared_options import declared_options

# A training batch option's name, with `-` read as `_` and without its dashes: `batch_size`,
# `batch`, `bs`, `train_batch_size`, `per_device_train_batch_size`, `batch_gpu`, `micro_batch_size`.
BATCH_NAME = re.compile(
    r"^(?:(?:train|training|per_device_train|micro|global|total|mini)_?)?"
    r"(?:batch_?size|batch|bs|batchsize|batch_?gpu)(?:_?(?:per_?gpu|per_?device|train))?$",
    re.IGNORECASE,
)
# A configuration override inside the command: Hydra's `data.batch_size=64`, yacs' pair
# `DATA.BATCH_SIZE 128` (after `--opts`).
HYDRA_BATCH = re.compile(r"^\+{0,2}((?:[\w-]+\.)*(?:train_)?batch_?size)=(\d+)$", re.IGNORECASE)
YACS_BATCH = re.compile(r"^(?:[A-Z0-9_]+\.)+(?:TRAIN_)?(?:IMS_PER_BATCH|BATCH_SIZE)$")
NUMBER = re.compile(r"^\d+$")


@dataclass(frozen=True)
class BatchOption:
    """A batch option an entry script declares: its spellings, its default, and its form."""

    spellings: tuple[str, ...]
    default: int | None
    absl: bool = False  # `flags.DEFINE_integer('batch_size', ...)`: passed as `--batch_size=4`

    def words(self, value: int) -> tuple[str, ...]:
        """The argv words that ask for `value`."""
        longest = max(self.spellings, key=len)
        return (f"{longest}={value}",) if self.absl else (longest, str(value))


def _is_batch(option: str) -> bool:
    return BATCH_NAME.match(option.lstrip("-").replace("-", "_")) is not None


def declared_batch_options(source: str) -> tuple[BatchOption, ...]:
    """The batch options a script's argparse, click or absl parser declares."""
    found = []
    for option in declared_options(source):
        if option.absl:
            if option.define == "DEFINE_integer" and _is_batch(option.longest):
                found.append(BatchOption(option.spellings, _int(option.default), absl=True))
        elif any(_is_batch(s) for s in option.spellings if s.startswith("--")):
            found.append(BatchOption(option.spellings, _int(option.default)))
    return tuple(found)


def _int(node: ast.expr | None) -> int | None:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        return node.value
    return None


def small_batch(
    command: tuple[str, ...], script: Path | None
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The command asking for a batch of `SMALL_BATCH` per device it asks for, and a note for
    each change. Run again after the devices asked for are fewer, it lowers the batch again."""
    small = SMALL_BATCH * devices_asked(command)
    declared: tuple[BatchOption, ...] = ()
    if script is not None and script.suffix == ".py" and script.is_file():
        declared = declared_batch_options(script.read_text(encoding="utf-8", errors="replace"))
    spelt = {s for option in declared for s in option.spellings}
    words, notes, given = list(command), [], False
    for i, word in enumerate(words):
        option, equals, value = word.partition("=")
        hydra = HYDRA_BATCH.match(word)
        if hydra:
            option, value, equals = hydra.group(1), hydra.group(2), "="
        elif YACS_BATCH.match(word) or (option.startswith("-") and
                                        (option in spelt or _is_batch(option))):  # fmt: skip
            if not equals:
                value = words[i + 1] if i + 1 < len(words) else ""
        else:
            continue
        given = True
        if not NUMBER.match(value) or int(value) <= small:
            continue
        if equals:
            words[i] = word[: len(word) - len(value)] + str(small)
        else:
            words[i + 1] = str(small)
        notes.append(f"batch: {option} {value} -> {small}")
    if not given and "{python}" in command[:6]:
        for batch in declared:
            if batch.default is not None and batch.default > small:
                words += batch.words(small)
                notes.append(f"batch: {max(batch.spellings, key=len)} {small} added "
                             f"(the script's default is {batch.default})")  # fmt: skip
                break
    return tuple(words), tuple(notes)
