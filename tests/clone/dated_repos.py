"""Four small deep-learning repositories with dated histories, for snapshots and trends.

- `adds-hardware`: a 2018 project that adds a hardware section in 2020;
- `drops-requirements`: a 2018 project that deletes its requirements file in 2021;
- `born-2022`: created in 2022;
- `never-changes`: one commit in 2018.
Each is a real git repository served over file:// with partial clone allowed, and a store
row points at it as a search would.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

from miner.store import Store

TRAIN = (
    "import torch\nfrom torch import nn\n\n\nclass Net(nn.Module):\n"
    "    def __init__(self):\n        super().__init__()\n"
    "        self.conv = nn.Conv2d(1, 8, 3)\n\n"
    "    def forward(self, x):\n        return self.conv(x)\n\n\nmodel = Net()\n"
    "optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "for x, y in []:\n    loss = model(x).sum()\n    optimizer.zero_grad()\n"
    "    loss.backward()\n    optimizer.step()\n"
)
README = "# {name}\n\nA small CNN. Train it with `python train.py`.\n"
HARDWARE = "\n## Hardware\n\nTrained on one NVIDIA Tesla V100 with 16 GB of memory.\n"
NAMES = ("adds-hardware", "drops-requirements", "born-2022", "never-changes")


def _git(repo: Path, *args: str, date: str | None = None) -> str:
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "ada@example.org",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "ada@example.org",
    }
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    done = subprocess.run(["git", *args], cwd=repo, env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def _commit(repo: Path, files: dict[str, str | None], date: str) -> str:
    for name, text in files.items():
        path = repo / name
        if text is None:
            path.unlink()
        else:
            path.write_text(text, encoding="utf-8")
    _git(repo, "add", "-A")
    _git(repo, "commit", "--quiet", "-m", f"at {date}", date=date)
    return _git(repo, "rev-parse", "HEAD")


def build_dated_repos(root: Path) -> dict[str, list[str]]:
    """Create the four repositories under `root`; return each one's commits, oldest first."""
    commits: dict[str, list[str]] = {}
    for name in NAMES:
        repo = root / name
        repo.mkdir(parents=True)
        _git(repo, "init", "--quiet", "--initial-branch=main")
        _git(repo, "config", "uploadpack.allowFilter", "true")
        _git(repo, "config", "uploadpack.allowAnySHA1InWant", "true")
        first = {
            "README.md": README.format(name=name),
            "train.py": TRAIN,
            "requirements.txt": "torch==1.4.0\n",
        }
        if name == "born-2022":
            commits[name] = [_commit(repo, first, "2022-03-01T12:00:00Z")]
            continue
        commits[name] = [_commit(repo, first, "2018-03-01T12:00:00Z")]
        if name == "adds-hardware":
            readme = README.format(name=name) + HARDWARE
            commits[name].append(_commit(repo, {"README.md": readme}, "2020-06-01T12:00:00Z"))
        elif name == "drops-requirements":
            commits[name].append(_commit(repo, {"requirements.txt": None}, "2021-02-01T12:00:00Z"))
    return commits


def store_dated_repos(store: Store, root: Path) -> None:
    """Store one search result per repository, its clone URL the local repository."""
    rows = [
        {
            "id": i,
            "full_name": f"lab/{name}",
            "html_url": f"https://github.com/lab/{name}",
            "clone_url": (root / name).as_uri(),
            "default_branch": "main",
            "fork": 0,
            "archived": 0,
            "disabled": 0,
            "stars": 10,
            "created_at": "2018-01-01T00:00:00Z",
            "pushed_at": "2022-03-01T00:00:00Z",
            "first_seen": "2024-01-01T00:00:00Z",
            "last_seen": "2024-01-01T00:00:00Z",
        }
        for i, name in enumerate(NAMES, start=1)
    ]
    store.upsert("repos", rows, key=["id"])
