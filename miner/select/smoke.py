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
import shutil
import tempfile
import time
from collections.abc import Callable
from datetime import datetime, timezone
from pathlib import Path

from miner.codebook import Evidence
from miner.errors import DiskFull, ExperimentError
from miner.models import SMOKE_OUTCOMES
from miner.select.blobs import fetch_omitted
from miner.select.case_aliases import case_aliases
from miner.select.closure import (
    closure_note,
    import_closure,
    package_roots,
    script_in_command,
)
from miner.select.installs import InstallPlan, install_plan
from miner.select.ladder import Marks, stage_name, stage_reached, stage_seconds
from miner.select.manifest import slugify
from miner.select.repair import (
    MIN_FREE_BYTES,
    ensure_disk_room,
    locked,
    package_cache_env,
)
from miner.select.repair.envs import python2_interpreters
from miner.select.reruns import install_environment, python_version, train_with_reruns
from miner.select.sandbox import scrubbed_env
from miner.select.smoke_records import SmokeOptions, SmokeResult, SmokeTarget
from miner.select.standins.assists import REPORT_DIR, read_assists
from miner.select.standins.mounts import mount_data
from miner.select.usage import placeholder_outcome

__all__ = ["SmokeOptions", "SmokeResult", "SmokeTarget", "smoke"]


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
    # each candidate running side by side builds an environment of its own at the same time
    room = MIN_FREE_BYTES * max(1, options.jobs)
    pruned = ensure_disk_room(package_cache_env(base, options.out_dir), out_dir, room)
    work = Path(tempfile.mkdtemp(prefix=f"miner-smoke-{slug}-"))
    reached = on_stage or (lambda name, stage: None)
    notes: list[str] = [pruned] if pruned else []
    blobs = None
    install_seconds, training, built, lock = 0.0, None, None, None
    requirements: tuple[str, ...] = ()
    try:
        copy = work / "src"
        try:
            shutil.copytree(target.checkout, copy, symlinks=True,
                            ignore=shutil.ignore_patterns(".git"))  # fmt: skip
        except (shutil.Error, OSError) as exc:
            if "No space left on device" not in str(exc):
                raise
            raise DiskFull(
                f"no space left on device while copying {target.full_name}'s "
                "checkout; free disk space and run it again"
            ) from None
        if options.fetch_blobs:
            blobs = fetch_omitted(target.checkout, copy, work)
            notes += [blobs.note()] if blobs is not None else []
        notes += mount_data(copy, options.data)  # the user's data over what the checkout has
        notes += case_aliases(copy)
        entry = target.entry_script or script_in_command(target.command)
        closure = import_closure(copy, entry)
        static = time.perf_counter() - started
        if closure.outcome and _stops(closure.outcome) and closure.evidence is not None:
            outcome, evidence, stage = closure.outcome, closure.evidence, -1
        else:
            notes.append(closure_note(closure))
            if roots := package_roots(copy, entry, closure.files):
                paths = (str(copy), *(str(copy / folder) for folder in roots))
                base = {**base, "MINER_CHECKOUT_ROOT": os.pathsep.join(paths)}
                notes.append(f"path: {', '.join(roots)} on sys.path (a nested project's root)")
            stage = 0
            reached(target.full_name, "S0")
            plan = install_plan(
                copy, target.environment_files, target.framework, target.version_spec, entry
            )
            if target.requirements is not None:  # the researcher's list replaces what was found
                plan = InstallPlan(
                    target.requirements, (), ("install.requirements of the manifest",)
                )
            requirements = plan.lines
            notes += plan.notes
            (logs / "requirements.txt").write_text(plan.text(), encoding="utf-8")
            built = install_environment(target, venv, plan.lines, logs, work, base, options, copy)
            _refuse_full_disk(target, logs / "install.log")  # a repair that ran out of disk too
            install_seconds = built.seconds
            lock = locked(built, venv, logs, work, base) if built.imports_ok else None
            if built.failure is not None and closure.outcome == "python2" and closure.evidence:
                outcome, evidence, stage = "python2", _no_python2(closure.evidence), -1
                notes.append(f"python2: the 2.7 environment failed: {built.failure.text}")
            elif built.failure is not None:
                outcome, evidence = "install", built.failure
            else:
                reached(target.full_name, "S1")
                first = built
                training, built = train_with_reruns(target, copy, venv, logs, work, base, options,
                                         started_epoch, built, notes)  # fmt: skip
                _refuse_full_disk(target, logs / "install.log")  # the reruns' repairs install too
                install_seconds = built.seconds
                if built is not first:  # the environment changed after the lock was written
                    # a run past its imports shows what the build's import check could not
                    imports = built.imports_ok or training.outcome != "import"
                    lock = locked(built, venv, logs, work, base) if imports else None
                outcome, evidence = placeholder_outcome(target, training, notes)
                stage = stage_reached(
                    outcome, training.marks, closure.parses_arguments, training.ended,
                    training.progress,
                )  # fmt: skip
                if stage > 1:
                    reached(target.full_name, stage_name(stage))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    seconds = time.perf_counter() - started
    assists = read_assists(logs / REPORT_DIR)
    keep = outcome == "ok"
    python = python_version(venv)
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
        repairs=built.repairs if built is not None else (),
        lock=None if lock is None else str(lock),
        assists=assists.labels,
        assist_evidence=assists.evidence(),
        qualifier=_qualifier(assists.labels, outcome, stage),
    )
    assert result.outcome in SMOKE_OUTCOMES
    (logs / "smoke.json").write_text(
        json.dumps({"name": target.full_name, **result.as_dict()}, indent=2) + "\n",
        encoding="utf-8",
    )
    return result


def _qualifier(assists: tuple[str, ...], outcome: str, stage: int) -> str | None:
    """How a pass (or a step) was reached, shown beside the outcome: `stand-in data`."""
    return ", ".join(assists) if assists and (outcome == "ok" or stage >= 5) else None


def _stops(outcome: str) -> bool:
    """Whether S0's finding ends the run: Python 2 code goes on where a 2.7 interpreter exists
    (the environment step builds on it)."""
    if outcome == "python2":
        return not python2_interpreters()
    return True


def _no_python2(code: Evidence) -> Evidence:
    """Python 2 code whose 2.7 environment could not be built: the code is the evidence (the
    build's failure goes to the notes)."""
    return Evidence(code.path, code.line, code.text, "smoke.python2.environment")


DISK_FULL = ("No space left on device", "Failed to write to the client cache")


def _refuse_full_disk(target: SmokeTarget, log: Path) -> None:
    """Stop instead of recording an install failure the machine caused (a full disk)."""
    try:
        text = log.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return
    if any(marker in text for marker in DISK_FULL):
        raise DiskFull(
            f"no space left on device while building {target.full_name}'s environment; "
            "free disk space (`uv cache prune`, old study runs) and run it again"
        )
