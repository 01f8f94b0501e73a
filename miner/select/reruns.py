"""Training in a smoke run, and the reruns its log calls for.

A first run seldom trains: the log names a module nothing declared, a feature the interpreter
no longer has, arguments the README left out, a folder the copy lacks, data the README prepares
or a loader serves as a stand-in. Each is answered (the environment repaired, the argument
given, the folder made, the data prepared or stood in for) and the entry point runs again,
each kind of rerun within its own bound.
"""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from functools import partial
from pathlib import Path

from miner.codebook import Evidence
from miner.select.arguments import one_device
from miner.select.batches import small_batch
from miner.select.closure import script_in_command
from miner.select.cpu_options import cpu_rerun
from miner.select.data_reruns import stand_in_files_for, wants_data
from miner.select.git_copy import GIT_NEEDED, make_repository
from miner.select.launch_scripts import prepare_launch_script
from miner.select.launchers import launch_env
from miner.select.output_parents import make_output_parent
from miner.select.preparation import PreparationStep, preparation_steps
from miner.select.pythons import interpreter_version
from miner.select.repair import BuildRequest, EnvironmentBuild, build_environment, package_cache_env
from miner.select.repair.envs import python2_interpreters
from miner.select.repair.extensions import extension_repair
from miner.select.repair.generated import run_setup
from miner.select.repair.python2_pins import compiles_on_python2, python2_requirement
from miner.select.repair.records import Repair
from miner.select.repair.runtime import RuntimeFault, install_module, runtime_fault
from miner.select.smoke_records import SmokeOptions, SmokeTarget
from miner.select.training import Training, prepare_steps, train_entry
from miner.select.usage import required_values

# runs again after a repair the training log called for: undeclared imports come one per run
MAX_RERUNS = 5
DATA_RERUNS = 2  # runs again after stand-in files for a missing data set were written


def python_version(venv: Path) -> str:
    """The environment's Python version, as its `pyvenv.cfg` records it ("" when unknown)."""
    try:
        text = (venv / "pyvenv.cfg").read_text(encoding="utf-8")
    except OSError:
        return ""
    match = re.search(r"^version_info\s*=\s*(\S+)", text, re.M)
    return match.group(1) if match else ""


def train_with_reruns(
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
    failed: tuple[PreparationStep, ...] = ()  # steps that did not end well, for after a repair
    prepare = partial(prepare_steps, copy=copy, venv=venv, logs=logs, work=work, base=base,
                      options=options)  # fmt: skip

    for _ in range(MAX_RERUNS + DATA_RERUNS + 8):  # each kind of rerun has its own bound
        if preparation and wants_data(training):
            ran, failed = prepare(preparation)
            notes += ran
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
                ran, failed = prepare(steps)
                notes += ran
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
        py2 = _python2_evidence(training, built, copy)
        if py2 is not None:
            # Python 2 names met at run time (`unicode`, `dict.iteritems`) in code that parses as
            # Python 3, or a failed run of a project that requires what only Python 2 installs
            # (`functools32`): the environment rebuilt on 2.7, once (built.python2 is then true)
            on_27 = install_environment(target, venv, (*built.options, *built.lines), logs,
                                        work, base, options, copy, py2)  # fmt: skip
            if on_27.failure is not None:
                notes.append(f"python2: the 2.7 environment failed: {on_27.failure.text}")
                break
            built = replace(on_27, repairs=(*built.repairs, *on_27.repairs),
                            seconds=built.seconds + on_27.seconds)  # fmt: skip
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
        if failed:  # a step that failed on what the repair fixed (`DataFrame.ix`) runs again
            ran, failed = prepare(failed)
            notes += ran
        training = train_entry(target, copy, venv, logs, work, base, options, started_epoch)
    return training, built


def _python2_evidence(training: Training, built: EnvironmentBuild, copy: Path) -> Evidence | None:
    """Why a failed run on Python 3 is rebuilt on 2.7: Python 2 names met at run time, in files
    that compile there, or a requirement only Python 2 installs; None where it is not (on 2.7
    already, no 2.7 interpreter, another outcome)."""
    if built.python2 or not python2_interpreters():
        return None
    if training.outcome == "python2":
        return training.evidence if compiles_on_python2(copy, built.closure.files) else None
    if training.outcome in ("import", "runtime"):
        return python2_requirement(built, copy)
    return None


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
    was = python_version(venv) or "?"
    with (logs / "install.log").open("a", encoding="utf-8") as fh:
        fh.write(f"miner: {fault.feature} went away in Python {fault.before[0]}."
                 f"{fault.before[1]} ({fault.evidence.path}:{fault.evidence.line}); "
                 "rebuilding on an older interpreter\n")  # fmt: skip
    rebuilt = install_environment(target, venv, (*built.options, *built.lines), logs, work, base,
                       replace(options, pythons=tuple(older)), copy)  # fmt: skip
    repair = Repair("interpreter", f"Python {was}", f"Python {python_version(venv) or '?'}",
                    f"{fault.feature} went away in Python {fault.before[0]}.{fault.before[1]}",
                    fault.evidence)  # fmt: skip
    return replace(rebuilt, repairs=(*built.repairs, repair, *rebuilt.repairs),
                   seconds=built.seconds + rebuilt.seconds)  # fmt: skip


def install_environment(
    target: SmokeTarget,
    venv: Path,
    requirements: tuple[str, ...],
    logs: Path,
    work: Path,
    base: dict[str, str],
    options: SmokeOptions,
    copy: Path,
    python2: Evidence | None = None,
) -> EnvironmentBuild:
    """Make the environment and install the plan into it, repairing what fails
    (miner.select.repair), on 2.7 where `python2` shows Python 2 code the parse did not: the
    failure's evidence (None when it worked), the seconds it took and the repairs applied."""
    request = BuildRequest(
        interpreters=options.pythons or (sys.executable,),
        lines=tuple(ln for ln in requirements if ln.strip()),
        root=copy, command=target.command, venv=venv, work=work,
        log=logs / "install.log", env=package_cache_env(base, options.out_dir),
        timeout=options.install_timeout, commit_date=target.commit_date,
        as_of=options.as_of_commit, python2=python2,
    )  # fmt: skip
    return build_environment(request)
