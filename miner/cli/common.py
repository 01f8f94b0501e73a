"""Options and helpers shared by the commands: the study, the store, output rendering."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Any

import typer

from miner.config import Settings, load_settings
from miner.errors import ConfigError
from miner.store import Store

StudyOption = Annotated[
    Path | None,
    typer.Option(
        "--study",
        envvar="MINER_STUDY_DIR",
        help="Study directory holding data/, annotations/ and reports/ (default: current).",
        show_default=False,
    ),
]
DbOption = Annotated[
    Path | None,
    typer.Option(
        "--db",
        envvar="MINER_DB",
        help="SQLite store (default: data/miner.db under the study directory).",
        show_default=False,
    ),
]


def settings(study: Path | None, db: Path | None = None, **overrides: Any) -> Settings:
    """Resolve settings from the command's options (CLI > env > miner.toml > defaults)."""
    return load_settings(study, db_path=db, **overrides)


def is_tty() -> bool:
    """True when stdout is an interactive terminal (rich progress), False for line output."""
    return sys.stdout.isatty()


def write_text(text: str, output: Path | None) -> None:
    """Print `text`, or write it to `output` and say where it went (on stderr)."""
    if output is None:
        typer.echo(text, nl=not text.endswith("\n"))
    else:
        output.parent.mkdir(parents=True, exist_ok=True)
        output.write_text(text, encoding="utf-8")
        typer.echo(f"wrote {output}", err=True)


def open_store(config: Settings, create: bool = False) -> Store:
    """Open the study's store; unless `create`, a missing store is a one-line error."""
    if not create and not config.db.exists():
        raise ConfigError(f"no store at {config.db}: run `miner search` first (or pass --db)")
    return Store(config.db)


@contextmanager
def store_if_present(config: Settings) -> Iterator[Store | None]:
    """The study's store when it exists (closed afterwards), else None: for optional context."""
    if not config.db.exists():
        yield None
        return
    with Store(config.db) as store:
        yield store
