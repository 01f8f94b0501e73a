"""`miner codebook [FIELD]`: the shipped codebook text, whole or one field's section."""

from __future__ import annotations

from typer.testing import CliRunner

from miner.cli import app
from miner.codebook import FIELD_NAMES, codebook_text


def test_prints_the_whole_codebook_as_plain_text_off_a_terminal() -> None:
    result = CliRunner().invoke(app, ["codebook"])
    assert result.exit_code == 0, result.output
    assert result.output == codebook_text()


def test_prints_one_field() -> None:
    result = CliRunner().invoke(app, ["codebook", "hw_memory"])
    assert result.exit_code == 0, result.output
    assert result.output.startswith("### `hw_memory`")
    assert "### `hw_gpu`" not in result.output
    assert "`hardware.system_memory`" in result.output


def test_unknown_field_is_one_line_and_exit_code_1() -> None:
    result = CliRunner().invoke(app, ["codebook", "gpu_model"])
    assert result.exit_code == 1
    lines = result.output.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("Error: no codebook field 'gpu_model'")
    assert all(name in lines[0] for name in FIELD_NAMES)
