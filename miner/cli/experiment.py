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
    from miner.select.manifest import Manifest

experiment_app = typer.Typer(
    help="Run a training command N times per thread count and seed mode, then analyze the "
    "spread (the 2021 study's variance experiments).",
    no_args_is_help=True,
)
app.add_typer(experiment_app, name="experiment")


@experiment_app.command("example-manifest")
def example_manifest_cmd(
    framework: Annotated[
        str, typer.Option("--framework", help="Which shipped example (numpy).")
    ] = "numpy",
    fmt: Annotated[str, typer.Option("--format", help="yaml or json.")] = "yaml",
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write here instead of printing.")
    ] = None,
) -> None:
    """Write a runnable manifest for miner's shipped example training script."""
    from miner.select.manifest import dump_manifest, example_manifest

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
        bool, typer.Option("--example", help="Run the shipped NumPy example instead.")
    ] = False,
    threads: Annotated[
        str,
        typer.Option(
            "--threads",
            help="Thread counts, e.g. 1,2,6,12 (above the CPU count "
            "is allowed and recorded as oversubscribed).",
        ),
    ] = "1,2",
    runs: Annotated[int, typer.Option("--runs", "-n", help="Runs per configuration.")] = 5,
    seed_mode: Annotated[
        str, typer.Option("--seed-mode", help="default, fixed, or default,fixed for both.")
    ] = "fixed",
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
    study: StudyOption = None,
) -> None:
    """Run the training N times per configuration, pinned; finished runs are skipped."""
    from miner.errors import ExperimentError
    from miner.experiment.pinning import parse_seed_modes, parse_threads
    from miner.select.manifest import Manifest, example_manifest, load_manifest, run_spec
    from miner.select.selected import load_selected

    if (manifest is None) == (not example):
        raise ExperimentError("give a MANIFEST or --example (not both)")
    counts, modes = parse_threads(threads), parse_seed_modes(seed_mode)
    if manifest is not None and manifest.is_dir():
        failed = ran = 0
        for loaded in load_selected(manifest):
            if loaded.document.get("runnable") is False:
                typer.echo(f"{loaded.name}: skipped, its smoke run failed", err=True)
                continue
            ran += 1
            folder = (out / loaded.slug) if out else settings(study).runs / loaded.slug
            failed += _run_one(loaded, folder, counts, modes, runs, python, retry_failed,
                               keep_workdir)  # fmt: skip
        if not ran:
            raise ExperimentError(f"{manifest}: no selected manifest passed its smoke run")
        if failed:
            raise typer.Exit(1)
        return
    if manifest is not None:
        loaded = load_manifest(manifest)
    else:
        document = example_manifest("numpy")
        loaded = Manifest(document["name"], run_spec(document["run"]), document)
    folder = out or settings(study).runs / loaded.slug
    if _run_one(loaded, folder, counts, modes, runs, python, retry_failed, keep_workdir):
        raise typer.Exit(1)


def _run_one(
    loaded: Manifest,
    folder: Path,
    counts: tuple[int, ...],
    modes: tuple[str, ...],
    runs: int,
    python: str | None,
    retry_failed: bool,
    keep_workdir: bool,
) -> int:
    """Run one manifest's experiment with progress lines; how many runs were not ok."""
    from miner.experiment.pinning import usable_cpus
    from miner.experiment.run import plan, run_experiment

    total = len(plan(counts, modes, runs))
    cpus = len(usable_cpus())
    over = [t for t in counts if t > cpus]
    typer.echo(
        f"{loaded.name}: {total} runs ({len(counts)} thread counts x {len(modes)} seed modes x "
        f"{runs}) on {cpus} CPUs into {folder}"
        + (f"; oversubscribed: {', '.join(map(str, over))} threads" if over else ""),
        err=True,
    )
    events = run_experiment(
        loaded, folder, counts, modes, runs, python=python, retry_failed=retry_failed,
        keep_workdir=keep_workdir,
    )  # fmt: skip
    ran = skipped = failed = 0
    for event in _progress(events, total):
        record = event.record
        skipped += event.skipped
        ran += not event.skipped
        failed += record.status != "ok"
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
        metrics = " ".join(f"{k}={v:.6g}" for k, v in sorted(r.metrics.items()))
        state = "skipped (done)" if event.skipped else f"{r.status} {r.wall_seconds:.2f}s"
        typer.echo(f"{r.config} run {r.run}: {state} cpus={list(r.cpus_applied or [])} {metrics}")
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
    """Spread per configuration, Mann-Whitney U tests, identical results, boxplots."""
    from miner.experiment.analyze import analyze
    from miner.report.render import render

    formats = tuple(fmt or ["markdown", "csv", "latex", "json"])
    target = out or folders[0] / "analysis"
    result = analyze(folders, target, formats, plots=("png", "pdf") if plots else ())
    typer.echo(render(result.summary, "markdown"))
    typer.echo(render(result.identical, "markdown"))
    typer.echo("## Findings\n")
    for line in result.findings:
        typer.echo(f"- {line}")
    typer.echo(f"\n{len(result.files)} files written to {target}", err=True)
