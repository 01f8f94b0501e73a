"""The records of a smoke run: its options, its target (read from a manifest) and its result,
with the stage it reached on the ladder (miner.select.ladder) and the evidence behind it."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from miner.codebook import Evidence
from miner.errors import ExperimentError
from miner.select.ladder import stage_name
from miner.select.sandbox import GIB
from miner.select.standins.mounts import DataMount


@dataclass(frozen=True)
class SmokeOptions:
    """Where logs and kept environments go, and the bounds of each step."""

    out_dir: Path
    timeout: float = 300.0  # seconds the training step may run
    install_timeout: float = 900.0
    memory_bytes: int = 8 * GIB
    threads: int = 1
    pythons: tuple[str, ...] = ()  # interpreters to make environments from (see pythons.py)
    as_of_commit: bool = False  # resolve dependencies as they were on the commit's date
    cut_network: bool = True
    env: Mapping[str, str] | None = None  # the environment to start from (default: this one)
    until: str = "step"  # stop at the first training step (`step`) or at the bound (`end`)
    fetch_blobs: bool = True  # fetch what the clone's blob filter left out into the copy
    stand_in_data: bool = True  # serve synthetic data where a known loader finds none
    cpu_shim: bool = False  # keep hard-coded CUDA on the CPU
    small_batch: bool = True  # ask for a batch of batches.SMALL_BATCH (see batches.py)
    # with the shim, show the CPU as a GPU (set by the rerun of a run that still asked for one)
    claim_gpu: bool = False
    data: tuple[DataMount, ...] = ()  # the user's data, copied into the run's copy
    fetch_data: bool = False  # a data step with the network up, before training without it
    fetch_timeout: float = 300.0
    jobs: int = 1  # candidates side by side: each needs its own room on disk


@dataclass(frozen=True)
class SmokeTarget:
    """What a smoke run needs from a manifest."""

    full_name: str
    repo_id: int | None
    commit_sha: str | None
    checkout: Path
    command: tuple[str, ...]
    environment_files: tuple[tuple[str, str], ...] = ()
    framework: str | None = None
    version_spec: str | None = None
    weights: tuple[str, ...] = ()
    commit_date: str | None = None
    requirements: tuple[str, ...] | None = None  # the manifest's own install list, if it has one
    entry_script: str | None = None  # the entry point's script (S0 reads its import closure)
    placeholders: tuple[str, ...] = ()  # README arguments the user must supply (data paths)
    entry_evidence: Evidence | None = None

    @classmethod
    def of(cls, document: dict[str, Any]) -> SmokeTarget:
        """The target described by a manifest document (as `miner select` writes it)."""
        run = document.get("run") or {}
        repo = document.get("repo") or {}
        framework = document.get("framework") or {}
        source = run.get("source") or repo.get("checkout")
        name = str(document.get("name") or repo.get("full_name") or "manifest")
        if not source or not run.get("command"):
            raise ExperimentError(f"{name}: the manifest has no checkout or no run.command")
        files = tuple(
            (str(f["path"]), str(f["kind"]))
            for f in document.get("environment_files") or []
            if isinstance(f, dict) and f.get("path")
        )
        install = document.get("install") or {}
        own = install.get("requirements") if isinstance(install, dict) else None
        if own is not None and not isinstance(own, list):
            raise ExperimentError(f"{name}: install.requirements must be a list of lines")
        entry = document.get("entry_point") or {}
        quoted = (entry.get("evidence") or [None])[0]
        return cls(
            full_name=str(repo.get("full_name") or name),
            repo_id=int(repo["id"]) if repo.get("id") is not None else None,
            commit_sha=repo.get("commit_sha"),
            checkout=Path(str(source)),
            command=tuple(str(a) for a in run["command"]),
            environment_files=files,
            framework=framework.get("primary"),
            version_spec=framework.get("version_spec"),
            weights=tuple(str(w) for w in run.get("weights") or ()),
            commit_date=repo.get("commit_date"),
            requirements=None if own is None else tuple(str(line) for line in own),
            entry_script=str(entry["script"]) if entry.get("script") else None,
            placeholders=tuple(str(p) for p in entry.get("placeholders") or ()),
            entry_evidence=Evidence(**quoted) if isinstance(quoted, dict) else None,
        )


@dataclass(frozen=True)
class SmokeResult:
    """One smoke run: the outcome class, the evidence line, times, and what was isolated."""

    full_name: str
    repo_id: int | None
    commit_sha: str | None
    outcome: str
    evidence: Evidence
    exit_code: int | None
    install_seconds: float
    train_seconds: float
    seconds: float
    timeout: float
    network_cut: bool
    python: str
    requirements: tuple[str, ...]
    command: str
    log_dir: str
    environment: str | None  # the kept environment of a passing project
    smoked_at: str
    notes: tuple[str, ...] = field(default_factory=tuple)
    stage: int = -1  # the last stage reached, 0..6 for S0..S6; -1 when not even S0
    stage_seconds: dict[str, float] = field(default_factory=dict)  # time spent reaching each
    qualifier: str | None = None  # how an outcome was reached: "stand-in data", "cpu shim"
    repairs: tuple[Any, ...] = ()  # repair records (each with as_dict()) of the environment step
    blob_files: int = 0  # files the clone left out, fetched into the copy
    blob_bytes: int = 0
    entry: str = ""  # the entry point's script
    lock: str | None = None  # lock.json of an environment whose entry point imports
    assists: tuple[str, ...] = ()  # "stand-in data", "cpu shim": what the run needed
    assist_evidence: tuple[str, ...] = ()  # each stand-in served, each shim rewrite

    @property
    def label(self) -> str:
        """The outcome with its qualifier: `ok (stand-in data)`."""
        return f"{self.outcome} ({self.qualifier})" if self.qualifier else self.outcome

    @property
    def stage_name(self) -> str:
        """`S4`, or `-` before S0."""
        return stage_name(self.stage)

    def repair_dicts(self) -> list[dict[str, Any]]:
        """The repairs as plain dictionaries."""
        return [r.as_dict() if hasattr(r, "as_dict") else {"repair": str(r)} for r in self.repairs]

    @property
    def ok(self) -> bool:
        """True when the project trained (or printed a metric) within the bound."""
        return self.outcome == "ok"

    def as_row(self) -> dict[str, Any]:
        """The store's smoke_runs row."""
        return {
            "repo_id": self.repo_id,
            "commit_sha": self.commit_sha,
            "full_name": self.full_name,
            "outcome": self.outcome,
            "rule": self.evidence.rule,
            "evidence_path": self.evidence.path,
            "evidence_line": self.evidence.line,
            "evidence_text": self.evidence.text,
            "exit_code": self.exit_code,
            "install_seconds": round(self.install_seconds, 3),
            "train_seconds": round(self.train_seconds, 3),
            "seconds": round(self.seconds, 3),
            "timeout": self.timeout,
            "network_cut": int(self.network_cut),
            "python": self.python,
            "requirements": len(self.requirements),
            "command": self.command,
            "environment": self.environment,
            "log_dir": self.log_dir,
            "smoked_at": self.smoked_at,
            "stage": self.stage,
            "stage_seconds": json.dumps(self.stage_seconds),
            "qualifier": self.qualifier,
            "repairs": json.dumps(self.repair_dicts()),
            "blob_files": self.blob_files,
            "blob_bytes": self.blob_bytes,
            "entry": self.entry,
            "notes": json.dumps(list(self.notes)),
            "assists": "; ".join(self.assists),
            "assist_evidence": "\n".join(self.assist_evidence),
        }

    def as_dict(self) -> dict[str, Any]:
        """The manifest's `smoke` section and smoke.json."""
        return {
            "outcome": self.outcome,
            "evidence": self.evidence.as_dict(),
            "exit_code": self.exit_code,
            "install_seconds": round(self.install_seconds, 2),
            "train_seconds": round(self.train_seconds, 2),
            "seconds": round(self.seconds, 2),
            "timeout": self.timeout,
            "network_cut": self.network_cut,
            "python": self.python,
            "requirements": list(self.requirements),
            "command": self.command,
            "log_dir": self.log_dir,
            "environment": self.environment,
            "smoked_at": self.smoked_at,
            "notes": list(self.notes),
            "stage": self.stage_name,
            "stage_seconds": self.stage_seconds,
            "qualifier": self.qualifier,
            "repairs": self.repair_dicts(),
            "blob_files": self.blob_files,
            "blob_bytes": self.blob_bytes,
            "entry": self.entry,
            "lock": self.lock,
            "assists": list(self.assists),
            "assist_evidence": list(self.assist_evidence),
        }
