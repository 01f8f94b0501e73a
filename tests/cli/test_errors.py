"""One place turns MinerError into one line on stderr and exit code 1."""

from __future__ import annotations

from pathlib import Path

from typer.testing import CliRunner

from miner.cli import app


def test_missing_store_is_one_line_and_exit_1(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["export", "repos", "--study", str(tmp_path)])
    assert result.exit_code == 1
    assert result.stderr.strip().count("\n") == 0
    assert result.stderr.startswith("Error: no store at")
    assert "Traceback" not in result.output


def test_version() -> None:
    result = CliRunner().invoke(app, ["--version"])
    assert result.exit_code == 0 and result.stdout.startswith("miner ")
