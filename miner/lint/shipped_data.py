"""Data the project's own code names by path and ships in the repository: a way to obtain the
training data that the docs need not state (codebook: "training and test data are in the
repository").

A training script that reads `rt-polarity.pos`, a config with `train_dir=sample_data/train.bmes`
or a notebook that opens `data/denoising/F16_GT.png` names data that is there: the path, taken
from the root or from the naming file's folder, is a data file of the tree or a folder holding
some. Paths named by demos, inference, tests, analysis or evaluation code are example inputs, not
training data; weights, code, listings and configuration are not data.
"""

from __future__ import annotations

import posixpath
import re
from collections import defaultdict
from collections.abc import Mapping

from miner.audit.classify.data_fetch import ENVIRONMENT_STEP, in_analysis_folder
from miner.audit.classify.data_sources import (
    DATA_FOLDERS,
    LISTING,
    NOT_DATA_NAME,
    NOT_DATA_SUFFIXES,
)
from miner.audit.files import RepoTree
from miner.audit.ownership import in_foreign_tree
from miner.codebook import Evidence

# A relative path as code and configs write it: a word with a folder or a file suffix.
PATH = re.compile(r"(?<![\w/.\-~$])((?:\.\.?/)*[A-Za-z0-9_][\w.\-]*(?:/[\w.\-]+)*/?)")
# Configuration and launch files that name the data a run reads (`train_dir=...`).
CONFIG_SUFFIXES = frozenset({".config", ".cfg", ".conf", ".ini", ".yaml", ".yml", ".sh"})
# Files whose paths are example or evaluation inputs, not what training reads.
NOT_TRAINING_FILE = re.compile(
    r"(?:^|[/_.\-])(?:demo|infer\w*|predict\w*|tests?|eval\w*|app|serve|server|visuali[sz]\w*"
    r"|plot\w*|export|convert\w*|deploy\w*|sampl\w*|generat\w*)(?=[/_.\-]|$)",
    re.I,
)
# Files named for training or for preparing its data (`demo.train.config`, `process_data.py`).
TRAINING_NAME = re.compile(r"train|fine_?tun|prep|process|build_data|make_data", re.I)
# Code that trains: a file named otherwise counts when it has one of these.
TRAINING_CODE = re.compile(
    r"\.backward\(|\.fit\(|fit_generator\(|train_on_batch\(|\.minimize\(|apply_gradients\("
    r"|optimizer\.step\(|GradientTape\(|\bTrainer\("
)
NOT_DATA_FOLDERS = frozenset({
    "docs", "doc", "assets", "images", "img", "imgs", "figures", "fig", "static", "media",
    "results", "output", "outputs", "logs", "tests", "test", "examples_output", "checkpoints",
    "pretrained", "weights", "models", "configs", "config",
})  # fmt: skip
# Inputs for examples, demos and evaluation, named by a training config (validation prompts,
# reference images): not the training data. `sample_data/` is the project's sample of it.
EXAMPLE_FOLDER = re.compile(r"example|demo|eval|inference|deploy|playground|assets", re.I)
CONFIG_DATA = frozenset({".json", ".yaml", ".yml", ".xml"})  # data only inside a data folder
MIN_NAMED_BYTES = 10_000  # one tiny fixture is no data set
MAX_TEXT = 400_000  # characters of a file read for paths


def named_data(tree: RepoTree, code: Mapping[str, str]) -> Evidence | None:
    """The first line of the project's own training code (`code`: path -> its code text) or run
    configs that names, by path, data files the repository ships (at least MIN_NAMED_BYTES)."""
    data: dict[str, int] = {}
    for f in tree.files:
        parts = f.path.lower().split("/")
        if (
            f.suffix in NOT_DATA_SUFFIXES
            or (f.suffix in CONFIG_DATA and DATA_FOLDERS.isdisjoint(parts[:-1]))
            or not NOT_DATA_FOLDERS.isdisjoint(parts[:-1])
            or any(EXAMPLE_FOLDER.search(p) or p.startswith(".") for p in parts[:-1])
            or not f.suffix  # Dockerfile, Makefile, LICENSE
            or f.name.startswith(".")
            or f.name.lower().startswith(("readme", "license", "copying"))
            or NOT_DATA_NAME.search(f.name)
            or LISTING.search(f.name)
            or in_foreign_tree(tree, f.path)
        ):
            continue
        data[f.path] = f.size
    if not data:
        return None
    folders: dict[str, int] = defaultdict(int)
    for path, size in data.items():
        parent = path
        while "/" in parent:
            parent = parent.rsplit("/", 1)[0]
            folders[parent] += size
    for path in _naming_files(tree, code):
        text = (code.get(path) or tree.read_text(path) or "")[:MAX_TEXT]
        base = posixpath.dirname(path)
        for match in PATH.finditer(text):
            token = match.group(1).rstrip("/")
            if "/" not in token and "." not in token.strip("."):
                continue
            size = _named_size(token, base, data, folders)
            if size >= MIN_NAMED_BYTES:
                line, shown = _located(tree.read_text(path) or "", token)
                return Evidence(path, line, shown[:200], "lint.data_shipped")
    return None


def _naming_files(tree: RepoTree, code: Mapping[str, str]) -> list[str]:
    """The project's own training code, data preparation and run configs: files named for them
    first, then other code that trains, then other configs."""
    own = set(code) | {f.path for f in tree.files if f.suffix == ".ipynb"}  # notebooks train too
    configs = {f.path for f in tree.files if f.suffix in CONFIG_SUFFIXES and f.depth <= 3}
    named, training, other = [], [], []
    for path in sorted(own | configs):
        if in_analysis_folder(path) or in_foreign_tree(tree, path) or path.startswith("."):
            continue
        if TRAINING_NAME.search(path.rsplit("/", 1)[-1]):
            named.append(path)
        elif NOT_TRAINING_FILE.search(path):
            continue
        elif path in configs:
            other.append(path)
        elif TRAINING_CODE.search(code.get(path) or tree.read_text(path) or ""):
            training.append(path)
    return named + training + other


def _named_size(token: str, base: str, data: dict[str, int], folders: dict[str, int]) -> int:
    """Bytes of data that `token`, read from the root or from `base`, names (0 when none)."""
    for start in ("", base) if base else ("",):
        path = posixpath.normpath(posixpath.join(start, token))
        if path.startswith("..") or path == ".":
            continue
        if path in data:
            return data[path]
        if path in folders:
            return folders[path]
    return 0


def _located(raw: str, token: str) -> tuple[int, str]:
    """The first line of `raw` that holds `token`, and its text."""
    for number, line in enumerate(raw.splitlines(), 1):
        if token in line:
            return number, line.strip()
    return 0, token


# An agent trained from logged transitions (offline RL) reads a data set after all.
OFFLINE_DATA = re.compile(r"\b(?:d4rl|minari|offline_dataset|load_dataset)\b")


def environment_data(code: Mapping[str, str]) -> Evidence | None:
    """The first line where training code takes a step's reward and end flag from an environment,
    unless the code also reads an offline data set."""
    if any(OFFLINE_DATA.search(text) for text in code.values()):
        return None
    for path, text in sorted(code.items()):
        found = ENVIRONMENT_STEP.search(text)
        if found:
            line = text.count("\n", 0, found.start()) + 1
            return Evidence(path, line, found.group(0).strip()[:160], "lint.environment_data")
    return None
