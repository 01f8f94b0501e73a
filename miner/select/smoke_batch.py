"""`miner smoke` on named projects or a seeded sample of the eligible ones, straight from the
store: no manifest needs to be written first, and the projects run in the order given."""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from miner.errors import ConfigError
from miner.select.rank import Candidate
from miner.select.selection import (
    assess_store,
    eligible_candidates,
    smoke_candidate,
    smoke_one,
)
from miner.select.smoke import SmokeOptions, SmokeResult

if TYPE_CHECKING:
    from miner.store import Store


def chosen_candidates(
    store: Store, names: tuple[str, ...] = (), sample: int | None = None, seed: int = 0
) -> list[Candidate]:
    """The candidates of `names` (any audited clone, in the order given), or `sample` of the
    eligible ones drawn with `seed` (the same seed draws the same ones), or every eligible one
    by name."""
    candidates, skipped = assess_store(store)
    if names:
        by_name = {c.full_name.lower(): c for c in candidates}
        missing = [n for n in names if n.lower() not in by_name]
        if missing:
            why = {s.full_name.lower(): s.reason for s in skipped}
            detail = "; ".join(f"{n} ({why.get(n.lower(), 'not audited')})" for n in missing)
            raise ConfigError(f"cannot smoke-test {detail}")
        return [by_name[n.lower()] for n in names]
    eligible = sorted(eligible_candidates(candidates, skipped), key=lambda c: c.full_name.lower())
    if sample is None:
        return eligible
    if sample < 1:
        raise ConfigError(f"--sample {sample}: draw at least one candidate")
    return random.Random(seed).sample(eligible, min(sample, len(eligible)))


def smoke_projects(
    store: Store,
    options: SmokeOptions,
    candidates: list[Candidate],
    on_smoke: Callable[[SmokeResult], None] | None = None,
    on_stage: Callable[[str, str], None] | None = None,
    jobs: int = 1,
) -> list[SmokeResult]:
    """Smoke-test the candidates in the order given, storing every attempt: `jobs` side by side
    where memory allows (each training step may take `options.memory_bytes`), started in that
    order; the store is written from this thread only."""
    jobs = side_by_side(jobs, options.memory_bytes, len(candidates))
    options = replace(options, jobs=jobs)
    if jobs <= 1:
        return [smoke_candidate(store, options, c, on_smoke, on_stage) for c in candidates]
    from concurrent.futures import ThreadPoolExecutor, as_completed

    from miner.procs import guardian

    done: dict[int, SmokeResult] = {}
    pool = ThreadPoolExecutor(max_workers=jobs, thread_name_prefix="smoke")
    try:
        futures = {pool.submit(smoke_one, options, c, on_stage): i
                   for i, c in enumerate(candidates)}  # fmt: skip
        for future in as_completed(futures):
            result = future.result()
            store.save_smoke(result.as_row())
            if on_smoke is not None:
                on_smoke(result)
            done[futures[future]] = result
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        guardian().close()  # every running project's process group goes with it
        raise
    pool.shutdown()
    return [done[i] for i in range(len(candidates))]


def side_by_side(jobs: int, memory_bytes: int, count: int) -> int:
    """How many candidates may run at once: `jobs`, fewer when the memory available now cannot
    hold that many training steps at their limit, never more than there are candidates."""
    if jobs <= 1 or count <= 1:
        return 1
    available = _available_memory()
    if available is not None and memory_bytes > 0:
        jobs = min(jobs, max(1, available // memory_bytes))
    return max(1, min(jobs, count))


def _available_memory() -> int | None:
    """MemAvailable of /proc/meminfo in bytes (None where there is none)."""
    try:
        for line in Path("/proc/meminfo").read_text(encoding="ascii").splitlines():
            if line.startswith("MemAvailable:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        return None
    return None


def smoke_named(
    store: Store | None,
    folder: Path,
    options: SmokeOptions,
    names: tuple[str, ...] = (),
    sample: int | None = None,
    seed: int = 0,
    on_smoke: Callable[[SmokeResult], None] | None = None,
    on_stage: Callable[[str, str], None] | None = None,
    jobs: int = 1,
) -> list[SmokeResult]:
    """`miner smoke`: the selected manifests (all, or those named), a named project without a
    manifest straight from the store, or a seeded sample of the store's eligible candidates;
    in the order given."""
    from miner.select.selected import load_selected, smoke_manifest, smoke_selected

    if sample is None and not names:
        return smoke_selected(folder, options, (), store, on_smoke, on_stage)
    if store is None:
        raise ConfigError("no store: smoke-testing from the store needs `miner analyze` first")
    manifests = {m.name.lower(): m for m in load_selected(folder)} if folder.is_dir() else {}
    if sample is not None:
        return smoke_projects(store, options, chosen_candidates(store, (), sample, seed),
                              on_smoke, on_stage, jobs)  # fmt: skip
    unlisted = tuple(n for n in names if n.lower() not in manifests)
    from_store = (
        {c.full_name.lower(): c for c in chosen_candidates(store, unlisted)} if unlisted else {}
    )
    results: list[SmokeResult] = []
    pending: list[Candidate] = []  # projects from the store, run side by side
    for name in names:
        manifest = manifests.get(name.lower())
        if manifest is None:
            pending.append(from_store[name.lower()])
            continue
        results += smoke_projects(store, options, pending, on_smoke, on_stage, jobs)
        pending = []
        result = smoke_manifest(manifest, options, store, on_stage)
        results.append(result)
        if on_smoke is not None:
            on_smoke(result)
    return results + smoke_projects(store, options, pending, on_smoke, on_stage, jobs)
