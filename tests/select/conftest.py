"""A tiny study for `miner select`: fixture checkouts on disk plus a store with their audits."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.codebook import Evidence, parse_value
from miner.models import AuditResult, Label
from miner.store import Store

TRAIN_TORCH = """import argparse
import random

try:
    import torch
except ImportError:  # lets the fixture run where torch is not installed
    torch = None

parser = argparse.ArgumentParser()
parser.add_argument("--seed", type=int, default=None)
parser.add_argument("--epochs", type=int, default=2)
args = parser.parse_args()
if args.seed is not None:
    random.seed(args.seed)
    if torch is not None:
        torch.manual_seed(args.seed)
if torch is not None:
    torch.set_num_threads(1)
device = "cuda" if torch is not None and torch.cuda.is_available() else "cpu"
# datasets.MNIST(root, download=True) in the real project
score = sum(random.random() for _ in range(1000)) / 1000
print(f"epoch {args.epochs} loss {1 - score:.4f}")
print(f"test accuracy: {score:.6f}")
with open("model.pt", "w") as fh:
    fh.write(f"{score:.12f}")

if __name__ == "__main__":
    pass
"""

PROJECTS: dict[str, dict[str, object]] = {
    "alpha/torch-mnist": {
        "files": {
            "train.py": TRAIN_TORCH,
            "requirements.txt": "numpy>=1.16\ntorch==1.4.0\ntorchvision==0.5.0\n",
            "README.md": "# MNIST\n\nTrain on MNIST:\n\n```\npython train.py --epochs 2\n```\n",
        },
        "labels": {"primary_framework": "pytorch", "frameworks": "pytorch", "domain": "vision",
                   "training_code": "yes", "data_available": "yes", "versions_pinned": "yes"},
    },
    "zeta/torch-cifar": {
        "files": {
            "train_cifar.py": "import argparse\nimport torch\nparser = argparse.ArgumentParser()\n"
            "parser.add_argument('--seed', type=int)\n"
            "torch.manual_seed(0)\nif torch.cuda.is_available():\n    pass\n"
            "print('val acc', 0.5)\n",
            "requirements.txt": "torch>=1.7\n",
            "data/cifar/train.csv": "x,y\n1,2\n",
        },
        "labels": {"primary_framework": "pytorch", "frameworks": "pytorch", "domain": "vision",
                   "training_code": "yes", "data_available": "yes"},
    },
    "beta/tf-text": {
        "files": {
            "main.py": "import argparse\nimport tensorflow as tf\n"
            "parser = argparse.ArgumentParser()\n"
            "tf.set_random_seed(1)\nconfig = tf.ConfigProto(intra_op_parallelism_threads=2)\n",
            "environment.yml": "name: t\ndependencies:\n  - python=3.6\n  - tensorflow=1.15.0\n",
            "README.md": "# Text\n\nRequires TensorFlow 1.15.\n\n"
            "Run `bash download_data.sh` first.\n",
            "download_data.sh": "wget https://example.org/imdb.tar.gz\n",
        },
        "labels": {"primary_framework": "tensorflow", "frameworks": "tensorflow", "domain": "nlp",
                   "training_code": "yes", "data_available": "yes"},
    },
    "gamma/gpu-only": {
        "files": {"train.py": "import torch\nif __name__ == '__main__':\n    m = Net().cuda()\n"},
        "labels": {"primary_framework": "pytorch", "frameworks": "pytorch", "domain": "vision",
                   "training_code": "yes", "data_available": "no"},
    },
    "delta/tutorials": {
        "files": {"train.py": "import torch\nif __name__ == '__main__':\n    pass\n"},
        "labels": {"primary_framework": "pytorch", "frameworks": "pytorch", "domain": "other",
                   "training_code": "yes", "data_available": "yes", "exclude": "educational"},
    },
    "eps/no-train": {
        "files": {"serve.py": "import torch\nmodel = torch.load('m.pt')\n"},
        "labels": {"primary_framework": "pytorch", "frameworks": "pytorch", "domain": "vision",
                   "training_code": "no", "data_available": "no"},
    },
}  # fmt: skip


def write_checkout(root: Path, files: dict[str, str] | dict[str, str | bytes]) -> Path:
    """Write a fixture checkout as plain files (bytes as they are)."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


@pytest.fixture
def make_checkout():  # type: ignore[no-untyped-def]
    """The checkout writer, for tests that need their own tiny repository."""
    return write_checkout


@pytest.fixture
def study(tmp_path: Path) -> tuple[Store, Path]:
    """A store with six audited, cloned repositories and their checkouts under tmp_path."""
    store = Store(tmp_path / "miner.db")
    now = "2024-01-01T00:00:00+00:00"
    for repo_id, (name, spec) in enumerate(PROJECTS.items(), start=1):
        sha = f"{repo_id:040x}"
        checkout = write_checkout(tmp_path / "repos" / name.replace("/", "__"), spec["files"])  # type: ignore[arg-type]
        repo = {"id": repo_id, "full_name": name, "first_seen": now, "last_seen": now}
        store.upsert("repos", [repo], ["id"])
        clone = {"repo_id": repo_id, "full_name": name, "path": str(checkout), "status": "cloned",
                 "commit_sha": sha, "cloned_at": now}  # fmt: skip
        store.upsert("clones", [clone], ["repo_id"])
        labels = {}
        for field, cell in spec["labels"].items():  # type: ignore[attr-defined]
            evidence = (Evidence("train.py", 1, f"{field} evidence", "fixture"),)
            labels[field] = Label(field, parse_value(field, cell), evidence)
        store.save_audit(repo_id, sha, name, AuditResult(labels=labels, analyzed_at=now))
    return store, tmp_path
