"""Docs that cannot drift: every command has help and appears in the README."""

from __future__ import annotations

from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from miner.cli import app

README = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")


def _commands() -> list[tuple[str, ...]]:
    root = typer.main.get_command(app)
    found: list[tuple[str, ...]] = []
    for name, command in root.commands.items():  # type: ignore[attr-defined]
        found.append((name,))
        for sub in getattr(command, "commands", {}) or {}:
            found.append((name, sub))
    return found


@pytest.mark.parametrize("words", _commands(), ids=" ".join)
def test_every_command_has_help_and_is_in_the_readme(words: tuple[str, ...]) -> None:
    result = CliRunner().invoke(app, [*words, "--help"])
    assert result.exit_code == 0, result.output
    assert "Usage:" in result.output
    assert f"miner {' '.join(words)}" in README, f"README never shows `miner {' '.join(words)}`"


def test_readme_test_command_is_what_ci_runs() -> None:
    ci = (Path(__file__).resolve().parents[2] / ".ci" / "run").read_text(encoding="utf-8")
    command = 'pip install -e ".[dev]" && python -m pytest'
    assert command in README and command in ci


def test_readme_links_the_projects_codebook_and_no_sibling_folder() -> None:
    assert "](docs/codebook.md)" in README
    assert (Path(__file__).resolve().parents[2] / "docs" / "codebook.md").is_file()
    assert "../" not in README, "the README must not send readers outside the project"
