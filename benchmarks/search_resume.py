"""Search requests a crawl killed with SIGKILL costs, on the fake GitHub API (real processes).

For a crawl of "deep learning" --min-stars 200 over N matching repositories, runs `miner
search` as a process, kills it with SIGKILL after K search requests, runs the same command
again, and prints: the requests of an uninterrupted crawl, the requests made before the kill,
the requests of the resumed run, the pages the resumed run asked again that were served before
the kill (the page in flight at the kill may be one of them; the search's final total, page 1
of the whole query, is asked by every crawl and not counted), and whether every match was
stored once. Target: at most one page asked again per kill. Exits 1 if a target is missed.

usage: python benchmarks/search_resume.py [--n 2600] [--kill-after 3 9 14 21] [--seed 31]
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
FAKE = ROOT / "tests" / "fakes" / "github_api.py"
KEYWORD = "deep learning"
LATENCY = 0.04  # seconds per answer, so that a kill lands in the middle of the crawl


def _fake_api():
    spec = importlib.util.spec_from_file_location("miner_fake_github_api", FAKE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def _command(api_url: str, db: Path) -> list[str]:
    return [sys.executable, "-m", "miner", "search", KEYWORD, "--min-stars", "200",
            "--api-url", api_url, "--db", str(db)]  # fmt: skip


def _env() -> dict[str, str]:
    env = {**os.environ, "GITHUB_TOKEN": "benchmark", "PYTHONPATH": str(ROOT)}
    env.pop("MINER_API_URL", None)
    return env


def _asked(api, since: int = 0) -> list[tuple[str, int]]:
    return [(s.params["q"], int(s.params.get("page", "1"))) for s in api.served[since:]]


def crawl(fake, n: int, seed: int, kill_after: int | None) -> dict[str, int]:
    """One crawl, killed after `kill_after` requests and resumed (None: never killed)."""
    from miner.store import Store

    with fake.FakeGitHub(fake.make_population(n, seed=seed), latency=LATENCY) as api, \
            tempfile.TemporaryDirectory() as tmp:  # fmt: skip
        db = Path(tmp) / "miner.db"
        expected = api.ids(f"{KEYWORD} stars:>=200")
        before = 0
        if kill_after is not None:
            process = subprocess.Popen(
                _command(api.url, db),
                env=_env(),
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
            while api.search_requests < kill_after and process.poll() is None:
                time.sleep(0.005)
            process.send_signal(signal.SIGKILL)
            process.wait()
            before = len(api.served)
        asked_before = _asked(api)
        subprocess.run(_command(api.url, db), env=_env(), check=True, capture_output=True)
        asked_after = _asked(api, before)
        with Store(db) as store:
            ids = [r[0] for r in store.query("SELECT id FROM repos")]
        root = (f"{KEYWORD} stars:>=200", 1)
        repeated = [p for p in asked_after if p in set(asked_before) and p != root]
        return {
            "before": before,
            "resumed": len(asked_after),
            "repeated": len(repeated),
            "complete": int(len(ids) == len(set(ids)) and set(ids) == expected),
        }


def main() -> int:
    """Run the crawls and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--n", type=int, default=2600)
    parser.add_argument("--kill-after", type=int, nargs="+", default=[3, 9, 14, 21])
    parser.add_argument("--seed", type=int, default=31)
    args = parser.parse_args()
    fake = _fake_api()
    fresh = crawl(fake, args.n, args.seed, None)["resumed"]
    header = (
        f"{'N':>6} {'killed after':>12} {'uninterrupted':>13} {'before kill':>11} "
        f"{'resumed run':>11} {'asked again':>11} {'complete':>8}"
    )
    print(header)
    print("-" * len(header))
    ok = True
    for k in args.kill_after:
        r = crawl(fake, args.n, args.seed, k)
        ok &= r["repeated"] <= 1 and bool(r["complete"])
        print(
            f"{args.n:>6,} {k:>12} {fresh:>13} {r['before']:>11} {r['resumed']:>11} "
            f"{r['repeated']:>11} {'yes' if r['complete'] else 'NO':>8}"
        )
    print(
        "\nrequests: search requests served; asked again: pages the resumed run asked that were "
        "served before the kill (target <= 1, the page in flight). "
        f"{'All targets met.' if ok else 'A TARGET WAS MISSED.'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
