"""Bytes and time of `miner clone` versus a plain full `git clone`, on weight-heavy repositories.

Builds a set of local repositories shaped like DL projects (a few hundred source and doc files,
model weights that are replaced once in the history, a data file), serves them over file:// with
partial clone allowed, then clones all of them twice with the same pool size: with miner's
clone stage (partial, depth 1, pinned) and with `git clone` (full). Prints bytes received (the
packs each clone received), wall time, CPU time and how many cores were busy.

Target: miner receives at most 10 % of the bytes of a full clone, and its pool keeps 2 cores busy.

    python benchmarks/clone_bytes.py [--repos 24] [--weights-mib 3] [--workers 8]
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import subprocess
import tempfile
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from miner.clone import DEFAULT_WORKERS, CloneOptions, clone_all, human_bytes
from miner.clone.git import pack_bytes
from miner.store import Store

WORDS = (
    "import torch numpy model layer conv batch train loss optimizer epoch data loader tensor "
    "def return class self forward backward gradient weight bias dropout relu softmax config"
).split()
ENV = {
    **os.environ,
    "GIT_CONFIG_GLOBAL": os.devnull,
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_AUTHOR_NAME": "Bench",
    "GIT_AUTHOR_EMAIL": "bench@example.org",
    "GIT_COMMITTER_NAME": "Bench",
    "GIT_COMMITTER_EMAIL": "bench@example.org",
}


def git(*args: str, cwd: Path, date: str | None = None) -> None:
    """Run git quietly for building the benchmark repositories."""
    env = dict(ENV, GIT_AUTHOR_DATE=date or "", GIT_COMMITTER_DATE=date or "")
    if not date:
        env.pop("GIT_AUTHOR_DATE")
        env.pop("GIT_COMMITTER_DATE")
    subprocess.run(["git", *args], cwd=cwd, env=env, check=True, capture_output=True)


def source_text(rng: random.Random, lines: int) -> str:
    """Code-like text: compressible the way real source is."""
    return "\n".join(" ".join(rng.choices(WORDS, k=rng.randint(3, 12))) for _ in range(lines))


def build_repo(path: Path, seed: int, weights_mib: int, files: int) -> None:
    """One DL-like repository: source and docs, two weight files replaced once, a data file."""
    rng = random.Random(seed)
    path.mkdir(parents=True)
    git("init", "--quiet", "--initial-branch=main", cwd=path)
    (path / "README.md").write_text("# Model\n\n" + source_text(rng, 80))
    (path / "requirements.txt").write_text("torch==1.8.1\nnumpy>=1.19\n")
    for i in range(files):
        folder = path / ("docs" if i % 10 == 0 else f"src/pkg{i % 7}")
        folder.mkdir(parents=True, exist_ok=True)
        suffix = ".md" if i % 10 == 0 else ".py"
        (folder / f"module_{i}{suffix}").write_text(source_text(rng, rng.randint(20, 120)))
    weights = path / "checkpoints"
    weights.mkdir()
    for name in ("model.pth", "optimizer.pth"):
        (weights / name).write_bytes(rng.randbytes(weights_mib * 1024 * 1024))
    (path / "data.npz").write_bytes(rng.randbytes(weights_mib * 1024 * 1024 // 2))
    dates = ("2020-01-01T00:00:00Z", "2020-05-01T00:00:00Z", "2020-09-01T00:00:00Z")
    for step, date in enumerate(dates):
        if step == 1:  # retrained: new weights, as DL repositories do
            for name in ("model.pth", "optimizer.pth"):
                (weights / name).write_bytes(rng.randbytes(weights_mib * 1024 * 1024))
        (path / "README.md").write_text(f"# Model v{step}\n\n" + source_text(rng, 80))
        git("-c", "core.looseCompression=0", "add", "--all", cwd=path)
        git("commit", "--quiet", "-m", f"step {step}", cwd=path, date=date)
    git("config", "uploadpack.allowFilter", "true", cwd=path)
    git("config", "uploadpack.allowAnySHA1InWant", "true", cwd=path)
    git("-c", "pack.compression=1", "repack", "-adq", cwd=path)  # a server serves packs


def cpu_seconds() -> float:
    """CPU time of this process and every child it has waited for (git and its helpers)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def full_clone(url: str, dest: Path) -> int:
    """A plain `git clone` (everything, all history); the bytes of the packs it received."""
    subprocess.run(["git", "clone", "--quiet", url, str(dest)], env=ENV, check=True)
    return pack_bytes(dest / ".git")


def measure(label: str, run: Callable[[], int]) -> tuple[str, int, float, float]:
    """Run one method; return its label, bytes, wall seconds and CPU seconds."""
    os.sync()  # no method pays for flushing what the one before it wrote
    cpu, wall = cpu_seconds(), time.perf_counter()
    received = run()
    return label, received, time.perf_counter() - wall, cpu_seconds() - cpu


def main() -> None:
    """Build the repositories, clone them both ways, print the figures."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repos", type=int, default=24)
    parser.add_argument("--weights-mib", type=int, default=3)
    parser.add_argument("--files", type=int, default=300)
    parser.add_argument("--workers", type=int, default=DEFAULT_WORKERS)
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="miner-clone-bench-"))
    try:
        started = time.perf_counter()
        upstream = work / "upstream"
        with ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
            list(
                pool.map(
                    lambda i: build_repo(
                        upstream / f"repo{i:02d}", i, args.weights_mib, args.files
                    ),
                    range(args.repos),
                )
            )
        urls = [(upstream / f"repo{i:02d}").as_uri() for i in range(args.repos)]
        print(
            f"built {args.repos} repositories in {time.perf_counter() - started:.1f} s: each "
            f"{args.files} source/doc files, 2 weight files of {args.weights_mib} MiB replaced "
            f"once, {args.weights_mib // 2 or 1} MiB of data, 3 commits"
        )

        def run_full() -> int:
            with ThreadPoolExecutor(max_workers=args.workers) as pool:
                return sum(
                    pool.map(
                        lambda p: full_clone(p[1], work / "full" / f"r{p[0]}"), enumerate(urls)
                    )
                )

        pool_seconds: list[float] = []

        def run_miner() -> int:
            with Store(work / "study" / "miner.db") as store:
                rows = [
                    {
                        "id": i + 1,
                        "full_name": f"bench/repo{i:02d}",
                        "clone_url": url,
                        "default_branch": "main",
                        "first_seen": "t",
                        "last_seen": "t",
                    }
                    for i, url in enumerate(urls)
                ]
                store.upsert("repos", rows, key=["id"])
                options = CloneOptions(root=work / "study" / "repos", workers=args.workers)
                summary = clone_all(store, options)
            if summary.failed_total:
                raise SystemExit(f"miner clone failed: {summary.failed}")
            pool_seconds.extend(r.seconds for r in summary.results)
            return summary.bytes_received

        results = [measure("git clone (full)", run_full), measure("miner clone", run_miner)]
        full_bytes = results[0][1]
        cores = os.cpu_count() or 1
        print(f"\n{args.repos} repositories, pool of {args.workers} workers on {cores} cores")
        print(
            f"{'method':<18} {'bytes received':>15} {'share':>8} {'wall s':>8} {'CPU s':>8} "
            f"{'cores busy':>11} {'s/repo':>7}"
        )
        for label, received, wall, cpu in results:
            percent = f"{100 * received / full_bytes:.2f}%"
            print(
                f"{label:<18} {human_bytes(received):>15} {percent:>8} {wall:>8.2f} {cpu:>8.2f} "
                f"{cpu / wall:>11.2f} {wall / args.repos:>7.3f}"
            )
        share = results[1][1] / full_bytes
        busy = results[1][3] / results[1][2]
        print(
            f"\nbytes: miner receives {100 * share:.2f} % of a full clone's bytes "
            f"(target <= 10 %): {'PASS' if share <= 0.10 else 'FAIL'}"
        )
        print(
            f"cores: miner's pool kept {busy:.2f} of {cores} cores busy (target 2; load "
            f"average {os.getloadavg()[0]:.2f} with the machine's other work): "
            f"{'PASS' if busy >= 0.8 * min(cores, 2) else 'BELOW TARGET'}"
        )
        print(
            f"pool: on average {sum(pool_seconds) / results[1][2]:.1f} of {args.workers} "
            "workers had a clone in progress"
        )
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
