"""The report tests' small study: search log, repositories, clones, audits and a consensus.

The store is built through the store's own API (upsert, save_audit), so the report reads exactly
what the other stages write. Every count in the golden files can be checked by hand against the
rows below.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from miner.codebook import FIELD_NAMES, format_value
from miner.models import AuditResult, Label
from miner.store import Store

SEEN = "2021-03-01T00:00:00+00:00"
ANALYZED = "2021-03-05T10:00:00+00:00"

# id, full_name, stars, pushed_at, fork, archived, disabled
REPOS = [
    (1, "alice/cnn-tf", 250, "2019-05-01T00:00:00Z", 0, 0, 0),
    (2, "bob/lstm-torch", 1200, "2020-02-01T00:00:00Z", 0, 0, 0),
    (3, "carol/gan-keras", 90, "2020-07-01T00:00:00Z", 0, 0, 0),
    (4, "dave/tf-tutorials", 8000, "2018-01-01T00:00:00Z", 0, 0, 0),
    (5, "erin/transformer", 600, "2020-11-01T00:00:00Z", 0, 0, 0),
    (6, "frank/dl-toolkit", 3000, "2019-09-01T00:00:00Z", 0, 0, 0),
    (7, "grace/caffe-seg", 450, "2018-06-01T00:00:00Z", 0, 0, 0),
    (8, "heidi/slow-clone", 300, "2020-01-01T00:00:00Z", 0, 0, 0),
    (9, "ivan/deleted", 220, "2019-01-01T00:00:00Z", 0, 0, 0),
    (10, "judy/disabled", 400, "2019-01-01T00:00:00Z", 0, 0, 1),
    (11, "mallory/fork", 500, "2020-01-01T00:00:00Z", 1, 0, 0),
    (12, "oscar/archived", 700, "2017-01-01T00:00:00Z", 0, 1, 0),
    (13, "peggy/queued", 210, "2020-01-01T00:00:00Z", 0, 0, 0),
    (14, "rupert/broken", 260, "2020-01-01T00:00:00Z", 0, 0, 0),
    (15, "sybil/pending", 270, "2020-01-01T00:00:00Z", 0, 0, 0),
    (16, "trent/jax-mlp", 5200, "2020-03-01T00:00:00Z", 0, 0, 0),
]
# repo_id -> (status, error_class); repos not listed here were never cloned.
CLONES = {
    **dict.fromkeys((1, 2, 3, 4, 5, 6, 7, 14, 15, 16), ("cloned", None)),
    8: ("failed", "timeout"),
    9: ("failed", "gone"),
}
SEARCHES = [
    # keyword, min, max, created_after, created_before, pushed_after, found, fetched, shortfall
    ("deep learning", 200, None, "2015-01-01", "2021-03-01", None, 1480, 1000, 480, "done"),
    ("neural network", 100, 5000, "2015-01-01", "2021-03-01", "2018-01-01", 300, 300, 0, "done"),
    ("tensorflow", 200, None, None, None, None, 12, 5, 7, "running"),
]

BASE: dict[str, Any] = {
    "is_dl": True,
    "exclude": frozenset(),
    "frameworks": frozenset({"tensorflow"}),
    "primary_framework": "tensorflow",
    "paper_framework": "TensorFlow",
    "network_types": frozenset({"cnn"}),
    "paper_network": "CNN",
    "language": "python",
    "domain": "vision",
    "software_req": True,
    "dependency_file": True,
    "software_req_sources": frozenset({"requirements_file"}),
    "versions_pinned": True,
    "hardware_req": False,
    "hw_gpu": False,
    "hw_cpu": False,
    "hw_memory": False,
    "hw_other": False,
    "training_code": True,
    "data_available": True,
}
# The audited repositories and how each differs from BASE.
AUDITS: dict[int, dict[str, Any]] = {
    1: {"hardware_req": True, "hw_gpu": True},
    2: {
        "frameworks": frozenset({"pytorch"}), "primary_framework": "pytorch",
        "paper_framework": "PyTorch", "network_types": frozenset({"rnn"}), "paper_network": "RNN",
        "domain": "nlp", "dependency_file": False, "versions_pinned": False,
        "software_req_sources": frozenset({"readme"}),
    },
    3: {
        "frameworks": frozenset({"keras", "tensorflow"}), "primary_framework": "keras",
        "paper_framework": "Keras (TensorFlow)", "network_types": frozenset({"gan", "cnn"}),
        "paper_network": "GAN", "domain": "generative",
        "software_req_sources": frozenset({"requirements_file", "conda_env"}),
        "hardware_req": True, "hw_gpu": True, "hw_memory": True,
    },
    4: {"exclude": frozenset({"educational"}), "software_req": False, "dependency_file": False,
        "software_req_sources": frozenset(), "versions_pinned": False},
    5: {
        "frameworks": frozenset({"pytorch"}), "primary_framework": "pytorch",
        "paper_framework": "PyTorch", "network_types": frozenset({"transformer"}),
        "paper_network": "Others", "domain": "nlp", "software_req": False,
        "dependency_file": False, "software_req_sources": frozenset(), "versions_pinned": False,
        "hardware_req": True, "hw_cpu": True,
    },
    6: {"exclude": frozenset({"library", "pretrained_only"}), "training_code": False},
    7: {
        "frameworks": frozenset({"caffe"}), "primary_framework": "caffe",
        "paper_framework": "Caffe", "language": "cpp",
        "software_req_sources": frozenset({"dockerfile"}), "versions_pinned": False,
        "hardware_req": True, "hw_gpu": True, "hw_other": True,
    },
    16: {
        "frameworks": frozenset({"jax", "other:flax"}), "primary_framework": "jax",
        "paper_framework": "Others", "network_types": frozenset({"mlp"}),
        "paper_network": "Others", "domain": "other",
    },
}  # fmt: skip

# The annotators' consensus for a subset, in sheet format, with unclear and n/a cells, `none`
# for empty sets, derived columns left blank and cells in the case people type them.
CONSENSUS_OVERRIDES: dict[int, dict[str, str]] = {
    1: {"hardware_req": "unclear", "hw_gpu": "unclear"},
    2: {"versions_pinned": "n/a", "software_req": "Yes", "exclude": "none"},
    3: {"paper_framework": "", "paper_network": "", "domain": "unclear"},
    4: {"software_req_sources": "none", "exclude": "Educational"},
    5: {"software_req": "unclear", "software_req_sources": "", "versions_pinned": "n/a"},
    7: {"language": "CPP", "exclude": "unclear"},
}


def sheet_row(repo_id: int) -> dict[str, str]:
    """One audited repository in sheet format."""
    values = {**BASE, **AUDITS[repo_id]}
    return {name: format_value(values[name]) for name in FIELD_NAMES}


# Smoke runs: (repo id, outcome, log, line, evidence text, exit code, install s, train s).
SMOKE = [
    (1, "ok", "train.log", 12, "epoch 1 loss 0.4213 | acc 0.87", None, 41.5, 300.2),
    (2, "install", "install.log", 3, "Because torch==0.4.1 has no wheels with a matching Python "
     "ABI tag, we can conclude that your requirements are unsatisfiable.", 1, 2.1, 0.0),
    (3, "needs_gpu", "train.log", 7, "AssertionError: Torch not compiled with CUDA enabled", 1,
     60.0, 4.5),
    (4, "data", "train.log", 9, "FileNotFoundError: [Errno 2] No such file or directory: "
     "'data/train.csv'", 1, 12.25, 3.0),
    (5, "ok", "train.log", 40, "Epoch 1/10 step 5 loss: 2.3011", None, 80.0, 300.1),
]  # fmt: skip


# The stage each outcome of SMOKE reached, and the seconds spent on each stage: 1 s for S0, the
# install for S1, then the training time spread evenly over the stages after S1.
STAGE = {"ok": 5, "install": 0, "needs_gpu": 3, "data": 3}


def stage_seconds(stage: int, install: float, train: float) -> dict[str, float]:
    spent = {"S0": 1.0}
    if stage >= 1:
        spent["S1"] = install
    for index in range(2, stage + 1):
        spent[f"S{index}"] = round(train / (stage - 1), 3)
    return spent


def build_store(path: Path) -> Store:
    """Create the test study's store at `path` (search log, repos, clones, audits)."""
    store = Store(path)
    store.upsert(
        "repos",
        [
            {
                "id": rid, "full_name": name, "stars": stars, "pushed_at": pushed,
                "created_at": "2016-01-01T00:00:00Z", "language": "Python", "fork": fork,
                "archived": archived, "disabled": disabled, "first_seen": SEEN, "last_seen": SEEN,
            }
            for rid, name, stars, pushed, fork, archived, disabled in REPOS
        ],
        key=["id"],
    )  # fmt: skip
    store.upsert(
        "searches",
        [
            {
                "id": i + 1, "query_key": f"q{i}", "keyword": kw, "query": f"{kw} stars:>={lo}",
                "api_url": "http://127.0.0.1:9/api", "params": "{}", "min_stars": lo,
                "max_stars": hi, "created_after": ca, "created_before": cb, "pushed_after": pa,
                "total_found": found, "fetched": fetched, "shortfall": short, "status": status,
                "requests": 10, "started_at": f"2021-03-0{i + 1}T08:00:00+00:00",
                "finished_at": None if status == "running" else f"2021-03-0{i + 1}T09:00:00+00:00",
            }
            for i, (kw, lo, hi, ca, cb, pa, found, fetched, short, status) in enumerate(SEARCHES)
        ],
        key=["id"],
    )  # fmt: skip
    # Search 1 returned repos 1-12, search 2 returned 8-16, search 3 returned 1 and 2.
    hits = [(rid, 1) for rid in range(1, 13)] + [(rid, 2) for rid in range(8, 17)]
    hits += [(1, 3), (2, 3)]
    store.upsert(
        "repo_hits",
        [
            {"repo_id": rid, "search_id": sid, "keyword": SEARCHES[sid - 1][0],
             "qualifier": "root", "fetched_at": SEEN}
            for rid, sid in hits
        ],
        key=["repo_id", "search_id", "qualifier"],
    )  # fmt: skip
    names = {rid: name for rid, name, *_ in REPOS}
    store.upsert(
        "clones",
        [
            {
                "repo_id": rid, "full_name": names[rid], "status": status,
                "error_class": error_class, "cloned_at": SEEN,
                "commit_sha": f"{rid:040x}" if status == "cloned" else None,
            }
            for rid, (status, error_class) in sorted(CLONES.items())
        ],
        key=["repo_id"],
    )  # fmt: skip
    for rid in sorted(AUDITS):
        values = {**BASE, **AUDITS[rid]}
        result = AuditResult(
            labels={name: Label(name, values[name]) for name in FIELD_NAMES},
            analyzed_at=ANALYZED,
        )
        store.save_audit(rid, f"{rid:040x}", names[rid], result)
    store.save_audit_failure(14, f"{14:040x}", names[14], "boom", ANALYZED)
    store.upsert(
        "smoke_runs",
        [
            {"repo_id": rid, "commit_sha": f"{rid:040x}", "full_name": names[rid],
             "outcome": outcome, "rule": f"smoke.{outcome}", "evidence_path": path,
             "evidence_line": line, "evidence_text": text, "exit_code": code,
             "install_seconds": install, "train_seconds": train, "seconds": install + train + 1,
             "timeout": 300.0, "network_cut": 1, "python": "3.8.18", "requirements": 3,
             "command": "python train.py", "environment": None, "log_dir": f"smoke/{rid}",
             "smoked_at": SEEN, "stage": STAGE[outcome],
             "stage_seconds": json.dumps(stage_seconds(STAGE[outcome], install, train))}
            for rid, outcome, path, line, text, code, install, train in SMOKE
        ],
        key=["repo_id", "commit_sha"],
    )  # fmt: skip
    return store


def write_consensus(path: Path) -> Path:
    """The consensus sheet of the test study (UTF-8 with BOM, as Excel saves it)."""
    import csv

    names = {rid: name for rid, name, *_ in REPOS}
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", encoding="utf-8-sig", newline="") as handle:
        writer = csv.DictWriter(handle, ["full_name", "repo_id", "commit_sha", *FIELD_NAMES])
        writer.writeheader()
        for rid, changes in CONSENSUS_OVERRIDES.items():
            row = {**sheet_row(rid), **changes}
            writer.writerow(
                {
                    "full_name": names[rid],
                    "repo_id": rid,
                    "commit_sha": f"{rid:040x}",
                    **row,
                }
            )
    return path
