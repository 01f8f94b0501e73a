"""Training configurations for an external trainer (codebook: training code when the README
gives the command that trains with them).

A project that trains with another project's trainer ships the configurations and says how
to run them: `python deepy.py train.py pythia-160m-deduped.yml` from a GPT-NeoX checkout,
`python object_detection/model_main.py --pipeline_config_path=configs/ssd.config`. The
command's trainer is not in the repository; a configuration it passes is.
"""

from __future__ import annotations

import re
import shlex
from pathlib import PurePosixPath

from miner.audit.detect import AuditContext
from miner.codebook import Evidence

# A command that runs a trainer: a training script, or a trainer's `train` sub-command.
TRAIN_COMMAND = re.compile(
    r"^\s*(?:[\w.\-/]+\s+)*?(?:python[\d.]*|torchrun|deepspeed|accelerate\s+launch|bash|sh)\b"
    r"[^\n]*?\b(?:[\w\-/]*/)?[\w\-]*train[\w\-]*\.(?:py|sh)\b"
    r"|^\s*(?:allennlp|fairseq-hydra|llamafactory-cli|tune|axolotl)\s+(?:run\s+)?train\b",
    re.I,
)
BACKSLASH = "\\"
CONFIG_SUFFIXES = (".yml", ".yaml", ".json", ".jsonnet", ".config", ".cfg", ".gin", ".toml")


def external_trainer(ctx: AuditContext) -> list[Evidence]:
    """The README command that trains with a configuration the repository ships, run by a
    trainer it does not ship; empty when there is none."""
    paths = set(ctx.tree.paths)
    shipped = {PurePosixPath(p).name for p in paths if p.endswith(CONFIG_SUFFIXES)}
    for block in ctx.docs.code():
        if block.path != ctx.tree.readme:
            continue
        for offset, line in _commands(block.text):
            if not TRAIN_COMMAND.search(line):
                continue
            try:
                words = shlex.split(line, comments=True)
            except ValueError:
                words = line.split()
            scripts = [w for w in words if w.endswith((".py", ".sh")) and "train" in w.lower()]
            if any(s.lstrip("./") in paths for s in scripts):
                continue  # the project's own trainer: its code speaks for itself
            for word in words:
                value = word.split("=", 1)[-1]
                name = PurePosixPath(value).name
                if value.endswith(CONFIG_SUFFIXES) and name in shipped:
                    text = " ".join(line.split())[:200]
                    return [Evidence(block.path, block.line + offset, text,
                                     "training_code.external_config")]  # fmt: skip
    return []


def _commands(text: str) -> list[tuple[int, str]]:
    r"""The commands of a code block with the line each starts on: a line continued with `\`,
    or followed by lines of options (`--deepspeed configs/ds.json` on a line of its own, as
    READMEs write long commands), is one command."""
    commands: list[tuple[int, str]] = []
    continued = False
    for offset, line in enumerate(text.splitlines()):
        stripped = line.strip()
        if commands and stripped and (continued or stripped.startswith("-")):
            start, command = commands[-1]
            commands[-1] = (start, f"{command.rstrip().removesuffix(BACKSLASH)} {stripped}")
        else:
            commands.append((offset, line))
        continued = stripped.endswith(BACKSLASH)
    return commands
