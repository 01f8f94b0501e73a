"""`analyze`: audit every stored clone in a process pool, persisting labels as they arrive."""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ProcessPoolExecutor, wait
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from miner.audit.auditor import audit
from miner.models import AuditResult, Checkout, Label
from miner.procs import ProcessId, pool_worker_init, starting_child
from miner.store import Store
from miner.store.claims import TAKEN, Claims


@dataclass(frozen=True)
class AnalyzeEvent:
    """Progress of `analyze`: one repository done (or skipped, failed, or left to another run)."""

    full_name: str
    status: str  # audited | skipped | failed | elsewhere
    done: int
    total: int
    error: str | None = None


@dataclass(frozen=True)
class AnalyzeSummary:
    """What `analyze` did."""

    audited: int
    skipped: int
    failed: int
    elsewhere: int = 0  # audited (or being audited) by another run on the same store


def _audit_job(checkout: Checkout) -> AuditResult | str:
    try:
        return audit(checkout.path, checkout.commit_sha)
    except Exception as exc:  # reported per repository; the batch goes on
        return f"{type(exc).__name__}: {exc}"


@contextmanager
def _pool(workers: int) -> Iterator[ProcessPoolExecutor]:
    """Worker processes that die with this one and leave Ctrl-C to it; on an interruption
    they are stopped at once rather than left to finish the queue."""
    pool = ProcessPoolExecutor(
        max_workers=workers,
        initializer=pool_worker_init,
        initargs=(ProcessId.current(),),
    )
    try:
        yield pool
    except BaseException:
        pool.shutdown(wait=False, cancel_futures=True)
        processes = list((getattr(pool, "_processes", None) or {}).values())
        for process in processes:
            process.terminate()
        for process in processes:
            process.join(timeout=10)
        raise
    pool.shutdown(wait=True)


def analyze(
    store: Store, workers: int | None = None, refresh: bool = False
) -> Iterator[AnalyzeEvent]:
    """Audit every stored clone not yet audited at its commit, persisting labels as it goes.

    Runs started at the same time on one store share the work: each repository is claimed in
    the store just before it is audited, and one claimed by another live run is left to it."""
    checkouts = store.audit_targets()  # every clone and every snapshot commit, once each
    todo = []
    skipped = 0
    for c in checkouts:
        if c.repo_id is None or not c.commit_sha:
            continue
        if not refresh and store.audit_status(c.repo_id, c.commit_sha) == "ok":
            skipped += 1
            continue
        todo.append(c)
    total = len(todo) + skipped
    done = skipped
    if skipped:
        yield AnalyzeEvent("", "skipped", done, total)
    if not todo:
        return
    workers = max(1, workers or min(2, os.cpu_count() or 1))

    def audited_already(c: Checkout) -> bool:
        assert c.repo_id is not None and c.commit_sha is not None
        return not refresh and store.audit_status(c.repo_id, c.commit_sha) == "ok"

    with Claims(store, "analyze") as claims, _pool(workers) as pool:
        work = claims.each(todo, lambda c: int(c.repo_id or 0), audited_already)
        running: dict[Future[AuditResult | str], Checkout] = {}
        while True:
            while len(running) < 2 * workers and (item := next(work, None)) is not None:
                checkout, state = item
                if state == TAKEN:
                    with starting_child():  # the pool may fork its workers here
                        future = pool.submit(_audit_job, checkout)
                    running[future] = checkout
                else:
                    done += 1
                    yield AnalyzeEvent(_name(checkout), "elsewhere", done, total)
            if not running:
                break
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for future in finished:
                checkout = running.pop(future)
                done += 1
                event = _store_result(store, checkout, future.result(), done, total)
                claims.finish(int(checkout.repo_id or 0))
                yield event


def _name(checkout: Checkout) -> str:
    return checkout.full_name or str(checkout.path)


def _store_result(
    store: Store, checkout: Checkout, result: AuditResult | str, done: int, total: int
) -> AnalyzeEvent:
    """Store one audit (or its failure) in one transaction; the event that says so."""
    assert checkout.repo_id is not None and checkout.commit_sha is not None
    name = _name(checkout)
    if isinstance(result, str):
        when = datetime.now().astimezone().isoformat()
        store.save_audit_failure(
            checkout.repo_id, checkout.commit_sha, checkout.full_name, result, when
        )
        return AnalyzeEvent(name, "failed", done, total, result)
    if store.is_archived(checkout.repo_id):
        result = with_archived(result)
    store.save_audit(checkout.repo_id, checkout.commit_sha, checkout.full_name, result)
    return AnalyzeEvent(name, "audited", done, total)


def with_archived(result: AuditResult) -> AuditResult:
    """Add the `archived` exclusion, which only the GitHub API can see, to an audit."""
    from dataclasses import replace

    from miner.codebook import Evidence

    old = result.labels.get("exclude")
    values = frozenset(old.value) if old and isinstance(old.value, frozenset) else frozenset()
    evidence = (
        *(old.evidence if old else ()),
        Evidence("", 0, "archived on GitHub", "api.archived"),
    )
    labels = dict(result.labels)
    labels["exclude"] = Label("exclude", values | {"archived"}, evidence)
    return replace(result, labels=labels)


def summarise(events: Iterator[AnalyzeEvent]) -> AnalyzeSummary:
    """Drain `analyze` events into counts."""
    counts = {"audited": 0, "skipped": 0, "failed": 0, "elsewhere": 0}
    for event in events:
        if event.status == "skipped":
            counts["skipped"] = event.done
        else:
            counts[event.status] += 1
    return AnalyzeSummary(**counts)
