"""`miner lint [PATH]`: the requirements a project's docs leave out, as linter findings."""

from __future__ import annotations

from enum import Enum
from pathlib import Path
from typing import Annotated

import typer

from miner.cli import app


class LintFormat(str, Enum):
    text = "text"
    json = "json"
    sarif = "sarif"


def _codes(values: list[str] | None) -> tuple[str, ...]:
    return tuple(c.strip() for v in values or [] for c in v.split(",") if c.strip())


@app.command("lint")
def lint_command(
    path: Annotated[Path, typer.Argument(help="The project folder to lint.")] = Path("."),
    fmt: Annotated[
        LintFormat, typer.Option("--format", "-f", help="text, json, or sarif (code scanning).")
    ] = LintFormat.text,
    select: Annotated[
        list[str] | None,
        typer.Option("--select", help="Only these codes or prefixes (MNR1,MNR204); repeatable."),
    ] = None,
    ignore: Annotated[
        list[str] | None, typer.Option("--ignore", help="Leave out these codes or prefixes.")
    ] = None,
    output: Annotated[
        Path | None, typer.Option("--output", "-o", help="Write the findings to this file.")
    ] = None,
    fix: Annotated[
        bool,
        typer.Option(
            "--fix",
            help="Write a suggested Requirements section to a separate file "
            "(never into the README).",
        ),
    ] = False,
    fix_file: Annotated[
        Path | None,
        typer.Option(
            "--fix-file", help="Where --fix writes (default: PATH/REQUIREMENTS.suggested.md)."
        ),
    ] = None,
    statistics: Annotated[
        bool, typer.Option("--statistics", help="Print the number of findings per code instead.")
    ] = False,
) -> None:
    """Report which requirements a project's docs leave out: the GPU its code trains on,
    framework and Python versions, seeds and threads (and, opt-in with --select MNR301, how
    to get the data). Each finding is `path:line: CODE message` with its evidence and a fix.
    Exit status: 0 no findings, 1 findings, 2 a usage or input error. Codes can be selected
    or ignored here or in pyproject.toml's \\[tool.miner.lint] table."""
    from miner.errors import MinerError
    from miner.lint import RENDERERS, LintOptions, lint, requirements_markdown
    from miner.lint.output import statistics as per_code

    try:
        report = lint(path, LintOptions(select=_codes(select), ignore=_codes(ignore)))
    except MinerError as exc:  # a bad option, path or config: usage, not findings
        typer.echo(f"Error: {exc}", err=True)
        raise typer.Exit(2) from None
    if report.empty:
        typer.echo(
            f"warning: {path}: nothing to lint (no code, docs or dependency files)", err=True
        )
    text = per_code(report) if statistics else RENDERERS[fmt.value](report)
    if output:
        output.write_text(text + "\n", encoding="utf-8")
    elif text:
        typer.echo(text)
    if fix:
        target = fix_file or path / "REQUIREMENTS.suggested.md"
        name = path.resolve().name
        target.write_text(requirements_markdown(name, report.suggestions), encoding="utf-8")
        typer.echo(f"suggested Requirements section written to {target}", err=True)
    if report.findings:
        raise typer.Exit(1)
