"""`analyze` on a Dask cluster: each repository is one task that clones, audits and deletes.

A worker makes a partial clone at the pinned commit (the stored clone's commit, else the last
commit before `--as-of`, else the branch tip) in its own scratch folder, audits it, deletes it
and returns the clone record with the labels and evidence. Only the driver writes the store,
one result at a time as results arrive, and it keeps a bounded window of tasks in flight, so
its memory does not grow with the number of repositories. A killed driver resumes: what was
stored is skipped. A worker that dies has its tasks run again elsewhere (the scheduler's
retries); a repository that fails is recorded as failed and the batch goes on.
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from pathlib import Path

from miner.audit.batch import AnalyzeEvent, with_archived
from miner.clone import CloneOptions
from miner.errors import CloneError, ConfigError
from miner.models import AuditResult, CloneResult
from miner.store import Store


@dataclass(frozen=True)
class RemoteJob:
    """What a worker needs to clone and audit one repository (no token: it is passed apart)."""

    repo_id: int
    full_name: str
    url: str | None
    branch: str | None
    commit_sha: str | None  # the pinned commit, when a clone already recorded one
    as_of: datetime | None
    as_of_text: str | None
    max_blob: int
    max_size: int
    timeout: float


@dataclass(frozen=True)
class RemoteResult:
    """A worker's answer: the clone record, and the audit (or why there is none)."""

    clone: CloneResult
    audit: AuditResult | None
    error: str | None = None
    host: str = ""


def clone_and_audit(job: RemoteJob, token: str | None = None) -> RemoteResult:
    """Clone `job` into scratch, audit it, delete it. Runs on a worker; never raises for a repo."""
    from miner.audit.auditor import audit
    from miner.clone import git, steps

    started = time.monotonic()
    scratch = Path(tempfile.mkdtemp(prefix="miner-", dir=os.environ.get("MINER_SCRATCH")))
    hooks = scratch / "hooks"  # an empty hooks folder: nothing in a mined repository runs
    hooks.mkdir()
    url = job.url or ""
    session = git.GitSession.for_repository(
        url,
        started=started,
        timeout=job.timeout,
        max_size=job.max_size,
        hooks_dir=hooks,
        cancel=threading.Event(),
        token=token,
    )
    try:
        steps.check_url(job.url)
        src = steps.source_ref(job.branch)
        target, received = job.commit_sha, 0
        if target is None and job.as_of is not None:
            target, received = steps.as_of_commit(
                session, scratch, url, src, int(job.as_of.timestamp())
            )
            if target is None:
                raise CloneError(f"no commit before {job.as_of.isoformat()}", "too_new")
        tree = scratch / "tree"
        tree.mkdir()
        fetched = steps.fetch_checkout(session, tree, url, src, target, job.max_blob)
        result = audit(tree, fetched.commit_sha)
        clone = CloneResult(
            repo_id=job.repo_id,
            full_name=job.full_name,
            path=None,
            status="cloned",
            commit_sha=fetched.commit_sha,
            commit_date=fetched.commit_date,
            bytes_received=received + fetched.bytes_received,
            seconds=time.monotonic() - started,
        )
        return RemoteResult(clone, replace(result, path=""), host=os.uname().nodename)
    except (CloneError, OSError) as exc:
        error_class = exc.error_class if isinstance(exc, CloneError) else "other"
        clone = CloneResult(
            repo_id=job.repo_id,
            full_name=job.full_name,
            path=None,
            status="failed",
            error_class=error_class,
            error=str(exc),
            seconds=time.monotonic() - started,
        )
        return RemoteResult(clone, None, str(exc), os.uname().nodename)
    except Exception as exc:  # an audit bug: recorded for this repository, the batch goes on
        message = f"{type(exc).__name__}: {exc}"
        clone = CloneResult(job.repo_id, job.full_name, None, "failed", "other", message)
        return RemoteResult(clone, None, message, os.uname().nodename)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)


def plan_remote(store: Store, options: CloneOptions, refresh: bool) -> tuple[list[RemoteJob], int]:
    """The repositories still to do, and how many are already audited at their pinned commit."""
    jobs, done = [], 0
    for row in store.clone_candidates():
        pinned = row["commit_sha"] if row["status"] == "cloned" else None
        if pinned and not refresh and store.audit_status(row["id"], pinned) == "ok":
            done += 1
            continue
        jobs.append(
            RemoteJob(
                repo_id=row["id"],
                full_name=row["full_name"],
                url=row["clone_url"],
                branch=row["default_branch"],
                commit_sha=pinned,
                as_of=options.as_of,
                as_of_text=options.as_of_text,
                max_blob=options.max_blob,
                max_size=options.max_size,
                timeout=options.timeout,
            )
        )
    return jobs, done


def connect(address: str) -> tuple[object, object | None]:
    """A Dask client for `address` (`local:N` starts N local worker processes), and its cluster."""
    try:
        from distributed import Client, LocalCluster
    except ImportError:
        raise ConfigError(
            "--dask needs the distributed package: pip install 'miner[dask]'"
        ) from None
    if address.startswith("local:"):
        count = address.removeprefix("local:")
        if not count.isdigit() or int(count) < 1:
            raise ConfigError(f"--dask {address!r}: use local:N with N >= 1 workers")
        cluster = LocalCluster(
            n_workers=int(count),
            threads_per_worker=1,
            processes=True,
            dashboard_address=None,
            silence_logs=50,
        )
        return Client(cluster), cluster
    try:
        return Client(address, timeout="20s"), None
    except (OSError, TimeoutError) as exc:
        raise ConfigError(f"--dask {address}: cannot reach the scheduler ({exc})") from None


def analyze_on_dask(
    store: Store,
    address: str,
    options: CloneOptions,
    refresh: bool = False,
    window: int | None = None,
) -> Iterator[AnalyzeEvent]:
    """Clone and audit every candidate on the cluster, storing each result as it arrives."""
    from distributed import as_completed

    jobs, done = plan_remote(store, options, refresh)
    total = len(jobs) + done
    if done:
        yield AnalyzeEvent("", "skipped", done, total)
    if not jobs:
        return
    client, cluster = connect(address)
    try:
        workers = max(1, len(client.scheduler_info().get("workers", {})))  # type: ignore[attr-defined]
        limit = window or 4 * workers  # enough to keep workers busy, little held on the driver
        pending = iter(jobs)
        submit = client.submit  # type: ignore[attr-defined]
        running = {}
        for job in _take(pending, limit):
            running[submit(clone_and_audit, job, options.token, pure=False, retries=2)] = job
        flow = as_completed(list(running))
        for future in flow:
            outcome: RemoteResult = future.result()
            job = running.pop(future)
            future.release()
            done += 1
            yield _store(store, outcome, job, done, total)
            for more in _take(pending, 1):
                added = submit(clone_and_audit, more, options.token, pure=False, retries=2)
                running[added] = more
                flow.add(added)
    finally:
        client.close()  # type: ignore[attr-defined]
        if cluster is not None:
            cluster.close()  # type: ignore[attr-defined]


def _take(jobs: Iterator[RemoteJob], count: int) -> list[RemoteJob]:
    taken = []
    for job in jobs:
        taken.append(job)
        if len(taken) == count:
            break
    return taken


def _store(
    store: Store, outcome: RemoteResult, job: RemoteJob, done: int, total: int
) -> AnalyzeEvent:
    now = datetime.now(timezone.utc).isoformat(timespec="seconds")
    clone = outcome.clone
    # The checkout was deleted on the worker: the record keeps its commit, not a path.
    store.save_clone(clone, cloned_at=now, as_of=job.as_of_text, max_blob=job.max_blob)
    if outcome.audit is None:
        return AnalyzeEvent(clone.full_name, "failed", done, total, outcome.error)
    result = outcome.audit
    assert clone.commit_sha is not None
    if store.is_archived(clone.repo_id):
        result = with_archived(result)
    store.save_audit(clone.repo_id, clone.commit_sha, clone.full_name, result)
    return AnalyzeEvent(clone.full_name, "audited", done, total)
