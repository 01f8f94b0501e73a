"""The smoke ladder on the 2021 development corpus, built from local mirrors.

usage: python benchmarks/smoke_ladder_corpus.py STUDY_DIR [--corpus dev.tsv] [--mirrors DIR]
           [--timeout 90] [--until end|step] [--max-candidates N] [--deadline 2026-11-26T06:50]
           [--python PY1,PY2,...]

Every repository of the corpus with a git directory under MIRRORS/OWNER+NAME/repo becomes a
study repository whose clone URL is that mirror (file://), so `miner clone --as-of 2021-03-01`
makes the same partial clone (blobs over 1 MB left out) it makes from GitHub, and the smoke
run's promisor fetch brings those blobs back from the mirror. Then `miner analyze` and
`miner select --smoke` on every eligible candidate (at most --max-candidates, stopped cleanly at
--deadline with what finished stored), and `miner report smoke`. The study folder is reused:
candidates already smoke-tested at the same commit are not tried again.

Prints the ladder (count and % at each stage), the outcomes and the time per candidate.
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import signal
import subprocess
import sys
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from miner.store import Store

HERE = Path(__file__).resolve().parents[1]
PYENV = Path.home() / ".pyenv" / "versions"
DEFAULT_PYTHONS = ",".join(
    str(PYENV / v / "bin" / "python") for v in ("3.6.15", "3.7.16", "3.8.18")
)
MATERIALISE = Path("/work/shared/tools/materialise.py")


def miner(study: Path, *args: str, env: dict[str, str], timeout: float | None = None) -> int:
    """Run one miner command in the study; on `timeout` it gets a Ctrl-C and stops cleanly."""
    argv = [sys.executable, "-m", "miner", *args]
    print("$ miner", " ".join(args), flush=True)
    proc = subprocess.Popen(argv, cwd=study, env=env)
    try:
        return proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.send_signal(signal.SIGINT)
        try:
            return proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            proc.kill()
            return proc.wait()


def corpus_names(corpus: Path) -> list[str]:
    """The repositories a corpus file lists (TSV `repo` column, or JSON lines with `repo`)."""
    if corpus.suffix == ".jsonl":
        lines = corpus.read_text(encoding="utf-8").splitlines()
        return [json.loads(line)["repo"] for line in lines if line.strip()]
    with corpus.open(encoding="utf-8", newline="") as fh:
        return [row["repo"] for row in csv.DictReader(fh, delimiter="\t") if row.get("repo")]


def add_repositories(
    study: Path, names: list[str], mirrors: Path, trees: Path | None = None
) -> list[str]:
    """The named repositories with a local mirror (or, with `trees`, a tree of theirs under
    TREES/OWNER__NAME), as study repositories; their names."""
    from miner.store import Store

    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    rows = []
    for number, name in enumerate(names, start=1):
        git_dir = mirror_dir(mirrors, name)
        tree = tree_dir(trees, name)
        if not (git_dir / "HEAD").is_file():
            if tree is None:
                continue
            git_dir, branch = tree, None
        else:
            head = (git_dir / "HEAD").read_text(encoding="utf-8").strip()
            branch = head.removeprefix("ref: refs/heads/") if head.startswith("ref:") else None
        rows.append({
            "id": number, "full_name": name, "clone_url": f"file://{git_dir}",
            "html_url": f"https://github.com/{name}", "default_branch": branch,
            "fork": 0, "archived": 0, "disabled": 0, "first_seen": now, "last_seen": now,
        })  # fmt: skip
    store = Store(study / "data" / "miner.db")
    try:
        store.upsert("repos", rows, key=["id"])
    finally:
        store.close()
    return [r["full_name"] for r in rows]


def tree_dir(trees: Path | None, name: str) -> Path | None:
    """OWNER/NAME's tree under TREES/OWNER__NAME (materialised at the commit a list names)."""
    if trees is None:
        return None
    tree = trees / name.replace("/", "__")
    return tree if tree.is_dir() else None


def mirror_dir(mirrors: Path, name: str) -> Path:
    """The git directory of OWNER/NAME's local mirror (bare, or kept as a working copy)."""
    git_dir = mirrors / name.replace("/", "+") / "repo"
    return git_dir / ".git" if (git_dir / ".git" / "HEAD").is_file() else git_dir


def record_checkout(
    store: Store, repo_id: int, name: str, sha: str, git_dir: Path, date: str = ""
) -> None:
    """Store a tree written at `sha` under data/repos/NAME as the repository's clone (its
    commit date read from the mirror, else the `date` a list gives)."""
    date = subprocess.run(
        ["git", "--git-dir", str(git_dir), "show", "-s", "--format=%cI", sha],
        capture_output=True, text=True, check=False,
    ).stdout.strip() or date  # fmt: skip
    clone = {
        "repo_id": repo_id, "full_name": name, "status": "cloned",
        "error_class": None, "error": None, "path": f"repos/{name}",
        "commit_sha": sha, "commit_date": date,
        "cloned_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
    }  # fmt: skip
    store.upsert("clones", [clone], ["repo_id"])


def materialise_failed(study: Path, mirrors: Path) -> int:
    """Checkouts for the repositories whose mirror cannot serve a filtered clone (a snapshot
    missing blobs it does not mark as promised): the tree of the same commit, written with the
    corpus's materialise tool, recorded as the clone. Such a checkout has no promisor remote, so
    its smoke copy fetches nothing. Returns how many."""
    from miner.store import Store

    store = Store(study / "data" / "miner.db")
    done = 0
    try:
        failed = store.query("SELECT repo_id, full_name FROM clones WHERE status = 'failed'")
        for row in failed:
            name = str(row["full_name"])
            git_dir = mirror_dir(mirrors, name)
            dest = study / "data" / "repos" / name
            out = subprocess.run(
                [sys.executable, str(MATERIALISE), str(git_dir), "HEAD", str(dest),
                 "--before", "2021-03-01"],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if out.returncode != 0 or not out.stdout.split():
                continue
            record_checkout(store, int(row["repo_id"]), name, out.stdout.split()[0], git_dir)
            done += 1
    finally:
        store.close()
    return done


def git_config(study: Path) -> Path:
    """A global git config that lets local mirrors serve filtered and by-id fetches."""
    path = study / "gitconfig"
    path.write_text(
        "[uploadpack]\n\tallowFilter = true\n\tallowAnySHA1InWant = true\n"
        "[safe]\n\tdirectory = *\n",
        encoding="utf-8",
    )
    return path


def ladder(study: Path) -> None:
    """The stored smoke runs as the ladder and the outcome shares, with times."""
    from miner.report.render import to_markdown
    from miner.report.smoke import ladder_table, outcome_table
    from miner.store import Store

    store = Store(study / "data" / "miner.db")
    try:
        rows = [dict(r) for r in store.smoke_runs()]
        attempts = len(store.smoke_attempts())
    finally:
        store.close()
    print(to_markdown(ladder_table(rows)))
    print(to_markdown(outcome_table(rows)))
    print(f"{len(rows)} candidates smoke-tested, {attempts} attempts stored")
    blobs = [r for r in rows if int(r.get("blob_files") or 0)]
    fetched = sum(int(r.get("blob_bytes") or 0) for r in blobs)
    print(f"blob fetch: {len(blobs)} candidates got {fetched} bytes the clone had left out")
    print(json.dumps({r["full_name"]: [r["outcome"], r["stage"]] for r in rows}, indent=0))


def main() -> int:
    """Build the study, smoke-test its candidates, print the ladder."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("study", type=Path)
    parser.add_argument("--corpus", type=Path, default=Path("/work/shared/corpus/dev.tsv"))
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--timeout", type=float, default=90.0, help="training bound, seconds")
    parser.add_argument("--install-timeout", type=float, default=300.0, help="seconds")
    parser.add_argument("--until", default="end", choices=("step", "end"))
    parser.add_argument("--max-candidates", type=int, default=None)
    parser.add_argument("--deadline", default=None, help="ISO time (UTC) to stop smoke runs at")
    parser.add_argument("--python", default=DEFAULT_PYTHONS)
    parser.add_argument("--skip-build", action="store_true", help="reuse clones and audits")
    args = parser.parse_args()
    study = args.study.resolve()
    (study / "data").mkdir(parents=True, exist_ok=True)
    env = {**os.environ, "GIT_CONFIG_GLOBAL": str(git_config(study)), "GIT_CONFIG_NOSYSTEM": "1"}
    env["PYTHONPATH"] = str(HERE)
    if not args.skip_build:
        names = add_repositories(study, corpus_names(args.corpus), args.mirrors)
        print(f"{len(names)} corpus repositories with a local mirror", flush=True)
        started = time.perf_counter()
        miner(study, "clone", "--as-of", "2021-03-01", "--workers", "2", env=env)
        print(f"materialised {materialise_failed(study, args.mirrors)} checkouts", flush=True)
        miner(study, "analyze", "--workers", "1", env=env)
        print(f"clone and analyze: {time.perf_counter() - started:.0f} s", flush=True)
    budget = None
    if args.deadline:
        end = datetime.fromisoformat(args.deadline).replace(tzinfo=timezone.utc)
        budget = max(60.0, (end - datetime.now(timezone.utc)).total_seconds())
    select = [
        "select", "--n", "5", "--smoke", "--smoke-timeout", f"{args.timeout:g}",
        "--smoke-python", args.python, "--smoke-as-of-commit", "--smoke-until", args.until,
        "--smoke-install-timeout", f"{args.install_timeout:g}", "--diversify",
        "framework,domain,version",
    ]  # fmt: skip
    if args.max_candidates:
        select += ["--max-candidates", str(args.max_candidates)]
    started = time.perf_counter()
    code = miner(study, *select, env=env, timeout=budget)
    print(f"select --smoke: exit {code}, {time.perf_counter() - started:.0f} s", flush=True)
    ladder(study)
    return 0


if __name__ == "__main__":
    sys.exit(main())
