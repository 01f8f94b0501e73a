"""`analyze`: audit every stored clone in a process pool, persisting labels as they arrive."""

from __future__ import annotations

import os
from collections.abc import Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from datetime import datetime

from miner.audit.auditor import audit
from miner.models import AuditResult, Checkout, Label
from miner.store import Store


@dataclass(frozen=True)
class AnalyzeEvent:
    """Progress of `analyze`: one repository done (or skipped, or failed)."""

    full_name: str
    status: str  # audited | skipped | failed
    done: int
    total: int
    error: str | None = None


@dataclass(frozen=True)
class AnalyzeSummary:
    """What `analyze` did."""

    audited: int
    skipped: int
    failed: int


def _audit_job(checkout: Checkout) -> AuditResult | str:
    try:
        return audit(checkout.path, checkout.commit_sha)
    except Exception as exc:  # reported per repository; the batch goes on
        return f"{type(exc).__name__}: {exc}"


def analyze(
    store: Store, workers: int | None = None, refresh: bool = False
) -> Iterator[AnalyzeEvent]:
    """Audit every stored clone not yet audited at its commit, persisting labels as it goes."""
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
    workers = max(1, workers or min(2, os.cpu_count() or 1))
    with ProcessPoolExecutor(max_workers=workers) as pool:
        for checkout, result in zip(todo, pool.map(_audit_job, todo, chunksize=4), strict=True):
            done += 1
            name = checkout.full_name or str(checkout.path)
            assert checkout.repo_id is not None and checkout.commit_sha is not None
            if isinstance(result, str):
                when = datetime.now().astimezone().isoformat()
                store.save_audit_failure(
                    checkout.repo_id, checkout.commit_sha, checkout.full_name, result, when
                )
                yield AnalyzeEvent(name, "failed", done, total, result)
            else:
                if store.is_archived(checkout.repo_id):
                    result = with_archived(result)
                store.save_audit(checkout.repo_id, checkout.commit_sha, checkout.full_name, result)
                yield AnalyzeEvent(name, "audited", done, total)


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
    counts = {"audited": 0, "skipped": 0, "failed": 0}
    for event in events:
        if event.status == "skipped":
            counts["skipped"] = event.done
        else:
            counts[event.status] += 1
    return AnalyzeSummary(**counts)
