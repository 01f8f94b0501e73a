"""The audit's shape, its robustness on hostile input, and `analyze` over the store."""

from __future__ import annotations

import json
import os
from pathlib import Path

from typer.testing import CliRunner

from miner.audit import analyze, audit, summarise
from miner.cli import app
from miner.codebook import FIELD_NAMES, FIELDS
from miner.store import Store

PROJECT = {
    "README.md": (
        "# Net\nA PyTorch CNN for image classification.\n\n## Requirements\n"
        "- PyTorch 1.7\n\nWe trained on a GTX 1080 Ti.\n"
    ),
    "requirements.txt": "torch==1.7.1\nnumpy\n",
    "model.py": "import torch.nn as nn\nclass Net(nn.Module):\n    def __init__(self):\n"
    "        super().__init__()\n        self.conv = nn.Conv2d(3, 8, 3)\n",
    "train.py": "import torch\nfrom model import Net\n"
    "opt = torch.optim.SGD(Net().parameters(), 0.1)\nloss.backward()\nopt.step()\n",
}


def _project(root: Path, extra: dict[str, str | bytes] | None = None) -> Path:
    for rel, content in {**PROJECT, **(extra or {})}.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)
    return root


def _check_shape(data: dict[str, object]) -> None:
    assert list(data)[: len(FIELD_NAMES)] == list(FIELD_NAMES)
    assert {"evidence", "warnings", "details"} <= set(data)
    for spec in FIELDS:
        value = data[spec.name]
        if spec.kind == "bool":
            assert isinstance(value, bool), spec.name
        elif spec.kind == "set":
            assert isinstance(value, list) and value == sorted(value), spec.name
            assert all(spec.allows(v) for v in value), spec.name
        else:
            assert isinstance(value, str) and spec.allows(value), (spec.name, value)
    evidence = data["evidence"]
    assert isinstance(evidence, dict)
    for items in evidence.values():
        for item in items:
            assert set(item) == {"path", "line", "text", "rule"}


def test_audit_json_has_every_codebook_field_with_evidence(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["audit", str(_project(tmp_path)), "--format", "json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.stdout)
    _check_shape(data)
    assert data["software_req"] is True and data["dependency_file"] is True
    assert data["primary_framework"] == "pytorch"
    assert data["hw_gpu"] is True
    gpu = data["evidence"]["hw_gpu"][0]
    assert (gpu["path"], gpu["line"]) == ("README.md", 7) and "GTX 1080 Ti" in gpu["text"]


def test_audit_text_lists_every_field(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["audit", str(_project(tmp_path))])
    assert result.exit_code == 0, result.output
    for name in FIELD_NAMES:
        assert name in result.stdout


def test_hostile_input_gives_warnings_not_failures(tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("Tested on a Tesla V100.\n")
    root = _project(
        tmp_path / "repo",
        {
            "broken.ipynb": "{ not json",
            "setup.py": "from setuptools import setup\nsetup(install_requires=['torch'\n",
            "environment.yml": "dependencies: [\n  - : :\n",
            "pyproject.toml": "[project\n",
            "weights.pth": b"\x00\xff" * 5000,
            "notes.md": "caf\xe9 na\xefve".encode("latin-1"),
        },
    )
    os.symlink(outside, root / "HARDWARE.md")
    result = audit(root)
    _check_shape(json.loads(json.dumps(result.as_dict())))
    assert not any("failed:" in w for w in result.warnings), result.warnings
    assert any("symlink out of the checkout" in w for w in result.warnings)
    # the V100 sentence sits outside the checkout: it must not count
    assert all("V100" not in e.text for e in result.labels["hw_gpu"].evidence)


def test_audit_of_a_missing_folder_is_a_one_line_error(tmp_path: Path) -> None:
    result = CliRunner().invoke(app, ["audit", str(tmp_path / "nope")])
    assert result.exit_code != 0


def _store_with_clones(tmp_path: Path) -> Store:
    store = Store(tmp_path / "miner.db")
    ok = _project(tmp_path / "repos" / "a" / "ok")
    for repo_id, name, path, archived in (
        (1, "a/ok", ok, 0),
        (2, "a/gone", tmp_path / "repos" / "a" / "gone", 0),
        (3, "a/old", ok, 1),
    ):
        store.upsert(
            "repos",
            [
                {
                    "id": repo_id,
                    "full_name": name,
                    "archived": archived,
                    "first_seen": "t",
                    "last_seen": "t",
                }
            ],  # fmt: skip
            key=["id"],
        )
        store.upsert(
            "clones",
            [
                {
                    "repo_id": repo_id,
                    "full_name": name,
                    "path": str(path),
                    "status": "cloned",
                    "commit_sha": f"{repo_id:040d}",
                    "cloned_at": "t",
                }
            ],  # fmt: skip
            key=["repo_id"],
        )
    return store


def test_analyze_persists_labels_resumes_and_survives_a_broken_repo(tmp_path: Path) -> None:
    with _store_with_clones(tmp_path) as store:
        first = summarise(analyze(store, workers=2))
        assert (first.audited, first.failed, first.skipped) == (2, 1, 0)
        frame = store.labels_frame()
        assert sorted(frame["full_name"]) == ["a/ok", "a/old"]
        row = frame.set_index("full_name").loc["a/ok"]
        assert row["software_req"] == "yes" and row["primary_framework"] == "pytorch"
        assert "archived" in frame.set_index("full_name").loc["a/old", "exclude"].split(";")
        assert store.evidence_for(1, f"{1:040d}", "hw_gpu")[0].path == "README.md"
        again = summarise(analyze(store, workers=1))
        assert (again.audited, again.failed, again.skipped) == (0, 1, 2)
