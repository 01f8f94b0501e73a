"""Tiny projects for the lint tests: a complete one, and one change away from each finding."""

from __future__ import annotations

from pathlib import Path

COMPLETE_README = """# tinynet

A small CNN for digit classification.

## Requirements

- Python 3.10
- torch==2.1.0, see requirements.txt

## Hardware

Trained on one NVIDIA RTX 3090 (24 GB) in about ten minutes.

## Data

Download MNIST with `python prepare_data.py`, which fetches it from
http://yann.lecun.com/exdb/mnist/ into data/.

## Training

    python train.py --seed 1 --threads 4

Runs with 4 CPU threads for data loading; we reproduce the paper's accuracy (99.1 %) this way.
"""

TRAIN = """import argparse
import random

import numpy as np
import torch
from torch import nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(1, 8, 3)
        self.fc = nn.Linear(8 * 26 * 26, 10)

    def forward(self, x):
        return self.fc(torch.flatten(self.conv(x), 1))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--threads", type=int, default=4)
    parser.add_argument("--batch-size", type=int, default=64)
    args = parser.parse_args()
    torch.manual_seed(args.seed)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.set_num_threads(args.threads)
    device = "cuda" if torch.cuda.is_available() else "cpu"
    model = Net().to(device)
    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)
    for x, y in []:
        loss = nn.functional.cross_entropy(model(x.to(device)), y.to(device))
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()


if __name__ == "__main__":
    main()
"""

PREPARE = """import urllib.request

URL = "http://yann.lecun.com/exdb/mnist/train-images-idx3-ubyte.gz"
urllib.request.urlretrieve(URL, "data/x.gz")
"""


def write_project(root: Path, files: dict[str, str | None] | None = None) -> Path:
    """The complete project, with `files` replacing (or, given None, removing) some files."""
    contents: dict[str, str | None] = {
        "README.md": COMPLETE_README,
        "requirements.txt": "torch==2.1.0\nnumpy>=1.24\n",
        "train.py": TRAIN,
        "prepare_data.py": PREPARE,
    }
    contents.update(files or {})
    root.mkdir(parents=True, exist_ok=True)
    for name, text in contents.items():
        if text is None:
            continue
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root
