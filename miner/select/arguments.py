"""Values for the arguments a user would type in: README placeholders and required options.

A README writes `--output-dir <PATH/TO/OUTPUT/DIR>` or `python train.py [imagenet-folder]`, and
an entry point may stop with `the following arguments are required: --outdir`. A smoke run has
no user to ask, so it gives each such argument what its name says it is:
- an output (`--output-dir`, `--save_model`, `$LOGDIR`, `--outdir`) a fresh folder of the run,
  `{run_dir}/outputs/<name>` (a file name, such as `model.pt`, keeps its folder only);
- a data path (`[imagenet-folder]`, `--data-path /path/to/imagenet/train`, `--data_root`) a path
  under `{run_dir}/stand-in-data/` that does not exist, so a loader the data stand-ins know
  (ImageFolder and its kin) serves stand-in data there, and any other loader stops as it would
  for a user who has not downloaded the data (`needs_data`, the README line as evidence);
- a run name (`--exp_name <name>`) the word `smoke`;
- a count of GPUs, processes or nodes (`sh train.sh <num_gpu> <port>`, `--gpus $GPUS`) one, a
  GPU's id zero, and a port (`<port>`, `$MASTER_PORT`) a fixed one: the run has its own network
  namespace, so runs side by side never share it; a positional argument left out would shift
  every one after it;
- weights, a checkpoint to resume, a configuration file, a key or a device nothing: the argument
  stays out, as before.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

OUTPUTS = "{run_dir}/outputs"
STAND_IN_DATA = "{run_dir}/stand-in-data"
RUN_NAME = "smoke"

# What a word of an option's name, or of the placeholder, says the value is; first match wins.
OUTPUT_WORDS = frozenset(
    "o out outdir outpath output outputs save saved savedir savepath saving log logs logdir "
    "logging result results resultdir expdir workdir dump snapshot snapshots tensorboard "
    "ckptdir checkpointdir checkpointsdir".split()
)
NAME_WORDS = frozenset("name tag expname runname".split())
# How many devices, processes or nodes a launch uses, or which device: one, the first.
DEVICE_WORDS = frozenset(
    "gpu gpus ngpu ngpus numgpu numgpus gpunum gpusnum nproc nprocs nprocpernode numproc "
    "numprocs ndevices numdevices devices worldsize nnodes numnodes".split()
)
COUNTING = frozenset("num n per node".split())
# How long a run trains, in a placeholder's words (`<number_of_training_iterations>`).
ITERATION_WORDS = frozenset("epoch epochs nepochs numepochs iteration iterations iters niters "
                            "numiters steps nsteps numsteps".split())  # fmt: skip
BATCH_WORDS = frozenset("batch batchsize bs".split())
SMALL_BATCH = 4  # a multiple of the usual group sizes (minibatch-std groups of 4, pairs)
ID_WORDS = frozenset("id ids gpuid gpuids deviceid deviceids".split())
PORT_WORDS = frozenset("port masterport distport".split())
PORT = "29500"
NOT_FILLED_WORDS = frozenset(
    "ckpt checkpoint checkpoints weight weights pretrained pretrain resume restore init load "
    "model cfg config conf configs yaml yml vocab tokenizer key token api url host port gpu gpus "
    "device devices wandb hf".split()
)
DATA_WORDS = frozenset(
    "data dataset datasets datadir dataroot datapath root image images img imgs video videos "
    "audio wav corpus text txt csv json jsonl h5 hdf5 tfrecord tfrecords train val valid "
    "validation test folder dir path file input imagenet coco yuv".split()
)
# Words that say nothing of what the value is: left out of the name a value gets.
GENERIC = frozenset("path to your the my a of dir directory folder file here enter".split())
NOT_FILLED_SUFFIXES = (".pth", ".pt", ".ckpt", ".bin", ".safetensors", ".caffemodel", ".yaml",
                       ".yml", ".cfg", ".py", ".h5py")  # fmt: skip
FILE_NAME = re.compile(r"^[\w.-]+\.[A-Za-z][\w]{0,9}$")
# A placeholder written as a token inside a longer value: `root=<PATH/TO/DATASET>`.
TOKEN = re.compile(r"<[^>]*>|\[[^\]]*\]|\$\{[^}]*\}|\$\w+")
WORD = re.compile(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+")
# What an entry point says when a required argument is missing: argparse (Python 3, then 2),
# click, absl.
REQUIRED = (
    re.compile(r"the following arguments are required: (.+?)\s*$"),
    re.compile(r"error: argument (\S+) is required"),
    re.compile(r"Missing (?:option|argument) ['\"‘“]?([\w/-]+)"),
    re.compile(r"Flag --(\w+) must (?:have a value other than None|be specified)"),
)


@dataclass(frozen=True)
class FilledArgument:
    """One argument given a value: the option (empty for a positional), the value, its role."""

    option: str
    value: str
    role: str  # output | data | name | count | device | port | batch | config | choice

    def words(self) -> tuple[str, ...]:
        """The argv words it adds to a command."""
        return (self.option, self.value) if self.option else (self.value,)

    def note(self) -> str:
        """What was given, and why, for the run's notes."""
        what = {"output": "an output folder of the run", "data": "a stand-in data path",
                "name": "a run name", "count": "one (device, epoch or step)",
                "device": "the first device", "port": "a port of the run's own network",
                "batch": "a small batch", "config": "the repository's configuration",
                "choice": "a choice its parser lists"}[self.role]  # fmt: skip
        return f"{self.option or 'positional argument'} given {what}: {self.value}"


def _words(text: str) -> list[str]:
    """The words of an option name or a placeholder, lower case (`--outDir` -> out, dir)."""
    words = [w.lower() for w in WORD.findall(text)]
    joined = "".join(words)
    return [*words, joined] if len(words) > 1 else words


def role_of(option: str, placeholder: str) -> str:
    """What an argument is, from its option's name and the placeholder written for its value:
    output, name, data, or "" (weights, a configuration, anything a run cannot make up)."""
    value_name = PurePosixPath(TOKEN.sub(" ", placeholder).strip() or placeholder).name.lower()
    option_words, value_words = _words(option), _words(placeholder)
    device = _device_role(option_words, value_words)
    if device:
        return device
    if not DATA_WORDS.intersection(value_words):
        # `-iterations <number_of_training_iterations>`, a required `--num_epochs`: one is enough
        # to train; a required `--batch_size`: a small batch
        if ITERATION_WORDS.intersection(value_words) or (
            not value_words and ITERATION_WORDS.intersection(option_words)
        ):
            return "count"
        if BATCH_WORDS.intersection(value_words or option_words):
            return "batch"
    for words in (option_words, value_words) if option else (value_words,):
        # a run's name: an option's word, or a bare placeholder's (`<experiment-tag>`)
        if (
            NAME_WORDS.intersection(words)
            and (words is option_words or not option)
            and not NOT_FILLED_WORDS.intersection(words)
        ):
            return "name"
        if OUTPUT_WORDS.intersection(words):
            return "output"
        if NOT_FILLED_WORDS.intersection(words) or value_name.endswith(NOT_FILLED_SUFFIXES):
            return ""
        if DATA_WORDS.intersection(words):
            return "data"
    return ""


def _device_role(option_words: list[str], value_words: list[str]) -> str:
    """count, device or port when the option's or the placeholder's words are only of devices,
    processes or ports (`<num_gpu>`, `--gpu <gpu_id>`, `$MASTER_PORT`), else ""."""
    kinds = []
    for words in (option_words, value_words):
        named = set(words)
        if named and named <= PORT_WORDS | {"master", "dist"} and named & PORT_WORDS:
            kinds.append("port")
        elif named & (DEVICE_WORDS | ID_WORDS) and named <= DEVICE_WORDS | ID_WORDS | COUNTING:
            kinds.append("device" if named & ID_WORDS else "count")
        elif named:
            kinds.append("")
    if not kinds or kinds[0] == "" or "port" in kinds and len(set(kinds)) > 1:
        return ""  # the option says what it is (`--data <id>`), or the two disagree
    return "device" if "device" in kinds else kinds[0]


def _name(option: str, placeholder: str, role: str) -> str:
    """A short name for the value: the placeholder's own words (`imagenet-train`), a file name
    it gives (`tweets.csv`), else the option's."""
    plain = TOKEN.sub(lambda m: " " + m.group(0).strip("<>[]${}") + " ", placeholder)
    last = PurePosixPath(plain.strip()).name if plain.strip() else ""
    if FILE_NAME.match(last) and not last.startswith("."):
        return last
    for text in (plain, option):
        words = [w.lower() for w in WORD.findall(text) if w.lower() not in GENERIC]
        if words:
            return "-".join(words)[:60]
    return role


def fill(option: str, placeholder: str) -> FilledArgument | None:
    """The value a smoke run gives an argument written as `placeholder` (None: leave it out)."""
    role = role_of(option, placeholder)
    if not role:
        return None
    if role == "name":
        return FilledArgument(option, RUN_NAME, role)
    if role in ("count", "device", "port", "batch"):
        value = {"count": "1", "device": "0", "port": PORT, "batch": str(SMALL_BATCH)}[role]
        return FilledArgument(option, value, role)
    folder = OUTPUTS if role == "output" else STAND_IN_DATA
    return FilledArgument(option, f"{folder}/{_name(option, placeholder, role)}", role)


# A configuration file the repository ships, for a placeholder that names one (`<path-to-config>`,
# `path/to/config.yaml`): under a folder of configurations, the smallest model's first.
CONFIG_FOLDER = re.compile(r"(?:^|/)(?:configs?|cfgs?|conf|experiments?)/", re.I)
CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".py", ".cfg")
SIZE_WORDS = (("tiny", "nano", "mini", "micro"), ("small", "base"))  # then every other


def repository_config(option: str, placeholder: str, paths: frozenset[str]) -> str | None:
    """A configuration file of the repository's for a placeholder (or option) that asks for
    one, preferring the suffix the placeholder names and the smallest model; None otherwise."""
    words = {*_words(option), *_words(placeholder)}
    if not words & {"cfg", "config", "conf", "configs"}:
        return None
    named = next((s for s in CONFIG_SUFFIXES if placeholder.lower().endswith(s)), "")
    found: list[str] = []
    # YAML or JSON first; else Python, where a project keeps only Python configurations
    # (OpenMMLab's `configs/.../*.py`, read by `Config.fromfile`)
    for wanted in ((named,),) if named else (CONFIG_SUFFIXES[:3], (".py",)):
        found = [p for p in paths if p.lower().endswith(wanted) and _configuration(p)]
        if found:
            break

    def rank(path: str) -> tuple[int, bool, int, str]:
        stem = PurePosixPath(path).stem.lower()
        size = next((i for i, names in enumerate(SIZE_WORDS) if any(n in stem for n in names)),
                    len(SIZE_WORDS))  # fmt: skip
        # a training configuration before a test or prediction one (`train_config.yml`)
        other = bool(re.search(r"test|predict|eval|infer", stem)) and "train" not in stem
        return size, other, len(path), path

    return min(found, key=rank) if found else None


def _configuration(path: str) -> bool:
    """A configuration file: in a folder of configurations, or a data file named one
    (`resources/train_config.yml`; a `config.py` is the code's own module), never a package's
    `__init__`, an `_base_` fragment or a hidden file."""
    name = PurePosixPath(path).name
    if "__init__" in path or "/_base_" in path or name.startswith("."):
        return False
    named = {"config", "cfg", "conf"} & set(_words(PurePosixPath(path).stem))
    return bool(CONFIG_FOLDER.search(path) or (named and not name.endswith(".py")))


# Files a data placeholder may name: tables, arrays and text the code reads as they are.
SHIPPED_DATA = (".csv", ".tsv", ".txt", ".json", ".jsonl", ".npy", ".npz", ".h5", ".hdf5",
                ".pkl", ".pickle", ".mat", ".db", ".xlsx", ".parquet")  # fmt: skip


def repository_data(option: str, placeholder: str, paths: frozenset[str]) -> str | None:
    """The one data file of the repository that a data placeholder names by its words
    (`<dataset_path>` with `dataset.csv` shipped, `--train <train_file>` with
    `data/train.tsv`); None when none or several match, or the argument is no data path."""
    if role_of(option, placeholder) != "data":
        return None
    shipped = [p for p in paths if p.lower().endswith(SHIPPED_DATA)
               and not PurePosixPath(p).name.startswith(".")]  # fmt: skip
    # the placeholder's own words first (`-train <dataset_path>`: dataset.csv, not train.tsv)
    for words in ({*_words(placeholder)}, {*_words(option), *_words(placeholder)}):
        found = [p for p in shipped if set(_words(PurePosixPath(p).stem)) <= words]
        if found:
            return found[0] if len(found) == 1 else None
    return None


def repository_path(value: str, paths: frozenset[str]) -> str | None:
    """A file of the repository that a path with a placeholder inside names
    (`config/st_gcn/<dataset>/train.yaml` -> `config/st_gcn/kinetics-skeleton/train.yaml`), the
    first in order; None when no file matches or the value is a placeholder alone."""
    if "/" not in value or not TOKEN.search(value) or not TOKEN.sub("", value).strip("/."):
        return None
    parts = re.split(f"({TOKEN.pattern})", value.removeprefix("./"))
    pattern = "".join(r"[^/]+" if TOKEN.fullmatch(p) else re.escape(p) for p in parts)
    found = sorted(p for p in paths if re.fullmatch(pattern, p))
    return found[0] if found else None


def fill_in_value(option: str, value: str) -> str | None:
    """`value` with its placeholder replaced: each `<...>`/`[...]`/`$VAR` token inside a longer
    value (`ImageNet:root=<PATH/TO/DATASET>`), else the whole value; None to leave it out."""
    tokens = TOKEN.findall(value)
    if tokens and TOKEN.sub("", value).strip(":=,/ "):
        out = value
        for token in dict.fromkeys(tokens):
            filled = fill(option, token)
            if filled is None:
                return None
            out = out.replace(token, filled.value)
        return out
    filled = fill(option, value)
    return None if filled is None else filled.value


def required_arguments(text: str) -> tuple[str, ...]:
    """The arguments an entry point's usage error says are required (`--outdir`, `data_dir`)."""
    for pattern in REQUIRED:
        match = pattern.search(text)
        if match is None:
            continue
        names = []
        for item in match.group(1).split(","):
            aliases = [a for a in item.strip().split("/") if a]
            if not aliases:
                continue
            name = max(aliases, key=len)
            if pattern is REQUIRED[3]:
                name = "--" + name
            names.append(name)
        return tuple(names)
    return ()


WEIGHT_WORDS = frozenset(
    "ckpt checkpoint checkpoints weight weights pretrained pretrain resume restore init".split()
)


def weights_required(text: str) -> str | None:
    """The required argument a usage error names that is a checkpoint to start from
    (`--actual_resume`, `--pretrained_weights`): a run needs weights only the user has."""
    for name in required_arguments(text):
        if WEIGHT_WORDS.intersection(_words(name.lstrip("-"))):
            return name
    return None


# argparse's usage line lists an option's choices: `--task {m4,kcg,nrj,dummy}`.
USAGE_CHOICES = re.compile(r"(--?[\w-]+)\s+\{([^{}\s]+)\}")
# Of the choices, one that needs no real data or runs least: a toy or synthetic task.
TOY_CHOICE = re.compile(r"(?i)dummy|toy|synthetic|random|fake|debug|tiny|mini|small|demo|sample")


def usage_choices(text: str) -> dict[str, tuple[str, ...]]:
    """Option -> the choices an argparse usage text lists for it."""
    return {m.group(1): tuple(c for c in m.group(2).split(",") if c)
            for m in USAGE_CHOICES.finditer(text)}  # fmt: skip


def _choice(option: str, choices: tuple[str, ...]) -> FilledArgument:
    """A toy or synthetic choice where the parser lists one, else its first."""
    toy = next((c for c in choices if TOY_CHOICE.search(c)), choices[0])
    return FilledArgument(option, toy, "choice")


def fill_required(
    names: tuple[str, ...], choices: dict[str, tuple[str, ...]] | None = None,
    paths: frozenset[str] = frozenset(),
) -> tuple[FilledArgument, ...]:  # fmt: skip
    """A value for each required argument (one of its choices where the usage lists them, a
    configuration file of the repository's `paths` for a `--config`), or () when any of them
    cannot be made up (a rerun would stop at the same message); at most one positional
    argument."""
    choices = choices or {}
    filled = []
    for name in names:
        option = name if name.startswith("-") else ""
        if choices.get(option):
            filled.append(_choice(option, choices[option]))
            continue
        argument = fill(option, "" if option else name)
        config = repository_config(option or name, "", paths) if argument is None else None
        if config is not None:
            argument = FilledArgument(option, config, "config")
        if argument is None:
            return ()
        filled.append(argument)
    if sum(1 for a in filled if not a.option) > 1:
        return ()
    return tuple(filled)


def make_output_folders(argv: list[str], run_dir: Path) -> None:
    """Create the output folders a command names under `run_dir/outputs` (a file's folder only),
    as a user would before running it."""
    outputs = run_dir / "outputs"
    for word in argv:
        value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
        if not value.startswith(str(outputs) + "/"):
            continue
        path = Path(value)
        folder = path.parent if FILE_NAME.match(path.name) else path
        folder.mkdir(parents=True, exist_ok=True)


# Options that say how many GPUs to use (`--gpus 8`, `-d 8`, `--nproc_per_node=8`), or which.
DEVICE_COUNT = re.compile(
    r"^--?(?:d|devices?|gpus?|n_?gpus?|num[_-]?gpus?|gpu[_-]?num|ngpus?|gpu[_-]?ids?|world[_-]size"
    r"|nproc[_-]per[_-]node)$"
)
DEVICE_VALUE = re.compile(r"^(?:\d+)(?:,\d+)*$")


def _device_options(command: tuple[str, ...]) -> Iterator[tuple[int, str, bool, str, bool]]:
    """Each option of `command` that says how many devices, or which, to use: its index, the
    option, whether it is written `--option=value`, the value, and whether it lists ids."""
    for i, word in enumerate(command):
        option, equals, value = word.partition("=")
        if not equals:
            option, value = word, command[i + 1] if i + 1 < len(command) else ""
        if DEVICE_COUNT.match(option) and DEVICE_VALUE.match(value):
            yield i, option, bool(equals), value, "," in value or "id" in option


def devices_asked(command: tuple[str, ...]) -> int:
    """How many devices the command asks for (`--gpus=8`, `--gpu_ids 0,1`); 1 where it names
    none. A batch is split among them, and code checks that it divides."""
    counts = [len(value.split(",")) if ids else int(value)
              for _, _, _, value, ids in _device_options(command)]  # fmt: skip
    return max([1, *counts])


def one_device(command: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The command asking for one device where it asks for several (`--gpus 8` -> `--gpus 1`,
    `--gpu_ids 2,3` -> `--gpu_ids 0`), and a note for each change: a run shown the CPU as
    its one GPU cannot start eight workers on it."""
    words, notes = list(command), []
    for i, option, equals, value, ids in _device_options(command):
        wanted = "0" if ids else "1"  # the one device there is, or a count of one
        if value == wanted or (not ids and int(value) <= 1):
            continue
        if equals:
            words[i] = f"{option}={wanted}"
        else:
            words[i + 1] = wanted
        notes.append(f"{option} {value} -> {wanted}")
    return tuple(words), tuple(notes)
