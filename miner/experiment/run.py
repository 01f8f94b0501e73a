"""Run a manifest's training N times per (device, noise setting, threads), each in its own
pinned process.

Each run gets its own folder `<out>/<config>/run-NNN/` with stdout.log, stderr.log, launch.json
(the affinity the child applied and read back), determinism/ (what the start-up hook applied),
run.json (the record) and its outputs. run.json is written last and atomically, so a finished run
is skipped on the next call and an interrupted one is run again from scratch; runs.csv is rebuilt
after every run, so nothing is lost on a crash. Runs go round-robin over the configurations (run
1 of every configuration, then run 2, ...), so a change of machine load over the experiment
falls on every configuration alike and time comparisons stay fair.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any

from miner.errors import ExperimentError
from miner.experiment.collect import Outcome, Started, collect
from miner.experiment.determinism import hook_env
from miner.experiment.device import accelerator_for, check_devices, device_env, probe_accelerators
from miner.experiment.metrics import probe_environment
from miner.experiment.pinning import LAUNCHER, Pinning, pinning_for, read_proc_status
from miner.experiment.records import (
    RUN_FILE,
    RunConfig,
    RunRecord,
    load_records,
    write_record,
    write_runs_csv,
)
from miner.experiment.settings import (
    ALGO_SOURCES,
    NoiseSetting,
    RunSeeds,
    check_narrowing,
    draw_seeds,
    parse_setting,
)
from miner.procs import end_group, guardian, kill_group, spawn_group
from miner.select.arguments import make_output_folders
from miner.select.manifest import Manifest, RunSpec, example_dir
from miner.select.standins.assists import REPORT_DIR, assist_env, stand_in_refusal

PLACEHOLDER = re.compile(r"\{(python|example_dir|source|workdir|run_dir|seed|threads|device)\}")
POLL_SECONDS = 0.01


@dataclass(frozen=True)
class RunEvent:
    """One planned run as it finishes: its record and whether it was done earlier (skipped)."""

    record: RunRecord
    skipped: bool


def plan(
    threads: tuple[int, ...],
    settings: tuple[NoiseSetting | str, ...],
    runs: int,
    devices: tuple[str, ...] = ("cpu",),
) -> list[tuple[RunConfig, int]]:
    """Every (configuration, run number) in execution order: run number first (round-robin),
    then device, setting and thread count. Settings may be given by name (`control`, `fixed`)."""
    if runs < 1:
        raise ExperimentError(f"--runs {runs}: give at least one run")
    return [
        (RunConfig(t, setting.name, device), index)
        for index in range(1, runs + 1)
        for device in devices
        for setting in _settings(settings)
        for t in threads
    ]


def _settings(given: tuple[NoiseSetting | str, ...]) -> tuple[NoiseSetting, ...]:
    return tuple(parse_setting(s) if isinstance(s, str) else s for s in given)


@dataclass(frozen=True)
class _Context:
    """What every run of one experiment shares."""

    manifest: Manifest
    python: str
    libraries: dict[str, str]
    accelerators: dict[str, Any]
    keep_workdir: bool
    stand_in_data: bool = False
    cpu_shim: bool = False


def run_experiment(
    manifest: Manifest,
    out_dir: Path,
    threads: tuple[int, ...],
    settings: tuple[NoiseSetting | str, ...],
    runs: int,
    devices: tuple[str, ...] = ("cpu",),
    python: str | None = None,
    retry_failed: bool = False,
    keep_workdir: bool = False,
    stand_in_data: bool = False,
    cpu_shim: bool = False,
) -> Iterator[RunEvent]:
    """Run (or skip, when done before) every planned run, yielding each record as it finishes.
    A manifest whose smoke run trained only on stand-in data is refused unless `stand_in_data`
    (the runs then get the same stand-ins); `cpu_shim` loads the CPU shim into every run."""
    spec = manifest.run
    refusal = stand_in_refusal(manifest.document)
    if refusal and not stand_in_data:
        raise ExperimentError(f"{manifest.name}: {refusal}")
    out_dir = out_dir.resolve()  # the children run elsewhere: every path they get is absolute
    if spec.source and spec.workdir != "run_dir" and not Path(spec.source).is_dir():
        raise ExperimentError(f"{manifest.name}: checkout {spec.source} does not exist")
    for setting in _settings(settings):
        check_narrowing(setting, tuple(spec.seed_sources), manifest.name)
    jobs = plan(threads, settings, runs, devices)
    out_dir.mkdir(parents=True, exist_ok=True)
    python = python or _locked_python(spec, out_dir) or spec.python or sys.executable
    # The probes see what the runs will see (the manifest's env without run placeholders).
    probe_env = {**os.environ, **{k: v for k, v in spec.env.items() if "{" not in v}}
    environment = probe_environment(python, probe_env, out_dir)
    cuda = any(d != "cpu" for d in devices)
    environment["accelerators"] = probe_accelerators(python, probe_env, out_dir, cuda)
    check_devices(devices, environment["accelerators"])
    _check_same_manifest(manifest, out_dir)
    _write_json(out_dir / "environment.json", environment)
    context = _Context(
        manifest, python, dict(environment.get("libraries") or {}),
        environment["accelerators"], keep_workdir, stand_in_data, cpu_shim,
    )  # fmt: skip
    done = {(r.config, r.run): r for r in load_records(out_dir)}
    for config, index in jobs:
        earlier = done.get((config.key, index))
        if earlier is not None and (earlier.status == "ok" or not retry_failed):
            yield RunEvent(earlier, skipped=True)
            continue
        run_dir = out_dir / config.key / f"run-{index:03d}"
        try:
            record = run_once(context, config, index, run_dir)
        except BaseException:  # interrupted: no half-written run is left behind
            shutil.rmtree(run_dir, ignore_errors=True)
            raise
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


def _resolve(template: str | None, values: dict[str, str], workdir: Path) -> Path | None:
    """A manifest path with its placeholders filled, relative ones under the workdir."""
    if not template:
        return None
    path = Path(_expand(template, values))
    return path if path.is_absolute() else workdir / path


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


def run_once(context: _Context, config: RunConfig, index: int, run_dir: Path) -> RunRecord:
    """Run the training command once, pinned to `config`, and return its record."""
    spec = context.manifest.run
    if run_dir.exists():
        shutil.rmtree(run_dir)  # left by an interrupted attempt: start clean
    run_dir.mkdir(parents=True)
    pinning = pinning_for(config.threads)
    setting = parse_setting(config.setting)
    seeds = draw_seeds(setting, spec.seed)
    workdir = _prepare_workdir(spec, run_dir)
    values = {
        "python": context.python,
        "example_dir": str(example_dir()),
        "source": spec.source or "",
        "workdir": str(workdir),
        "run_dir": str(run_dir),
        "threads": str(config.threads),
        "device": "cpu" if config.device == "cpu" else "cuda",
    }
    command = [_expand(a, values) for a in spec.command]
    make_output_folders(command, run_dir)
    command += [_expand(a, {**values, "seed": str(seeds.seed)}) for a in spec.seed_args]
    for source, args in spec.seed_sources.items():
        command += [_expand(a, {**values, "seed": str(seeds.sources[source])}) for a in args]
    values["seed"] = str(seeds.seed)
    env = _child_env(context, spec, pinning, config, setting, seeds, values)
    files = {
        name: _resolve(getattr(spec, name), values, workdir)
        for name in ("metrics_file", "epochs_file", "predictions", "labels")
    }
    started = Started(
        context.manifest, config, setting, index, run_dir, workdir, command, env, pinning, seeds,
        context.libraries, accelerator_for(config.device, context.accelerators), files,
        started_at=datetime.now().astimezone().isoformat(timespec="seconds"), since=time.time(),
    )  # fmt: skip
    outcome = _execute(command, workdir, env, pinning, run_dir, spec.timeout)
    record = collect(started, outcome)
    if spec.workdir == "copy" and not context.keep_workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return record


# Variables the runner owns: an inherited value must never leak into a run.
_RUNNER_VARS = ("MINER_SEED", *(f"MINER_SEED_{s.upper()}" for s in ALGO_SOURCES))


def _child_env(
    context: _Context,
    spec: RunSpec,
    pinning: Pinning,
    config: RunConfig,
    setting: NoiseSetting,
    seeds: RunSeeds,
    values: dict[str, str],
) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in _RUNNER_VARS}
    env.update({k: _expand(v, values) for k, v in spec.env.items()})
    env.update(pinning.env())
    env.update(device_env(config.device))
    env.update(hook_env(env, setting.deterministic, context.libraries, Path(values["run_dir"])))
    run_dir = Path(values["run_dir"])  # the stand-in hook goes first on the path, then this one
    env.update(assist_env(env, run_dir / REPORT_DIR, context.stand_in_data, context.cpu_shim,
                          run_dir / "standin-files"))  # fmt: skip
    env["PYTHONHASHSEED"] = seeds.hash_seed
    env["PYTHONUNBUFFERED"] = "1"  # the log holds everything printed up to a crash
    env["MINER_RUN_DIR"] = values["run_dir"]
    env[spec.seed_env] = str(seeds.seed)
    env["MINER_SEED"] = str(seeds.seed)
    for source, value in seeds.sources.items():
        env[f"MINER_SEED_{source.upper()}"] = str(value)
    return env


def _execute(
    command: list[str],
    workdir: Path,
    env: dict[str, str],
    pinning: Pinning,
    run_dir: Path,
    timeout: float | None,
) -> Outcome:
    """Start the launcher (which pins, then execs the command) and watch it until it exits.

    The one place a run's process is started: it leads its own process group (its workers join
    it), and that whole group is killed on a timeout or when the runner itself is interrupted.
    """
    argv = [
        sys.executable, str(LAUNCHER), "--cpus", ",".join(map(str, pinning.cpus)),
        "--report", str(run_dir / "launch.json"), "--", *command,
    ]  # fmt: skip
    observed: tuple[int, ...] | None = None
    threads_max: int | None = None
    with (run_dir / "stdout.log").open("wb") as out, (run_dir / "stderr.log").open("wb") as err:
        start = time.perf_counter()
        try:
            # Its own process group, killed whole on a timeout or an interruption, and by a
            # guardian process should this one die: nothing of a run outlives it.
            proc = spawn_group(
                argv, cwd=workdir, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=err
            )
        except OSError as exc:
            return Outcome(None, "error", 0.0, None, None, None, f"cannot start: {exc}")
        status, error = "ok", None
        try:
            while True:
                if (ended := _reap(proc.pid)) is not None:
                    wait_status, rusage = ended
                    break
                sample = read_proc_status(proc.pid)
                if sample and (run_dir / "launch.json").exists():  # pinned by now: safe to read
                    observed = sample.get("cpus", observed)  # type: ignore[assignment]
                    threads = sample.get("threads")
                    if isinstance(threads, int):
                        threads_max = max(threads_max or 0, threads)
                if timeout and status == "ok" and time.perf_counter() - start > timeout:
                    status, error = "timeout", f"killed after {timeout:g} s"
                    kill_group(proc.pid)  # the whole group: workers too
                time.sleep(POLL_SECONDS)
        except BaseException:  # interrupted: end the run's whole group before going on
            end_group(proc)
            raise
        guardian().forget(proc.pid)
        wall = time.perf_counter() - start
    code = os.waitstatus_to_exitcode(wait_status)
    proc.returncode = code  # already reaped above
    if status == "ok" and code != 0:
        status, error = "failed", f"exit status {code}"
    return Outcome(code, status, wall, rusage, observed, threads_max, error)


def _reap(pid: int) -> tuple[int, Any] | None:
    """(wait status, rusage) once child `pid` has exited, else None. Where the platform can
    look without reaping, what the run left running in its group is killed first, while the
    unreaped leader keeps the group's id from being reused."""
    if hasattr(os, "waitid"):
        if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
            return None
        kill_group(pid)
        _, wait_status, rusage = os.wait4(pid, 0)
        return wait_status, rusage
    # wait4 rather than Popen.wait: it also gives the child's CPU time and peak memory.
    reaped, wait_status, rusage = os.wait4(pid, os.WNOHANG)
    return (wait_status, rusage) if reaped else None


def finished_runs(out_dir: Path) -> int:
    """How many runs under `out_dir` have a record (for messages)."""
    return len(list(out_dir.glob(f"*/run-*/{RUN_FILE}")))


def _locked_python(spec: RunSpec, out_dir: Path) -> str | None:
    """The interpreter of the smoke run's environment: as it is when it is still there, else
    rebuilt from its lock under `out_dir/env` (None without a lock)."""
    if not spec.lock:
        return None
    if spec.python and Path(spec.python).exists():
        return spec.python
    from miner.select.repair import rebuild_environment

    folder = Path(spec.lock).parent
    env_dir = out_dir / "env"
    python = env_dir / "bin" / "python"
    if python.exists():
        return str(python)
    out_dir.mkdir(parents=True, exist_ok=True)
    work = out_dir / "env-build"
    work.mkdir(exist_ok=True)
    log = out_dir / "env-build.log"
    return str(rebuild_environment(folder, env_dir, log, work, dict(os.environ)))
