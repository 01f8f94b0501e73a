"""Which Python to build a smoke environment with: one of the project's time when there is a choice.

Research code from 2018 resolves to packages whose wheels stop at Python 3.6 or 3.7; a newer
interpreter would make it build NumPy from source or fail. Given several interpreters, a smoke run
takes the newest whose release came at least a year before the commit (the ecosystem needs that
long to ship wheels for it), else the oldest one given; when a pin has no wheel for it, the next
older one, then the newer ones.
"""

from __future__ import annotations

import functools
import subprocess
from datetime import datetime, timedelta, timezone

# First release of each CPython minor version.
RELEASES = {
    (3, 5): "2015-09-13", (3, 6): "2016-12-23", (3, 7): "2018-06-27", (3, 8): "2019-10-14",
    (3, 9): "2020-10-05", (3, 10): "2021-10-04", (3, 11): "2022-10-24", (3, 12): "2023-10-02",
    (3, 13): "2024-10-07", (3, 14): "2025-10-07",
}  # fmt: skip
MATURITY = timedelta(days=365)


@functools.cache
def interpreter_version(python: str) -> tuple[int, int] | None:
    """(major, minor) of an interpreter given by path or name, None when it does not run."""
    try:
        done = subprocess.run(
            # Words Python 2 reads too (its print is a statement).
            [python, "-c", "import sys; sys.stdout.write('%d %d' % sys.version_info[:2])"],
            capture_output=True, text=True, timeout=30, check=False,
        )  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return None
    parts = done.stdout.split()
    if done.returncode != 0 or len(parts) != 2:
        return None
    return int(parts[0]), int(parts[1])


def _when(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def python_for(choices: tuple[str, ...], commit_date: str | None) -> str | None:
    """The interpreter of `choices` for a commit of `commit_date` (the first one without a
    date or with a single choice; None when there is no choice to make)."""
    if not choices:
        return None
    when = _when(commit_date) if commit_date else None
    if len(choices) == 1 or when is None:
        return choices[0]
    known = [(v, p) for p in choices if (v := interpreter_version(p)) is not None]
    if not known:
        return choices[0]
    mature = [(v, p) for v, p in known if v in RELEASES and _released(v) + MATURITY <= when]
    return max(mature)[1] if mature else min(known)[1]


def pythons_in_order(choices: tuple[str, ...], commit_date: str | None) -> list[str]:
    """Every interpreter to try, best first: the one of the commit's time, then older ones
    (newest first), then newer ones; those that do not run are left out."""
    first = python_for(choices, commit_date)
    if first is None:
        return []
    pivot = interpreter_version(first) or (0, 0)
    rest = [(v, p) for p in choices if p != first and (v := interpreter_version(p)) is not None]
    older = sorted((item for item in rest if item[0] < pivot), reverse=True)
    newer = sorted(item for item in rest if item[0] >= pivot)
    return [first, *(p for _, p in older), *(p for _, p in newer)]


def _released(version: tuple[int, int]) -> datetime:
    return datetime.fromisoformat(RELEASES[version]).replace(tzinfo=timezone.utc)
