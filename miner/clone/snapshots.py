"""Snapshots: every candidate at several study dates, from one history fetch per repository.

The history is fetched once with commits only (filter tree:0, shallow since the earliest date
and deepened until a commit before it appears): every date then resolves locally to the last
first-parent commit strictly before it. Each distinct commit is checked out once, partially
(`--max-blob`), into `data/repos/OWNER/NAME@SHA12`; dates that resolve to the same commit share
that checkout and so one audit. A repository with no commit before a date is `absent` there.
"""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

from miner.clone import git, steps
from miner.clone.batch import CloneJob, plan_jobs
from miner.clone.layout import CloneRoot, disk_bytes, read_marker, remove_tree, write_marker
from miner.clone.options import CloneOptions, iso_utc, parse_as_of
from miner.errors import CloneError, ConfigError
from miner.store import Store
from miner.store.claims import TAKEN, Claims

EVERY = re.compile(r"^(\d+)\s*([ymwd])$")


def snapshot_dates(
    at: tuple[str, ...] = (),
    every: str | None = None,
    since: str | None = None,
    until: str | None = None,
) -> tuple[datetime, ...]:
    """The study dates: each `--at`, plus `--since`, then every `--every` up to `--until`."""
    dates = {parse_as_of(text) for text in at}
    if every is not None or since is not None:
        if every is None or since is None:
            raise ConfigError("--every and --since go together, e.g. --every 1y --since 2018")
        match = EVERY.match(every.strip().lower())
        if not match or int(match.group(1)) == 0:
            raise ConfigError(f"--every {every!r}: use a count and a unit, e.g. 1y, 6m, 2w, 30d")
        count, unit = int(match.group(1)), match.group(2)
        start = parse_as_of(since if re.search(r"-", since) else f"{since}-01-01")
        end = parse_as_of(until) if until else datetime.now(timezone.utc)
        if end < start:
            raise ConfigError("--until is before --since")
        step = 0
        while True:
            moment = _shift(start, count * step, unit)
            if moment > end:
                break
            dates.add(moment)
            step += 1
    if not dates:
        raise ConfigError("no study dates: give --at DATE or --every N --since DATE")
    return tuple(sorted(dates))


def _shift(start: datetime, amount: int, unit: str) -> datetime:
    if unit in "dw":
        return start + timedelta(days=amount * (7 if unit == "w" else 1))
    months = start.month - 1 + amount * (12 if unit == "y" else 1)
    return start.replace(year=start.year + months // 12, month=months % 12 + 1, day=1)


@dataclass(frozen=True)
class SnapshotEvent:
    """Progress: 'plan' (the total is known), then 'done' per repository with its rows, or
    'elsewhere' for one another batch holds."""

    kind: str
    total: int
    done: int
    full_name: str | None = None
    rows: tuple[dict[str, Any], ...] = ()


@dataclass(frozen=True)
class SnapshotSummary:
    """What a snapshot batch did."""

    repositories: int
    dates: int
    snapshots: int  # (repository, date) pairs that exist
    checkouts: int  # distinct commits checked out
    absent: int
    failed: int
    bytes_received: int
    seconds: float
    rows: tuple[dict[str, Any], ...] = field(repr=False, default=())
    elsewhere: int = 0  # repositories another batch took

    def line(self) -> str:
        """One line: repositories, dates, snapshots, distinct checkouts, absent, failed, bytes."""
        from miner.clone.options import human_bytes

        return (
            f"{self.repositories} repositories x {self.dates} dates: {self.snapshots} snapshots "
            f"in {self.checkouts} checkouts, {self.absent} absent, {self.failed} failed; "
            f"received {human_bytes(self.bytes_received)}, {self.seconds:.1f} s"
            + (f"; {self.elsewhere} repositories by another run" if self.elsewhere else "")
        )


def _resolve(
    session: git.GitSession, work: Path, url: str, src: str, dates: tuple[datetime, ...]
) -> tuple[dict[datetime, str | None], int]:
    """Each date's commit (None: no commit before it), from one commits-only history fetch."""
    earliest = int(dates[0].timestamp())
    first, received = steps.as_of_commit(session, work, url, src, earliest)
    found: dict[datetime, str | None] = {dates[0]: first}
    history = work / "history.git"
    for moment in dates[1:]:
        out = session.run(
            ["rev-list", "-1", "--first-parent", f"--before=@{int(moment.timestamp()) - 1}",
             "refs/heads/tip"],
            history,
        )  # fmt: skip
        found[moment] = out.strip().decode("ascii") or None
    return found, received


def snapshot_one(
    job: CloneJob,
    dates: tuple[datetime, ...],
    options: CloneOptions,
    root: CloneRoot,
    cancel: threading.Event,
) -> list[dict[str, Any]]:
    """Resolve and check out one repository at every date; one store row per date."""
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
    base = {"repo_id": job.repo_id, "full_name": job.full_name}
    work = root.workspace(job.dest)
    try:
        steps.check_url(job.url)
        src = steps.source_ref(job.branch)
        commits, received = _resolve(session, work, url, src, dates)
        checkouts: dict[str, tuple[Path, str | None, int]] = {}
        for commit in dict.fromkeys(c for c in commits.values() if c):
            checkouts[commit] = _checkout(session, job, commit, src, url, options, root, work)
        rows = []
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        for moment, sha in commits.items():
            row = {**base, "as_of": iso_utc(moment), "cloned_at": now}
            if sha is None:
                rows.append({**row, "status": "absent", "error_class": "too_new",
                             "error": f"no commit before {iso_utc(moment)}"})  # fmt: skip
                continue
            path, date, got = checkouts[sha]
            rows.append({**row, "status": "ok", "commit_sha": sha, "commit_date": date,
                         "path": path, "bytes_received": got + received,
                         "seconds": round(time.monotonic() - started, 3)})  # fmt: skip
            received = 0  # the history counts once, with the first snapshot
        return rows
    except (CloneError, OSError) as exc:
        error_class = exc.error_class if isinstance(exc, CloneError) else "other"
        now = datetime.now(timezone.utc).isoformat(timespec="seconds")
        return [
            {**base, "as_of": iso_utc(m), "status": "failed", "error_class": error_class,
             "error": str(exc), "cloned_at": now}
            for m in dates
        ]  # fmt: skip
    finally:
        remove_tree(work)


def _checkout(
    session: git.GitSession,
    job: CloneJob,
    sha: str,
    src: str,
    url: str,
    options: CloneOptions,
    root: CloneRoot,
    work: Path,
) -> tuple[Path, str | None, int]:
    """(path, commit date, bytes received) of the commit's checkout, made unless current."""
    dest = job.dest.with_name(f"{job.dest.name}@{sha[:12]}")
    marker = read_marker(dest)
    if marker and marker.get("commit_sha") == sha and marker.get("max_blob") == options.max_blob:
        return dest, marker.get("commit_date"), 0
    tree = work / f"tree-{sha[:12]}"
    tree.mkdir()
    fetched = steps.fetch_checkout(session, tree, url, src, sha, options.max_blob)
    write_marker(
        tree,
        {
            "repo_id": job.repo_id, "full_name": job.full_name, "url": git.public_url(url),
            "ref": fetched.ref, "commit_sha": sha, "commit_date": fetched.commit_date,
            "as_of": None, "snapshot": True, "max_blob": options.max_blob,
            "omitted": list(fetched.omitted), "bytes_received": fetched.bytes_received,
            "bytes_on_disk": disk_bytes(tree),
        },
    )  # fmt: skip
    root.install(tree, dest)
    return dest, fetched.commit_date, fetched.bytes_received


def iter_snapshots(
    store: Store, options: CloneOptions, dates: tuple[datetime, ...]
) -> Iterator[SnapshotEvent]:
    """Snapshot every candidate on a bounded thread pool, storing each repository's rows.

    Batches started at the same time on one store share the work: each repository is claimed
    just before it is started, and one another live batch holds is left to it ('elsewhere').
    """
    jobs = plan_jobs(store, options)
    yield SnapshotEvent("plan", len(jobs), 0)
    if not jobs:
        return
    cancel = threading.Event()
    done = 0
    workers = min(options.workers, len(jobs))
    with (
        CloneRoot(options.root) as root,
        Claims(store, "snapshot") as claims,
        ThreadPoolExecutor(max_workers=workers, thread_name_prefix="snapshot") as pool,
    ):
        # Claimed one at a time as a worker frees up, so concurrent batches split the work.
        work = claims.each(jobs, lambda job: job.repo_id, lambda job: False)
        pending: dict[Future[list[dict[str, Any]]], CloneJob] = {}
        try:
            while True:
                while len(pending) < workers:
                    item = next(work, None)
                    if item is None:
                        break
                    job, state = item
                    if state == TAKEN:
                        future = pool.submit(snapshot_one, job, dates, options, root, cancel)
                        pending[future] = job
                    else:  # held or finished by another batch
                        done += 1
                        yield SnapshotEvent("elsewhere", len(jobs), done, job.full_name)
                if not pending:
                    break
                finished, _ = wait(pending, return_when=FIRST_COMPLETED)
                for future in finished:
                    job = pending.pop(future)
                    rows = future.result()
                    store.save_snapshots(rows)
                    claims.finish(job.repo_id)
                    done += 1
                    yield SnapshotEvent("done", len(jobs), done, job.full_name, tuple(rows))
        finally:
            cancel.set()  # running git processes stop within a poll interval
            for future in pending:
                future.cancel()


def snapshot_all(
    store: Store,
    options: CloneOptions,
    dates: tuple[datetime, ...],
    on_event: Callable[[SnapshotEvent], None] | None = None,
) -> SnapshotSummary:
    """Run a whole snapshot batch, passing each event to `on_event`; return the summary."""
    started = time.monotonic()
    rows: list[dict[str, Any]] = []
    repositories = elsewhere = 0
    for event in iter_snapshots(store, options, dates):
        if on_event is not None:
            on_event(event)
        if event.kind == "done":
            repositories += 1
            rows += event.rows
        elsewhere += event.kind == "elsewhere"
    ok = [r for r in rows if r["status"] == "ok"]
    return SnapshotSummary(
        repositories=repositories,
        dates=len(dates),
        snapshots=len(ok),
        checkouts=len({(r["repo_id"], r["commit_sha"]) for r in ok}),
        absent=sum(r["status"] == "absent" for r in rows),
        failed=len({r["repo_id"] for r in rows if r["status"] == "failed"}),
        bytes_received=sum(int(r.get("bytes_received") or 0) for r in ok),
        seconds=time.monotonic() - started,
        rows=tuple(rows),
        elsewhere=elsewhere,
    )
