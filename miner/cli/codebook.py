"""`miner codebook [FIELD]`: what each label means and which rule sets it."""

from __future__ import annotations

from typing import Annotated

import typer

from miner.cli import app
from miner.cli.common import is_tty
from miner.codebook import codebook_text


@app.command("codebook")
def codebook_command(
    field: Annotated[
        str | None,
        typer.Argument(
            help="One codebook field, e.g. hw_gpu (default: the whole codebook).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Print the codebook: every label, its values and the rule that sets it."""
    text = codebook_text(field)
    if not is_tty():
        typer.echo(text, nl=False)
        return
    from rich.console import Console
    from rich.markdown import Markdown

    Console().print(Markdown(text))
