"""The record of one run (its run.json) and the tidy runs.csv built from all of them."""

from __future__ import annotations

import csv
import json
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from miner.experiment.determinism import summarize
from miner.experiment.settings import SEED_MODE_ALIASES

RUN_FILE = "run.json"
RUNS_CSV = "runs.csv"
METRIC_PREFIX = "metric_"
LIB_PREFIX = "lib_"


@dataclass(frozen=True)
class RunConfig:
    """One configuration of an experiment: a thread count, a noise setting and a device."""

    threads: int
    setting: str
    device: str = "cpu"

    @property
    def key(self) -> str:
        """Folder and table name, e.g. `threads-02_algo+impl` or `threads-01_control_cuda0`."""
        device = "" if self.device == "cpu" else "_" + self.device.replace(":", "")
        return f"threads-{self.threads:02d}_{self.setting}{device}"


@dataclass(frozen=True)
class RunRecord:
    """Everything recorded about one run of the training command."""

    experiment: str
    config: str
    threads: int
    setting: str  # control | algo | impl | algo+impl | a narrowed ALGO such as init+impl
    run: int
    seed: int | None
    pythonhashseed: str
    status: str  # ok | failed | timeout | error
    exit_code: int | None
    wall_seconds: float
    cpu_user_seconds: float
    cpu_system_seconds: float
    max_rss_kb: int
    cpus_requested: tuple[int, ...]
    cpus_applied: tuple[int, ...] | None  # read back by the child right after pinning
    cpus_observed: tuple[int, ...] | None  # read from /proc/<pid>/status while it ran
    threads_observed_max: int | None  # most OS threads seen in /proc/<pid>/status
    oversubscribed: bool
    machine_cpus: int
    thread_env: dict[str, str]
    started_at: str
    finished_at: str
    command: str
    run_dir: str
    stdout_sha256: str | None
    stderr_sha256: str | None
    weights: dict[str, str] = field(default_factory=dict)
    weights_sha256: str | None = None
    result_sha256: str | None = None
    metrics: dict[str, float] = field(default_factory=dict)
    metric_sources: dict[str, str] = field(default_factory=dict)
    child_report: dict[str, Any] = field(default_factory=dict)
    libraries: dict[str, str] = field(default_factory=dict)
    error: str | None = None
    seed_mode: str = ""  # Pham et al.'s name of the setting: random | fixed | fixed+deterministic
    device: str = "cpu"
    deterministic: bool = False  # deterministic kernels requested
    seeds: dict[str, int] = field(default_factory=dict)  # project-wide and per ALGO source
    determinism: dict[str, Any] = field(default_factory=dict)  # env knobs and hook reports
    accelerator: dict[str, Any] = field(default_factory=dict)
    outputs: dict[str, Any] = field(default_factory=dict)  # predictions, labels, epochs, weights

    def as_dict(self) -> dict[str, Any]:
        """The run.json document."""
        data = asdict(self)
        for name in ("cpus_requested", "cpus_applied", "cpus_observed"):
            value = data[name]
            data[name] = list(value) if value is not None else None
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RunRecord:
        """Rebuild a record from run.json (unknown keys from newer versions are ignored)."""
        names = {f.name for f in fields(cls)}
        values = {k: v for k, v in data.items() if k in names}
        if "setting" not in values:  # written before settings existed: fixed | default
            values["setting"] = SEED_MODE_ALIASES.get(str(values.get("seed_mode")), "impl")
            values["seed_mode"] = {"default": "random"}.get(values.get("seed_mode", ""), "fixed")
        for name in ("cpus_requested", "cpus_applied", "cpus_observed"):
            if values.get(name) is not None:
                values[name] = tuple(values[name])
        return cls(**values)

    def as_row(self) -> dict[str, Any]:
        """One flat runs.csv row: metrics as `metric_<name>`, versions as `lib_<name>`."""
        row: dict[str, Any] = {
            "experiment": self.experiment,
            "config": self.config,
            "threads": self.threads,
            "setting": self.setting,
            "seed_mode": self.seed_mode,
            "device": self.device,
            "deterministic": self.deterministic,
            "determinism_applied": summarize(self.determinism.get("reports") or []),
            "run": self.run,
            "seed": "" if self.seed is None else self.seed,
            **{f"seed_{k}": v for k, v in self.seeds.items() if k != "seed"},
            "pythonhashseed": self.pythonhashseed,
            "status": self.status,
            "exit_code": "" if self.exit_code is None else self.exit_code,
            "wall_seconds": round(self.wall_seconds, 4),
            "cpu_user_seconds": round(self.cpu_user_seconds, 4),
            "cpu_system_seconds": round(self.cpu_system_seconds, 4),
            "max_rss_kb": self.max_rss_kb,
            "cpus_requested": _cpus(self.cpus_requested),
            "cpus_applied": _cpus(self.cpus_applied),
            "cpus_observed": _cpus(self.cpus_observed),
            "threads_observed_max": self.threads_observed_max or "",
            "oversubscribed": self.oversubscribed,
            "machine_cpus": self.machine_cpus,
            "omp_num_threads": self.thread_env.get("OMP_NUM_THREADS", ""),
            "reported_workers": self.child_report.get("workers", ""),
            "reported_affinity": _cpus(self.child_report.get("affinity")),
            "reported_blas_threads": _blas_threads(self.child_report.get("blas")),
            "started_at": self.started_at,
            "finished_at": self.finished_at,
            "stdout_sha256": self.stdout_sha256 or "",
            "stderr_sha256": self.stderr_sha256 or "",
            "weights_sha256": self.weights_sha256 or "",
            "result_sha256": self.result_sha256 or "",
            "run_dir": self.run_dir,
            "predictions": self.outputs.get("predictions", ""),
            "labels": self.outputs.get("labels", ""),
            "epochs": self.outputs.get("epochs", ""),
            "weights_dir": self.outputs.get("weights_dir", ""),
            "gpu": self.accelerator.get("name", ""),
            "driver": self.accelerator.get("driver", ""),
            "cuda": self.accelerator.get("cuda", ""),
            "cudnn": self.accelerator.get("cudnn", ""),
            "error": self.error or "",
        }
        row.update({f"{METRIC_PREFIX}{k}": v for k, v in sorted(self.metrics.items())})
        row.update({f"{LIB_PREFIX}{k}": v for k, v in sorted(self.libraries.items())})
        return row


def _cpus(value: Any) -> str:
    if not value:
        return ""
    return " ".join(str(c) for c in value)


def _blas_threads(pools: Any) -> str:
    """Thread counts the child's BLAS/OpenMP pools reported (threadpoolctl), e.g. 'openblas=2'."""
    if not isinstance(pools, list):
        return ""
    parts = [
        f"{p.get('internal_api')}={p.get('num_threads')}"
        for p in pools
        if isinstance(p, dict) and p.get("num_threads") is not None
    ]
    return " ".join(parts)


def load_records(out_dir: Path) -> list[RunRecord]:
    """Every finished run under an experiment folder, ordered by configuration and run."""
    records = []
    for path in sorted(out_dir.glob(f"*/run-*/{RUN_FILE}")):
        try:
            records.append(RunRecord.from_dict(json.loads(path.read_text(encoding="utf-8"))))
        except (OSError, ValueError, TypeError):
            continue  # a damaged record: that run counts as not done and is run again
    return sorted(records, key=lambda r: (r.device, r.threads, r.setting, r.run))


def write_record(record: RunRecord, run_dir: Path) -> Path:
    """Write run.json atomically: its presence marks the run as finished."""
    path = run_dir / RUN_FILE
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(record.as_dict(), indent=2, default=str) + "\n", encoding="utf-8")
    tmp.replace(path)
    return path


def write_runs_csv(out_dir: Path) -> Path:
    """Rebuild runs.csv (one row per run, one column per variable) from every run.json."""
    rows = [r.as_row() for r in load_records(out_dir)]
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    path = out_dir / RUNS_CSV
    tmp = path.with_suffix(".csv.tmp")
    with tmp.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    tmp.replace(path)
    return path
