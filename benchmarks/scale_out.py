"""Clone-and-audit throughput on a Dask LocalCluster, and a cost model for large studies.

Generates realistic repositories (benchmarks/audit_throughput.py's generator), makes each a git
origin served over file://, then runs `miner analyze --dask local:W` for W = 1 and 2 on fresh
stores, printing repositories per second and the driver's peak memory. From the measured
per-repository clone and audit times it projects 10,000 and 100,000 repositories on W workers.

usage: python benchmarks/scale_out.py [--repos 60] [--workers 1,2]
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from audit_throughput import generate  # noqa: E402


def _git(repo: Path, *args: str) -> None:
    env = {**os.environ, "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
           "GIT_AUTHOR_NAME": "b", "GIT_AUTHOR_EMAIL": "b@b", "GIT_COMMITTER_NAME": "b",
           "GIT_COMMITTER_EMAIL": "b@b"}  # fmt: skip
    subprocess.run(["git", *args], cwd=repo, env=env, check=True, capture_output=True)


def make_origins(root: Path, count: int) -> list[Path]:
    """Generated repositories, each turned into a git repository that allows partial clones."""
    repos = generate(root, count)
    for repo in repos:
        _git(repo, "init", "--quiet", "--initial-branch=main")
        _git(repo, "config", "uploadpack.allowFilter", "true")
        _git(repo, "config", "uploadpack.allowAnySHA1InWant", "true")
        _git(repo, "add", "-A")
        _git(repo, "commit", "--quiet", "-m", "generated")
    return repos


def make_store(db: Path, origins: list[Path]) -> None:
    from miner.store import Store

    rows = [
        {"id": i, "full_name": f"bench/{p.name}", "html_url": f"https://github.com/bench/{p.name}",
         "clone_url": p.as_uri(), "default_branch": "main", "fork": 0, "archived": 0,
         "disabled": 0, "stars": 0, "first_seen": "2026-01-01", "last_seen": "2026-01-01"}
        for i, p in enumerate(origins, start=1)
    ]  # fmt: skip
    with Store(db) as store:
        store.upsert("repos", rows, key=["id"])


def run_dask(db: Path, workers: int) -> tuple[float, int, list[float]]:
    """(seconds, repositories audited, driver RSS in MB after 1/4, 1/2 and all) of one run."""
    import psutil

    from miner.audit.cluster import analyze_on_dask
    from miner.clone import CloneOptions
    from miner.store import Store

    me = psutil.Process()
    started = time.monotonic()
    audited, rss = 0, []
    with Store(db) as store:
        events = analyze_on_dask(store, f"local:{workers}", CloneOptions(root=db.parent / "repos"))
        for event in events:
            audited += event.status == "audited"
            if event.done in {event.total // 4, event.total // 2, event.total}:
                rss.append(me.memory_info().rss / 2**20)
    return time.monotonic() - started, audited, rss


def per_repo_times(db: Path) -> tuple[float, float]:
    """Median clone seconds (from the store) and median audit seconds (measured here)."""
    from miner.audit import audit
    from miner.store import Store

    with Store(db) as store:
        clone = statistics.median(r["seconds"] for r in store.query("SELECT seconds FROM clones"))
    folders = sorted((db.parents[2] / "origins").iterdir())[:10]
    audit(folders[0])  # load spaCy once, as a worker does
    times = []
    for folder in folders:
        start = time.monotonic()
        audit(folder)
        times.append(time.monotonic() - start)
    return clone, statistics.median(times)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repos", type=int, default=60)
    ap.add_argument("--workers", default="1,2")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="scale-out-") as tmp:
        root = Path(tmp)
        origins = make_origins(root / "origins", args.repos)
        print(
            f"{len(origins)} generated repositories served over file:// on {os.cpu_count()} cores"
        )
        print(f"{'workers':>8} {'repos':>6} {'seconds':>8} {'repos/s':>8}  driver RSS MB", end="")
        print(" at 1/4, 1/2, all")
        last_db = None
        for workers in (int(w) for w in args.workers.split(",")):
            db = root / f"study-{workers}" / "data" / "miner.db"
            make_store(db, origins)
            seconds, audited, rss = run_dask(db, workers)
            sizes = ", ".join(f"{r:.0f}" for r in rss)
            rate = audited / seconds
            print(f"{workers:>8} {audited:>6} {seconds:>8.1f} {rate:>8.2f}  {sizes}")
            last_db = db
        assert last_db is not None
        clone_s, audit_s = per_repo_times(last_db)
    task = clone_s + audit_s
    print(
        f"\nper repository (medians): clone {clone_s:.3f} s (local origin), audit {audit_s:.3f} s"
    )
    print("cost model: one task = clone + audit on one worker process, workers fully busy,")
    print("GitHub clone time assumed 5x the local one (network), the driver never the bottleneck:")
    header = ("repos", "workers", "hours (local origins)", "hours (GitHub, 5x clone)")
    print(f"{header[0]:>8} {header[1]:>8} {header[2]:>22} {header[3]:>25}")
    for count in (10_000, 100_000):
        for workers in (2, 16, 64):
            local = count * task / workers / 3600
            remote = count * (5 * clone_s + audit_s) / workers / 3600
            print(f"{count:>8} {workers:>8} {local:>22.2f} {remote:>25.2f}")


if __name__ == "__main__":
    main()
