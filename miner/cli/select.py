"""`miner select`: rank audited repositories for variance experiments and write manifests."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from miner.cli import app
from miner.cli.common import DbOption, StudyOption, is_tty, open_store, settings

if TYPE_CHECKING:
    from miner.select.selection import Selection

SmokeTimeout = Annotated[
    float,
    typer.Option("--smoke-timeout", help="Seconds the training step may run in a smoke run."),
]


@app.command("select")
def select_cmd(
    n: Annotated[int, typer.Option("--n", help="How many candidates to pick.")] = 5,
    require: Annotated[
        str,
        typer.Option(
            "--require",
            help="Criteria a candidate must meet, comma-separated: training_code, "
            "data_available, cpu, pinned, entry_point, seeds, thread_hooks ('' for none).",
        ),
    ] = "training_code,entry_point",
    diversify: Annotated[
        str | None,
        typer.Option(
            "--diversify",
            help="Spread the pick over framework, domain and/or version (greedy), e.g. "
            "framework,domain,version.",
        ),
    ] = None,
    fmt: Annotated[str, typer.Option("--format", help="Manifest format: yaml or json.")] = "yaml",
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Manifest folder (default: data/runs/manifests)."),
    ] = None,
    include_excluded: Annotated[
        bool,
        typer.Option(
            "--include-excluded", help="Also consider repositories the codebook excludes."
        ),
    ] = False,
    smoke: Annotated[
        bool,
        typer.Option(
            "--smoke",
            help="Try every eligible candidate for real first (install and train briefly in a "
            "sandbox, see `miner smoke`); passing candidates rank first.",
        ),
    ] = False,
    smoke_timeout: SmokeTimeout = 300.0,
    smoke_again: Annotated[
        bool,
        typer.Option(
            "--smoke-again",
            help="Smoke-test again the candidates tested before at the same commit (skipped "
            "otherwise, so an interrupted run resumes).",
        ),
    ] = False,
    smoke_python: Annotated[
        str | None,
        typer.Option(
            "--smoke-python",
            help="Interpreter(s) of the smoke environments, comma-separated (see "
            "`miner smoke --python`).",
        ),
    ] = None,
    smoke_as_of_commit: Annotated[
        bool,
        typer.Option(
            "--smoke-as-of-commit",
            help="Resolve smoke installs as the index was on each commit's date.",
        ),
    ] = False,
    smoke_install_timeout: Annotated[
        float,
        typer.Option("--smoke-install-timeout", help="Seconds a smoke run's install may take."),
    ] = 900.0,
    smoke_until: Annotated[
        str,
        typer.Option(
            "--smoke-until",
            help="Stop smoke training at the first step (`step`) or at the bound (`end`).",
        ),
    ] = "step",
    max_candidates: Annotated[
        int | None,
        typer.Option(
            "--max-candidates", help="Smoke-test at most this many candidates, best ranked first."
        ),
    ] = None,
    study: StudyOption = None,
    db: DbOption = None,
) -> None:
    """Rank analyzed repositories for variance experiments and write a manifest per pick.

    Ranking uses static evidence, and with --smoke what a real install and a bounded training
    run showed; each manifest runs with `miner experiment run MANIFEST` (or the whole folder).
    """
    from miner.cli.smoke import (
        SMOKE_INTERRUPTED,
        echo_smoke,
        echo_stage,
        render_outcomes,
        smoke_options,
    )
    from miner.procs import interruptible
    from miner.select.rank import DIVERSITY_KEYS, REQUIREMENTS, parse_names
    from miner.select.selection import SelectOptions, select_candidates

    config = settings(study, db)
    smoking = None
    if smoke:
        smoking = smoke_options(
            config, smoke_timeout, smoke_install_timeout, python=smoke_python,
            as_of_commit=smoke_as_of_commit, until=smoke_until,
        )  # fmt: skip
    options = SelectOptions(
        out_dir=out or config.runs / "manifests",
        n=n,
        require=parse_names(require, REQUIREMENTS, "--require"),
        diversify=parse_names(diversify, DIVERSITY_KEYS, "--diversify"),
        fmt=fmt,
        include_excluded=include_excluded,
        smoke=smoking,
        smoke_again=smoke_again,
        max_candidates=max_candidates,
    )
    try:
        with interruptible(), open_store(config) as store:
            result = select_candidates(store, options, on_smoke=echo_smoke, on_stage=echo_stage)
    except KeyboardInterrupt:
        typer.echo(SMOKE_INTERRUPTED + ", and the same command goes on from there", err=True)
        raise typer.Exit(130) from None
    if smoking is not None:
        render_outcomes(result.smoke_rows)
    _render(result)


def _render(result: Selection) -> None:
    """A table of the picked candidates, then the counts and where the manifests went."""
    rows = []
    for i, c in enumerate(result.picked, start=1):
        entry = c.scan.entry_points[0].script if c.scan.entry_points else "-"
        version = c.version.split(" ", 1)[1]
        rows.append((str(i), c.full_name, f"{c.score:g}", c.framework, version, c.domain,
                     c.cpu["level"], c.cost["level"], result.outcomes.get(c.full_name, "-"),
                     entry))  # fmt: skip
    headers = ("#", "repository", "score", "framework", "version", "domain", "cpu", "cost",
               "smoke", "entry")  # fmt: skip
    if is_tty():
        from rich.console import Console
        from rich.table import Table

        table = Table(*headers)
        for row in rows:
            table.add_row(*row)
        Console().print(table)
    else:
        typer.echo("\t".join(headers))
        for row in rows:
            typer.echo("\t".join(row))
    reasons: dict[str, int] = {}
    for skip in result.skipped:
        key = skip.reason.split(":")[0] if skip.reason.startswith("excluded") else skip.reason
        reasons[key] = reasons.get(key, 0) + 1
    summary = ", ".join(f"{count} {why}" for why, count in sorted(reasons.items()))
    typer.echo(
        f"assessed {len(result.assessed)}, eligible {result.eligible}, picked "
        f"{len(result.picked)}" + (f"; left out: {summary}" if summary else ""),
        err=True,
    )
    for path in result.manifests:
        typer.echo(f"wrote {path}", err=True)
