"""`miner lint`: formats (SARIF checked against a model of 2.1.0), config, exit codes, --fix."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from lint_projects import COMPLETE_README, write_project
from typer.testing import CliRunner

from miner.cli import app

runner = CliRunner()
# Gaps: no GPU stated (MNR101), no Python version (MNR204), no seed (MNR401).
GAPPY = {
    "README.md": COMPLETE_README.replace(
        "Trained on one NVIDIA RTX 3090 (24 GB)", "Trained"
    ).replace("- Python 3.10\n", ""),
    "train.py": None,
    "model.py": "import torch\nnet = torch.nn.Linear(2, 2).cuda()\n"
    "opt = torch.optim.SGD(net.parameters(), lr=0.1)\nloss = net(torch.ones(2)).sum()\n"
    "loss.backward()\nopt.step()\n",
}


def test_text_output_is_path_line_code_message_with_evidence_and_fix(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", GAPPY)
    result = runner.invoke(app, ["lint", str(root)])
    assert result.exit_code == 1, result.output
    lines = result.output.splitlines()
    assert (
        "README.md:1: MNR101 the code trains on a GPU, but the docs name no GPU model" in lines[0]
    )
    assert lines[1].startswith("    because model.py:2")
    assert any(line.startswith("    fix: ") for line in lines)
    assert lines[-1].endswith("findings")


def test_exit_zero_when_nothing_is_found(tmp_path: Path) -> None:
    result = runner.invoke(app, ["lint", str(write_project(tmp_path / "p"))])
    assert (result.exit_code, result.output.strip()) == (0, "no findings")


def test_select_and_ignore_take_codes_and_prefixes(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", GAPPY)

    def found(*args: str) -> set[str]:
        out = runner.invoke(app, ["lint", str(root), "--format", "json", *args]).output
        return {f["code"] for f in json.loads(out)["findings"]}

    everything = found()
    assert {"MNR101", "MNR204", "MNR401"} <= everything
    assert found("--select", "MNR1") == {"MNR101"}
    assert found("--ignore", "MNR101,MNR4") == everything - {"MNR101", "MNR401", "MNR402"}


def test_project_config_in_pyproject(tmp_path: Path) -> None:
    config = (
        '[project]\nname = "t"\nrequires-python = ">=3.9"\n\n[tool.miner.lint]\nignore = ["MNR1"]\n'
    )
    root = write_project(tmp_path / "p", {**GAPPY, "pyproject.toml": config})
    out = json.loads(runner.invoke(app, ["lint", str(root), "-f", "json"]).output)
    assert out["config"].endswith("pyproject.toml")
    assert "MNR101" not in {f["code"] for f in out["findings"]}
    # the command line's --select wins over the file's (empty) select
    only = json.loads(
        runner.invoke(app, ["lint", str(root), "-f", "json", "--select", "MNR4"]).output
    )
    # trained on a GPU: MNR401's fix asks for no thread count (MNR402 is retired into it)
    assert {f["code"] for f in only["findings"]} == {"MNR401"}
    assert "thread" not in only["findings"][0]["fix"]


def test_usage_and_input_errors_exit_2_findings_exit_1(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p")
    bad = runner.invoke(app, ["lint", str(root), "--select", "XYZ9"])
    assert bad.exit_code == 2 and "unknown lint code 'XYZ9'" in bad.output
    missing = runner.invoke(app, ["lint", str(tmp_path / "nope")])
    assert missing.exit_code == 2 and "not a folder" in missing.output
    assert runner.invoke(app, ["lint", str(root), "--no-such-option"]).exit_code == 2
    (root / "pyproject.toml").write_text("[tool.miner.lint]\nselect = 3\n")
    config = runner.invoke(app, ["lint", str(root)])
    assert config.exit_code == 2 and "select must be a list of codes" in config.output
    gappy = runner.invoke(app, ["lint", str(write_project(tmp_path / "q", GAPPY))])
    assert gappy.exit_code == 1
    # a retired code is still a known code: selecting it alone finds nothing
    retired = runner.invoke(app, ["lint", str(tmp_path / "q"), "--select", "MNR402"])
    assert (retired.exit_code, retired.output.strip()) == (0, "no findings")


def test_statistics_count_findings_per_code(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", GAPPY)
    result = runner.invoke(app, ["lint", str(root), "--statistics"])
    assert result.exit_code == 1
    rows = [line.split() for line in result.output.splitlines()]
    assert ["1", "MNR101", "gpu-unstated"] in rows and ["1", "MNR204", "python-unstated"] in rows


def test_a_folder_with_nothing_to_lint_warns(tmp_path: Path) -> None:
    (tmp_path / "empty").mkdir()
    (tmp_path / "empty" / "sub").mkdir()
    (tmp_path / "empty" / "sub" / "photo.jpg").write_bytes(b"\xff\xd8")
    result = runner.invoke(app, ["lint", str(tmp_path / "empty")])
    assert result.exit_code == 0 and "nothing to lint" in result.output


def test_help_renders_the_config_table_and_exit_codes() -> None:
    text = " ".join(runner.invoke(app, ["lint", "--help"]).output.split())
    assert "[tool.miner.lint]" in text
    assert "0 no findings, 1 findings, 2 a usage or input error" in text.replace("│ ", "")


def test_every_finding_prints_its_evidence(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", GAPPY)
    out = json.loads(runner.invoke(app, ["lint", str(root), "-f", "json"]).output)
    assert out["findings"] and all(f["evidence"] for f in out["findings"])
    (python,) = [f for f in out["findings"] if f["code"] == "MNR204"]
    assert python["evidence"][0]["text"] == "README.md, requirements.txt: no Python version"


def _no_extras(model: object, where: str = "sarif") -> None:
    """sarif-pydantic allows unknown keys; a key it does not know is a misspelt SARIF field."""
    from pydantic import BaseModel

    if isinstance(model, BaseModel):
        assert not model.model_extra, f"{where}: unknown SARIF keys {list(model.model_extra)}"
        for name in type(model).model_fields:
            _no_extras(getattr(model, name), f"{where}.{name}")
    elif isinstance(model, list):
        for i, item in enumerate(model):
            _no_extras(item, f"{where}[{i}]")
    elif isinstance(model, dict):
        for key, item in model.items():
            _no_extras(item, f"{where}.{key}")


def test_sarif_is_valid_sarif_2_1_0(tmp_path: Path) -> None:
    from sarif_pydantic import Sarif

    root = write_project(tmp_path / "p", GAPPY)
    result = runner.invoke(app, ["lint", str(root), "--format", "sarif"])
    raw = json.loads(result.output)
    log = Sarif.model_validate(raw)
    _no_extras(log)
    assert log.version == "2.1.0"
    (run,) = log.runs
    rule_ids = [rule.id for rule in run.tool.driver.rules or []]
    assert {"MNR101", "MNR204"} <= set(rule_ids)
    for res in run.results or []:
        assert rule_ids[res.rule_index] == res.rule_id
        region = res.locations[0].physical_location.region
        assert region.start_line >= 1
    first = raw["runs"][0]["results"][0]
    assert first["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "README.md"


def test_fix_writes_a_separate_file_and_never_the_readme(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", GAPPY)
    before = (root / "README.md").read_bytes()
    result = runner.invoke(app, ["lint", str(root), "--fix"])
    assert result.exit_code == 1
    suggested = (root / "REQUIREMENTS.suggested.md").read_text()
    assert (root / "README.md").read_bytes() == before
    assert suggested.startswith("## Requirements")
    assert "torch==2.1.0 (from requirements.txt:1)" in suggested
    assert "<N> x <GPU model>" in suggested and "Python: <3.x>" in suggested


@pytest.mark.skipif(shutil.which("pre-commit") is None, reason="pre-commit is not installed")
def test_the_pre_commit_hook_runs_under_pre_commit(tmp_path: Path) -> None:
    """pre-commit itself reads the project's .pre-commit-hooks.yaml and runs the hook."""
    hooks = Path(__file__).resolve().parents[2] / ".pre-commit-hooks.yaml"
    hook_repo = tmp_path / "hooks"
    hook_repo.mkdir()
    shutil.copy(hooks, hook_repo / ".pre-commit-hooks.yaml")
    env = {
        "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@t", "HOME": str(tmp_path), "PRE_COMMIT_HOME": str(tmp_path / "c"),
        "PATH": f"{Path(sys.executable).parent}:{os.environ.get('PATH', '/usr/bin:/bin')}",
    }  # fmt: skip
    if "PYTHONPATH" in os.environ:
        env["PYTHONPATH"] = os.environ["PYTHONPATH"]

    def git(cwd: Path, *args: str) -> None:
        subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)

    git(hook_repo, "init", "-q")
    git(hook_repo, "add", ".")
    git(hook_repo, "commit", "-qm", "hooks")
    for name, files, expected in (("gappy", GAPPY, 1), ("complete", {}, 0)):
        project = write_project(tmp_path / name, files)
        git(project, "init", "-q")
        git(project, "add", ".")
        run = subprocess.run(
            [sys.executable, "-m", "pre_commit", "try-repo", str(hook_repo), "miner-lint-system",
             "--all-files"],
            cwd=project, env=env, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
        assert run.returncode == expected, run.stdout + run.stderr
        if expected:
            assert "MNR101" in run.stdout
