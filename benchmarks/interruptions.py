"""Killed and concurrent runs on real repositories: nothing outlives a run, no work is done twice.

Builds a study whose repositories are local git repositories served over file:// (listed in a
TSV with `repo` = OWNER/NAME and `git_dir` columns, e.g. a corpus index), then:

1. `miner clone` killed with SIGKILL mid-batch: the processes below it before the kill, and how
   many are still running 5 s later; the re-run's summary.
2. `miner analyze` killed with SIGKILL mid-batch: the same, and what the re-run audits.
3. two `miner analyze` started at once on a fresh copy of the store: audits per run, and how
   many repositories were audited more than once (the target is 0).
4. `miner experiment run` (the shipped example, or --manifest) killed with SIGKILL mid-run.

Processes are found by PID (the tree below the killed command), never by name.

    python benchmarks/interruptions.py --index INDEX.tsv [--corpus dev] [--checkouts DIR]
        [--manifest FILE] [--keep DIR]
"""

from __future__ import annotations

import argparse
import csv
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import psutil

from miner.store import Store

AUDITED = re.compile(r"^\[\d+/\d+\] audited (\S+)$", re.MULTILINE)


def miner(*args: str) -> subprocess.Popen[str]:
    """`miner ARGS` as a child of this script, output captured."""
    return subprocess.Popen(
        [sys.executable, "-m", "miner", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def wait_until(condition: Callable[[], bool], proc: subprocess.Popen[str], what: str) -> None:
    deadline = time.monotonic() + 600
    while not condition():
        if proc.poll() is not None or time.monotonic() > deadline:
            raise SystemExit(f"{what}: the command ended first\n{proc.communicate()[1]}")
        time.sleep(0.05)


def kill_and_watch(proc: subprocess.Popen[str], label: str) -> None:
    """SIGKILL `proc` alone; report the processes below it then and 5 s later."""
    below = psutil.Process(proc.pid).children(recursive=True)
    names = Counter(p.name() for p in below)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    for pipe in (proc.stdout, proc.stderr):  # an orphan may hold them open: never read to EOF
        if pipe is not None:
            pipe.close()
    time.sleep(5)
    alive = [p for p in below if p.is_running() and p.status() != psutil.STATUS_ZOMBIE]
    print(
        f"{label}: kill -9 with {len(below)} processes below it "
        f"({', '.join(f'{n} x{c}' for n, c in sorted(names.items()))}); "
        f"{len(alive)} still running 5 s later"
    )
    for p in alive:
        p.kill()


def count(db: Path, sql: str) -> int:
    with Store(db) as store:
        return int(store.query(sql)[0][0])


def build(study: Path, index: Path, corpus: str | None) -> int:
    """Register every repository of the index in a new store; how many."""
    with index.open(encoding="utf-8", newline="") as handle:
        rows = [
            r
            for r in csv.DictReader(handle, delimiter="\t")
            if r.get("git_dir") and (corpus is None or r.get("corpus") == corpus)
        ]
    with Store(study / "data" / "miner.db") as store:
        for repo_id, row in enumerate(rows, start=1):
            record = {
                "id": repo_id,
                "full_name": row["repo"],
                "clone_url": Path(row["git_dir"]).as_uri(),
                "first_seen": "2021-01-19T00:00:00Z",
                "last_seen": "2021-01-19T00:00:00Z",
            }
            store.upsert("repos", [record], key=["id"])
    return len(rows)


def clone_stage(study: Path, total: int) -> None:
    db = study / "data" / "miner.db"
    cloned = "SELECT COUNT(*) FROM clones WHERE status = 'cloned'"
    proc = miner("clone", "--study", str(study), "--workers", "4")
    wait_until(lambda: count(db, cloned) >= total // 3, proc, "clone")
    stored = count(db, cloned)
    kill_and_watch(proc, f"clone ({stored} of {total} stored)")
    done = subprocess.run(
        [sys.executable, "-m", "miner", "clone", "--study", str(study), "--workers", "4"],
        capture_output=True,
        text=True,
        check=False,
    )
    print(f"  re-run: {done.stdout.strip().splitlines()[-1]}")


def adopt_checkouts(study: Path, index: Path, checkouts: Path) -> int:
    """Register materialised checkouts (`checkouts/OWNER__NAME`) for the repositories whose
    clone failed (a mirror without its large blobs cannot serve them); how many."""
    with index.open(encoding="utf-8", newline="") as handle:
        shas = {r["repo"]: r.get("sha") for r in csv.DictReader(handle, delimiter="\t")}
    adopted = 0
    with Store(study / "data" / "miner.db") as store:
        failed = store.query("SELECT repo_id, full_name FROM clones WHERE status = 'failed'")
        for row in failed:
            folder = checkouts / row["full_name"].replace("/", "__")
            if not folder.is_dir() or not shas.get(row["full_name"]):
                continue
            record = {
                "repo_id": row["repo_id"],
                "full_name": row["full_name"],
                "path": str(folder),
                "status": "cloned",
                "commit_sha": shas[row["full_name"]],
                "cloned_at": "2021-01-19T00:00:00Z",
            }
            store.upsert("clones", [record], key=["repo_id"])
            adopted += 1
    return adopted


def analyze_stage(study: Path) -> None:
    db = study / "data" / "miner.db"
    fresh = study / "data" / "fresh.db"
    with Store(db) as source, Store(fresh) as copy:
        source.conn.backup(copy.conn)  # the WAL included, unlike a file copy
    total = count(db, "SELECT COUNT(*) FROM clones WHERE status = 'cloned'")
    audited = "SELECT COUNT(*) FROM audits"
    proc = miner("analyze", "--db", str(db), "--workers", "2")
    wait_until(lambda: count(db, audited) >= total // 3, proc, "analyze")
    stored = count(db, audited)
    kill_and_watch(proc, f"analyze ({stored} of {total} audited)")
    again = miner("analyze", "--db", str(db), "--workers", "2")
    out, _ = again.communicate()
    print(
        f"  re-run: audited {len(AUDITED.findall(out))} (the {total - stored} missing); "
        f"audits in the store: {count(db, audited)} of {total}"
    )
    runs = [miner("analyze", "--db", str(fresh), "--workers", "2") for _ in range(2)]
    outputs = [run.communicate()[0] for run in runs]
    per_run = [Counter(AUDITED.findall(out)) for out in outputs]
    both = per_run[0] + per_run[1]
    print(
        f"two analyze runs at once: {sum(per_run[0].values())} + {sum(per_run[1].values())} "
        f"audits, {len(both)} repositories, {sum(c > 1 for c in both.values())} audited twice; "
        f"audits in the store: {count(fresh, audited)} of {total}"
    )
    print(f"  run 1: {outputs[0].strip().splitlines()[-1]}")
    print(f"  run 2: {outputs[1].strip().splitlines()[-1]}")


def experiment_stage(study: Path, manifest: Path | None) -> None:
    source = [str(manifest)] if manifest else ["--example"]
    out = study / "runs" / (manifest.stem if manifest else "example")
    shutil.rmtree(out, ignore_errors=True)
    proc = miner("experiment", "run", *source, "--threads", "1,2", "--runs", "3", "--out", str(out))

    def training() -> bool:
        # Well into a run: its training command has printed something.
        return any(log.stat().st_size > 0 for log in out.glob("*/run-*/stdout.log"))

    wait_until(training, proc, "experiment run")
    kill_and_watch(proc, "experiment run")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, required=True, help="TSV: repo, git_dir columns")
    parser.add_argument("--corpus", help="only rows whose corpus column is this")
    parser.add_argument(
        "--checkouts", type=Path, help="OWNER__NAME checkouts for repositories that fail to clone"
    )
    parser.add_argument("--manifest", type=Path, help="experiment manifest (default: example)")
    parser.add_argument("--keep", type=Path, help="build the study here and keep it")
    args = parser.parse_args()
    study = args.keep or Path(tempfile.mkdtemp(prefix="interruptions-"))
    try:
        total = build(study, args.index, args.corpus)
        print(f"study {study}: {total} repositories served over file://")
        clone_stage(study, total)
        if args.checkouts:
            adopted = adopt_checkouts(study, args.index, args.checkouts)
            print(f"  {adopted} failed clones replaced by their checkouts in {args.checkouts}")
        analyze_stage(study)
        experiment_stage(study, args.manifest)
    finally:
        if args.keep is None:
            shutil.rmtree(study, ignore_errors=True)


if __name__ == "__main__":
    main()
