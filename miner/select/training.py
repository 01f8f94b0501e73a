"""The training step of a smoke run: the entry point run pinned, limited and offline, with the
stage hook loaded, stopped at the first optimisation step (or at the time bound), classified."""

from __future__ import annotations

import os
import re
import shlex
import time
from dataclasses import dataclass, replace
from pathlib import Path

from miner.codebook import Evidence
from miner.select.arguments import make_output_folders
from miner.select.ladder import Marks, ProgressWatch, hook_env
from miner.select.launchers import launcher_folder
from miner.select.manifest import example_dir
from miner.select.outcomes import classify_training
from miner.select.preparation import PreparationStep
from miner.select.sandbox import Limits, first_new_file, network_cut_prefix, pinned, run_bounded
from miner.select.smoke_records import SmokeOptions, SmokeTarget
from miner.select.standins.assists import REPORT_DIR, assist_env
from miner.select.standins.fetch import DATA_CACHE, cache_env, fetch_data

PLACEHOLDER = re.compile(r"\{(python|example_dir|source|workdir|run_dir|seed|threads)\}")


@dataclass(frozen=True)
class Training:
    """How the training step ended."""

    outcome: str
    evidence: Evidence
    exit_code: int | None
    seconds: float
    network_cut: bool
    command: str
    marks: Marks
    step_at: float | None  # seconds since the smoke run started when the first step showed
    stopped_at_step: bool  # stopped by miner at the first step (S5), not at the bound
    ended: bool  # exited by itself with status 0
    progress: bool  # a training step (or weights written) was seen


# wandb's distribution folder in an environment: `wandb-0.8.36.dist-info` (or `.egg-info`)
WANDB_DIST = re.compile(r"^wandb-(\d+)\.(\d+)[^/]*\.(?:dist|egg)-info$")


def wandb_mode(venv: Path) -> str:
    """The WANDB_MODE that keeps the environment's wandb off the network: `disabled`, which
    wandb 0.10 brought; before it only `dryrun` and `run` were valid, and an old wandb stops
    at any other value ("The WANDB_MODE environment variable is invalid")."""
    for folder in venv.glob("lib/python*/site-packages/wandb-*"):
        found = WANDB_DIST.match(folder.name)
        if found and (int(found.group(1)), int(found.group(2))) < (0, 10):
            return "dryrun"
    return "disabled"


def _expand(text: str, values: dict[str, str]) -> str:
    return PLACEHOLDER.sub(lambda m: values.get(m.group(1), m.group(0)), text)


def train_entry(
    target: SmokeTarget,
    copy: Path,
    venv: Path,
    logs: Path,
    work: Path,
    base: dict[str, str],
    options: SmokeOptions,
    started_epoch: float,
) -> Training:
    """Run the entry point pinned, limited and offline; classify its log and its marks."""
    marks_file = logs / "stages.txt"
    command, env, limits = _launch(target.command, copy, venv, logs, work, base, options,
                                   marks_file)  # fmt: skip
    make_output_folders(command, logs)
    prefix = network_cut_prefix() if options.cut_network else None
    argv = [*(prefix or ()), *command]
    if options.fetch_data:  # downloads go to a cache all candidates share, or into the copy
        env.update(cache_env(options.out_dir.resolve() / DATA_CACHE))
        fetch_env = {**env, "MINER_SMOKE_MARKS": str(logs / "fetch-stages.txt")}  # not S3/S4
        step = (command, copy, fetch_env, logs / REPORT_DIR / "fetch", logs / "fetch.log")
        fetch_data(*step, options.fetch_timeout, limits)
    log = _fresh_log(logs / "train.log")
    since = time.time()
    watch = ProgressWatch(log, marks_file)
    step_at: list[float] = []

    def at_step() -> bool:
        if not step_at and watch():
            step_at.append(time.time() - started_epoch)
        return bool(step_at) and options.until == "step"

    done = run_bounded(argv, copy, env, log, options.timeout, limits, stop_when=at_step)
    at_step()  # a step printed just before the end
    wrote = first_new_file(copy, target.weights, since)
    marks = Marks.read(marks_file, started_epoch)
    if done.stopped and watch.line is not None:
        number = _line_number(log, watch.line)
        outcome, evidence = "ok", Evidence(log.name, number, watch.line.strip()[:500],
                                           "smoke.ok.step")  # fmt: skip
    elif done.stopped and watch.mark is not None:
        outcome, evidence = "ok", _marked_step(marks_file, watch.mark)
    else:
        outcome, evidence = classify_training(
            log, done.exit_code, done.timed_out, options.timeout, wrote
        )
        if evidence.rule == "smoke.timeout" and done.queued >= 1:
            waited = f"{evidence.text}, and {done.queued:.0f} s more that it waited for a CPU"
            evidence = replace(evidence, text=waited)
        if evidence.rule == "smoke.runtime.no_progress" and watch.mark is not None:
            outcome, evidence = "ok", _marked_step(marks_file, watch.mark)  # a silent step
    progress = outcome == "ok" or bool(step_at)  # a step, even if the run crashed after it
    if progress and not step_at:
        step_at.append(time.time() - started_epoch)
    return Training(
        outcome=outcome,
        evidence=evidence,
        exit_code=done.exit_code,
        seconds=done.seconds,
        network_cut=prefix is not None,
        command=shlex.join(command),
        marks=marks,
        step_at=step_at[0] if step_at else None,
        stopped_at_step=done.stopped,
        ended=done.exit_code == 0 and not done.timed_out and not done.stopped,
        progress=progress,
    )


def _launch(
    words: tuple[str, ...], copy: Path, venv: Path, logs: Path, work: Path,
    base: dict[str, str], options: SmokeOptions, marks_file: Path,
) -> tuple[list[str], dict[str, str], Limits]:  # fmt: skip
    """The command with the run's values put in, the environment a step of the run gets (the
    project's interpreter first, CPU only, threads pinned, the hooks loaded) and its limits."""
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
    command = [_expand(a, values) for a in words]
    home = work / "home"
    home.mkdir(exist_ok=True)
    env = {
        **base,
        **thread_env,
        "HOME": str(home),  # no dotfiles of the host (credentials, caches) reach the project
        "VIRTUAL_ENV": str(venv),
        "PATH": os.pathsep.join(
            (
                # the launchers' stand-ins first: a script's `deepspeed` is the stand-in, not
                # the environment's own launcher, which refuses to start without a GPU
                str(launcher_folder(work, options.cpu_shim and options.claim_gpu)),
                str(venv / "bin"),
                base.get("PATH", os.defpath),
            )  # fmt: skip
        ),
        "CUDA_VISIBLE_DEVICES": "",  # CPU only, even on a machine with GPUs
        "PYTHONUNBUFFERED": "1",
        "MPLBACKEND": "Agg",
        # no screen and no sound card: pygame's games (SDL), Qt and OpenGL windows draw and play
        # into nothing rather than stop at "No available video device"
        "SDL_VIDEODRIVER": "dummy",
        "SDL_AUDIODRIVER": "dummy",
        "QT_QPA_PLATFORM": "offscreen",
        # PyTorch loads every installed device back-end (torch_npu, ...) at import; a CPU run
        # needs none, and one whose runtime is missing stops the import.
        "TORCH_DEVICE_BACKEND_AUTOLOAD": "0",
        "JAX_PLATFORMS": "cpu",  # JAX stops at a GPU plug-in it cannot start unless told
        # Weights & Biases asks for an API key when its run starts online: a run with no
        # network and no credentials logs nowhere instead (`wandb.init` returns a stand-in run)
        "WANDB_MODE": wandb_mode(venv),
        "WANDB_SILENT": "true",
        # the path hook puts these on sys.path (repair.envs): the root, nested projects' roots
        "MINER_CHECKOUT_ROOT": base.get("MINER_CHECKOUT_ROOT") or str(copy),
        **hook_env(marks_file, base),
    }
    # The stand-in hook goes first on the path; it runs the stage hook after it.
    env.update(assist_env(env, logs / REPORT_DIR, options.stand_in_data, options.cpu_shim,
                          work / "standin-files", options.claim_gpu))  # fmt: skip
    limits = Limits(
        memory_bytes=options.memory_bytes,
        cpu_seconds=int(options.timeout * len(cpus)) + 30,
        cpus=cpus,
    )
    return command, env, limits


def prepare_data(
    steps: tuple[PreparationStep, ...], copy: Path, venv: Path, logs: Path, work: Path,
    base: dict[str, str], options: SmokeOptions,
) -> list[str]:  # fmt: skip
    """Run the README's data-preparation steps in the copy, each bounded like training, with
    the network cut unless the run may fetch data; one note per step saying how it ended."""
    notes = []
    marks_file = logs / "prepare-stages.txt"  # a preparation step is no training stage
    for step in steps:
        command, env, limits = _launch(step.argv, copy, venv, logs, work, base, options,
                                       marks_file)  # fmt: skip
        cut = options.cut_network and not options.fetch_data
        prefix = network_cut_prefix() if cut else None
        argv = [*(prefix or ()), *command]
        done = run_bounded(argv, copy / step.folder, env, logs / "prepare.log",
                           options.timeout, limits)  # fmt: skip
        ended = ("timed out" if done.timed_out else
                 "exit 0" if done.exit_code == 0 else f"exit {done.exit_code}")  # fmt: skip
        notes.append(f"data preparation ({ended}, {done.seconds:.1f} s): {step.note()}")
    return notes


PREPARED = "data preparation (exit 0,"  # the note of a step that ended well


def prepare_steps(
    steps: tuple[PreparationStep, ...], copy: Path, venv: Path, logs: Path, work: Path,
    base: dict[str, str], options: SmokeOptions,
) -> tuple[list[str], tuple[PreparationStep, ...]]:  # fmt: skip
    """`prepare_data`'s notes, and the steps that did not end well (to run again once a repair
    has fixed what they stopped on)."""
    notes = prepare_data(steps, copy, venv, logs, work, base, options)
    failed = tuple(s for s, note in zip(steps, notes, strict=True) if not note.startswith(PREPARED))
    return notes, failed


def _fresh_log(log: Path) -> Path:
    """`log`, empty: an earlier attempt's (a run repeated after a repair) is kept as
    `train.1.log`, `train.2.log`, ..., so each run is classified by its own lines."""
    if log.exists():
        number = 1
        while log.with_name(f"{log.stem}.{number}{log.suffix}").exists():
            number += 1
        log.rename(log.with_name(f"{log.stem}.{number}{log.suffix}"))
    return log


def _marked_step(marks_file: Path, mark: tuple[int, str]) -> Evidence:
    number, line = mark
    called = line.split(" ", 2)[-1]
    text = f"an optimisation step returned: {called}"
    return Evidence(marks_file.name, number, text, "smoke.ok.step_mark")


def _line_number(log: Path, line: str) -> int:
    try:
        lines = re.split(r"[\r\n]", log.read_text(encoding="utf-8", errors="replace"))
    except OSError:
        return 0
    for no, text in enumerate(lines, start=1):
        if text == line:
            return no
    return 0
