"""The candidate manifest: what `miner select` writes and `miner experiment run` executes.

A manifest is a YAML or JSON mapping. Most of it documents the candidate (identity, framework,
evidence, seed and thread hooks, cost); the `run` section is what the runner needs:

    run:
      command: ["{python}", "train.py", "--epochs", "1"]   # argv; placeholders below
      workdir: copy          # copy: a fresh copy of `source` per run; run_dir; inplace: `source`
      source: /path/to/checkout
      seed_args: ["--seed", "{seed}"]                       # appended to every run
      seed_sources: {init: ["--init-seed", "{seed}"]}        # optional: one seed per source
      seed: 0
      metrics_file: "{workdir}/metrics.json"                 # optional JSON of numbers
      metrics_keys: [test_accuracy]                           # optional subset of that file
      metric_patterns: {accuracy: 'accuracy[:=\\s]+([0-9.]+)'}  # regex on stdout+stderr
      epoch_pattern: 'epoch (?P<epoch>\\d+) .*val_loss (?P<val_loss>\\S+)'  # per-epoch rows
      epochs_file: "{workdir}/log.csv"                       # or: per-epoch CSV / JSON lines
      predictions: "{workdir}/pred.npy"                      # test predictions (array file)
      labels: "{workdir}/labels.npy"                         # the test set's true classes
      weights: ["*.pt", "checkpoints/**/*.pth"]               # globs under the workdir
      timeout: 3600
      python: /path/to/env/bin/python                         # optional: the interpreter for
                                                              # {python} (a smoke run's env)
      lock: /path/to/lock/lock.json                           # optional: rebuild that env from
                                                              # its lock when it is gone

Placeholders: {python} {example_dir} {source} {workdir} {run_dir} {seed} {threads} {device}.
`seed_sources` maps `init`, `data`, `dropout` to the arguments that seed that source alone
(`{seed}` there is that source's seed); with it, `miner experiment run --setting init` varies
only the initialisation.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from miner.errors import ExperimentError

MANIFEST_VERSION = 1
WORKDIR_MODES = ("copy", "run_dir", "inplace")
PLACEHOLDERS = (
    "python", "example_dir", "source", "workdir", "run_dir", "seed", "threads", "device",
)  # fmt: skip
SEED_SOURCES = ("init", "data", "dropout")
NUMBER = r"([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)"


@dataclass(frozen=True)
class RunSpec:
    """How to run one training: command, working folder, seed hooks, metrics and weights."""

    command: tuple[str, ...]
    workdir: str = "copy"
    source: str | None = None
    seed_args: tuple[str, ...] = ()
    seed_env: str = "MINER_SEED"
    seed: int = 0
    env: dict[str, str] = field(default_factory=dict)
    metrics_file: str | None = None
    metrics_keys: tuple[str, ...] = ()
    metric_patterns: dict[str, str] = field(default_factory=dict)
    weights: tuple[str, ...] = ()
    timeout: float | None = None
    seed_sources: dict[str, tuple[str, ...]] = field(default_factory=dict)
    epoch_pattern: str | None = None
    epochs_file: str | None = None
    predictions: str | None = None
    labels: str | None = None
    python: str | None = None  # the environment a smoke run built and passed in
    lock: str | None = None  # its lock.json: the environment is rebuilt from it when needed

    def as_dict(self) -> dict[str, Any]:
        """The `run` section as written to a manifest."""
        return {
            "command": list(self.command),
            "workdir": self.workdir,
            "source": self.source,
            "seed_args": list(self.seed_args),
            "seed_env": self.seed_env,
            "seed": self.seed,
            "env": dict(self.env),
            "metrics_file": self.metrics_file,
            "metrics_keys": list(self.metrics_keys),
            "metric_patterns": dict(self.metric_patterns),
            "weights": list(self.weights),
            "timeout": self.timeout,
            "seed_sources": {k: list(v) for k, v in self.seed_sources.items()},
            "epoch_pattern": self.epoch_pattern,
            "epochs_file": self.epochs_file,
            "predictions": self.predictions,
            "labels": self.labels,
            "python": self.python,
            "lock": self.lock,
        }


@dataclass(frozen=True)
class Manifest:
    """A loaded manifest: its name, the run section and the whole document."""

    name: str
    run: RunSpec
    document: dict[str, Any]
    path: Path | None = None

    @property
    def slug(self) -> str:
        """A folder-safe form of the name, e.g. `owner__repo`."""
        return slugify(self.name)


def slugify(name: str) -> str:
    """`owner/repo` -> `owner__repo`; anything else unsafe in a file name becomes `_`."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", name.replace("/", "__")).strip("._") or "manifest"


def _strings(value: Any, where: str) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):
        return (value,)
    if not isinstance(value, list) or not all(isinstance(v, str | int | float) for v in value):
        raise ExperimentError(f"{where}: expected a list of strings")
    return tuple(str(v) for v in value)


def run_spec(data: dict[str, Any], where: str = "run") -> RunSpec:
    """Validate a manifest's `run` mapping into a RunSpec (one-line errors naming the key)."""
    if not isinstance(data, dict):
        raise ExperimentError(f"{where}: expected a mapping")
    command = _strings(data.get("command"), f"{where}.command")
    if not command:
        raise ExperimentError(f"{where}.command: the training command is missing")
    workdir = str(data.get("workdir") or "copy")
    if workdir not in WORKDIR_MODES:
        raise ExperimentError(f"{where}.workdir: {workdir!r} is not one of {WORKDIR_MODES}")
    source = data.get("source")
    if workdir in ("copy", "inplace") and not source:
        raise ExperimentError(f"{where}.source: needed when workdir is {workdir!r}")
    patterns = data.get("metric_patterns") or {}
    if not isinstance(patterns, dict):
        raise ExperimentError(f"{where}.metric_patterns: expected a mapping name -> regex")
    for name, pattern in patterns.items():
        try:
            compiled = re.compile(str(pattern))
        except re.error as exc:
            raise ExperimentError(f"{where}.metric_patterns.{name}: bad regex ({exc})") from None
        if compiled.groups < 1:
            raise ExperimentError(f"{where}.metric_patterns.{name}: needs one capture group")
    epoch_pattern = data.get("epoch_pattern")
    if epoch_pattern:
        try:
            compiled = re.compile(str(epoch_pattern))
        except re.error as exc:
            raise ExperimentError(f"{where}.epoch_pattern: bad regex ({exc})") from None
        if not compiled.groupindex:
            raise ExperimentError(f"{where}.epoch_pattern: needs named groups, e.g. (?P<epoch>)")
    sources = data.get("seed_sources") or {}
    if not isinstance(sources, dict) or any(k not in SEED_SOURCES for k in sources):
        raise ExperimentError(f"{where}.seed_sources: a mapping of {', '.join(SEED_SOURCES)}")
    env = data.get("env") or {}
    if not isinstance(env, dict):
        raise ExperimentError(f"{where}.env: expected a mapping")
    try:
        seed = int(data.get("seed", 0) or 0)
        timeout = float(data["timeout"]) if data.get("timeout") else None
    except (TypeError, ValueError):
        raise ExperimentError(f"{where}: seed must be an integer and timeout a number") from None
    return RunSpec(
        command=command,
        workdir=workdir,
        source=str(source) if source else None,
        seed_args=_strings(data.get("seed_args"), f"{where}.seed_args"),
        seed_env=str(data.get("seed_env") or "MINER_SEED"),
        seed=seed,
        env={str(k): str(v) for k, v in env.items()},
        metrics_file=str(data["metrics_file"]) if data.get("metrics_file") else None,
        metrics_keys=_strings(data.get("metrics_keys"), f"{where}.metrics_keys"),
        metric_patterns={str(k): str(v) for k, v in patterns.items()},
        weights=_strings(data.get("weights"), f"{where}.weights"),
        timeout=timeout,
        seed_sources={str(k): _strings(v, f"{where}.seed_sources.{k}") for k, v in sources.items()},
        epoch_pattern=str(epoch_pattern) if epoch_pattern else None,
        epochs_file=_optional(data, "epochs_file"),
        predictions=_optional(data, "predictions"),
        labels=_optional(data, "labels"),
        python=str(data["python"]) if data.get("python") else None,
        lock=_optional(data, "lock"),
    )


def _optional(data: dict[str, Any], key: str) -> str | None:
    return str(data[key]) if data.get(key) else None


def load_manifest(path: Path) -> Manifest:
    """Read a YAML or JSON manifest; a missing file or bad field is one ExperimentError line."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as exc:
        raise ExperimentError(f"{path}: cannot read the manifest ({exc.strerror})") from None
    try:
        if path.suffix.lower() == ".json":
            document = json.loads(text)
        else:
            import yaml

            document = yaml.safe_load(text)
    except (ValueError, ImportError) as exc:
        raise ExperimentError(f"{path}: not valid JSON/YAML ({exc})") from None
    except Exception as exc:  # yaml.YAMLError has no stable import-free base
        raise ExperimentError(f"{path}: not valid YAML ({exc})".splitlines()[0]) from None
    if not isinstance(document, dict):
        raise ExperimentError(f"{path}: a manifest is a mapping with a `run` section")
    if "run" not in document:
        raise ExperimentError(f"{path}: no `run` section")
    name = str(document.get("name") or path.stem)
    run = run_spec(document["run"], f"{path.name}: run")
    return Manifest(name=name, run=run, document=document, path=path)


def dump_manifest(document: dict[str, Any], fmt: str) -> str:
    """Serialise a manifest document as YAML (block style, keys in order) or JSON."""
    if fmt == "json":
        return json.dumps(document, indent=2, ensure_ascii=False, default=str) + "\n"
    if fmt == "yaml":
        import yaml

        return yaml.safe_dump(document, sort_keys=False, allow_unicode=True, width=100)
    raise ExperimentError(f"unknown manifest format {fmt!r}; choose yaml or json")


def write_manifest(document: dict[str, Any], path: Path, fmt: str) -> Path:
    """Write a manifest atomically (a crash never leaves half a file)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(dump_manifest(document, fmt), encoding="utf-8")
    tmp.replace(path)
    return path


def example_dir() -> Path:
    """The folder of the example training scripts shipped with miner."""
    return Path(str(resources.files("miner").joinpath("examples")))
