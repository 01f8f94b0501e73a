"""The smoke ladder on a seeded sample of a corpus (2021 or modern), built from local mirrors.

usage: python benchmarks/smoke_ladder_sample.py STUDY_DIR [--corpus dev.tsv|modern_dev.jsonl]
           [--commits modern_dev_manifest.tsv] [--mirrors DIR] [--sample N] [--seed S]
           [--names A/B,C/D] [--timeout 60] [--until step|end] [--deadline 2026-11-26T06:50]
           [--python PY1,PY2,...] [--cpu-shim] [--skip-build]

The study is built as benchmarks/smoke_ladder_corpus.py builds it (every corpus repository with
a mirror under MIRRORS/OWNER+NAME/repo; `miner clone --as-of --before` from the mirror, then
`miner analyze`), except that with --commits (a TSV of repo and sha) each repository's checkout
is that commit's tree, written with the corpus's materialise tool. Then `miner smoke --sample N
--seed S` (or on --names, in that order) on the eligible candidates, stopped cleanly at
--deadline with what finished stored, and the ladder, the outcomes and the time per candidate
are printed. The corpus may be a TSV with a `repo` column or a JSON-lines file with `repo`.
"""

from __future__ import annotations

import argparse
import csv
import os
import shutil
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from smoke_ladder_corpus import (  # noqa: E402
    HERE,
    MATERIALISE,
    add_repositories,
    corpus_names,
    git_config,
    ladder,
    materialise_failed,
    miner,
    mirror_dir,
    record_checkout,
    tree_dir,
)

PYENV = Path.home() / ".pyenv" / "versions"
ALL_PYTHONS = ",".join(
    str(PYENV / v / "bin" / "python")
    for v in ("3.6.15", "3.7.16", "3.8.18", "3.9.18", "3.10.13", "3.11.7", "3.12.1")
)


def checkouts_at(study: Path, commits: Path, mirrors: Path, trees: Path | None = None) -> int:
    """Each study repository's checkout at the commit the TSV names (materialised from its
    mirror, or copied from TREES/OWNER__NAME, recorded as its clone); how many were written."""
    from miner.store import Store

    with commits.open(encoding="utf-8", newline="") as fh:
        rows = list(csv.DictReader(fh, delimiter="\t"))
    wanted = {row["repo"]: row["sha"] for row in rows}
    dates = {row["repo"]: row.get("date") or "" for row in rows}
    store = Store(study / "data" / "miner.db")
    done = 0
    try:
        for row in store.query("SELECT id, full_name FROM repos"):
            name = str(row["full_name"])
            sha = wanted.get(name)
            dest = study / "data" / "repos" / name
            git_dir = mirror_dir(mirrors, name)
            if not sha:
                continue
            tree = tree_dir(trees, name)
            if not dest.is_dir() and tree is not None and not (git_dir / "HEAD").is_file():
                shutil.copytree(tree, dest, symlinks=True)
            elif not dest.is_dir():
                argv = [sys.executable, str(MATERIALISE), str(git_dir), sha, str(dest)]
                out = subprocess.run(argv, capture_output=True, text=True, check=False)
                if out.returncode != 0:
                    print(f"{name}: {out.stderr.strip()[-200:]}", flush=True)
                    continue
            record_checkout(store, int(row["id"]), name, sha, git_dir, dates[name])
            done += 1
    finally:
        store.close()
    return done


def github_from_mirrors(mirrors: Path) -> str:
    """Git configuration that serves https://github.com/OWNER/NAME from MIRRORS/OWNER+NAME (what
    a machine with a network fetches from GitHub, on one without)."""
    lines = []
    for git_dir in sorted(mirrors.glob("*+*/repo")):
        owner, _, name = git_dir.parent.name.partition("+")
        lines += [f'[url "file://{git_dir}"]',
                  f"\tinsteadOf = https://github.com/{owner}/{name}"]  # fmt: skip
    return "\n".join(lines) + "\n"


def main() -> int:
    """Build the study, smoke-test a seeded sample of its candidates, print the ladder."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("study", type=Path)
    parser.add_argument("--corpus", type=Path, default=Path("/work/shared/corpus/dev.tsv"))
    parser.add_argument("--commits", type=Path, default=None, help="TSV of repo and sha")
    parser.add_argument("--before", default="2021-03-01", help="clone as of (without --commits)")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument(
        "--trees",
        type=Path,
        default=None,
        help="OWNER__NAME trees for repositories without a mirror (with --commits)",
    )
    parser.add_argument("--sample", type=int, default=10)
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--names", default="", help="smoke these, in order, instead of a sample")
    parser.add_argument("--timeout", type=float, default=60.0, help="training bound, seconds")
    parser.add_argument("--install-timeout", type=float, default=300.0)
    parser.add_argument("--until", default="step", choices=("step", "end"))
    parser.add_argument("--deadline", default=None, help="ISO time (UTC) to stop smoke runs at")
    parser.add_argument("--python", default=ALL_PYTHONS)
    parser.add_argument("--cpu-shim", action="store_true")
    parser.add_argument("--jobs", type=int, default=1, help="candidates side by side")
    parser.add_argument("--skip-build", action="store_true", help="reuse clones and audits")
    parser.add_argument(
        "--github-from-mirrors", action="store_true", help="github.com URLs served by the mirrors"
    )
    args = parser.parse_args()
    study = args.study.resolve()
    (study / "data").mkdir(parents=True, exist_ok=True)
    config = git_config(study)
    if args.github_from_mirrors:
        with config.open("a", encoding="utf-8") as fh:
            fh.write(github_from_mirrors(args.mirrors))
    env = {**os.environ, "GIT_CONFIG_GLOBAL": str(config), "GIT_CONFIG_NOSYSTEM": "1"}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, (str(HERE), os.environ.get("PYTHONPATH"))))
    if not args.skip_build:
        names = add_repositories(study, corpus_names(args.corpus), args.mirrors, args.trees)
        print(f"{len(names)} corpus repositories with a local mirror", flush=True)
        started = time.perf_counter()
        if args.commits:
            written = checkouts_at(study, args.commits, args.mirrors, args.trees)
            print(f"{written} checkouts", flush=True)
        else:
            miner(study, "clone", "--as-of", args.before, "--workers", "2", env=env)
            print(f"materialised {materialise_failed(study, args.mirrors)} checkouts", flush=True)
        miner(study, "analyze", "--workers", "1", env=env)
        print(f"clone and analyze: {time.perf_counter() - started:.0f} s", flush=True)
    budget = None
    if args.deadline:
        end = datetime.fromisoformat(args.deadline).replace(tzinfo=timezone.utc)
        budget = max(60.0, (end - datetime.now(timezone.utc)).total_seconds())
    command = [
        "smoke", "--smoke-timeout", f"{args.timeout:g}", "--install-timeout",
        f"{args.install_timeout:g}", "--python", args.python, "--as-of-commit",
        "--until", args.until,
    ]  # fmt: skip
    command += ["--cpu-shim"] if args.cpu_shim else []
    command += ["--jobs", str(args.jobs)] if args.jobs > 1 else []
    if args.names:
        command += [n.strip() for n in args.names.split(",") if n.strip()]
    else:
        command += ["--sample", str(args.sample), "--seed", str(args.seed)]
    started = time.perf_counter()
    code = miner(study, *command, env=env, timeout=budget)
    print(f"smoke: exit {code}, {time.perf_counter() - started:.0f} s", flush=True)
    ladder(study)
    return 0


if __name__ == "__main__":
    sys.exit(main())
