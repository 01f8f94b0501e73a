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
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path

from miner.codebook import Evidence
from miner.errors import DiskFull, ExperimentError
from miner.models import SMOKE_OUTCOMES
from miner.select.arguments import one_device
from miner.select.batches import small_batch
from miner.select.blobs import fetch_omitted
from miner.select.closure import (
    closure_note,
    import_closure,
    package_roots,
    script_in_command,
)
from miner.select.cpu_options import cpu_rerun
from miner.select.data_reruns import stand_in_files_for, wants_data
from miner.select.git_copy import GIT_NEEDED, make_repository
from miner.select.installs import InstallPlan, install_plan
from miner.select.ladder import Marks, stage_name, stage_reached, stage_seconds
from miner.select.launch_scripts import prepare_launch_script
from miner.select.launchers import launch_env
from miner.select.manifest import slugify
from miner.select.output_parents import make_output_parent
from miner.select.preparation import preparation_steps
from miner.select.pythons import interpreter_version
from miner.select.repair import (
    BuildRequest,
    EnvironmentBuild,
    build_environment,
    ensure_disk_room,
    locked,
    package_cache_env,
)
from miner.select.repair.envs import python2_interpreters
from miner.select.repair.extensions import extension_repair
from miner.select.repair.generated import run_setup
from miner.select.repair.records import Repair
from miner.select.repair.runtime import RuntimeFault, install_module, runtime_fault
from miner.select.sandbox import scrubbed_env
from miner.select.smoke_records import SmokeOptions, SmokeResult, SmokeTarget
from miner.select.standins.assists import REPORT_DIR, read_assists
from miner.select.standins.mounts import mount_data
from miner.select.training import Training, prepare_data, train_entry
from miner.select.usage import placeholder_outcome, required_values

__all__ = ["SmokeOptions", "SmokeResult", "SmokeTarget", "smoke"]
# runs again after a repair the training log called for: undeclared imports come one per run
MAX_RERUNS = 5
DATA_RERUNS = 2  # runs again after stand-in files for a missing data set were written


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
    pruned = ensure_disk_room(package_cache_env(base, options.out_dir), out_dir)
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
            built = _install(target, venv, plan.lines, logs, work, base, options, copy)
            install_seconds = built.seconds
            lock = locked(built, venv, logs, work, base) if built.imports_ok else None
            if built.failure is not None and closure.outcome == "python2" and closure.evidence:
                outcome, evidence, stage = "python2", _no_python2(closure.evidence), -1
                notes.append(f"python2: the 2.7 environment failed: {built.failure.text}")
            elif built.failure is not None:
                _refuse_full_disk(target, logs / "install.log")
                outcome, evidence = "install", built.failure
            else:
                reached(target.full_name, "S1")
                first = built
                training, built = _train(target, copy, venv, logs, work, base, options,
                                         started_epoch, built, notes)  # fmt: skip
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


def _train(
    target: SmokeTarget, copy: Path, venv: Path, logs: Path, work: Path, base: dict[str, str],
    options: SmokeOptions, started_epoch: float, built: EnvironmentBuild, notes: list[str],
) -> tuple[Training, EnvironmentBuild]:  # fmt: skip
    """Train; where the log shows a module imported by name that nothing declared, or a feature
    this interpreter no longer has, repair the environment and train again (a few times); where
    it asks for required arguments a run can make up (an output folder, a data path), give them
    and train again (once); where it stopped writing into a folder the copy lacks, make it and
    train again; where a shimmed run still wants a GPU, show it the CPU as one and
    train again (once); where it stopped for want of data, run the README's data-preparation
    steps and train again (once), and run them again on stand-in data once it is written."""
    launched = launch_env(target.entry_evidence.text if target.entry_evidence else "")
    if launched:
        base = {**base, **launched}
        notes.append(
            "launcher: the README's command starts through a distributed launcher; run as its "
            "one worker (RANK=0, WORLD_SIZE=1, MASTER_ADDR=127.0.0.1)"
        )
    script = target.entry_script or script_in_command(target.command)
    if options.small_batch:
        command, smaller = small_batch(target.command, copy / script if script else None)
        target = replace(target, command=command)
        notes += list(smaller)
    notes += prepare_launch_script(target.command, copy)
    training = train_entry(target, copy, venv, logs, work, base, options, started_epoch)
    asked, on_cpu, repaired, stood_in, made = False, set[str](), 0, 0, set[str]()
    preparation = steps = preparation_steps(copy, target.entry_evidence)
    for _ in range(MAX_RERUNS + DATA_RERUNS + 8):  # each kind of rerun has its own bound
        if preparation and wants_data(training):
            notes += prepare_data(preparation, copy, venv, logs, work, base, options)
            preparation = ()  # once
            training = train_entry(target, copy, venv, logs, work, base, options, started_epoch)
            continue
        rerun = cpu_rerun(training.outcome, training.evidence.text, target.command,
                          copy / script if script else None, on_cpu)  # fmt: skip
        if rerun is not None:  # the script's own CPU path first; the shim only serves PyTorch
            notes.append(rerun[1])
            target = replace(target, command=rerun[0])
            training = train_entry(target, copy, venv, logs, work, base, options, started_epoch)
            continue
        if training.outcome == "runtime" and GIT_NEEDED.search(training.evidence.text):
            note = make_repository(copy)  # once: the copy is a repository after it
            if note:
                notes.append(note)
                training = train_entry(target, copy, venv, logs, work, base, options, started_epoch)
                continue
        note = make_output_parent(training.evidence.rule, training.evidence.text, copy, made)
        if note:  # a folder the run saves into, which git does not keep
            notes.append(note)
            training = train_entry(target, copy, venv, logs, work, base, options, started_epoch)
            continue
        if training.outcome == "needs_gpu" and options.cpu_shim and not options.claim_gpu:
            options = replace(options, claim_gpu=True)
            notes.append(f"cpu shim: the CPU shown as a GPU after {training.evidence.path}:"
                         f"{training.evidence.line}: {training.evidence.text[:200]}")  # fmt: skip
            command, fewer = one_device(target.command)
            notes += [f"cpu shim: one device asked for: {change}" for change in fewer]
            if options.small_batch:
                command, smaller = small_batch(command, copy / script if script else None)
                notes += list(smaller)
            target = replace(target, command=command)
            training = train_entry(target, copy, venv, logs, work, base, options, started_epoch)
            continue
        if stood_in < DATA_RERUNS and stand_in_files_for(training, copy, work, logs, options,
                                                          notes):  # fmt: skip
            stood_in += 1
            if steps:  # the README's steps turn the stand-in's raw files into what it trains on
                notes += prepare_data(steps, copy, venv, logs, work, base, options)
                preparation = steps = ()  # once
            training = train_entry(target, copy, venv, logs, work, base, options, started_epoch)
            continue
        if training.outcome == "usage" and not asked:
            asked = True
            given = required_values(target, training, logs)
            if not given:
                break
            notes += [f"required by {training.evidence.path}:{training.evidence.line}: "
                      f"{argument.note()}" for argument in given]  # fmt: skip
            words = tuple(word for argument in given for word in argument.words())
            target = replace(target, command=(*target.command, *words))
            training = train_entry(target, copy, venv, logs, work, base, options, started_epoch)
            continue
        # a run that hangs after its error (a data loader's worker died) ends as a timeout
        if training.outcome not in ("import", "runtime", "timeout") or training.progress:
            break
        if repaired == MAX_RERUNS + 1:
            break
        repaired += 1
        python = interpreter_version(str(venv / "bin" / "python")) or (3, 0)
        fault = runtime_fault(logs / training.evidence.path, python, copy)
        rebuilt = None if fault is None else _repaired(fault, target, built, venv, logs, work,
                                                       base, options, copy)  # fmt: skip
        if rebuilt is None:
            break
        built = rebuilt
        if built.failure is not None:
            break  # the rebuild did not install; the first run's outcome stands
        training = train_entry(target, copy, venv, logs, work, base, options, started_epoch)
    return training, built


def _repaired(
    fault: RuntimeFault, target: SmokeTarget, built: EnvironmentBuild, venv: Path, logs: Path,
    work: Path, base: dict[str, str], options: SmokeOptions, copy: Path,
) -> EnvironmentBuild | None:  # fmt: skip
    """The environment with `fault` repaired: the module installed (or the bound, `numpy<2`), or
    the whole environment rebuilt on the newest interpreter older than the feature's removal."""
    env = package_cache_env(base, options.out_dir)
    if fault.kind == "generate":
        wrote = run_setup(copy, fault.feature, fault.generated, venv / "bin" / "python", env,
                          logs / "install.log")  # fmt: skip
        return built if wrote else None
    if fault.kind in ("compile", "rebuild"):
        return extension_repair(built, fault, copy, venv, work, logs / "install.log", env,
                                options.install_timeout)  # fmt: skip
    if fault.kind in ("module", "bound", "older"):
        return install_module(built, fault, venv, work, logs / "install.log", env,
                              options.install_timeout)  # fmt: skip
    older = [p for p in options.pythons if (interpreter_version(p) or (0, 0)) < fault.before]
    if not older:
        return None
    was = _python_version(venv) or "?"
    with (logs / "install.log").open("a", encoding="utf-8") as fh:
        fh.write(f"miner: {fault.feature} went away in Python {fault.before[0]}."
                 f"{fault.before[1]} ({fault.evidence.path}:{fault.evidence.line}); "
                 "rebuilding on an older interpreter\n")  # fmt: skip
    rebuilt = _install(target, venv, (*built.options, *built.lines), logs, work, base,
                       replace(options, pythons=tuple(older)), copy)  # fmt: skip
    repair = Repair("interpreter", f"Python {was}", f"Python {_python_version(venv) or '?'}",
                    f"{fault.feature} went away in Python {fault.before[0]}.{fault.before[1]}",
                    fault.evidence)  # fmt: skip
    return replace(rebuilt, repairs=(*built.repairs, repair, *rebuilt.repairs),
                   seconds=built.seconds + rebuilt.seconds)  # fmt: skip


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


def _install(
    target: SmokeTarget,
    venv: Path,
    requirements: tuple[str, ...],
    logs: Path,
    work: Path,
    base: dict[str, str],
    options: SmokeOptions,
    copy: Path,
) -> EnvironmentBuild:
    """Make the environment and install the plan into it, repairing what fails
    (miner.select.repair): the failure's evidence (None when it worked), the seconds it took and
    the repairs applied."""
    request = BuildRequest(
        interpreters=options.pythons or (sys.executable,),
        lines=tuple(ln for ln in requirements if ln.strip()),
        root=copy, command=target.command, venv=venv, work=work,
        log=logs / "install.log", env=package_cache_env(base, options.out_dir),
        timeout=options.install_timeout, commit_date=target.commit_date,
        as_of=options.as_of_commit,
    )  # fmt: skip
    return build_environment(request)


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
