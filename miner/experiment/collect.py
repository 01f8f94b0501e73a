"""Read back what one run produced into its record: the launcher's and the hook's reports,
metrics, per-epoch rows, predictions, and the hashes (and copies) of logs and weights."""

from __future__ import annotations

import hashlib
import json
import shlex
import shutil
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from miner.experiment.determinism import deterministic_env, read_reports
from miner.experiment.metrics import (
    combined_hash,
    find_outputs,
    parse_output_metrics,
    read_metrics_file,
    sha256_file,
)
from miner.experiment.outputs import (
    collect_predictions,
    parse_epochs,
    read_epochs_file,
    select_models,
    write_epochs,
)
from miner.experiment.pinning import Pinning
from miner.experiment.records import RunConfig, RunRecord
from miner.experiment.settings import NoiseSetting, RunSeeds
from miner.select.manifest import Manifest

REPORT_KEYS = ("workers", "affinity", "blas", "threads", "num_threads", "deterministic_algorithms")
_KNOBS = ("CUBLAS_WORKSPACE_CONFIG", "TF_DETERMINISTIC_OPS", "TF_CUDNN_DETERMINISTIC", "XLA_FLAGS")


@dataclass
class Outcome:
    """How the process ended: exit code, status, wall time, rusage and what was observed."""

    exit_code: int | None
    status: str
    wall: float
    rusage: Any
    observed_cpus: tuple[int, ...] | None
    threads_max: int | None
    error: str | None


@dataclass(frozen=True)
class Started:
    """What the runner decided for one run before starting it."""

    manifest: Manifest
    config: RunConfig
    setting: NoiseSetting
    index: int
    run_dir: Path
    workdir: Path
    command: list[str]
    env: dict[str, str]
    pinning: Pinning
    seeds: RunSeeds
    libraries: dict[str, str]
    accelerator: dict[str, Any]
    files: dict[str, Path | None]  # metrics_file, epochs_file, predictions, labels: resolved
    started_at: str
    since: float


def _weights(run: Started) -> tuple[dict[str, str], Path]:
    """Hash every weights file the run wrote; keep a copy unless it already lies in run_dir."""
    spec = run.manifest.run
    hashes = {}
    kept = run.workdir if run.workdir == run.run_dir else run.run_dir / "outputs"
    for path in find_outputs(run.workdir, spec.weights, since=run.since):
        rel = path.relative_to(run.workdir).as_posix()
        hashes[rel] = sha256_file(path)
        if kept != run.workdir:  # a copy is removed, an in-place checkout is overwritten
            target = kept / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    return hashes, kept


def collect(run: Started, outcome: Outcome) -> RunRecord:
    """The record of a finished run."""
    spec = run.manifest.run
    run_dir = run.run_dir
    launch: dict[str, Any] = {}
    try:
        launch = json.loads((run_dir / "launch.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        pass
    log = (run_dir / "stdout.log").read_text(encoding="utf-8", errors="replace")
    log += "\n" + (run_dir / "stderr.log").read_text(encoding="utf-8", errors="replace")
    metrics = parse_output_metrics(log, spec.metric_patterns)
    sources = dict.fromkeys(metrics, "output")
    report: dict[str, Any] = {}
    metrics_path = run.files.get("metrics_file")
    if metrics_path is not None:
        numbers, document = read_metrics_file(metrics_path, spec.metrics_keys)
        metrics.update(numbers)
        sources.update(dict.fromkeys(numbers, "file"))
        if isinstance(document, dict):
            report = {k: document[k] for k in REPORT_KEYS if k in document}
    outputs: dict[str, Any] = {}
    problems: list[str] = []
    epochs_path = run.files.get("epochs_file")
    rows = read_epochs_file(epochs_path) if epochs_path is not None else []
    if not rows and spec.epoch_pattern:
        rows = parse_epochs(log, spec.epoch_pattern)
    if rows:
        outputs["epochs"] = write_epochs(rows, run_dir).name
        selected = select_models(rows)
        metrics.update(selected)
        sources.update(dict.fromkeys(selected, "epochs"))
    elif spec.epoch_pattern or spec.epochs_file:
        problems.append("no per-epoch rows found")
    predicted, problem = collect_predictions(
        run.files.get("predictions"), run.files.get("labels"), run_dir
    )
    metrics.update(predicted)
    sources.update(dict.fromkeys(predicted, "predictions"))
    if problem:
        problems.append(problem)
    for name in ("predictions", "labels"):
        if (run_dir / f"{name}.npy").exists():
            outputs[name] = f"{name}.npy"
    weights, kept = _weights(run)
    if weights:
        outputs["weights_dir"] = kept.relative_to(run_dir).as_posix() or "."
    if problems:
        outputs["problems"] = problems
    weights_sha = combined_hash(weights)
    metric_text = json.dumps(metrics, sort_keys=True)
    result_sha = weights_sha or (
        hashlib.sha256(metric_text.encode("utf-8")).hexdigest() if metrics else None
    )
    knobs = deterministic_env(run.libraries) if run.setting.deterministic else {}
    rusage = outcome.rusage
    applied = launch.get("applied")
    pinning = run.pinning
    return RunRecord(
        experiment=run.manifest.name,
        config=run.config.key,
        threads=run.config.threads,
        setting=run.setting.name,
        seed_mode=run.setting.seed_mode,
        device=run.config.device,
        deterministic=run.setting.deterministic,
        run=run.index,
        seed=run.seeds.seed,
        seeds=run.seeds.as_dict(),
        pythonhashseed=run.env["PYTHONHASHSEED"],
        status=outcome.status,
        exit_code=outcome.exit_code,
        wall_seconds=outcome.wall,
        cpu_user_seconds=float(rusage.ru_utime) if rusage else 0.0,
        cpu_system_seconds=float(rusage.ru_stime) if rusage else 0.0,
        max_rss_kb=int(rusage.ru_maxrss) if rusage else 0,
        cpus_requested=pinning.cpus,
        cpus_applied=tuple(applied) if applied else None,
        cpus_observed=outcome.observed_cpus,
        threads_observed_max=outcome.threads_max,
        oversubscribed=pinning.oversubscribed,
        machine_cpus=pinning.machine_cpus,
        thread_env=pinning.env(),
        started_at=run.started_at,
        finished_at=datetime.now().astimezone().isoformat(timespec="seconds"),
        command=shlex.join(run.command),
        run_dir=str(run_dir),
        stdout_sha256=sha256_file(run_dir / "stdout.log"),
        stderr_sha256=sha256_file(run_dir / "stderr.log"),
        weights=weights,
        weights_sha256=weights_sha,
        result_sha256=result_sha,
        metrics=metrics,
        metric_sources=sources,
        child_report=report,
        libraries=run.libraries,
        determinism={
            "requested": run.setting.deterministic,
            "env": {k: run.env[k] for k in _KNOBS if k in knobs},
            "reports": read_reports(run_dir),
        },
        accelerator=run.accelerator,
        outputs=outputs,
        error=outcome.error or launch.get("error"),
    )
