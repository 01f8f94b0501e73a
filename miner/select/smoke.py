"""Smoke runs: does a selected project install and train on CPU, unattended, in bounded time?

Each run works on a throw-away copy of the checkout (the clone is never touched) and a fresh
virtual environment made by `uv`. It installs what the manifest found (miner.select.installs; the
package index may be used), then runs the entry point on CPU for a bounded time with threads
pinned as `miner experiment` pins them, no credentials in its environment, memory and file-size
limits, and the network cut off where the OS allows it. The outcome and the log line behind it
are returned (miner.select.outcomes); the logs stay under `<out_dir>/<slug>/`, and the
environment of a passing project stays under `<out_dir>/envs/<slug>/` for the experiment.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import sys
import tempfile
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from miner.codebook import Evidence
from miner.errors import ExperimentError
from miner.models import SMOKE_OUTCOMES
from miner.select.installs import InstallPlan, install_plan
from miner.select.manifest import example_dir, slugify
from miner.select.outcomes import classify_training, install_failure
from miner.select.pythons import pythons_in_order
from miner.select.sandbox import (
    GIB,
    Limits,
    first_new_file,
    network_cut_prefix,
    pinned,
    run_bounded,
    scrubbed_env,
    uv_binary,
)
from miner.select.standins.assists import REPORT_DIR, assist_env, outcome_label, read_assists
from miner.select.standins.fetch import DATA_CACHE, cache_env, fetch_data
from miner.select.standins.mounts import DataMount, mount_data

PLACEHOLDER = re.compile(r"\{(python|example_dir|source|workdir|run_dir|seed|threads)\}")
VENV_TIMEOUT = 300.0
BUILD_BACKENDS = ("setuptools", "wheel")


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
    stand_in_data: bool = True  # serve synthetic data where a known loader finds none
    cpu_shim: bool = False  # keep hard-coded CUDA on the CPU
    data: tuple[DataMount, ...] = ()  # the user's data, copied into the run's copy
    fetch_data: bool = False  # a data step with the network up, before training without it
    fetch_timeout: float = 300.0


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
    assists: tuple[str, ...] = ()  # "stand-in data", "cpu shim": what the run needed
    assist_evidence: tuple[str, ...] = ()  # each stand-in served, each shim rewrite

    @property
    def ok(self) -> bool:
        """True when the project trained (or printed a metric) within the bound."""
        return self.outcome == "ok"

    @property
    def label(self) -> str:
        """The outcome as shown: 'ok (stand-in data)' apart from 'ok'."""
        return outcome_label(self.outcome, self.assists)

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
            "assists": list(self.assists),
            "assist_evidence": list(self.assist_evidence),
        }


def _expand(text: str, values: dict[str, str]) -> str:
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def _python_version(venv: Path) -> str:
    try:
        text = (venv / "pyvenv.cfg").read_text(encoding="utf-8")
    except OSError:
        return ""
    match = re.search(r"^version_info\s*=\s*(\S+)", text, re.M)
    return match.group(1) if match else ""


def smoke(target: SmokeTarget, options: SmokeOptions) -> SmokeResult:
    """Copy, install and train one project for a bounded time; classify what happened."""
    if not target.checkout.is_dir():
        raise ExperimentError(f"{target.full_name}: checkout {target.checkout} does not exist")
    slug = slugify(target.full_name)
    out_dir = options.out_dir.resolve()
    logs = out_dir / slug
    venv = out_dir / "envs" / slug
    for stale in (logs, venv):
        shutil.rmtree(stale, ignore_errors=True)
    logs.mkdir(parents=True)
    started = time.perf_counter()
    base = scrubbed_env(os.environ if options.env is None else options.env)
    work = Path(tempfile.mkdtemp(prefix=f"miner-smoke-{slug}-"))
    try:
        copy = work / "src"
        shutil.copytree(target.checkout, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        mounted = mount_data(copy, options.data)
        plan = install_plan(copy, target.environment_files, target.framework, target.version_spec)
        if target.requirements is not None:  # the researcher's list replaces what was found
            plan = InstallPlan(target.requirements, (), ("install.requirements of the manifest",))
        (logs / "requirements.txt").write_text(plan.text(), encoding="utf-8")
        install, install_seconds = _install(target, venv, plan.text(), logs, work, base, options)
        train_seconds, exit_code, cut, command = 0.0, None, False, ""
        if install is not None:
            outcome, evidence = "install", install
        else:
            outcome, evidence, exit_code, train_seconds, cut, command = _train(
                target, copy, venv, logs, work, base, options
            )
    finally:
        shutil.rmtree(work, ignore_errors=True)
    assists = read_assists(logs / REPORT_DIR)
    keep = outcome == "ok"
    python = _python_version(venv)
    if not keep:
        shutil.rmtree(venv, ignore_errors=True)
    result = SmokeResult(
        full_name=target.full_name,
        repo_id=target.repo_id,
        commit_sha=target.commit_sha,
        outcome=outcome,
        evidence=evidence,
        exit_code=exit_code,
        install_seconds=install_seconds,
        train_seconds=train_seconds,
        seconds=time.perf_counter() - started,
        timeout=options.timeout,
        network_cut=cut,
        python=python,
        requirements=plan.lines,
        command=command,
        log_dir=str(logs),
        environment=str(venv) if keep else None,
        smoked_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        notes=plan.notes + mounted,
        assists=assists.labels,
        assist_evidence=assists.evidence(),
    )
    assert result.outcome in SMOKE_OUTCOMES
    (logs / "smoke.json").write_text(
        json.dumps({"name": target.full_name, **result.as_dict()}, indent=2) + "\n",
        encoding="utf-8",
    )
    return result


def _install(
    target: SmokeTarget,
    venv: Path,
    requirements: str,
    logs: Path,
    work: Path,
    base: dict[str, str],
    options: SmokeOptions,
) -> tuple[Evidence | None, float]:
    """Make the environment and install the plan into it: the failure's evidence (None when it
    worked) and the seconds it took."""
    log = logs / "install.log"
    interpreters = pythons_in_order(options.pythons, target.commit_date) or [sys.executable]
    seconds = 0.0
    failure: Evidence | None = None
    for number, interpreter in enumerate(interpreters, start=1):
        attempt = (interpreter, target, venv, requirements, log, work, base, options)
        failure, took = _install_with(*attempt)
        seconds += took
        if failure is None or failure.rule != "smoke.install.no_wheel":
            return failure, seconds
        if number < len(interpreters):  # a pin with no wheel for this Python: try the next one
            with log.open("a", encoding="utf-8") as fh:
                fh.write(f"miner: no wheel for {interpreter}; trying {interpreters[number]}\n")
    return failure, seconds


def _line_count(path: Path) -> int:
    try:
        return len(path.read_text(encoding="utf-8", errors="replace").splitlines())
    except OSError:
        return 0


def _install_with(
    interpreter: str,
    target: SmokeTarget,
    venv: Path,
    requirements: str,
    log: Path,
    work: Path,
    base: dict[str, str],
    options: SmokeOptions,
) -> tuple[Evidence | None, float]:
    """One attempt: a fresh environment of `interpreter`, then the install."""
    uv = uv_binary()
    start = _line_count(log)
    shutil.rmtree(venv, ignore_errors=True)
    limits = Limits(memory_bytes=None)  # resolvers and compilers get the machine's memory
    env = {**base, "VIRTUAL_ENV": str(venv)}
    made = run_bounded(
        [uv, "venv", "--quiet", "--python", interpreter, str(venv)],
        work, env, log, VENV_TIMEOUT, limits,
    )  # fmt: skip
    if made.exit_code != 0:
        return install_failure(log, made.timed_out, VENV_TIMEOUT, start), made.seconds
    if not requirements:
        return None, made.seconds
    plan = work / "requirements.txt"
    plan.write_text(requirements, encoding="utf-8")
    argv = [uv, "pip", "install", "--python", str(venv / "bin" / "python"), "-r", str(plan)]
    if options.as_of_commit and target.commit_date:
        # The index as it was on that day, except the build back-ends: today's uv asks for
        # setuptools>=40.8 to build an old sdist, which an old index does not have.
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        argv += ["--exclude-newer", target.commit_date]
        argv += [f"--exclude-newer-package={name}={now}" for name in BUILD_BACKENDS]
    done = run_bounded(argv, work, env, log, options.install_timeout, limits)
    seconds = made.seconds + done.seconds
    if done.exit_code != 0:
        return install_failure(log, done.timed_out, options.install_timeout, start), seconds
    return None, seconds


def _train(
    target: SmokeTarget,
    copy: Path,
    venv: Path,
    logs: Path,
    work: Path,
    base: dict[str, str],
    options: SmokeOptions,
) -> tuple[str, Evidence, int | None, float, bool, str]:
    """Run the entry point pinned, limited and offline; classify its log."""
    cpus, thread_env = pinned(options.threads)
    python = venv / "bin" / "python"
    values = {
        "python": str(python),
        "example_dir": str(example_dir()),
        "source": str(copy),
        "workdir": str(copy),
        "run_dir": str(logs),
        "threads": str(options.threads),
        "seed": "0",
    }
    command = [_expand(a, values) for a in target.command]
    home = work / "home"
    home.mkdir()
    env = {
        **base,
        **thread_env,
        "HOME": str(home),  # no dotfiles of the host (credentials, caches) reach the project
        "VIRTUAL_ENV": str(venv),
        "PATH": f"{venv / 'bin'}{os.pathsep}{base.get('PATH', os.defpath)}",
        "CUDA_VISIBLE_DEVICES": "",  # CPU only, even on a machine with GPUs
        "PYTHONUNBUFFERED": "1",
        "MPLBACKEND": "Agg",
    }
    env.update(
        assist_env(
            env, logs / REPORT_DIR, options.stand_in_data, options.cpu_shim, work / "standin-files"
        )
    )
    prefix = network_cut_prefix() if options.cut_network else None
    argv = [*(prefix or ()), *command]
    limits = Limits(
        memory_bytes=options.memory_bytes,
        cpu_seconds=int(options.timeout * len(cpus)) + 30,
        cpus=cpus,
    )
    if options.fetch_data:  # downloads go to a cache all candidates share, or into the copy
        env.update(cache_env(options.out_dir.resolve() / DATA_CACHE))
        step = (command, copy, env, logs / REPORT_DIR / "fetch", logs / "fetch.log")
        fetch_data(*step, options.fetch_timeout, limits)
    log = logs / "train.log"
    since = time.time()
    done = run_bounded(argv, copy, env, log, options.timeout, limits)
    wrote = first_new_file(copy, target.weights, since)
    outcome, evidence = classify_training(
        log, done.exit_code, done.timed_out, options.timeout, wrote
    )
    return outcome, evidence, done.exit_code, done.seconds, prefix is not None, shlex.join(command)
