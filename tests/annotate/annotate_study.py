"""Helpers for the annotation tests: a tiny study with six audited, cloned repositories."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from miner.annotate.sheets import EMPTY_SET, INPUT_FIELDS, read_sheet, write_sheet
from miner.codebook import DERIVED_FIELDS, FIELD_BY_NAME, Evidence, parse_value
from miner.config import Settings, load_settings
from miner.models import AuditResult, Label
from miner.store import Store

BASE = {
    "is_dl": "yes",
    "exclude": "",
    "frameworks": "pytorch",
    "primary_framework": "pytorch",
    "network_types": "cnn",
    "language": "python",
    "domain": "vision",
    "software_req": "yes",
    "dependency_file": "yes",
    "software_req_sources": "requirements_file",
    "versions_pinned": "yes",
    "hw_gpu": "no",
    "hw_cpu": "no",
    "hw_memory": "no",
    "hw_other": "no",
    "training_code": "yes",
    "data_available": "yes",
}
REPOS = [
    (101, "alpha/seg-net", {"hw_gpu": "yes"}),
    (
        102,
        "beta/Text-RNN",
        {
            "network_types": "rnn",
            "domain": "nlp",
            "frameworks": "keras;tensorflow",
            "primary_framework": "keras",
        },
    ),
    (103, "gamma/gan-faces", {"network_types": "cnn;gan", "domain": "generative"}),
    (
        104,
        "delta/tf-detect",
        {
            "frameworks": "tensorflow",
            "primary_framework": "tensorflow",
            "software_req": "no",
            "dependency_file": "no",
            "software_req_sources": "",
            "versions_pinned": "no",
        },
    ),
    (105, "eps/rl-agent", {"network_types": "mlp;drl", "domain": "rl", "hw_memory": "yes"}),
    (
        106,
        "zeta/old-caffe",
        {
            "frameworks": "caffe",
            "primary_framework": "caffe",
            "language": "cpp",
            "exclude": "deprecated",
        },
    ),
]
README = """# {name}

A model for {name}.

## Requirements
- Python 3.6
- PyTorch >= 1.4
pip install -r requirements.txt

We trained on one NVIDIA GTX 1080 Ti with 11 GB of memory.
Download the dataset with `bash get_data.sh`.
"""


def sha_of(repo_id: int) -> str:
    """A stable fake commit SHA per repository."""
    return f"{repo_id:040x}"


def machine_values(repo_id: int) -> dict[str, str]:
    """The auto labels the fixture store holds for a repository (sheet format)."""
    changes = next(c for rid, _, c in REPOS if rid == repo_id)
    return {**BASE, **changes}


def audit_result(values: dict[str, str]) -> AuditResult:
    """An AuditResult from sheet-format values, with evidence for hw_gpu when it is yes."""
    labels = {}
    for name, cell in values.items():
        evidence = ()
        if name == "hw_gpu" and cell == "yes":
            evidence = (Evidence("README.md", 10, "one NVIDIA GTX 1080 Ti", "gpu_model"),)
        labels[name] = Label(name, parse_value(name, cell), evidence)
    return AuditResult(labels=labels)


@dataclass(frozen=True)
class Study:
    """A study folder with a store, checkouts and settings."""

    settings: Settings
    store_path: Path

    @property
    def annotations(self) -> Path:
        return self.settings.annotations

    def store(self) -> Store:
        return Store(self.store_path)


def make_study(tmp_path: Path) -> Study:
    settings = load_settings(tmp_path, env={})
    with Store(settings.db) as store:
        for repo_id, name, _ in REPOS:
            store.upsert(
                "repos",
                [
                    {
                        "id": repo_id,
                        "full_name": name,
                        "html_url": f"https://github.com/{name}",
                        "first_seen": "2021-01-01",
                        "last_seen": "2021-01-01",
                    }
                ],
                key=["id"],
            )
            checkout = settings.repos / name.replace("/", "__")
            checkout.mkdir(parents=True)
            (checkout / "README.md").write_text(README.format(name=name), encoding="utf-8")
            (checkout / "requirements.txt").write_text("torch==1.4\n", encoding="utf-8")
            (checkout / "train.py").write_text("import torch\n", encoding="utf-8")
            store.upsert(
                "clones",
                [
                    {
                        "repo_id": repo_id,
                        "full_name": name,
                        "path": str(checkout),
                        "status": "cloned",
                        "commit_sha": sha_of(repo_id),
                        "cloned_at": "2021-03-01",
                    }
                ],
                key=["repo_id"],
            )
            store.save_audit(repo_id, sha_of(repo_id), name, audit_result(machine_values(repo_id)))
    return Study(settings, settings.db)


def fill_sheet(
    path: Path, answer: Callable[[str, str], str] | None = None, out: Path | None = None
) -> Path:
    """Fill a prepared sheet with the machine values, changed by `answer(full_name, field)`."""
    raw = read_sheet(path)
    rows = []
    for _, cells in raw.rows:
        repo_id = int(cells["repo_id"])
        values = machine_values(repo_id)
        for name in DERIVED_FIELDS:
            cells[name] = (answer(cells["full_name"], name) if answer else "") or ""
        for name in INPUT_FIELDS:
            value = values[name]
            if FIELD_BY_NAME[name].kind == "set" and value == "":
                value = EMPTY_SET
            if answer is not None:
                value = answer(cells["full_name"], name) or value
            cells[name] = value
            if value == "yes":
                cells[f"{name}__evidence"] = "README.md:10"
        rows.append(cells)
    target = out or path
    write_sheet(target, rows, raw.columns)
    return target
