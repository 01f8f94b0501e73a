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
    stand_in_data: bool = True,
    cpu_shim: bool = False,
    data: Sequence[str] = (),
    fetch_data: bool = False,
) -> SmokeOptions:
    """Smoke options from the command line: logs and kept environments under <runs>/smoke."""
    from miner.select.sandbox import GIB
    from miner.select.smoke import SmokeOptions
    from miner.select.standins.mounts import DataMount

    return SmokeOptions(
        out_dir=config.runs / "smoke",
        timeout=timeout,
        install_timeout=install_timeout,
        memory_bytes=int(memory * GIB),
        pythons=tuple(p.strip() for p in (python or "").split(",") if p.strip()),
        as_of_commit=as_of_commit,
        stand_in_data=stand_in_data,
        cpu_shim=cpu_shim,
        data=tuple(DataMount.parse(d) for d in data),
        fetch_data=fetch_data,
    )


def echo_smoke(result: SmokeResult) -> None:
    """One line per finished smoke run, on stderr."""
    ev = result.evidence
    typer.echo(
        f"smoke  {result.full_name}  {result.label}  {result.seconds:.1f} s "
        f"(install {result.install_seconds:.1f} s, train {result.train_seconds:.1f} s)  "
        f"{ev.path}:{ev.line}  {ev.text}",
        err=True,
    )


def render_outcomes(rows: Sequence[Mapping[str, Any]]) -> None:
    """The outcome share table of smoke runs (store rows), as Markdown on stdout."""
    from miner.report.render import to_markdown
    from miner.report.smoke import outcome_table

    typer.echo(to_markdown(outcome_table(rows)), nl=False)


def result_row(result: SmokeResult) -> dict[str, Any]:
    """The columns of a stored smoke run that the outcome table reads."""
    return {
        "outcome": result.outcome, "network_cut": result.network_cut, "timeout": result.timeout,
        "seconds": result.seconds, "install_seconds": result.install_seconds,
        "train_seconds": result.train_seconds, "assists": "; ".join(result.assists),
    }  # fmt: skip


@app.command("smoke")
def smoke_cmd(
    names: Annotated[
        list[str] | None,
        typer.Argument(help="OWNER/NAME of selected projects (default: every selected one)."),
    ] = None,
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
    stand_in_data: StandInOption = True,
    cpu_shim: CpuShimOption = False,
    data: DataOption = None,
    fetch_data: FetchOption = False,
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """Install and briefly train each selected project in a sandbox, and classify the outcome.

    A throw-away copy of the checkout, a fresh environment made by uv, CPU only, threads pinned,
    no credentials, memory and time limits, no network while training. Outcomes go to the store
    (`miner report smoke`) and to each manifest (`runnable`); a pass on stand-in data or with
    the CPU shim is shown as 'ok (stand-in data)' or 'ok (cpu shim)', with what it used.
    """
    from miner.procs import interruptible
    from miner.select.selected import smoke_selected

    config = settings(study, db)
    options = smoke_options(
        config, timeout, install_timeout, memory, python, as_of_commit, stand_in_data, cpu_shim,
        data or (), fetch_data,
    )  # fmt: skip
    folder = manifests or config.runs / "manifests"
    try:
        with interruptible(), store_if_present(config) as store:
            results = smoke_selected(folder, options, tuple(names or ()), store, echo_smoke)
    except KeyboardInterrupt:
        typer.echo(SMOKE_INTERRUPTED, err=True)
        raise typer.Exit(130) from None
    render_outcomes([result_row(r) for r in results])
