"""Search requests used against the minimum, on the fake GitHub API (real HTTP, PyGithub).

For populations of N matching repositories, prints the search requests a full crawl used, the
minimum ceil(N/100) (one request per page of 100, as if there were no 1,000-result cap), the
slicing probes (requests that only read a slice's total_count), the ratio
requests / (minimum + probes) against the 1.05 target, and the requests for pages past the cap
(target: none). Also checks that every match was found. Exits 1 if a target is missed.

With --drift, the crawls are repeated while stars change between requests (1% of the
population per request, by up to 3 stars): once with gains only, as on GitHub, and once with
gains and losses alike; the ratio target does not apply there, completeness and honest logging do.

usage: python benchmarks/search_requests.py [--sizes 500 2500 10000] [--seed 0] [--drift]
"""

from __future__ import annotations

import argparse
import importlib.util
import math
import sys
import tempfile
import time
from pathlib import Path

FAKE = Path(__file__).resolve().parents[1] / "tests" / "fakes" / "github_api.py"
TARGET = 1.05


def _fake_api():
    spec = importlib.util.spec_from_file_location("miner_fake_github_api", FAKE)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def crawl(fake, n: int, seed: int, drift: str) -> dict[str, float]:
    """One full crawl of "deep learning" --min-stars 200 over a population with n matches."""
    from miner.search.crawl import search
    from miner.search.github import GitHubClient
    from miner.search.slicing import SearchFilters
    from miner.store import Store

    repos = fake.make_population(n, seed=seed)
    moves = None
    if drift != "none":
        moves = fake.Drift(max(10, n // 100), max_delta=3, floor=200, losses=drift == "+/-")
    with fake.FakeGitHub(repos, drift=moves) as api, tempfile.TemporaryDirectory() as tmp:
        expected = api.ids("deep learning stars:>=200")
        started = time.perf_counter()
        with Store(Path(tmp) / "miner.db") as store, GitHubClient(api.url, "benchmark") as client:
            summary = search(store, client, ["deep learning"], SearchFilters(min_stars=200))
            found = {r[0] for r in store.query("SELECT repo_id FROM repo_hits")}
        seconds = time.perf_counter() - started
        keyword = summary.keywords[0]
        minimum = math.ceil(len(expected) / 100)
        return {
            "n": len(expected),
            "found": len(found & expected),
            "slices": keyword.slices,
            "requests": keyword.requests,
            "served": api.search_requests,
            "probes": keyword.probes,
            "minimum": minimum,
            "ratio": keyword.requests / (minimum + keyword.probes),
            "past_cap": api.past_cap,
            "shortfall": keyword.shortfall,
            "seconds": seconds,
        }


def main() -> int:
    """Run the crawls and print the table."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[500, 2500, 10000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--drift", action="store_true", help="also crawl under star drift")
    args = parser.parse_args()
    fake = _fake_api()
    header = (
        f"{'N':>7} {'drift':>5} {'found':>7} {'logged short':>12} {'slices':>6} {'probes':>6} "
        f"{'minimum':>7} {'requests':>8} {'ratio':>6} {'past cap':>8} {'seconds':>7}"
    )
    print(header)
    print("-" * len(header))
    ok = True
    for drift in ("none", "+", "+/-") if args.drift else ("none",):
        for n in args.sizes:
            r = crawl(fake, n, args.seed, drift)
            # Whatever is missing must be in the log: found + logged shortfall covers N.
            ok &= r["found"] + r["shortfall"] >= r["n"] and r["past_cap"] == 0
            ok &= r["requests"] == r["served"] and (drift != "none" or r["ratio"] <= TARGET)
            ok &= drift != "none" or r["found"] == r["n"]
            print(
                f"{r['n']:>7,} {drift:>5} {r['found']:>7,} {r['shortfall']:>12,} "
                f"{r['slices']:>6} {r['probes']:>6} {r['minimum']:>7} {r['requests']:>8} "
                f"{r['ratio']:>6.3f} {r['past_cap']:>8} {r['seconds']:>7.1f}"
            )
    print(
        f"\nratio = requests / (minimum + probes), target <= {TARGET} without drift; "
        f"minimum = ceil(N/100); past cap = requests for results beyond the first 1,000 "
        f"(target 0). {'All targets met.' if ok else 'A TARGET WAS MISSED.'}"
    )
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
