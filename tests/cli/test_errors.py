"""One place turns MinerError into one line on stderr and exit code 1."""

from __future__ import annotations

from pathlib import Path

import pytest
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


def test_a_ctrl_c_no_command_reports_on_is_one_line_and_exit_130(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import miner.cli.search as search_cli

    def interrupted(*args: object, **kwargs: object) -> None:
        raise KeyboardInterrupt

    monkeypatch.setattr(search_cli, "open_store", interrupted)
    (tmp_path / "data").mkdir()
    result = CliRunner().invoke(app, ["searches", "--study", str(tmp_path)])
    assert result.exit_code == 130 and "Traceback" not in result.output
    assert result.stderr.startswith("interrupted: ") and result.stderr.count("\n") == 1
