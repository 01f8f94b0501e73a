"""`miner experiment`: run a manifest under pinned threads and seeds, and analyze the runs."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from miner.cli import app
from miner.cli.common import StudyOption, is_tty, settings, write_text

if TYPE_CHECKING:
    from miner.experiment.run import RunEvent
    from miner.experiment.settings import NoiseSetting
    from miner.select.manifest import Manifest

experiment_app = typer.Typer(
    help="Run a training command N times per noise setting, thread count and device, then "
    "analyze the spread (the designs of the variance studies).",
    no_args_is_help=True,
)
app.add_typer(experiment_app, name="experiment")


@experiment_app.command("example-manifest")
def example_manifest_cmd(
    framework: Annotated[
        str,
        typer.Option(
            "--framework",
            help="Which shipped example: numpy, cnn or cnn-gpu (the PyTorch CNN sized for a GPU).",
        ),
    ] = "numpy",
    fmt: Annotated[str, typer.Option("--format", help="yaml or json.")] = "yaml",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of printing.")
    ] = None,
) -> None:
    """Write a runnable manifest for miner's shipped example training script."""
    from miner.experiment.examples import example_manifest
    from miner.select.manifest import dump_manifest

    write_text(dump_manifest(example_manifest(framework), fmt), output)


@experiment_app.command("run")
def run_cmd(
    manifest: Annotated[
        Path | None,
        typer.Argument(
            help="Manifest from `miner select` (YAML/JSON), or its folder to run every selected "
            "manifest a smoke run did not fail; omit with --example."
        ),
    ] = None,
    example: Annotated[
        str | None,
        typer.Option(
            "--example",
            help="Run a shipped example instead: numpy, cnn (PyTorch) or cnn-gpu (GPU-sized).",
        ),
    ] = None,
    setting: Annotated[
        str | None,
        typer.Option(
            "--setting",
            help="Noise settings: control, algo, impl, algo+impl; ALGO narrows to init, data, "
            "dropout (e.g. init+impl). Default: impl.",
        ),
    ] = None,
    seed_mode: Annotated[
        str | None,
        typer.Option(
            "--seed-mode",
            help="Pham et al.'s names instead of --setting: random (=algo+impl), fixed (=impl), "
            "fixed+deterministic (=control).",
        ),
    ] = None,
    threads: Annotated[
        str,
        typer.Option(
            "--threads",
            help="Thread counts, e.g. 1,2,6,12 (above the CPU count "
            "is allowed and recorded as oversubscribed).",
        ),
    ] = "1,2",
    device: Annotated[
        str, typer.Option("--device", help="cpu, cuda or cuda:N (several: cpu,cuda:0).")
    ] = "cpu",
    runs: Annotated[int, typer.Option("--runs", "-n", help="Runs per configuration.")] = 5,
    out: Annotated[
        Path | None,
        typer.Option(
            "--out",
            help="Experiment folder (default: data/runs/<manifest name>); for a folder of "
            "manifests, each runs in <out>/<manifest name>.",
        ),
    ] = None,
    python: Annotated[
        str | None, typer.Option("--python", help="Interpreter for {python} (default: this one).")
    ] = None,
    retry_failed: Annotated[
        bool, typer.Option("--retry-failed", help="Run again the runs that failed before.")
    ] = False,
    keep_workdir: Annotated[
        bool, typer.Option("--keep-workdir", help="Keep each run's copy of the checkout.")
    ] = False,
    stand_in_data: Annotated[
        bool,
        typer.Option(
            "--stand-in-data",
            help="Run a manifest whose smoke run trained only on stand-in data, on the same "
            "synthetic data (refused without this).",
        ),
    ] = False,
    cpu_shim: Annotated[
        bool, typer.Option("--cpu-shim", help="Keep hard-coded CUDA on the CPU in every run.")
    ] = False,
    study: StudyOption = None,
) -> None:
    """Run the training N times per configuration, pinned; finished runs are skipped."""
    from miner.errors import ExperimentError
    from miner.experiment.device import parse_devices
    from miner.experiment.examples import load_example
    from miner.experiment.pinning import parse_threads
    from miner.experiment.settings import parse_seed_modes, parse_settings
    from miner.select.manifest import load_manifest
    from miner.select.selected import load_selected
    from miner.select.standins.assists import stand_in_refusal

    if (manifest is None) == (example is None):
        raise ExperimentError("give a MANIFEST or --example NAME (not both)")
    if setting and seed_mode:
        raise ExperimentError("give --setting or --seed-mode (its aliases), not both")
    settings_ = parse_seed_modes(seed_mode) if seed_mode else parse_settings(setting or "impl")
    counts, devices = parse_threads(threads), parse_devices(device)
    factors = (
        counts, settings_, runs, devices, python, retry_failed, keep_workdir, stand_in_data,
        cpu_shim,
    )  # fmt: skip
    if manifest is not None and manifest.is_dir():
        failed = ran = 0
        for loaded in load_selected(manifest):
            if loaded.document.get("runnable") is False:
                typer.echo(f"{loaded.name}: skipped, its smoke run failed", err=True)
                continue
            refusal = stand_in_refusal(loaded.document)
            if refusal and not stand_in_data:
                typer.echo(f"{loaded.name}: skipped, {refusal}", err=True)
                continue
            ran += 1
            folder = (out / loaded.slug) if out else settings(study).runs / loaded.slug
            failed += _run_one(loaded, folder.resolve(), *factors)
        if not ran:
            raise ExperimentError(f"{manifest}: no selected manifest passed its smoke run")
        if failed:
            raise typer.Exit(1)
        return
    loaded = load_manifest(manifest) if manifest is not None else load_example(str(example))
    folder = (out or settings(study).runs / loaded.slug).resolve()
    if _run_one(loaded, folder, *factors):
        raise typer.Exit(1)


def _run_one(
    loaded: Manifest,
    folder: Path,
    counts: tuple[int, ...],
    settings_: tuple[NoiseSetting, ...],
    runs: int,
    devices: tuple[str, ...],
    python: str | None,
    retry_failed: bool,
    keep_workdir: bool,
    stand_in_data: bool = False,
    cpu_shim: bool = False,
) -> int:
    """Run one manifest's experiment with progress lines; how many runs were not ok (a Ctrl-C
    is one line and exit code 130)."""
    from miner.experiment.pinning import usable_cpus
    from miner.experiment.run import finished_runs, plan, run_experiment
    from miner.procs import interruptible

    total = len(plan(counts, settings_, runs, devices))
    cpus = len(usable_cpus())
    over = [t for t in counts if t > cpus]
    typer.echo(
        f"{loaded.name}: {total} runs ({len(settings_)} settings x {len(counts)} thread counts"
        f" x {len(devices)} devices x {runs}) on {cpus} CPUs into {folder}"
        + (f"; oversubscribed: {', '.join(map(str, over))} threads" if over else ""),
        err=True,
    )
    events = run_experiment(
        loaded, folder, counts, settings_, runs, devices, python=python,
        retry_failed=retry_failed, keep_workdir=keep_workdir, stand_in_data=stand_in_data,
        cpu_shim=cpu_shim,
    )  # fmt: skip
    ran = skipped = failed = 0
    try:
        with interruptible():
            for event in _progress(events, total):
                record = event.record
                skipped += event.skipped
                ran += not event.skipped
                failed += record.status != "ok"
    except KeyboardInterrupt:
        typer.echo(
            f"interrupted: {ran} runs recorded by this run ({finished_runs(folder)} of {total} in"
            f" all, the one in progress stopped and removed); run the same command to resume",
            err=True,
        )
        raise typer.Exit(130) from None
    typer.echo(f"ran {ran}, skipped {skipped} finished earlier, {failed} not ok; {folder}/runs.csv")
    return failed


def _progress(events: Iterator[RunEvent], total: int) -> Iterator[RunEvent]:
    """Pass events through, showing a rich bar on a terminal and one line per run otherwise."""
    if is_tty():
        from rich.progress import Progress

        with Progress() as progress:
            task = progress.add_task("runs", total=total)
            for event in events:
                progress.advance(task)
                yield event
        return
    for event in events:
        r = event.record
        shown = sorted((k, v) for k, v in r.metrics.items() if "." not in k)  # not per class
        metrics = " ".join(f"{k}={v:.6g}" for k, v in shown)
        state = "skipped (done)" if event.skipped else f"{r.status} {r.wall_seconds:.2f}s"
        weights = f" weights={r.weights_sha256[:12]}" if r.weights_sha256 else ""
        typer.echo(
            f"{r.config} run {r.run}: {state} cpus={list(r.cpus_applied or [])} {metrics}{weights}"
        )
        yield event


@experiment_app.command("analyze")
def analyze_cmd(
    folders: Annotated[list[Path], typer.Argument(help="Experiment folder(s) holding runs.csv.")],
    fmt: Annotated[
        list[str] | None,
        typer.Option("--format", help="Table format(s) to write: markdown, csv, latex, json."),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Where tables and plots go (default: <folder>/analysis)."),
    ] = None,
    plots: Annotated[bool, typer.Option("--plots/--no-plots", help="Write boxplots.")] = True,
) -> None:
    """Spread, tests, churn, weight distances, overhead, model selection; tables and boxplots."""
    from miner.experiment.analyze import analyze
    from miner.report.render import render

    formats = tuple(fmt or ["markdown", "csv", "latex", "json"])
    target = out or folders[0] / "analysis"
    result = analyze(folders, target, formats, plots=("png", "pdf") if plots else ())
    for key in ("variance", "overhead", "threads"):
        if not result.tables[key].frame.empty:
            typer.echo(render(result.tables[key], "markdown"))
    typer.echo("## Findings\n")
    for line in result.findings:
        typer.echo(f"- {line}")
    typer.echo(f"\n{len(result.files)} files written to {target}", err=True)
