"""`miner smoke`: try the selected projects for real, in a sandbox, and record the outcomes."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from miner.cli import app
from miner.cli.common import DbOption, StudyOption, settings, store_if_present
from miner.cli.select import SmokeTimeout

if TYPE_CHECKING:
    from miner.config import Settings
    from miner.select.smoke import SmokeOptions, SmokeResult

InstallTimeout = Annotated[
    float, typer.Option("--install-timeout", help="Seconds the install step may take.")
]
MemoryOption = Annotated[
    float, typer.Option("--memory", help="Address-space limit of the training step, in GiB.")
]


PythonOption = Annotated[
    str | None,
    typer.Option(
        "--python",
        help="Interpreter(s) of the fresh environments, paths or versions uv finds, "
        "comma-separated (default: the one running miner). With several, each project gets "
        "the newest released a year before its commit.",
    ),
]
AsOfOption = Annotated[
    bool,
    typer.Option(
        "--as-of-commit/--newest",
        help="Resolve dependencies as the package index was on each checkout's commit date "
        "(uv --exclude-newer), or take the newest that fit.",
    ),
]


UntilOption = Annotated[
    str,
    typer.Option(
        "--until",
        help="Stop training at the first optimisation step (`step`: S5, the fastest) or let it "
        "run to the time bound (`end`: S6 when it ends by itself).",
    ),
]
StandInOption = Annotated[
    bool,
    typer.Option(
        "--stand-in-data/--no-stand-in-data",
        help="Where a known loader (torchvision, torchaudio, keras.datasets, tensorflow_datasets, "
        "Hugging Face datasets, scikit-learn fetch_*) finds no data and cannot download it, serve "
        "a synthetic set of its shapes and classes; the outcome reads 'ok (stand-in data)'.",
    ),
]
CpuShimOption = Annotated[
    bool,
    typer.Option(
        "--cpu-shim",
        help="Keep hard-coded CUDA (.cuda(), .to('cuda'), device='cuda', torch.load of GPU "
        "checkpoints, tf.device('/gpu:0')) on the CPU; the outcome reads 'ok (cpu shim)'.",
    ),
]
BatchOption = Annotated[
    bool,
    typer.Option(
        "--small-batch/--full-batch",
        help="Lower the command's training batch (--batch-size, DATA.BATCH_SIZE, "
        "train.batch_size=, or the script's own larger default) to 4, so that one CPU step fits "
        "the memory and time bounds; each change is a note of the run.",
    ),
]
DataOption = Annotated[
    list[str] | None,
    typer.Option(
        "--data",
        help="SRC[:DEST]: copy a data set you have into each run's copy of the checkout at "
        "DEST (relative, default: data). Repeatable.",
    ),
]
FetchOption = Annotated[
    bool,
    typer.Option(
        "--fetch-data",
        help="Before training offline, run the entry point once with the network up so the "
        "known loaders download their data (into <runs>/smoke/data-cache, shared, or the "
        "run's copy); stopped soon after the last loader returns.",
    ),
]


SMOKE_INTERRUPTED = (
    "interrupted: the smoke run in progress was stopped and its copy removed; those finished are "
    "stored"
)


def smoke_options(
    config: Settings,
    timeout: float,
    install_timeout: float = 900.0,
    memory: float = 8.0,
    python: str | None = None,
    as_of_commit: bool = False,
    until: str = "step",
    stand_in_data: bool = True,
    cpu_shim: bool = False,
    data: Sequence[str] = (),
    fetch_data: bool = False,
    small_batch: bool = True,
) -> SmokeOptions:
    """Smoke options from the command line: logs and kept environments under <runs>/smoke."""
    from miner.errors import ConfigError
    from miner.select.sandbox import GIB
    from miner.select.smoke import SmokeOptions
    from miner.select.standins.mounts import DataMount

    if until not in ("step", "end"):
        raise ConfigError(f"--until {until!r}: choose step or end")

    return SmokeOptions(
        out_dir=config.runs / "smoke",
        timeout=timeout,
        install_timeout=install_timeout,
        memory_bytes=int(memory * GIB),
        pythons=tuple(p.strip() for p in (python or "").split(",") if p.strip()),
        as_of_commit=as_of_commit,
        until=until,
        stand_in_data=stand_in_data,
        cpu_shim=cpu_shim,
        data=tuple(DataMount.parse(d) for d in data),
        fetch_data=fetch_data,
        small_batch=small_batch,
    )


def echo_stage(full_name: str, stage: str) -> None:
    """A progress line as a candidate starts and reaches each stage, on stderr."""
    from miner.models import SMOKE_STAGES

    meaning = dict(SMOKE_STAGES).get(stage, "")
    typer.echo(f"smoke  {full_name}  {stage}{'  ' + meaning if meaning else ''}", err=True)


def echo_smoke(result: SmokeResult) -> None:
    """One line per finished smoke run, on stderr."""
    ev = result.evidence
    typer.echo(
        f"smoke  {result.full_name}  {result.label}  {result.stage_name}  {result.seconds:.1f} s "
        f"(install {result.install_seconds:.1f} s, train {result.train_seconds:.1f} s)  "
        f"{ev.path}:{ev.line}  {ev.text}",
        err=True,
    )


def render_outcomes(rows: Sequence[Mapping[str, Any]]) -> None:
    """The outcome share table of smoke runs (store rows), as Markdown on stdout."""
    from miner.report.render import to_markdown
    from miner.report.smoke import ladder_table, outcome_table

    typer.echo(to_markdown(ladder_table(rows)), nl=False)
    typer.echo(to_markdown(outcome_table(rows)), nl=False)


def result_row(result: SmokeResult) -> dict[str, Any]:
    """The columns of a stored smoke run that the ladder and outcome tables read."""
    return {
        "outcome": result.outcome, "network_cut": result.network_cut, "timeout": result.timeout,
        "seconds": result.seconds, "install_seconds": result.install_seconds,
        "train_seconds": result.train_seconds, "stage": result.stage,
        "stage_seconds": result.stage_seconds, "qualifier": result.qualifier,
        "assists": "; ".join(result.assists),
    }  # fmt: skip


@app.command("smoke")
def smoke_cmd(
    names: Annotated[
        list[str] | None,
        typer.Argument(
            help="OWNER/NAME of projects, in the order to try them: a selected manifest when "
            "there is one, else the audited clone in the store (default: every selected one)."
        ),
    ] = None,
    sample: Annotated[
        int | None,
        typer.Option("--sample", help="Try N eligible candidates of the store, drawn at random."),
    ] = None,
    seed: Annotated[
        int, typer.Option("--seed", help="The seed of --sample (the same seed, the same draw).")
    ] = 0,
    manifests: Annotated[
        Path | None,
        typer.Option(
            "--manifests", help="Folder of the selected manifests (default: data/runs/manifests)."
        ),
    ] = None,
    timeout: SmokeTimeout = 300.0,
    install_timeout: InstallTimeout = 900.0,
    memory: MemoryOption = 8.0,
    python: PythonOption = None,
    as_of_commit: AsOfOption = False,
    until: UntilOption = "step",
    stand_in_data: StandInOption = True,
    cpu_shim: CpuShimOption = False,
    data: DataOption = None,
    fetch_data: FetchOption = False,
    batch: BatchOption = True,
    jobs: Annotated[
        int,
        typer.Option(
            "--jobs",
            "-j",
            min=1,
            help="Candidates smoke-tested side by side (fewer when the memory available cannot "
            "hold that many training steps at --memory each). Applies to --sample and to "
            "projects named without a manifest.",
        ),
    ] = 1,
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """Install and briefly train projects in a sandbox, and say how far each got (S0..S6).

    A throw-away copy of the checkout (with the files the clone left out fetched into it), a
    fresh environment made by uv, CPU only, threads pinned, no credentials, memory and time
    limits, no network while training. Outcomes go to the store (`miner report smoke`) and to
    each manifest (`runnable`); a pass on stand-in data or with the CPU shim is shown as
    'ok (stand-in data)' or 'ok (cpu shim)', with what it used.
    """
    from miner.procs import interruptible
    from miner.select.smoke_batch import smoke_named

    config = settings(study, db)
    options = smoke_options(
        config, timeout, install_timeout, memory, python, as_of_commit, until, stand_in_data,
        cpu_shim, data or (), fetch_data, batch,
    )  # fmt: skip
    folder = manifests or config.runs / "manifests"
    try:
        with interruptible(), store_if_present(config) as store:
            results = smoke_named(store, folder, options, tuple(names or ()), sample, seed,
                                  echo_smoke, echo_stage, jobs)  # fmt: skip
    except KeyboardInterrupt:
        typer.echo(SMOKE_INTERRUPTED, err=True)
        raise typer.Exit(130) from None
    render_outcomes([result_row(r) for r in results])
    echo_package_cache(options.env)


def echo_package_cache(env: Mapping[str, str] | None) -> None:
    """Where the package cache every candidate shares is and its size, on stderr."""
    from miner.select.repair import package_cache

    path, size = package_cache(env)
    typer.echo(f"package cache shared by every candidate: {path} ({size / 2**30:.1f} GiB; "
               "`uv cache prune` frees what nothing uses)", err=True)  # fmt: skip
