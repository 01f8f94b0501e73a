"""Analysis throughput on generated, realistic repositories.

Prints repositories per second with 2 workers, the ratio of analysis time to the time needed
just to read the files the analysis reads, and worker memory after 1/4, 1/2 and all of the set
(flat memory means the per-repository state is released).

usage: python benchmarks/audit_throughput.py [--repos 500] [--workers 2] [--keep DIR]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import tempfile
import time
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

FRAMEWORKS = {
    "pytorch": ("import torch\nimport torch.nn as nn\n", "nn.Conv2d(64, 64, 3)", "torch==1.7.1"),
    "tensorflow": ("import tensorflow as tf\n", "tf.layers.conv2d(x, 64, 3)", "tensorflow==1.15"),
    "keras": ("from keras.layers import Conv2D, LSTM\n", "Conv2D(64, (3, 3))", "keras==2.2.4"),
}
README = """# {name}

A {fw} implementation of a convolutional network for {task}.

## Requirements
- Python 3.6
- {pin}
- numpy, scipy, opencv-python

## Installation
```bash
pip install -r requirements.txt
```

## Training
```bash
python train.py --data data/ --epochs 50
```
{hardware}
## Results
| Model | Accuracy |
|---|---|
| Ours | 93.1 |

## Citation
```
@inproceedings{{x, title={{Paper}}, year={{2019}}}}
```
"""
HARDWARE = [
    "Training takes about 2 days on a single GTX 1080 Ti.\n",
    "We used 4 Tesla V100 GPUs with 32 GB memory each.\n",
    "A CUDA-capable GPU is required.\n",
    "",
]


def _module(header: str, layer: str, n: int, rng: random.Random) -> str:
    lines = [header, "import numpy as np\n\n"]
    for i in range(n):
        lines.append(
            f"class Block{i}(object):\n"
            f"    '''Block {i} of the model.'''\n"
            f"    def __init__(self, channels={rng.randint(8, 512)}):\n"
            f"        self.conv = {layer}\n"
            f"        self.scale = {rng.random():.4f}\n\n"
            f"    def forward(self, x):\n"
            f"        y = self.conv(x) * self.scale\n"
            f"        return np.maximum(y, 0) + x\n\n"
        )
    return "".join(lines)


def generate(root: Path, count: int, seed: int = 0) -> list[Path]:
    """Write `count` repositories of ~40 files each (code, docs, manifests, data, a notebook)."""
    rng = random.Random(seed)
    repos = []
    for i in range(count):
        fw = rng.choice(list(FRAMEWORKS))
        header, layer, pin = FRAMEWORKS[fw]
        repo = root / f"owner{i}__project{i}"
        (repo / "models").mkdir(parents=True)
        (repo / "utils").mkdir()
        (repo / "data").mkdir()
        (repo / "docs").mkdir()
        (repo / "README.md").write_text(
            README.format(
                name=f"project{i}",
                fw=fw,
                pin=pin,
                task="image classification",
                hardware=rng.choice(HARDWARE),
            )  # fmt: skip
        )
        (repo / "requirements.txt").write_text(f"{pin}\nnumpy>=1.16\nscipy\nopencv-python\n")
        (repo / "docs" / "usage.md").write_text("# Usage\n\nRun `python train.py`.\n" * 20)
        (repo / "train.py").write_text(
            _module(header, layer, 10, rng) + "\nif __name__ == '__main__':\n    pass\n"
        )
        for j in range(12):
            (repo / "models" / f"net{j}.py").write_text(_module(header, layer, 15, rng))
        for j in range(8):
            (repo / "utils" / f"util{j}.py").write_text(_module("import os\n", "None", 8, rng))
        for j in range(10):
            (repo / "data" / f"sample{j}.csv").write_text("a,b,c\n" + "1,2,3\n" * 300)
        (repo / "data" / "weights.bin").write_bytes(os.urandom(200_000))
        cells = [{"cell_type": "code", "source": [header, f"m = {layer}\n"], "outputs": []}]
        (repo / "demo.ipynb").write_text(json.dumps({"cells": cells, "nbformat": 4}))
        repos.append(repo)
    return repos


def _files_read(path: Path) -> tuple[Path, tuple[str, ...]]:
    from miner.audit import audit_tree
    from miner.audit.files import RepoTree

    tree = RepoTree(path)
    audit_tree(tree)
    return path, tree.read_paths


def _raw_read(job: tuple[Path, tuple[str, ...]]) -> int:
    path, rels = job
    total = 0
    for _ in os.walk(path):  # listing the tree is part of reading it
        pass
    for rel in rels:
        with open(path / rel, "rb") as fh:
            total += len(fh.read())
    return total


def _audit(path: Path) -> int:
    import resource

    from miner.audit import audit

    audit(path)
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss


def _drop_caches() -> bool:
    """Empty the page cache (root only), so reads and analysis both start cold."""
    try:
        os.sync()
        Path("/proc/sys/vm/drop_caches").write_text("3\n")
        return True
    except OSError:
        return False


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repos", type=int, default=500)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--keep", type=Path, help="generate into DIR and keep it")
    args = ap.parse_args()
    root = args.keep or Path(tempfile.mkdtemp(prefix="miner-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    try:
        t0 = time.perf_counter()
        repos = generate(root, args.repos)
        print(f"generated {len(repos)} repositories in {time.perf_counter() - t0:.1f} s")
        with ProcessPoolExecutor(args.workers) as pool:
            # First pass: which files does the analysis read? (also loads imports and spaCy)
            jobs = list(pool.map(_files_read, repos, chunksize=8))
            cold = _drop_caches()
            t0 = time.perf_counter()
            read_bytes = sum(pool.map(_raw_read, jobs, chunksize=8))
            read_s = time.perf_counter() - t0
            _drop_caches()
            t0 = time.perf_counter()
            checkpoints = {len(repos) // 4, len(repos) // 2, len(repos)}
            rss = []
            for n, peak in enumerate(pool.map(_audit, repos, chunksize=4), start=1):
                if n in checkpoints:
                    rss.append((n, peak))
            audit_s = time.perf_counter() - t0
        cache = "cold page cache" if cold else "warm page cache (not root: caches not dropped)"
        print(f"raw read of analyzed files: {read_bytes / 1e6:.1f} MB in {read_s:.2f} s, {cache}")
        print(f"analysis: {len(repos)} repositories in {audit_s:.2f} s with {args.workers} workers")
        print(f"throughput: {len(repos) / audit_s:.1f} repositories/s (target >= 20)")
        print(f"ratio to raw read time: {audit_s / read_s:.2f} x (target <= 2)")
        for n, peak in rss:
            print(f"worker peak RSS after {n} repositories: {peak / 1024:.0f} MB")
    finally:
        if not args.keep:
            shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
