"""The experiment commands through the CLI, and manifest validation."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest
import yaml
from typer.testing import CliRunner

from miner.cli import app
from miner.errors import ExperimentError
from miner.select.manifest import load_manifest

runner = CliRunner()


def test_example_manifest_run_and_analyze(tmp_path):
    manifest = tmp_path / "example.yaml"
    made = runner.invoke(app, ["experiment", "example-manifest", "-o", str(manifest)])
    assert made.exit_code == 0, made.output
    document = yaml.safe_load(manifest.read_text())
    document["run"]["command"] += ["--samples", "400", "--epochs", "2"]
    manifest.write_text(yaml.safe_dump(document))
    out = tmp_path / "runs"
    ran = runner.invoke(
        app,
        ["experiment", "run", str(manifest), "--threads", "1", "--runs", "2", "--out", str(out)],
    )
    assert ran.exit_code == 0, ran.output
    assert "threads-01_impl run 2: ok" in ran.output and "ran 2, skipped 0" in ran.output
    analyzed = runner.invoke(app, ["experiment", "analyze", str(out), "--format", "csv"])
    assert analyzed.exit_code == 0, analyzed.output
    assert "threads-01_impl: bit-identical (one weights hash)" in analyzed.output
    assert (out / "analysis" / "variance.csv").exists()


def test_run_needs_exactly_one_manifest_source(tmp_path):
    result = runner.invoke(app, ["experiment", "run"])
    assert result.exit_code == 1 and "give a MANIFEST or --example" in result.output
    result = runner.invoke(app, ["experiment", "run", "--example", "numpy", "--threads", "0"])
    assert result.exit_code == 1 and "--threads" in result.output
    result = runner.invoke(app, ["experiment", "run", "--example", "tf"])
    assert result.exit_code == 1 and "unknown example 'tf'" in result.output
    both = ["experiment", "run", "--example", "numpy", "--setting", "algo", "--seed-mode", "fixed"]
    result = runner.invoke(app, both)
    assert result.exit_code == 1 and "not both" in result.output


@pytest.mark.skipif(shutil.which("nvidia-smi") is not None, reason="this machine has a GPU")
def test_cuda_without_a_gpu_is_one_line(tmp_path):
    result = runner.invoke(
        app, ["experiment", "run", "--example", "numpy", "--device", "cuda", "--out", str(tmp_path)]
    )
    assert result.exit_code == 1
    assert "no CUDA GPU on this machine" in result.output.strip().splitlines()[-1]
    assert "Traceback" not in result.output
    bad = runner.invoke(app, ["experiment", "run", "--example", "numpy", "--device", "tpu"])
    assert bad.exit_code == 1 and "--device: 'tpu'" in bad.output


@pytest.mark.parametrize(
    ("run", "message"),
    [
        ({"workdir": "run_dir"}, "command is missing"),
        ({"command": ["x"], "workdir": "copy"}, "source: needed"),
        (
            {"command": ["x"], "workdir": "run_dir", "metric_patterns": {"a": "acc"}},
            "capture group",
        ),
        ({"command": ["x"], "workdir": "run_dir", "metric_patterns": {"a": "("}}, "bad regex"),
        ({"command": ["x"], "workdir": "nowhere"}, "workdir"),
    ],
)
def test_manifest_validation(tmp_path: Path, run, message):
    path = tmp_path / "m.yaml"
    path.write_text(yaml.safe_dump({"name": "m", "run": run}))
    with pytest.raises(ExperimentError, match=message):
        load_manifest(path)


def test_manifest_json_and_broken_files(tmp_path: Path):
    good = tmp_path / "m.json"
    good.write_text('{"name": "m", "run": {"command": ["python", "t.py"], "workdir": "run_dir"}}')
    assert load_manifest(good).run.command == ("python", "t.py")
    broken = tmp_path / "b.yaml"
    broken.write_text("run: [unclosed\n")
    with pytest.raises(ExperimentError, match="not valid"):
        load_manifest(broken)
