"""A clone batch: which repositories, a bounded pool of workers, resuming, and the summary."""

from __future__ import annotations

import queue
import threading
import time
from collections import Counter
from collections.abc import Callable, Generator, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from miner.clone import git, steps
from miner.clone.layout import (
    CloneRoot,
    clone_path,
    disk_bytes,
    read_marker,
    remove_tree,
    write_marker,
)
from miner.clone.options import CloneOptions, human_bytes
from miner.errors import CloneError, ConfigError
from miner.models import CloneResult
from miner.store import Store
from miner.store.claims import TAKEN, Claims


@dataclass(frozen=True)
class CloneJob:
    """One repository to clone: where from, which branch, where to."""

    repo_id: int
    full_name: str
    url: str | None
    branch: str | None
    dest: Path
    stored_status: str | None = None
    stored_sha: str | None = None


@dataclass(frozen=True)
class CloneEvent:
    """Progress of a batch: 'plan' (the total is known), then per repository 'start' and 'done',
    or 'elsewhere' (another run on the same store has it)."""

    kind: str
    total: int
    done: int
    full_name: str | None = None
    result: CloneResult | None = None


@dataclass(frozen=True)
class CloneSummary:
    """What a batch did: counts, failures by class, bytes and time, and every result."""

    cloned: int
    skipped: int
    failed: dict[str, int]
    bytes_received: int
    bytes_on_disk: int
    seconds: float
    results: tuple[CloneResult, ...] = field(repr=False)
    elsewhere: int = 0  # cloned (or being cloned) by another run on the same store

    @property
    def failed_total(self) -> int:
        """How many repositories failed, whatever the class."""
        return sum(self.failed.values())

    def line(self) -> str:
        """The one-line summary: 'cloned 3, skipped 1, failed 2 (gone 1, timeout 1); ...'."""
        failed = f"failed {self.failed_total}"
        if self.failed:
            failed += " (" + ", ".join(f"{k} {v}" for k, v in sorted(self.failed.items())) + ")"
        if self.elsewhere:
            failed += f", {self.elsewhere} by another run"
        return (
            f"cloned {self.cloned}, skipped {self.skipped}, {failed}; received "
            f"{human_bytes(self.bytes_received)}, {human_bytes(self.bytes_on_disk)} on disk, "
            f"{self.seconds:.1f} s"
        )


@dataclass(frozen=True)
class _Outcome:
    result: CloneResult
    record: dict[str, Any] | None  # what to store (None: keep the stored row as it is)


def plan_jobs(store: Store, options: CloneOptions) -> list[CloneJob]:
    """The candidates: stored repositories not excluded by fork/archived/disabled (and --only)."""
    rows = store.clone_candidates()
    if options.only:
        known = {r["full_name"].lower(): r for r in store.repos_named(options.only)}
        unknown = [n for n in options.only if n.lower() not in known]
        if unknown:
            raise ConfigError(f"--only: not in the store: {', '.join(unknown)}")
        excluded = [
            f"{r['full_name']} ({reason})"
            for r in known.values()
            for reason in [next((k for k in ("fork", "archived", "disabled") if r[k]), None)]
            if reason
        ]
        if excluded:
            raise ConfigError(f"--only: not a clone candidate: {', '.join(excluded)}")
        rows = [r for r in rows if r["full_name"].lower() in known]
    jobs, taken = [], set()
    for r in rows:
        dest = clone_path(options.root, r["full_name"], r["id"])
        if dest in taken:  # two names that sanitise alike: keep both, told apart by id
            dest = dest.with_name(f"{dest.name}-{r['id']}")
        taken.add(dest)
        jobs.append(
            CloneJob(
                r["id"],
                r["full_name"],
                r["clone_url"],
                r["default_branch"],
                dest,
                r["status"],
                r["commit_sha"],
            )
        )
    return jobs


def head_sha(path: Path) -> str | None:
    """The commit a checkout's HEAD names, read from .git without running git."""
    git_dir = path / ".git"
    try:
        head = (git_dir / "HEAD").read_text(encoding="ascii").strip()
        if head.startswith("ref: "):
            head = (git_dir / head[5:]).read_text(encoding="ascii").strip()
    except (OSError, UnicodeDecodeError):
        return None
    return head or None


def current_checkout(job: CloneJob, options: CloneOptions) -> dict[str, Any] | None:
    """The marker of a complete checkout of this job made with these settings, if there is one."""
    marker = read_marker(job.dest)
    if (
        marker is None
        or marker.get("repo_id") != job.repo_id
        or marker.get("as_of") != options.as_of_text
        or marker.get("max_blob") != options.max_blob
        or head_sha(job.dest) != marker["commit_sha"]
    ):
        return None
    return marker


def _record(marker: dict[str, Any], job: CloneJob, status: str) -> _Outcome:
    result = CloneResult(
        repo_id=job.repo_id,
        full_name=job.full_name,
        path=job.dest,
        status=status,
        commit_sha=marker["commit_sha"],
        commit_date=marker.get("commit_date"),
        bytes_received=int(marker.get("bytes_received") or 0),
        bytes_on_disk=int(marker.get("bytes_on_disk") or 0),
        seconds=float(marker.get("seconds") or 0.0),
    )
    record = {
        "cloned_at": marker.get("cloned_at") or _now(),
        "ref": marker.get("ref"),
        "as_of": marker.get("as_of"),
        "max_blob": marker.get("max_blob"),
        "omitted_files": len(marker.get("omitted") or ()),
    }
    if status == "skipped":
        up_to_date = job.stored_status == "cloned" and job.stored_sha == marker["commit_sha"]
        return _Outcome(result, None if up_to_date else record)
    return _Outcome(result, record)


def _now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def clone_one(
    job: CloneJob, options: CloneOptions, root: CloneRoot, cancel: threading.Event
) -> _Outcome:
    """Clone one repository (or skip it when its checkout is current); never raises CloneError."""
    started = time.monotonic()
    url = job.url or ""
    session = git.GitSession.for_repository(
        url,
        started=started,
        timeout=options.timeout,
        max_size=options.max_size,
        hooks_dir=root.hooks,
        cancel=cancel,
        token=options.token,
    )
    current = current_checkout(job, options)
    if current is not None and root.unclean and not steps.worktree_intact(session, job.dest):
        current = None  # written by a batch that never flushed: its files may be cut short
    if current is not None and not options.refresh:
        return _record(current, job, "skipped")
    work = root.workspace(job.dest)
    try:
        steps.check_url(job.url)
        src = steps.source_ref(job.branch)
        target, received = None, 0
        if options.as_of is not None:
            target, received = steps.as_of_commit(
                session, work, url, src, int(options.as_of.timestamp())
            )
            if target is None:
                raise CloneError(f"no commit before {options.as_of_text}", "too_new")
        elif current is not None:
            target = steps.remote_tip(session, job.dest / ".git", url, src)
        if current is not None and target == current["commit_sha"]:
            return _record(current, job, "skipped")
        tree = work / "tree"
        tree.mkdir()
        fetched = steps.fetch_checkout(session, tree, url, src, target, options.max_blob)
        marker = {
            "repo_id": job.repo_id,
            "full_name": job.full_name,
            "url": git.public_url(url),
            "ref": fetched.ref,
            "commit_sha": fetched.commit_sha,
            "commit_date": fetched.commit_date,
            "as_of": options.as_of_text,
            "max_blob": options.max_blob,
            "omitted": list(fetched.omitted),
            "bytes_received": received + fetched.bytes_received,
            "bytes_on_disk": disk_bytes(tree),
            "seconds": round(time.monotonic() - started, 3),
            "cloned_at": _now(),
        }
        write_marker(tree, marker)
        root.install(tree, job.dest)
        return _record(marker, job, "cloned")
    except (CloneError, OSError) as exc:
        error_class = exc.error_class if isinstance(exc, CloneError) else "other"
        failure = CloneResult(
            repo_id=job.repo_id,
            full_name=job.full_name,
            path=None,
            status="failed",
            error_class=error_class,
            error=str(exc) if isinstance(exc, CloneError) else f"{type(exc).__name__}: {exc}",
            seconds=time.monotonic() - started,
        )
        # A failed --refresh keeps the checkout that is still there and still right.
        if current is not None:
            return _Outcome(failure, None)
        record = {"cloned_at": _now(), "as_of": options.as_of_text, "max_blob": options.max_blob}
        return _Outcome(failure, record)
    finally:
        remove_tree(work)


def iter_clones(store: Store, options: CloneOptions) -> Generator[CloneEvent, None, CloneSummary]:
    """Clone every candidate with a bounded pool, storing each result as soon as it is known.

    Yields a 'plan' event, then 'start' and 'done' per repository; returns the summary. Safe to
    interrupt at any point: finished repositories are stored, and the next run redoes the rest.
    Batches started at the same time on one store share the work: each repository is claimed
    in the store just before it is cloned, and one claimed by another live batch is left to it.
    """
    started = time.monotonic()
    jobs = plan_jobs(store, options)
    results: list[CloneResult] = []
    elsewhere = 0
    with CloneRoot(options.root) as root, Claims(store, "clone") as claims:
        yield CloneEvent("plan", len(jobs), 0)
        work = claims.each(jobs, lambda job: job.repo_id, lambda job: False)
        for event in _run_pool(work, options, root):
            if event.outcome is not None:
                outcome = event.outcome
                results.append(outcome.result)
                if outcome.record is not None:
                    store.save_clone(outcome.result, **outcome.record)
                claims.finish(event.job.repo_id)
                yield CloneEvent(
                    "done", len(jobs), len(results) + elsewhere, outcome.result.full_name,
                    outcome.result,
                )  # fmt: skip
            elif event.elsewhere:
                elsewhere += 1
                yield CloneEvent(
                    "elsewhere", len(jobs), len(results) + elsewhere, event.job.full_name
                )
            else:
                yield CloneEvent("start", len(jobs), len(results) + elsewhere, event.job.full_name)
    failed = Counter(r.error_class or "other" for r in results if r.status == "failed")
    return CloneSummary(
        cloned=sum(r.status == "cloned" for r in results),
        skipped=sum(r.status == "skipped" for r in results),
        failed=dict(failed),
        bytes_received=sum(r.bytes_received for r in results if r.status == "cloned"),
        bytes_on_disk=sum(r.bytes_on_disk for r in results if r.status != "failed"),
        seconds=time.monotonic() - started,
        results=tuple(results),
        elsewhere=elsewhere,
    )


@dataclass(frozen=True)
class _PoolEvent:
    job: CloneJob
    outcome: _Outcome | None = None
    error: BaseException | None = None
    elsewhere: bool = False


def _run_pool(
    work: Iterator[tuple[CloneJob, str]], options: CloneOptions, root: CloneRoot
) -> Iterator[_PoolEvent]:
    """Run the claimed jobs on at most `options.workers` threads, taking the next job only when
    a thread is free (so batches side by side split the work); events arrive in this thread."""
    events: queue.Queue[_PoolEvent] = queue.Queue()
    cancel = threading.Event()

    def run(job: CloneJob) -> None:
        if cancel.is_set():
            return
        events.put(_PoolEvent(job))
        try:
            events.put(_PoolEvent(job, clone_one(job, options, root, cancel)))
        except git.Cancelled as exc:
            events.put(_PoolEvent(job, error=exc))
        except BaseException as exc:  # a bug: re-raised in the caller's thread
            events.put(_PoolEvent(job, error=exc))

    pool = ThreadPoolExecutor(max_workers=options.workers, thread_name_prefix="clone")
    running = 0
    try:
        while True:
            while running < options.workers and (item := next(work, None)) is not None:
                job, state = item
                if state == TAKEN:
                    pool.submit(run, job)
                    running += 1
                else:
                    yield _PoolEvent(job, elsewhere=True)
            if not running:
                return
            event = events.get()
            if event.error is not None:
                raise event.error
            if event.outcome is not None:
                running -= 1
            yield event
    finally:
        cancel.set()  # running git processes stop within a poll interval
        pool.shutdown(wait=True, cancel_futures=True)


def clone_all(
    store: Store, options: CloneOptions, on_event: Callable[[CloneEvent], None] | None = None
) -> CloneSummary:
    """Run a whole batch, passing each progress event to `on_event`; return the summary."""
    events = iter_clones(store, options)
    while True:
        try:
            event = next(events)
        except StopIteration as stop:
            return stop.value
        if on_event is not None:
            on_event(event)
