"""The README's "A study, step by step" commands, run verbatim and in order, as a newcomer would.

A fresh study folder is the working directory and every path is relative. Search talks to the
fake GitHub API (MINER_API_URL), whose clone URLs point at git repositories built here and served
over file://; smoke runs install from a local wheel folder (UV_OFFLINE, no index).
"""

from __future__ import annotations

import csv
import importlib.util
import os
import shlex
import subprocess
import sys
from datetime import datetime, timezone
from pathlib import Path
from types import ModuleType

import pytest

TESTS = Path(__file__).resolve().parents[1]
README = (TESTS.parent / "README.md").read_text(encoding="utf-8")
TOKEN = "ghp_readmeTOKEN0123456789abcdefghijklmn"
TRAIN = '''"""Train a small convolutional network on MNIST digits."""
import argparse
import random

import tinyfit

try:
    import torch
except ImportError:  # tinyfit stands in where PyTorch is not installed
    torch = None


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--epochs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=None)
    args = parser.parse_args()
    if args.seed is not None:
        random.seed(args.seed)
    model = tinyfit.Model(seed=random.randrange(1000)){cuda}
    xs = [random.uniform(-1, 1) for _ in range(64)]
    ys = [2.0 * x + random.gauss(0, 0.1) for x in xs]
    for epoch in range(args.epochs):
        loss = model.fit(xs, ys)
        print(f"epoch {{epoch + 1}} loss {{loss:.6f}}")
    print(f"test accuracy: {{1 / (1 + loss):.6f}}")
    with open("model.pt", "w") as fh:
        fh.write(repr(model.w))


if __name__ == "__main__":
    main()
'''
PROJECTS = {
    # (owner, name): (description, README text, .cuda() call)
    ("lab0", "mnist-cnn"): ("Deep learning on MNIST digits", "a convolutional network", ""),
    ("lab1", "digits-gpu"): ("A neural network for digits", "a GPU-only network", ".cuda()"),
}


def load(path: Path) -> ModuleType:
    """A test helper module by path (tests are not a package)."""
    name = f"readme_{path.stem}"
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, path)
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module
        spec.loader.exec_module(module)
    return sys.modules[name]


def study_commands() -> list[list[str]]:
    """The console block of the README's "A study, step by step", one argv per line."""
    section = README.split("## A study, step by step", 1)[1]
    block = section.split("```console\n", 1)[1].split("```", 1)[0]
    return [shlex.split(line, comments=True) for line in block.splitlines() if line.strip()]


def origin(root: Path, owner: str, name: str, wheels: Path) -> Path:
    """A git repository like a small research project, last changed in June 2020."""
    clone_repos = load(TESTS / "clone" / "clone_repos.py")
    description, what, cuda = PROJECTS[(owner, name)]
    repo = root / owner / name
    repo.mkdir(parents=True)
    clone_repos.git("init", "--quiet", "--initial-branch=main", cwd=repo)
    files = {
        "README.md": f"# {name}\n\n{description}: {what}.\n\nInstall with `pip install -r "
        "requirements.txt`, then train:\n\n    python train.py --epochs 2\n",
        "requirements.txt": f"--no-index\n--find-links {wheels}\ntinyfit==0.1\n",
        "train.py": TRAIN.format(cuda=cuda),
    }
    for rel, text in files.items():
        (repo / rel).write_text(text, encoding="utf-8")
    clone_repos.commit(repo, "first", "2020-06-01T00:00:00Z")
    clone_repos.serve_config(repo)
    return repo


@pytest.fixture
def fake_github(tmp_path: Path):  # type: ignore[no-untyped-def]
    """The fake API serving two matching projects whose clone URLs are local origins."""
    api = load(TESTS / "fakes" / "github_api.py")
    projects = load(TESTS / "select" / "smoke_projects.py")
    wheels = tmp_path / "wheels"
    projects.build_wheel(wheels, "tinyfit", "0.1", {"tinyfit/__init__.py": projects.TINYFIT})
    repos = []
    for i, (owner, name) in enumerate(PROJECTS, start=1):
        url = origin(tmp_path / "origins", owner, name, wheels).as_uri()
        repos.append(
            api.FakeRepo(
                id=1000 + i, owner=owner, name=name, description=PROJECTS[(owner, name)][0],
                stars=250 * i, created_at=datetime(2019, 5, i, tzinfo=timezone.utc),
                pushed_at=datetime(2020, 6, 1, tzinfo=timezone.utc), clone_url=url,
            )
        )  # fmt: skip
    with api.FakeGitHub(repos, token=TOKEN) as server:
        yield server


def test_the_readme_study_runs_verbatim(tmp_path: Path, fake_github) -> None:  # type: ignore[no-untyped-def]
    study = tmp_path / "study"
    study.mkdir()
    git_config = tmp_path / "gitconfig"
    git_config.write_text("")
    env = {
        **os.environ,
        "MINER_API_URL": fake_github.url,
        "GITHUB_TOKEN": TOKEN,
        "UV_OFFLINE": "1",
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
        "GIT_CONFIG_GLOBAL": str(git_config),
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    env.pop("MINER_STUDY_DIR", None)
    env.pop("MINER_DB", None)
    commands = study_commands()
    assert [argv[:2] for argv in commands][0] == ["miner", "search"]
    for argv in commands:
        assert argv[0] == "miner", argv
        done = subprocess.run(
            [sys.executable, "-m", "miner", *argv[1:]], cwd=study, env=env,
            capture_output=True, text=True, timeout=600, check=False,
        )  # fmt: skip
        assert done.returncode == 0, f"{shlex.join(argv)}\n{done.stdout}\n{done.stderr}"
        check_stage(argv[1], study, done.stdout + done.stderr)


def check_stage(stage: str, study: Path, output: str) -> None:
    """Each stage left its output in the study folder."""
    import sqlite3

    runs_dir = study / "data" / "runs"
    db = sqlite3.connect(study / "data" / "miner.db")
    count = lambda sql: db.execute(sql).fetchone()[0]  # noqa: E731
    if stage == "search":
        assert count("SELECT count(*) FROM repos") == len(PROJECTS)
    elif stage == "clone":
        assert count("SELECT count(*) FROM clones WHERE status = 'cloned'") == len(PROJECTS)
        assert (study / "data" / "repos" / "lab0" / "mnist-cnn" / "train.py").is_file()
    elif stage == "analyze":
        assert count("SELECT count(*) FROM audits WHERE status = 'ok'") == len(PROJECTS)
    elif stage == "annotate":
        assert list((study / "annotations").rglob("alice*")), output
    elif stage == "report":
        assert (study / "reports" / "index.md").is_file()
        assert (study / "reports" / "coverage.tex").is_file()
    elif stage == "select":
        rows = list(csv.DictReader((runs_dir / "manifests" / "selection.csv").open()))
        assert len(rows) >= 1, output
        assert any(r["smoke"] == "ok" for r in rows), output
    elif stage == "experiment":
        runs = list(csv.DictReader((runs_dir / "lab0__mnist-cnn" / "runs.csv").open()))
        assert runs and all(r["status"] == "ok" for r in runs), output
        assert len({r["threads"] for r in runs}) > 1
    elif stage == "export":
        labels = (study / "labels.csv").read_text(encoding="utf-8-sig")
        assert labels.count("\n") == 1 + len(PROJECTS)
    db.close()
