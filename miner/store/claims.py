"""Runs that share a store: claims on repositories, and a lock for a stage that cannot share.

Two `analyze` (or `clone`) runs started at once on one store split the work: a run claims a
repository just before it starts on it, in one transaction with the check that the work is not
done already, and marks the claim finished when the result is stored. A claim held by a live
process is left alone; one left by a process that is gone (killed, crashed, another boot) is
taken over. `search` cannot split its work this way, so it takes the store's `search` lock.
"""

from __future__ import annotations

import sqlite3
import time
import uuid
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from miner.errors import StoreBusy
from miner.procs import ProcessId
from miner.store.core import StoreBase

T = TypeVar("T")
TAKEN, BUSY, DONE = "taken", "busy", "done"
LOCK_POLL_SECONDS = 0.5


def _holder(row: sqlite3.Row) -> ProcessId:
    return ProcessId(int(row["pid"]), str(row["host"]), float(row["started"]))


class ClaimQueries(StoreBase):
    """Queries over claims and locks."""

    def claim(
        self,
        stage: str,
        repo_id: int,
        run: str,
        owner: ProcessId,
        since: float,
        done: Callable[[], bool],
    ) -> str:
        """Claim one repository for `run`: TAKEN, BUSY (a live process holds it) or DONE (the
        work is done: `done()` says so, or another run finished it after `since`)."""
        with self.transaction() as conn:
            row = conn.execute(
                "SELECT * FROM claims WHERE stage = ? AND repo_id = ?", (stage, repo_id)
            ).fetchone()
            if row is not None and row["run"] != run:
                if row["finished_at"] is None and _holder(row).alive():
                    return BUSY
                if row["finished_at"] is not None and row["finished_at"] >= since:
                    return DONE
            if done():
                return DONE
            conn.execute(
                "INSERT INTO claims (stage, repo_id, run, pid, host, started, claimed_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?) ON CONFLICT (stage, repo_id) DO UPDATE SET"
                " run = excluded.run, pid = excluded.pid, host = excluded.host,"
                " started = excluded.started, claimed_at = excluded.claimed_at, finished_at = NULL",
                (stage, repo_id, run, owner.pid, owner.host, owner.started, time.time()),
            )
        return TAKEN

    def finish_claim(self, stage: str, repo_id: int, run: str, done: bool) -> None:
        """Mark a claim of `run` finished (`done`), or give it up for another run to take."""
        if done:
            self.conn.execute(
                "UPDATE claims SET finished_at = ? WHERE stage = ? AND repo_id = ? AND run = ?",
                (time.time(), stage, repo_id, run),
            )
        else:
            self.conn.execute(
                "DELETE FROM claims WHERE stage = ? AND repo_id = ? AND run = ?",
                (stage, repo_id, run),
            )

    def release_claims(self, stage: str, run: str) -> None:
        """Give up every unfinished claim of `run`."""
        self.conn.execute(
            "DELETE FROM claims WHERE stage = ? AND run = ? AND finished_at IS NULL", (stage, run)
        )

    def take_lock(self, name: str, run: str, owner: ProcessId, command: str) -> sqlite3.Row | None:
        """Take lock `name` for `run`; None when taken, else the row of the live holder."""
        with self.transaction() as conn:
            row = conn.execute("SELECT * FROM locks WHERE name = ?", (name,)).fetchone()
            if row is not None and row["run"] != run and _holder(row).alive():
                return row
            conn.execute(
                "INSERT OR REPLACE INTO locks (name, run, pid, host, started, command, taken_at)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (name, run, owner.pid, owner.host, owner.started, command, time.time()),
            )
        return None

    def drop_lock(self, name: str, run: str) -> None:
        """Release lock `name` if `run` holds it."""
        self.conn.execute("DELETE FROM locks WHERE name = ? AND run = ?", (name, run))


class Claims:
    """One run's claims on a stage's repositories; unfinished ones are given up on close."""

    def __init__(self, store: ClaimQueries, stage: str) -> None:
        self.store = store
        self.stage = stage
        self.run = uuid.uuid4().hex
        self.owner = ProcessId.current()
        self.since = time.time()

    def take(self, repo_id: int, done: Callable[[], bool] = lambda: False) -> str:
        """TAKEN, BUSY or DONE (see ClaimQueries.claim)."""
        return self.store.claim(self.stage, repo_id, self.run, self.owner, self.since, done)

    def finish(self, repo_id: int, done: bool = True) -> None:
        """The result is stored (`done`), or the work was not finished and is free again."""
        self.store.finish_claim(self.stage, repo_id, self.run, done)

    def each(
        self, items: Iterable[T], key: Callable[[T], int], done: Callable[[T], bool]
    ) -> Iterator[tuple[T, str]]:
        """Claim items one by one as the caller asks for them, yielding (item, state). Items
        a live run holds are tried once more at the end; those still held stay BUSY."""
        held: list[T] = []
        for item in items:
            state = self.take(key(item), lambda item=item: done(item))  # type: ignore[misc]
            if state == BUSY:
                held.append(item)
            else:
                yield item, state
        for item in held:
            yield item, self.take(key(item), lambda item=item: done(item))  # type: ignore[misc]

    def close(self) -> None:
        """Give up every claim not finished (an interrupted run's work is free for the next)."""
        try:
            self.store.release_claims(self.stage, self.run)
        except sqlite3.Error:
            pass  # a closed store: the claims are recovered as stale ones

    def __enter__(self) -> Claims:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class StageLock:
    """The store's lock on one stage: one run at a time, the others wait or are told who."""

    def __init__(self, store: ClaimQueries, name: str, command: str) -> None:
        self.store = store
        self.name = name
        self.command = command
        self.run = uuid.uuid4().hex
        self.owner = ProcessId.current()

    def acquire(
        self, wait: bool = False, on_wait: Callable[[str], None] | None = None
    ) -> StageLock:
        """Take the lock; when a live run holds it, wait for it (`wait`) or raise StoreBusy."""
        told = False
        while True:
            row = self.store.take_lock(self.name, self.run, self.owner, self.command)
            if row is None:
                return self
            holder = f"`{row['command']}` ({_holder(row).describe()})"
            if not wait:
                raise StoreBusy(
                    f"{self.store.path} is in use by {holder}; wait for it, or pass --wait to queue"
                )
            if on_wait is not None and not told:
                on_wait(f"waiting for {holder} to finish")
                told = True
            time.sleep(LOCK_POLL_SECONDS)

    def release(self) -> None:
        """Release the lock (a dead holder's lock is taken over without this)."""
        try:
            self.store.drop_lock(self.name, self.run)
        except sqlite3.Error:
            pass
