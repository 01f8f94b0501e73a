"""Where training starts: the README's training command when it has one, else a script chosen
from evidence (its name, an argument parser, a training loop), never a demo, a plot, a server,
a webcam or a preprocessing step.

README commands are read as a shell would see them: lines continued with `\\` are joined, a
`$ ` prompt, `VAR=value` prefixes, `nohup`/`time` and trailing redirections or pipes are dropped,
and `python script.py`, `python -m package.module`, `./script`, `bash|sh script.sh` are
understood. A command asking for help (`-h`, `--help`) is never taken. Placeholder arguments
(`path/to/...`, `<path>`, `YOUR_DIR`, `$DATA`) are kept as evidence: such a run needs data the
user must supply. An output folder, a data path or a run name among them gets a value of the
run's (miner.select.arguments); any other is dropped with the option that precedes it.
"""

from __future__ import annotations

import re
import shlex
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import PurePosixPath

from miner.audit.closure import runs_python
from miner.select.arguments import (
    fill_in_value,
    repository_config,
    repository_data,
    repository_path,
)
from miner.select.console_scripts import module_file
from miner.select.readme_lines import ShellVariables, html_unmarked

# Scripts that are not training: demos, plots, servers, webcams, data preparation, evaluation.
NOT_TRAINING = re.compile(
    r"(?i)(?:^|[_\-.])(?:demo|plot\w*|visuali[sz]\w*|vis|serve|server|app|api|webcam|camera|gui"
    r"|preprocess\w*|prepare\w*|prep|download\w*|fetch\w*|get|convert\w*|export\w*|test\w*"
    r"|eval\w*|infer\w*"
    r"|predict\w*|detect|inference|setup|install|clean\w*|make_data\w*|build_\w*|deploy"
    r"|generat(?:e|ion)"
    # a job handed to a cluster's scheduler (`run_with_submitit.py`, `slurm_train.sh`), or a
    # competition's submission file
    r"|submit\w*|slurm\w*)(?:[_\-.]|$)"
)
TRAIN_THEN_TEST = re.compile(
    r"(?i)(?:^|[_\-.])train(?:[_\-.](?:and|then))?[_\-.](?:test|eval\w*|val\w*)$"
)
TRAINING_NAME = re.compile(r"(?i)train|main|run|fit|learn|finetune|pretrain")
# Options that turn a script's training off (`--is_train False`, `--mode test`, `--evaluate
# model.bin`): the command evaluates, whatever the script's name.
EVALUATION_FLAGS = frozenset(
    "--eval --evaluate --eval_only --eval-only --test --test_only --test-only --inference "
    "--predict --demo".split()
)
TRAINING_SWITCH = re.compile(r"(?i)^--?(?:is_?train(?:ing)?|train(?:ing)?|do_train)$")
OFF = frozenset("false 0 no off".split())
MODE_OPTION = re.compile(r"(?i)^--?(?:mode|phase|run_?mode)$")
NOT_TRAINING_MODES = frozenset(
    "test eval evaluate evaluation inference infer predict prediction demo sample generate".split()
)


# A mode flag in first place that names a data step (`run.sh --prepare`, `run.py --preprocess`,
# `run.sh --para_extraction`): the script's other modes train.
PREPARATION_MODE = re.compile(
    r"(?i)^--?(?:prepare|prepro(?:cess)?|download|extract|convert|export|build_?vocab)\w*$"
    r"|^--?\w+_extraction$"
)


# Hydra's overrides that turn training off (`python train.py test=True checkpoint=x.pth`).
HYDRA_EVALUATION = re.compile(
    r"(?i)^\+?(?:test|eval|evaluate|inference|test_only|eval_only)=(?:true|1|yes)$"
    r"|^\+?(?:train|training|do_train)=(?:false|0|no)$|^\+?(?:mode|phase)=(?:test|eval|infer\w*)$"
)


def evaluates(args: list[str]) -> bool:
    """True when a command's options turn its training off (`--is_train False`, `--mode=test`,
    `--evaluate pretrained.bin`, a data step's mode flag first: `--prepare`)."""
    if args and PREPARATION_MODE.match(args[0]):
        return True
    for index, arg in enumerate(args):
        option, _, value = arg.partition("=")
        if not value and index + 1 < len(args) and not args[index + 1].startswith("-"):
            value = args[index + 1]
        if option in EVALUATION_FLAGS or HYDRA_EVALUATION.match(arg):
            return True
        if TRAINING_SWITCH.match(option) and value.lower() in OFF:
            return True
        if MODE_OPTION.match(option) and value.lower() in NOT_TRAINING_MODES:
            return True
    return False


# Options that name a training set or turn training on (`structbilty.py --train data/x.conllu`,
# `--do_train`, `--mode train`): the command trains, whatever the script's name says.
TRAINING_OPTION = re.compile(r"(?i)^--?(?:train(?:ing)?(?:[_-](?:file|data|set|path|dir))?"
                             r"|do[_-]train)(?:=|$)")  # fmt: skip
TRAINING_MODES = frozenset(("train", "training", "fit", "finetune", "pretrain"))


def asks_to_train(args: list[str]) -> bool:
    """True when a command's options name its training data or turn training on."""
    for index, arg in enumerate(args):
        option, _, value = arg.partition("=")
        if TRAINING_OPTION.match(arg):
            return True
        if not value and index + 1 < len(args):
            value = args[index + 1]
        if MODE_OPTION.match(option) and value.lower() in TRAINING_MODES:
            return True
    return False


# A console script's sub-command that trains (`litgpt finetune ...`, `yolo train ...`).
TRAINING_SUBCOMMANDS = frozenset(("train", "fit", "finetune", "fine-tune", "pretrain"))
# A Python script a shell script runs (`python -u ./run.py ...`; not in a comment).
SCRIPT_IN_SHELL = re.compile(r"(?m)^[^#\n]*?\bpython[0-9.]*\s+(?:-u\s+)?(?:\./)?([\w./-]+\.py)\b")
Reader = Callable[[str], "str | None"]
PROMPT = re.compile(r"^\s*(?:[$>#]|\w*@[\w.-]+:[^$#]*[$#]|\(\w+\)\s*\$?)\s+")
ASSIGNMENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*=\S*$")
WRAPPERS = {"nohup", "time", "sudo", "exec", "env", "srun", "stdbuf", "-u"}
PYTHON = re.compile(r"^(?:python[0-9.]*|py|ipython)$")
SHELLS = ("bash", "sh", "zsh")
# Launchers that start a script on several processes; a smoke run starts the script itself once.
LAUNCHERS = ("torchrun", "deepspeed")
LAUNCHER_MODULES = ("torch.distributed.launch", "torch.distributed.run")
PLACEHOLDER = re.compile(
    # `{dataset}` names a value; `{"Default":1.0}` and `{1:-13.66}` are one (a dict literal)
    r"(?i)<[^>]*>|\[[^\]]*\]|\{[^}:]*\}|\.\.\.|(?:^|/)path/to\b|/path/|\bpath_to_|your[_-]\w*"
    r"|^\$\w+|\$\{|^(?:PATH|DIR|DATA|FOLDER|FILE)(?:_\w+)?$|xxx"
    r"|^enter[-_]\w|\w[-_]here$"  # `--field enter-field-here`, `--data your-file-here`
    # a variable's name in capitals for the user to put a value in (`--batch BATCH_SIZE LMDB_PATH`)
    r"|^(?-i:(?:NUM_|N_)?[A-Z]+(?:_[A-Z]+)*_(?:PATH|DIR|DIRECTORY|FOLDER|FILE|ROOT|SIZE|NAME|ID"
    r"|NUM|GPUS?|COUNT|PORT|NODES?)|NUM_[A-Z]+)$"
    r"|^/(?!dev/null$)\S+|^~/"  # an absolute or home path names the author's machine
)
OVERRIDE = re.compile(r"^[A-Za-z_][\w.+~-]*=")  # a Hydra or OmegaConf override: `data.root=...`
HELP = {"-h", "--help", "-help", "--helpfull"}
# Where a command may start inside prose: an inline code span, or a runner word.
CODE_SPAN = re.compile(r"`([^`]+)`")
COMMAND_START = re.compile(
    r"(?:^|[\s(\"'])((?:[A-Za-z_]\w*=\S*\s+)*(?:python[0-9.]*|bash|sh|\./)[^\s`]*)"
)


@dataclass(frozen=True)
class ReadmeCommand:
    """A command of the README, parsed: how to run it, what it runs, and what it left out."""

    line: int  # the line the command starts on
    text: str  # the command as written, continuation lines joined
    runner: str  # python | module | shell | console
    script: str  # the script's path in the checkout (for `module` and `console`, the module's)
    args: tuple[str, ...]
    placeholders: tuple[str, ...]
    module: str = ""  # `module` runs it with -m; `console` names `command=module:function`
    folder: str = ""  # the README's folder, when the command's paths are relative to it


COMMENTED_CONTINUATION = re.compile(r"\\\s+#[^'\"`]*$")


def joined_lines(text: str) -> list[tuple[int, str]]:
    """(first line number, line) with `\\` continuations joined into one line."""
    out: list[tuple[int, str]] = []
    pending: list[str] = []
    start = 0
    for no, raw in enumerate(text.splitlines(), start=1):
        # `python -m pkg.train exp_name \  # experiment name`: the author meant to go on
        line = COMMENTED_CONTINUATION.sub(lambda _: "\\", raw.rstrip())
        if not pending:
            start = no
        if line.endswith("\\"):
            pending.append(line[:-1].strip())
            continue
        pending.append(line.strip())
        out.append((start, " ".join(p for p in pending if p)))
        pending = []
    if pending:
        out.append((start, " ".join(p for p in pending if p)))
    return out


# An optional option in usage notation (`[--work_dir <work folder>]`, `[--gpus 0 1]`), which a
# run leaves out as the user may.
OPTIONAL_GROUP = re.compile(r"\s\[\s*--?[A-Za-z][^\[\]]*\]")
# A remark in words after the command (`python main.py --cuda (use GPUs or not)`): no argument
# of the shell's, which would read it as a subshell; several words inside, no shell syntax.
TRAILING_REMARK = re.compile(r"\s+\((?=[^()$`'\"]*\s)[A-Za-z][^()$`'\"=]*\)\s*$")


def command_words(line: str) -> list[str]:
    """The command's words, from the first runnable word to the first shell operator."""
    line = PROMPT.sub("", line.strip().strip("`").strip())
    line = re.split(r"\s(?:\|\|?|&&|;|2?>>?|&>|&)(?:\s|$)|\s*[;|]\s*$|\s&\s*$", line)[0]
    line = OPTIONAL_GROUP.sub("", line)  # usage notation: `[--work_dir <work folder>]` is optional
    line = TRAILING_REMARK.sub("", line)  # `python main.py --cuda (use GPUs or not)`: prose
    try:
        words = shlex.split(line, comments=True)
    except ValueError:
        return []
    while words and (ASSIGNMENT.match(words[0]) or words[0] in WRAPPERS):
        words.pop(0)
    return words


def _resolve(script: str, base: str, paths: frozenset[str]) -> str | None:
    script = script.removeprefix("./")
    for candidate in (f"{base}/{script}" if base not in ("", ".") else None, script):
        if candidate and candidate in paths:
            return candidate
    return None


# Prose around a command in a sentence that says what it is for ("run the evaluation of our
# model via `bash run_retrieval.sh`").
PROSE_EVALUATION = re.compile(r"(?i)\b(?:evaluat\w*|inference|testing|predict\w*|generat\w*)\b")
PROSE_TRAINING = re.compile(r"(?i)\b(?:train\w*|fine-?tun\w*|pre-?train\w*)\b")


def _said_to_evaluate(segment: str, line: str) -> bool:
    """True when the command is a code span inside a sentence that says it evaluates, tests or
    generates, and says nothing of training."""
    if segment.strip() == line.strip() or "`" not in line:
        return False
    prose = line.replace(segment, " ")
    return bool(PROSE_EVALUATION.search(prose)) and not PROSE_TRAINING.search(prose)


def _resolve_below(script: str, base: str, paths: frozenset[str], document: str) -> str | None:
    """The one path of the checkout below `base` that ends in folder/`script` (a bare name),
    where `document` names that folder: `folder/script` in its words, or `cd folder`; None
    otherwise."""
    name = script.removeprefix("./")
    if "/" in name:
        return None
    below = "" if base in ("", ".") else base + "/"
    found = [path for path in paths if path.startswith(below) and path.endswith("/" + name)]
    if len(found) != 1:
        return None
    folder = re.escape(str(PurePosixPath(found[0]).parent).removeprefix(below))
    named = re.search(rf"(?:^|[\s`'\"(/]){folder}/{re.escape(name)}\b", document)
    gone = re.search(rf"\bcd\s+(?:\./)?{folder}/?(?:[\s`'\"&;)]|$)", document, re.M)
    return found[0] if named or gone else None


# A choice written out in the README: `--type [train|eval]`, `--model res{8,15,26}[-narrow]`.
CHOICES = re.compile(r"\[([\w.-]+(?:\|[\w.-]+)+)\]|\{([\w.-]+(?:,[\w.-]+)+)\}")
OPTIONAL_SUFFIX = re.compile(r"(?<=\w)\[[-_.][\w.-]*\]")


def _first_choice(arg: str) -> str:
    """The first of each set of alternatives, without optional suffixes: the README's own
    notation for a choice is not a placeholder (`[train|eval]` -> `train`, `res{8,15}[-narrow]`
    -> `res8`)."""
    arg = CHOICES.sub(lambda m: (m.group(1) or m.group(2)).replace(",", "|").split("|")[0], arg)
    return OPTIONAL_SUFFIX.sub("", arg)


def _option_value(arg: str) -> tuple[str, str]:
    """(`--opt`, value) of `--opt=value`, (`key`, value) of an override `key=value`, else
    ("", arg)."""
    if "=" in arg and (arg.startswith("-") or OVERRIDE.match(arg)):
        option, value = arg.split("=", 1)
        return option, value
    return "", arg


def _split_placeholders(
    args: list[str], paths: frozenset[str] = frozenset()
) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The arguments to run with, and every placeholder met (an option with its value): an
    output folder, a data path or a run name gets a value of the run's (miner.select.arguments),
    a configuration one of the repository's `paths`, anything else is left out with the option
    that precedes it."""
    kept: list[str] = []
    placeholders: list[str] = []
    follows = False  # whether kept[-1] is the word just before this one
    for arg in map(_first_choice, args):
        option, value = _option_value(arg)
        if not PLACEHOLDER.search(value):
            kept.append(arg)
            follows = True
            continue
        previous = kept[-1] if kept and follows else ""
        follows = False
        separate = not option and previous.startswith("-") and "=" not in previous
        placeholders.append(f"{previous} {arg}" if separate else arg)
        filled = repository_path(value, paths)
        if filled is None:
            filled = repository_data(previous if separate else option, value, paths)
        if filled is None:
            filled = fill_in_value(previous if separate else option, value)
        if filled is None:
            filled = repository_config(previous if separate else option, value, paths)
        if filled is not None:
            kept.append(arg[: len(arg) - len(value)] + filled)
            follows = True
        elif separate or (option and previous.startswith("-") and "=" not in previous):
            # `--work-dir <SAVE_PATH>`, or `--options model.pretrained=<PRETRAIN_MODEL>` as the
            # option's first value: the option goes with it
            kept.pop()
    return tuple(kept), tuple(placeholders)


def parse_command(
    line: str, no: int, base: str, paths: frozenset[str], read: Reader | None = None,
    scripts: Mapping[str, str] | None = None, document: str = "",
) -> ReadmeCommand | None:  # fmt: skip
    """The training command on `line` of a document in folder `base`, if it runs a script of the
    checkout with a training name, or a console script of the project (`scripts`: name ->
    `module:function`) that trains (None for help requests, demos and anything else): the line
    itself, else an inline code span of it, else the line from a runner word on."""
    for segment in command_segments(line):
        command = _parse(segment, line, no, base, paths, read, scripts or {}, document)
        if command is not None:
            return command
    return None


def command_segments(line: str) -> list[str]:
    """Where a command may be on a README line: the line itself, an inline code span of it, or
    the line from a runner word on (`2. then type python main.py --mode=train`)."""
    spans = CODE_SPAN.findall(line)
    # a line that opens with a code span gives the command in it, its prose after it
    # ("```python train.py -e run1``` (```-e``` names the experiment)")
    segments = [*spans, line] if line.lstrip().startswith("`") else [line, *spans]
    for match in COMMAND_START.finditer(line):
        rest, before = line[match.start(1) :], line[match.start(1) - 1 : match.start(1)]
        segments.append(rest.split(before, 1)[0] if before in ("'", '"') else rest)
    return segments


def _without_launcher(words: list[str]) -> list[str]:
    """`torchrun --nproc_per_node=8 train.py --x 1` (or `python -m torch.distributed.launch ...`,
    `accelerate launch ...`, `deepspeed ...`) as `python train.py --x 1`: the launcher's own
    options stop at the script."""
    head, rest = words[0], words[1:]
    if PYTHON.match(PurePosixPath(head).name) and len(rest) >= 2 and rest[0] == "-m":
        if rest[1] not in LAUNCHER_MODULES:
            return words
        rest = rest[2:]
    elif head == "accelerate" and rest[:1] == ["launch"]:
        rest = rest[1:]
    elif PurePosixPath(head).name not in LAUNCHERS:
        return words
    for index, word in enumerate(rest):
        if word.endswith(".py") and not word.startswith("-"):
            return ["python", *rest[index:]]
        if word in ("-m", "--module") and index + 1 < len(rest):  # `accelerate launch -m pkg.train`
            return ["python", "-m", *rest[index + 1 :]]
    return words


def _parse(
    segment: str, line: str, no: int, base: str, paths: frozenset[str], read: Reader | None,
    scripts: Mapping[str, str], document: str = "",
) -> ReadmeCommand | None:  # fmt: skip
    words = command_words(segment)
    if len(words) < 1:
        return None
    words = _without_launcher(words)
    head, rest = words[0], words[1:]
    if head in scripts:
        # a bare name in a sentence (`use the `mace_run_train` script`) mentions the command
        mention = not rest and command_words(line) != words
        return None if mention else _console(head, scripts[head], rest, line, no, paths)
    runner, module = "", ""
    if PYTHON.match(PurePosixPath(head).name):
        while rest and rest[0] in ("-u", "-O", "-B", "-W") or (rest and rest[0].startswith("-X")):
            rest = rest[2:] if rest[0] in ("-W", "-X") else rest[1:]
        if len(rest) >= 2 and rest[0] == "-m":
            module, rest = rest[1], rest[2:]
            target = module.replace(".", "/") + ".py"
            runner = "module"
        elif rest and rest[0].endswith(".py"):
            target, rest, runner = rest[0], rest[1:], "python"
        else:
            return None
    elif head in SHELLS and rest and rest[0].endswith(".sh"):
        target, rest, runner = rest[0], rest[1:], "shell"
    elif head.startswith("./") and head.endswith((".sh", ".py")):
        target, runner = head, "shell" if head.endswith(".sh") else "python"
    elif head.startswith("./") and _python_program(head, base, paths, read):
        target, runner = head, "python"  # `./train --dataroot ...`: a Python file, no suffix
    else:
        return None
    if HELP.intersection(rest) or _said_to_evaluate(segment, line):
        return None
    script = _resolve(target, base, paths)
    # A README in a sub-project (`rtdetr_pytorch/README.md`: `python tools/train.py -c
    # configs/...`) is written for a shell in its own folder: the run starts there.
    relative = base not in ("", ".") and script == f"{base}/{target.removeprefix('./')}"
    folder = base if relative else ""
    if script is None and runner != "module":
        # ... and so is a bare script name whose folder the document names (DuReader's
        # `sh run.sh --train` below "wrapped in `paddle/run.sh`", or after `cd egs/wsj0`):
        # the one file of the checkout there, run from that folder.
        script = _resolve_below(target, base, paths, document)
        if script and runner == "shell" and not _runs_training(script, read):
            script = None  # `cd cpp; sh run.sh`: a latency test, no Python training
        folder = str(PurePosixPath(script).parent) if script else ""
    if script is None:
        return None
    name = PurePosixPath(script).stem
    named = (TRAINING_NAME.search(name) or (runner == "shell" and _runs_training(script, read))
             or asks_to_train(rest))  # fmt: skip
    if not _trains(name) or not named or evaluates(rest):
        return None
    if folder:  # a command that starts in a folder names the repository's files from there
        paths = frozenset(p.removeprefix(f"{folder}/") for p in paths if p.startswith(f"{folder}/"))
    args, placeholders = _split_placeholders(rest, paths)
    return ReadmeCommand(no, line.strip(), runner, script, args, placeholders, module, folder)


def _console(
    name: str, target: str, rest: list[str], line: str, no: int, paths: frozenset[str]
) -> ReadmeCommand | None:
    """A console script of the project's that trains, by its name (`mace_run_train`) or its
    sub-command (`litgpt finetune`), with a function in the checkout."""
    script = module_file(target, paths)
    sub = rest[0] if rest and not rest[0].startswith("-") else ""
    trains = bool(TRAINING_NAME.search(name)) and _trains(name.replace("-", "_"))
    if script is None or HELP.intersection(rest) or not (trains or sub in TRAINING_SUBCOMMANDS):
        return None
    args, placeholders = _split_placeholders(rest, paths)
    return ReadmeCommand(no, line.strip(), "console", script, args, placeholders,
                         f"{name}={target}")  # fmt: skip


def _python_program(head: str, base: str, paths: frozenset[str], read: Reader | None) -> bool:
    """`./train`: a file of the checkout with no suffix whose first line runs Python."""
    script = _resolve(head, base, paths)
    if script is None or read is None or "." in PurePosixPath(script).name:
        return False
    return runs_python((read(script) or "").partition("\n")[0])


def _runs_training(script: str, read: Reader | None) -> bool:
    """A shell script named after its model or data set (`scripts/ETT_script/Autoformer_ETTm1.sh`)
    that runs a Python script with a training name (`python -u run.py --is_training 1`)."""
    text = read(script) if read is not None else None
    for match in SCRIPT_IN_SHELL.finditer(text or ""):
        stem = PurePosixPath(match.group(1)).stem
        if TRAINING_NAME.search(stem) and _trains(stem):
            return True
    return False


def readme_commands(
    doc: str, text: str, paths: frozenset[str], read: Reader | None = None,
    scripts: Mapping[str, str] | None = None,
) -> list[ReadmeCommand]:  # fmt: skip
    """Every training command of one document, in the order written (`read` gives a file's
    text, to look inside a shell script whose name says nothing; `scripts` the project's
    console scripts)."""
    base = str(PurePosixPath(doc).parent)
    found = []
    variables = ShellVariables()
    for no, line in joined_lines(text):
        line = html_unmarked(line)
        if variables.observe(line):
            continue
        line = variables.expand(line)
        named = scripts and not scripts.keys().isdisjoint(re.findall(r"[\w.-]+", line))
        if not named and not re.search(r"\.(?:py|sh)\b|-m\s+\w|(?:^|\s|`)\./\w", line):
            continue
        command = parse_command(line, no, base, paths, read, scripts, text)
        if command is not None:
            found.append(command)
    return found


def is_training_script(path: str) -> bool:
    """True unless the script's name says it is a demo, plot, server or preparation step."""
    return _trains(PurePosixPath(path).stem)


def _trains(stem: str) -> bool:
    """A script name that does not say demo, plot, server or preparation; `train_test` and
    `deeplab_train_test` train first and test after, so a test or evaluation after a `train` word
    still trains."""
    return not NOT_TRAINING.search(TRAIN_THEN_TEST.sub("_train", stem))
