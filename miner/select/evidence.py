"""Static evidence that a checkout can be re-trained on CPU: read, never run.

Each finding is an Evidence(path, line, text, rule) so every selection reason can be checked.
Checkouts are read through miner.audit.files.RepoTree (regular files only, no symlinks out of the
tree, size cap, undecodable bytes replaced).
"""

from __future__ import annotations

import re
import shlex
from dataclasses import dataclass, field, replace
from pathlib import Path, PurePosixPath

from miner.audit.detect.reproducibility import SEED_PATTERNS, THREAD_PATTERNS
from miner.audit.files import RepoTree, is_vendored
from miner.codebook import Evidence
from miner.select.arguments import fill_in_value
from miner.select.console_scripts import call_code, console_scripts
from miner.select.entry import SCRIPT_IN_SHELL, is_training_script, readme_commands
from miner.select.relative_runs import as_module_run
from miner.select.versions import VersionSpec, version_specs

MAX_LINES_PER_FILE = 5000
# A root script that runs the project (`run.py`, `main.py`; a `train*.py` with a main guard is a
# training script already) and a call that trains its model through the project's own method
# (`model.train(x, y, epochs=...)`).
RUNNER_NAME = re.compile(r"(?:run|main|start)\.py$")
TRAINS_MODEL = re.compile(r"\b\w*(?:model|net|agent|trainer|learner)\w*\.train(?:_\w+)?\((?!\s*\))")
# Folders of code a project keeps for the record, no longer its way to train.
RETIRED_FOLDERS = frozenset({"legacy", "deprecated", "archive", "archived", "old", "obsolete"})
CLIP = 160

SEED_ARG = re.compile(r"add_argument\(\s*['\"]--(?:manual_|random_|random-)?seed['\"]")
# A graphical toolkit imported at the top level of a script.
GUI_IMPORT = re.compile(
    r"^(?:import|from)\s+(?:tkinter|Tkinter|PyQt[456]|PySide[26]?|wx|kivy|gradio|streamlit)\b"
)
ARGPARSE = re.compile(r"\bargparse\b|\bArgumentParser\(|\babsl\.flags\b|\btf\.app\.flags\b")
MAIN_GUARD = re.compile(r"^if\s+__name__\s*==\s*['\"]__main__['\"]")
TRAINING_LOOP = re.compile(
    r"\.backward\(|optimi[sz]er\.step\(|\.fit(?:_generator)?\(|train_on_batch\(|"
    r"apply_gradients\(|\.minimize\(|sess\.run\(\s*\[?\s*(?:self\.)?train"
)
EPOCHS = re.compile(
    r"(?:['\"]--(?:n_|num_|max_)?epochs?['\"][^\n]*?default\s*=\s*|\b(?:n_|num_|max_)?epochs?\s*=\s*)(\d+)",
    re.I,
)  # fmt: skip
GPU_ONLY = re.compile(
    r"\.cuda\(\)|torch\.device\(\s*['\"]cuda(?::\d)?['\"]\s*\)|['\"]cuda:0['\"]|tf\.device\(\s*['\"]/gpu",
    re.I,
)  # fmt: skip
CPU_FALLBACK = re.compile(
    r"cuda\.is_available\(\)|['\"]cpu['\"]|--no[-_]cuda|--cpu\b|list_physical_devices\(", re.I
)
DATA_API = re.compile(
    r"\b(?:torchvision\.)?datasets\.[A-Z]\w*\([^)]*download\s*=\s*True|"
    r"\bkeras\.datasets\.\w+\.load_data\(|\btfds\.load\(|\bload_dataset\(|"
    r"\bsklearn\.datasets\.(?:fetch|load)_\w+\(|\bfetch_openml\(|\btorchtext\.datasets\.",
)  # fmt: skip
DOWNLOAD_LINE = re.compile(r"\b(?:wget|curl|gdown|gsutil\s+cp|kaggle\s+datasets)\b.*|https?://\S+")
DATA_WORDS = re.compile(r"(?i)data|dataset|download|corpus|images")
DOWNLOAD_FILE = re.compile(r"(?i)(^|/)(download|get_data|fetch|prepare)[^/]*\.(sh|py)$")
DATA_SUFFIXES = (".csv", ".tsv", ".npy", ".npz", ".h5", ".hdf5", ".pkl", ".json", ".txt", ".mat")
METRIC_LINE = re.compile(
    r"(?i)(?:print|log\w*|write|add_scalar|info)\s*\(.*\b(acc(?:uracy)?|loss|f1|bleu|map|auc|"
    r"perplexity|rmse|mae)\b"
)
BIG_DATA = re.compile(r"(?i)\b(imagenet|coco|cityscapes|kinetics|openimages|librispeech|wmt1\d)\b")
SMALL_DATA = re.compile(r"(?i)\b(mnist|fashion.?mnist|cifar.?10|cifar.?100|iris|imdb|svhn)\b")


@dataclass(frozen=True)
class EntryPoint:
    """A way to start training: the script, the argv after it, and why we think so."""

    script: str
    args: tuple[str, ...]
    kind: str  # readme_command | run_script | train_script | training_loop | main_argparse |
    # main_trains
    evidence: tuple[Evidence, ...]
    # python | module (`python -m`) | shell (`bash x.sh`, `./x.sh`) | console (a console script)
    runner: str = "python"
    module: str = ""  # the module `python -m` runs; a console script's `name=module:function`
    placeholders: tuple[str, ...] = ()  # README arguments left out: the user must supply them
    folder: str = ""  # where the command starts (a sub-project's README), "" for the root

    @property
    def strength(self) -> float:
        """How sure the entry point is (README command > train*.py > a script with a training
        loop > main.py with argparse)."""
        strengths = {"readme_command": 2.0, "run_script": 1.8, "train_script": 1.5,
                     "training_loop": 1.2, "main_argparse": 1.0, "main_trains": 0.9}  # fmt: skip
        return strengths[self.kind]

    def command(self) -> tuple[str, ...]:
        """The argv that runs it, `{python}` standing for the environment's interpreter; a
        command of a sub-project's README starts in that folder (`sh -c 'cd DIR && exec "$@"'`)."""
        script = self.script
        if self.folder:
            script = script.removeprefix(f"{self.folder}/")
        if self.runner == "module":
            argv: tuple[str, ...] = ("{python}", "-m", self.module, *self.args)
        elif self.runner == "console":
            name, _, target = self.module.partition("=")
            argv = ("{python}", "-c", call_code(target, name), *self.args)
        elif self.runner == "shell" and script.endswith(".sh"):
            argv = ("bash", script, *self.args)
        else:
            argv = ("{python}", script, *self.args)
        if self.folder:
            return ("sh", "-c", f'cd {shlex.quote(self.folder)} && exec "$@"', "sh", *argv)
        return argv


@dataclass(frozen=True)
class CheckoutEvidence:
    """Everything `miner select` learns from one checkout, each item with its evidence."""

    entry_points: tuple[EntryPoint, ...] = ()
    seed_sites: tuple[Evidence, ...] = ()
    seed_argument: Evidence | None = None
    thread_hooks: tuple[Evidence, ...] = ()
    versions: tuple[VersionSpec, ...] = ()
    environment_files: tuple[tuple[str, str], ...] = ()
    dataset: tuple[Evidence, ...] = ()
    metric_sites: tuple[Evidence, ...] = ()
    gpu_only: tuple[Evidence, ...] = ()
    cpu_fallback: tuple[Evidence, ...] = ()
    epochs: Evidence | None = None
    data_scale: tuple[Evidence, ...] = ()
    size_bytes: int = 0
    python_files: int = 0
    warnings: tuple[str, ...] = field(default_factory=tuple)


def _ev(path: str, line: int, text: str, rule: str) -> Evidence:
    text = " ".join(text.strip().split())
    return Evidence(path, line, text[:CLIP], rule)


def _lines(tree: RepoTree, rel: str) -> list[str]:
    text = tree.read_text(rel)
    return [] if text is None else text.splitlines()[:MAX_LINES_PER_FILE]


def scan_checkout(root: Path) -> CheckoutEvidence:
    """Read a checkout and collect entry points, seed/thread hooks, versions, data and metrics."""
    tree = RepoTree(root)
    py_files = [f for f in tree.with_suffix(".py") if not is_vendored(f.path)]
    seeds: list[Evidence] = []
    threads: list[Evidence] = []
    metrics: list[Evidence] = []
    data: list[Evidence] = []
    gpu: list[Evidence] = []
    fallback: list[Evidence] = []
    scale: list[Evidence] = []
    seed_arg: Evidence | None = None
    epochs: Evidence | None = None
    scripts: list[EntryPoint] = []
    windows: set[str] = set()  # scripts that open a graphical interface
    for f in py_files:
        lines = _lines(tree, f.path)
        has_argparse = has_main = has_loop = top_loop = in_def = gui = trains_model = False
        for no, line in enumerate(lines, start=1):
            stripped = line.strip()
            if stripped.startswith("#"):
                continue
            for rule, pattern in SEED_PATTERNS:
                if pattern.search(line):
                    seeds.append(_ev(f.path, no, line, rule))
                    break
            for rule, pattern in THREAD_PATTERNS:
                if pattern.search(line):
                    threads.append(_ev(f.path, no, line, rule))
                    break
            if seed_arg is None and SEED_ARG.search(line):
                seed_arg = _ev(f.path, no, line, "argparse_seed")
            if epochs is None and EPOCHS.search(line):
                epochs = _ev(f.path, no, line, "epochs_default")
            has_argparse = has_argparse or bool(ARGPARSE.search(line))
            gui = gui or bool(GUI_IMPORT.match(line))
            has_main = has_main or bool(MAIN_GUARD.match(stripped))
            if line[:1] not in ("", " ", "\t"):  # a statement at the top level
                in_def = line.startswith(("def ", "class ", "async def ", "@"))
            trains_model = trains_model or bool(TRAINS_MODEL.search(line))
            if TRAINING_LOOP.search(line):
                has_loop = True
                top_loop = top_loop or not in_def  # the script's own statements train
            if METRIC_LINE.search(line):
                metrics.append(_ev(f.path, no, line, "metric_output"))
            if DATA_API.search(line):
                data.append(_ev(f.path, no, line, "dataset_api"))
            if GPU_ONLY.search(line):
                gpu.append(_ev(f.path, no, line, "gpu_call"))
            if CPU_FALLBACK.search(line):
                fallback.append(_ev(f.path, no, line, "cpu_fallback"))
            for pattern in (BIG_DATA, SMALL_DATA):
                if pattern.search(line) and len(scale) < 20:
                    scale.append(
                        _ev(
                            f.path,
                            no,
                            line,
                            "large_dataset" if pattern is BIG_DATA else "small_dataset",
                        )
                    )
        if gui:  # a window to click through, not a run that trains unattended
            windows.add(f.path)
            continue
        if not RETIRED_FOLDERS.isdisjoint(f.path.lower().split("/")[:-1]):
            continue  # code the project keeps for the record (`legacy/brats/train.py`)
        package = _package_of(tree, f.path)
        if package and not has_main:
            continue  # a module of a package (`mace/tools/train.py`): imported, never run
        found = _script_entry(f.path, has_argparse, has_main, has_loop, top_loop, trains_model)
        if package:  # run as `python -m`, so that its folder does not shadow the standard
            # library (`rfdetr/platform/`) and its package's imports resolve
            module = f"{package}.{PurePosixPath(f.path).stem}"
            found = [replace(e, runner="module", module=module) for e in found]
        scripts.extend(found)
    scripts.extend(_run_scripts(tree, {e.script for e in scripts} - windows))
    readme_entries, readme_data, readme_scale = _readme_evidence(tree)
    readme_entries = [e for e in readme_entries if e.script not in windows]
    data = _data_files(tree) + data + readme_data
    mentioned = _readme_mentions(tree)
    entries = sorted(readme_entries + scripts, key=lambda e: _entry_order(e, mentioned))
    entries = [as_module_run(e, tree.read_text) for e in entries]
    return CheckoutEvidence(
        entry_points=tuple(entries),
        seed_sites=tuple(seeds),
        seed_argument=seed_arg,
        thread_hooks=tuple(threads),
        versions=tuple(version_specs(tree)),
        environment_files=tuple(tree.dependency_files),
        dataset=tuple(data[:30]),
        metric_sites=tuple(metrics[:30]),
        gpu_only=tuple(gpu[:30]),
        cpu_fallback=tuple(fallback[:30]),
        epochs=epochs,
        data_scale=tuple(scale + readme_scale),
        size_bytes=sum(f.size for f in tree.files),
        python_files=len(py_files),
        warnings=tuple(tree.warnings),
    )


def _package_of(tree: RepoTree, path: str) -> str:
    """`mace.tools` for `mace/tools/train.py` when every folder from the root down has an
    `__init__.py`; "" for a script outside a package (or in a folder that is none)."""
    folders = path.split("/")[:-1]
    if not folders:
        return ""
    for depth in range(1, len(folders) + 1):
        if "/".join([*folders[:depth], "__init__.py"]) not in tree.paths:
            return ""
    return ".".join(folders) if all(f.isidentifier() for f in folders) else ""


UNNAMED = 1 << 30  # after every script the README names


def _readme_mentions(tree: RepoTree) -> dict[str, int]:
    """Script name -> where the README first names it (`- gan_toy.py : Toy datasets`)."""
    text = (tree.read_text(tree.readme) if tree.readme else "") or ""
    found: dict[str, int] = {}
    for match in re.finditer(r"[\w./-]*?([\w-]+\.py)\b", text):
        found.setdefault(match.group(1).lower(), match.start())
    return found


def _entry_order(
    entry: EntryPoint, mentioned: dict[str, int] | None = None
) -> tuple[float, bool, int | bool, int | bool, int | str]:
    """Strongest kind first; README commands that run as written, then those that train, then
    those the authors wrote out in full, in the README's order; then train.py, then the scripts
    the README names in the order it names them, then the shallowest path."""
    name = PurePosixPath(entry.script).name.lower()
    if entry.kind == "readme_command":
        trains = "train" in name or any("train" in a.lower() for a in entry.args)
        # a command that runs as written before one that needs values only the user has; and a
        # worked example (`--path Exp/proxyless_cpu`) before the template it follows (`--path
        # <path>`), whose values the run can only guess
        return (-entry.strength, _dropped(entry) > 0, not trains, bool(entry.placeholders), 0)
    named = (mentioned or {}).get(name, UNNAMED)
    return (-entry.strength, name != "train.py", named, entry.script.count("/"), entry.script)


def _dropped(entry: EntryPoint) -> int:
    """How many of a README command's placeholders got no value of the run's (`--model
    $model_name`): the run leaves them out."""
    given = {arg.partition("=")[0] for arg in entry.args}
    filled = any("{run_dir}" in arg for arg in entry.args)
    return sum(
        1 for p in entry.placeholders
        if (p.split()[0].partition("=")[0] not in given if p.startswith("-")
            else not filled and fill_in_value("", p) is None)
    )  # fmt: skip


def _script_entry(
    path: str, has_argparse: bool, has_main: bool, has_loop: bool, top_loop: bool = False,
    trains_model: bool = False,
) -> list[EntryPoint]:  # fmt: skip
    """The script as an entry point when its name, parser or training loop says so (never a
    demo, plot, server or preparation script): a loop counts in a script that runs as one (a
    main guard, an argument parser, or the loop written at the top level)."""
    name = PurePosixPath(path).name.lower()
    if not is_training_script(path):
        return []
    if name.startswith("train") and name.endswith(".py") and (has_main or has_argparse):
        rule = "train_script" + ("_argparse" if has_argparse else "_main")
        return [EntryPoint(path, (), "train_script", (Evidence(path, 0, name, rule),))]
    if has_loop and (has_main or has_argparse or top_loop) and name != "__init__.py":
        return [EntryPoint(path, (), "training_loop", (Evidence(path, 0, name, "training_loop"),))]
    if name == "main.py" and has_argparse:
        return [EntryPoint(path, (), "main_argparse", (Evidence(path, 0, name, "main_argparse"),))]
    if trains_model and has_main and "/" not in path and RUNNER_NAME.match(name):
        # `run.py` whose main calls the project's model to train (`model.train(...)`)
        return [EntryPoint(path, (), "main_trains", (Evidence(path, 0, name, "main_trains"),))]
    return []


def _run_scripts(tree: RepoTree, trainers: set[str]) -> list[EntryPoint]:
    """Shell scripts beside the code that run one of its training scripts with the arguments
    the authors used (`ele.sh`: `python main.py --data data/electricity.txt ...`), which a README
    may name only in prose ("examples in ele.sh, traffic.sh")."""
    found = []
    for f in tree.with_suffix(".sh"):
        if f.depth > 2 or is_vendored(f.path) or not is_training_script(f.path):
            continue
        folder = f.path.rpartition("/")[0]
        for match in SCRIPT_IN_SHELL.finditer(tree.read_text(f.path) or ""):
            script = match.group(1)
            local = f"{folder}/{script}" if folder else ""
            if script in trainers or local in trainers:
                evidence = Evidence(f.path, 0, match.group(0).strip()[:200], "run_script")
                start = "" if script in trainers else folder  # it runs its neighbour: start there
                found.append(EntryPoint(f.path, (), "run_script", (evidence,), "shell",
                                        folder=start))  # fmt: skip
                break
    return found


def _readme_evidence(tree: RepoTree) -> tuple[list[EntryPoint], list[Evidence], list[Evidence]]:
    """Training commands naming an existing script; download lines; dataset names."""
    entries: list[EntryPoint] = []
    data: list[Evidence] = []
    scale: list[Evidence] = []
    paths = frozenset(tree.paths)
    scripts = console_scripts(tree.read_text)
    for doc in tree.docs:
        text = tree.read_text(doc) or ""
        for command in readme_commands(
            doc, "\n".join(text.splitlines()[:MAX_LINES_PER_FILE]), paths, tree.read_text, scripts
        ):
            evidence = _ev(doc, command.line, command.text, "readme_command")
            entries.append(
                EntryPoint(command.script, command.args, "readme_command", (evidence,),
                           command.runner, command.module, command.placeholders,
                           command.folder)
            )  # fmt: skip
        for no, line in enumerate(_lines(tree, doc), start=1):
            if DOWNLOAD_LINE.search(line) and DATA_WORDS.search(line):
                data.append(_ev(doc, no, line, "readme_download"))
            if BIG_DATA.search(line) or SMALL_DATA.search(line):
                rule = "large_dataset" if BIG_DATA.search(line) else "small_dataset"
                scale.append(_ev(doc, no, line, rule))
    return entries, data[:10], scale[:10]


def _data_files(tree: RepoTree) -> list[Evidence]:
    """Download scripts and data files shipped in the repository."""
    found = [
        Evidence(f.path, 0, f.name, "download_script")
        for f in tree.files
        if DOWNLOAD_FILE.search(f.path)
    ]
    shipped = [
        f
        for f in tree.files
        if f.suffix in DATA_SUFFIXES
        and re.search(r"(?i)(^|/)(data|dataset|datasets)/", f.path)
        and "requirements" not in f.name.lower()
    ]
    if shipped:
        total = sum(f.size for f in shipped)
        text = f"{len(shipped)} data files ({total} bytes), e.g. {shipped[0].path}"
        found.append(Evidence(shipped[0].path, 0, text, "data_in_repo"))
    return found
