"""Run a manifest's training N times per (threads, seed mode), each in its own pinned process.

Each run gets its own folder `<out>/<config>/run-NNN/` with stdout.log, stderr.log, launch.json
(the affinity the child applied and read back), run.json (the record) and its outputs. run.json
is written last and atomically, so a finished run is skipped on the next call and an interrupted
one is run again from scratch; runs.csv is rebuilt after every run, so nothing is lost on a crash.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from miner.errors import ExperimentError
from miner.experiment.metrics import (
    combined_hash,
    find_outputs,
    parse_output_metrics,
    probe_environment,
    read_metrics_file,
    sha256_file,
)
from miner.experiment.pinning import LAUNCHER, Pinning, hash_seed, pinning_for, read_proc_status
from miner.experiment.records import (
    RUN_FILE,
    RunConfig,
    RunRecord,
    load_records,
    write_record,
    write_runs_csv,
)
from miner.select.manifest import Manifest, RunSpec, example_dir

PLACEHOLDER = re.compile(r"\{(python|example_dir|source|workdir|run_dir|seed|threads)\}")
REPORT_KEYS = ("workers", "affinity", "blas", "threads", "num_threads")
POLL_SECONDS = 0.01


@dataclass(frozen=True)
class RunEvent:
    """One planned run as it finishes: its record and whether it was done earlier (skipped)."""

    record: RunRecord
    skipped: bool


def plan(
    threads: tuple[int, ...], seed_modes: tuple[str, ...], runs: int
) -> list[tuple[RunConfig, int]]:
    """Every (configuration, run number) in execution order: seed mode, threads, then run."""
    if runs < 1:
        raise ExperimentError(f"--runs {runs}: give at least one run")
    return [
        (RunConfig(t, mode), index)
        for mode in seed_modes
        for t in threads
        for index in range(1, runs + 1)
    ]


def run_experiment(
    manifest: Manifest,
    out_dir: Path,
    threads: tuple[int, ...],
    seed_modes: tuple[str, ...],
    runs: int,
    python: str | None = None,
    retry_failed: bool = False,
    keep_workdir: bool = False,
) -> Iterator[RunEvent]:
    """Run (or skip, when done before) every planned run, yielding each record as it finishes."""
    spec = manifest.run
    if spec.source and spec.workdir != "run_dir" and not Path(spec.source).is_dir():
        raise ExperimentError(f"{manifest.name}: checkout {spec.source} does not exist")
    out_dir = out_dir.resolve()  # the child runs elsewhere: every path it is given is absolute
    out_dir.mkdir(parents=True, exist_ok=True)
    _check_same_manifest(manifest, out_dir)
    python = python or spec.python or sys.executable
    environment = probe_environment(python, os.environ, out_dir)
    _write_json(out_dir / "environment.json", environment)
    libraries = dict(environment.get("libraries") or {})
    done = {(r.config, r.run): r for r in load_records(out_dir)}
    for config, index in plan(threads, seed_modes, runs):
        earlier = done.get((config.key, index))
        if earlier is not None and (earlier.status == "ok" or not retry_failed):
            yield RunEvent(earlier, skipped=True)
            continue
        run_dir = out_dir / config.key / f"run-{index:03d}"
        record = run_once(
            manifest, config, index, run_dir, python, libraries, keep_workdir=keep_workdir
        )
        write_record(record, run_dir)
        write_runs_csv(out_dir)
        yield RunEvent(record, skipped=False)
    write_runs_csv(out_dir)


def _check_same_manifest(manifest: Manifest, out_dir: Path) -> None:
    """Resuming mixes runs only of the same run section; another manifest needs another --out."""
    path = out_dir / "manifest.json"
    current = {"name": manifest.name, "run": manifest.run.as_dict()}
    if path.exists():
        try:
            earlier = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            earlier = None
        if earlier is not None and {k: earlier.get(k) for k in current} != current:
            raise ExperimentError(
                f"{out_dir} holds runs of a different manifest (or run section): use another --out"
            )
    _write_json(path, {**current, "document": manifest.document})


def _write_json(path: Path, data: Any) -> None:
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(data, indent=2, default=str) + "\n", encoding="utf-8")
    tmp.replace(path)


def _expand(text: str, values: dict[str, str]) -> str:
    def fill(match: re.Match[str]) -> str:
        name = match.group(1)
        if name not in values:
            raise ExperimentError(f"{{{name}}} has no value here (e.g. {{seed}} outside seed_args)")
        return values[name]

    return PLACEHOLDER.sub(fill, text)


def _prepare_workdir(spec: RunSpec, run_dir: Path) -> Path:
    if spec.workdir == "run_dir":
        return run_dir
    assert spec.source is not None  # checked by run_spec()
    if spec.workdir == "inplace":
        return Path(spec.source)
    work = run_dir / "work"
    # A fresh copy per run: runs cannot see each other's outputs and the checkout stays untouched.
    shutil.copytree(spec.source, work, symlinks=True, ignore=shutil.ignore_patterns(".git"))
    return work


def run_once(
    manifest: Manifest,
    config: RunConfig,
    index: int,
    run_dir: Path,
    python: str,
    libraries: dict[str, str],
    keep_workdir: bool = False,
) -> RunRecord:
    """Run the training command once, pinned to `config`, and return its record."""
    spec = manifest.run
    if run_dir.exists():
        shutil.rmtree(run_dir)  # left by an interrupted attempt: start clean
    run_dir.mkdir(parents=True)
    pinning = pinning_for(config.threads)
    seed = spec.seed if config.seed_mode == "fixed" else None
    workdir = _prepare_workdir(spec, run_dir)
    values = {
        "python": python,
        "example_dir": str(example_dir()),
        "source": spec.source or "",
        "workdir": str(workdir),
        "run_dir": str(run_dir),
        "threads": str(config.threads),
    }
    if seed is not None:
        values["seed"] = str(seed)
    command = [_expand(a, values) for a in spec.command]
    if seed is not None:
        command += [_expand(a, values) for a in spec.seed_args]
    env = _child_env(spec, pinning, config, seed, values)
    started_at = datetime.now().astimezone().isoformat(timespec="seconds")
    since = time.time()
    outcome = _execute(command, workdir, env, pinning, run_dir, spec.timeout)
    record = _collect(
        manifest, config, index, run_dir, workdir, command, env, pinning, seed, libraries,
        outcome, started_at, since, values,
    )  # fmt: skip
    if spec.workdir == "copy" and not keep_workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return record


def _child_env(
    spec: RunSpec, pinning: Pinning, config: RunConfig, seed: int | None, values: dict[str, str]
) -> dict[str, str]:
    env = dict(os.environ)
    env.update({k: _expand(v, values) for k, v in spec.env.items()})
    env.update(pinning.env())
    env["PYTHONHASHSEED"] = hash_seed(config.seed_mode, spec.seed)
    env["PYTHONUNBUFFERED"] = "1"  # the log holds everything printed up to a crash
    env["MINER_RUN_DIR"] = values["run_dir"]
    if seed is None:
        env.pop(spec.seed_env, None)  # an inherited seed must not leak into a default-seed run
    else:
        env[spec.seed_env] = str(seed)
    return env


@dataclass
class _Outcome:
    exit_code: int | None
    status: str
    wall: float
    rusage: Any
    observed_cpus: tuple[int, ...] | None
    threads_max: int | None
    error: str | None


def _execute(
    command: list[str],
    workdir: Path,
    env: dict[str, str],
    pinning: Pinning,
    run_dir: Path,
    timeout: float | None,
) -> _Outcome:
    """Start the launcher (which pins, then execs the command) and watch it until it exits."""
    argv = [
        sys.executable, str(LAUNCHER), "--cpus", ",".join(map(str, pinning.cpus)),
        "--report", str(run_dir / "launch.json"), "--", *command,
    ]  # fmt: skip
    observed: tuple[int, ...] | None = None
    threads_max: int | None = None
    with (run_dir / "stdout.log").open("wb") as out, (run_dir / "stderr.log").open("wb") as err:
        start = time.perf_counter()
        try:
            proc = subprocess.Popen(
                argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err,
                start_new_session=True,
            )  # fmt: skip
        except OSError as exc:
            return _Outcome(None, "error", 0.0, None, None, None, f"cannot start: {exc}")
        status, error = "ok", None
        while True:
            # wait4 rather than Popen.wait: it also returns the child's CPU time and peak memory.
            pid, wait_status, rusage = os.wait4(proc.pid, os.WNOHANG)
            if pid:
                break
            sample = read_proc_status(proc.pid)
            if sample and (run_dir / "launch.json").exists():  # pinned by now: safe to read
                observed = sample.get("cpus", observed)  # type: ignore[assignment]
                threads = sample.get("threads")
                if isinstance(threads, int):
                    threads_max = max(threads_max or 0, threads)
            if timeout and status == "ok" and time.perf_counter() - start > timeout:
                status, error = "timeout", f"killed after {timeout:g} s"
                try:
                    os.killpg(proc.pid, signal.SIGKILL)  # the whole group: workers too
                except ProcessLookupError:
                    pass
            time.sleep(POLL_SECONDS)
        wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(wait_status)
    proc.returncode = code  # already reaped above
    if status == "ok" and code != 0:
        status, error = "failed", f"exit status {code}"
    return _Outcome(code, status, wall, rusage, observed, threads_max, error)


def _collect(
    manifest: Manifest,
    config: RunConfig,
    index: int,
    run_dir: Path,
    workdir: Path,
    command: list[str],
    env: dict[str, str],
    pinning: Pinning,
    seed: int | None,
    libraries: dict[str, str],
    outcome: _Outcome,
    started_at: str,
    since: float,
    values: dict[str, str],
) -> RunRecord:
    """Read back what the run produced: launch report, metrics, hashes of logs and weights."""
    spec = manifest.run
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
    if spec.metrics_file:
        path = Path(_expand(spec.metrics_file, values))
        path = path if path.is_absolute() else workdir / path
        numbers, document = read_metrics_file(path, spec.metrics_keys)
        metrics.update(numbers)
        sources.update(dict.fromkeys(numbers, "file"))
        if isinstance(document, dict):
            report = {k: document[k] for k in REPORT_KEYS if k in document}
    weights = {}
    for path in find_outputs(workdir, spec.weights, since=since):
        rel = path.relative_to(workdir).as_posix()
        weights[rel] = sha256_file(path)
        if spec.workdir == "copy":  # keep the weights once the copy is removed
            target = run_dir / "outputs" / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(path, target)
    weights_sha = combined_hash(weights)
    metric_text = json.dumps(metrics, sort_keys=True)
    result_sha = weights_sha or (
        hashlib.sha256(metric_text.encode("utf-8")).hexdigest() if metrics else None
    )
    rusage = outcome.rusage
    applied = launch.get("applied")
    return RunRecord(
        experiment=manifest.name,
        config=config.key,
        threads=config.threads,
        seed_mode=config.seed_mode,
        run=index,
        seed=seed,
        pythonhashseed=env["PYTHONHASHSEED"],
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
        started_at=started_at,
        finished_at=datetime.now().astimezone().isoformat(timespec="seconds"),
        command=shlex.join(command),
        run_dir=str(run_dir),
        stdout_sha256=sha256_file(run_dir / "stdout.log"),
        stderr_sha256=sha256_file(run_dir / "stderr.log"),
        weights=weights,
        weights_sha256=weights_sha,
        result_sha256=result_sha,
        metrics=metrics,
        metric_sources=sources,
        child_report=report,
        libraries=libraries,
        error=outcome.error or launch.get("error"),
    )


def finished_runs(out_dir: Path) -> int:
    """How many runs under `out_dir` have a record (for messages)."""
    return len(list(out_dir.glob(f"*/run-*/{RUN_FILE}")))
