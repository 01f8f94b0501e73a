"""The `miner` command line: the only typer importer. Each command parses, calls one library
function and renders its result; MinerError becomes one line on stderr and exit code 1 here."""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperGroup

from miner import __version__
from miner.errors import MinerError


class MinerGroup(TyperGroup):
    """Turns every MinerError raised below it into a one-line message and exit code 1, and a
    Ctrl-C no command reported on itself into one line and exit code 130."""

    def invoke(self, ctx: Any) -> Any:  # typer's vendored click Context
        try:
            return super().invoke(ctx)
        except MinerError as exc:
            typer.echo(f"Error: {exc}", err=True)
            raise typer.Exit(1) from None
        except KeyboardInterrupt:
            typer.echo("interrupted: what was finished is saved; run the command again", err=True)
            raise typer.Exit(130) from None


app = typer.Typer(
    cls=MinerGroup,
    name="miner",
    help="Mine GitHub deep-learning projects and audit their software and hardware "
    "requirements, with evidence for every label.",
    no_args_is_help=True,
    pretty_exceptions_show_locals=False,
    add_completion=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"miner {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Show the version and exit."
    ),
) -> None:
    """Mine GitHub deep-learning projects and audit their requirements, with evidence."""


def _register() -> None:
    # Imported here so each command module can import `app` helpers without a cycle.
    # The order is the pipeline's, which is the order `miner --help` lists the commands in.
    import importlib

    for name in (
        "search", "clone", "audit", "lint", "annotate", "report", "select", "smoke", "experiment",
    ):  # fmt: skip
        importlib.import_module(f"miner.cli.{name}")
    importlib.import_module("miner.cli.export")
    importlib.import_module("miner.cli.codebook")


_register()


def main() -> None:
    """Console-script entry point."""
    app()
