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
import shutil
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from miner.codebook import Evidence
from miner.errors import ExperimentError
from miner.models import SMOKE_OUTCOMES
from miner.select.blobs import fetch_omitted
from miner.select.closure import closure_note, import_closure, script_in_command
from miner.select.installs import InstallPlan, install_plan
from miner.select.ladder import Marks, stage_name, stage_reached, stage_seconds
from miner.select.manifest import slugify
from miner.select.outcomes import install_failure
from miner.select.pythons import pythons_in_order
from miner.select.sandbox import Limits, run_bounded, scrubbed_env, uv_binary
from miner.select.smoke_records import SmokeOptions, SmokeResult, SmokeTarget
from miner.select.training import Training, train_entry

__all__ = ["SmokeOptions", "SmokeResult", "SmokeTarget", "smoke"]
VENV_TIMEOUT = 300.0
BUILD_BACKENDS = ("setuptools", "wheel")
# Outcomes a README placeholder explains: the run needed data the user must name.
PLACEHOLDER_OUTCOMES = ("usage", "needs_data", "data")


def _python_version(venv: Path) -> str:
    try:
        text = (venv / "pyvenv.cfg").read_text(encoding="utf-8")
    except OSError:
        return ""
    match = re.search(r"^version_info\s*=\s*(\S+)", text, re.M)
    return match.group(1) if match else ""


def smoke(
    target: SmokeTarget,
    options: SmokeOptions,
    on_stage: Callable[[str, str], None] | None = None,
) -> SmokeResult:
    """Copy, install and train one project for a bounded time; say how far it got and why.

    `on_stage(full_name, "S1")` is called as each stage is reached (for a progress line)."""
    if not target.checkout.is_dir():
        raise ExperimentError(f"{target.full_name}: checkout {target.checkout} does not exist")
    slug = slugify(target.full_name)
    out_dir = options.out_dir.resolve()
    logs = out_dir / slug
    venv = out_dir / "envs" / slug
    for stale in (logs, venv):
        shutil.rmtree(stale, ignore_errors=True)
    logs.mkdir(parents=True)
    started, started_epoch = time.perf_counter(), time.time()
    base = scrubbed_env(os.environ if options.env is None else options.env)
    work = Path(tempfile.mkdtemp(prefix=f"miner-smoke-{slug}-"))
    reached = on_stage or (lambda name, stage: None)
    notes: list[str] = []
    blobs = None
    install_seconds, training = 0.0, None
    requirements: tuple[str, ...] = ()
    try:
        copy = work / "src"
        shutil.copytree(target.checkout, copy, symlinks=True, ignore=shutil.ignore_patterns(".git"))
        if options.fetch_blobs:
            blobs = fetch_omitted(target.checkout, copy, work)
            notes += [blobs.note()] if blobs is not None else []
        entry = target.entry_script or script_in_command(target.command)
        closure = import_closure(copy, entry)
        static = time.perf_counter() - started
        if closure.outcome is not None and closure.evidence is not None:
            outcome, evidence, stage = closure.outcome, closure.evidence, -1
        else:
            notes.append(closure_note(closure))
            stage = 0
            reached(target.full_name, "S0")
            plan = install_plan(
                copy, target.environment_files, target.framework, target.version_spec
            )
            if target.requirements is not None:  # the researcher's list replaces what was found
                plan = InstallPlan(
                    target.requirements, (), ("install.requirements of the manifest",)
                )
            requirements = plan.lines
            notes += plan.notes
            (logs / "requirements.txt").write_text(plan.text(), encoding="utf-8")
            install, install_seconds = _install(
                target, venv, plan.text(), logs, work, base, options
            )
            if install is not None:
                outcome, evidence = "install", install
            else:
                reached(target.full_name, "S1")
                training = train_entry(target, copy, venv, logs, work, base, options, started_epoch)
                outcome, evidence = _placeholders(target, training, notes)
                stage = stage_reached(
                    outcome, training.marks, closure.parses_arguments, training.ended,
                    training.progress,
                )  # fmt: skip
                if stage > 1:
                    reached(target.full_name, stage_name(stage))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    seconds = time.perf_counter() - started
    keep = outcome == "ok"
    python = _python_version(venv)
    if not keep:
        shutil.rmtree(venv, ignore_errors=True)
    marks = training.marks if training is not None else None
    spent = {} if stage < 0 else stage_seconds(
        static, install_seconds, marks or Marks(), training.step_at if training else None,
        seconds, stage,
    )  # fmt: skip
    result = SmokeResult(
        full_name=target.full_name,
        repo_id=target.repo_id,
        commit_sha=target.commit_sha,
        outcome=outcome,
        evidence=evidence,
        exit_code=training.exit_code if training else None,
        install_seconds=install_seconds,
        train_seconds=training.seconds if training else 0.0,
        seconds=seconds,
        timeout=options.timeout,
        network_cut=training.network_cut if training else False,
        python=python,
        requirements=requirements,
        command=training.command if training else " ".join(target.command),
        log_dir=str(logs),
        environment=str(venv) if keep else None,
        smoked_at=datetime.now(timezone.utc).isoformat(timespec="seconds"),
        notes=tuple(notes),
        stage=stage,
        stage_seconds=spent,
        blob_files=len(blobs.paths) if blobs else 0,
        blob_bytes=blobs.bytes_received if blobs else 0,
        entry=entry or "",
    )
    assert result.outcome in SMOKE_OUTCOMES
    (logs / "smoke.json").write_text(
        json.dumps({"name": target.full_name, **result.as_dict()}, indent=2) + "\n",
        encoding="utf-8",
    )
    return result


def _placeholders(
    target: SmokeTarget, training: Training, notes: list[str]
) -> tuple[str, Evidence]:
    """A run whose README command had placeholders and that stopped for want of arguments or
    data needs data the user must name: the README line is the evidence."""
    if not target.placeholders or training.outcome not in PLACEHOLDER_OUTCOMES:
        return training.outcome, training.evidence
    ev = training.evidence
    notes.append(f"{training.outcome}: {ev.path}:{ev.line} {ev.text}")
    where = target.entry_evidence or Evidence("README", 0, "", "")
    text = f"placeholders {' '.join(target.placeholders)} in: {where.text}"
    return "needs_data", Evidence(
        where.path, where.line, text[:500], "smoke.needs_data.placeholder"
    )


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
