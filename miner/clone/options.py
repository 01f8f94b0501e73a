"""What a clone batch is asked to do, and the parsing of its sizes and dates."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date, datetime, timezone
from pathlib import Path

from miner.errors import ConfigError

DEFAULT_MAX_BLOB = 1024 * 1024  # blobs above 1 MiB (weights, data, media) are never fetched
DEFAULT_MAX_SIZE = 1024**3  # a filtered clone receiving more than 1 GiB is "too_large"
DEFAULT_TIMEOUT = 600.0  # seconds per repository, every git step included
DEFAULT_WORKERS = 8  # clones mostly wait on the network; 8 keep 2 cores busy on local ones

_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(?:i?b)?\s*$", re.IGNORECASE)
_UNITS = {"": 1, "k": 1024, "m": 1024**2, "g": 1024**3, "t": 1024**4}


@dataclass(frozen=True)
class CloneOptions:
    """One batch's settings: where clones go, what is fetched, how many at once, how long."""

    root: Path
    workers: int = DEFAULT_WORKERS
    as_of: datetime | None = None
    max_blob: int = DEFAULT_MAX_BLOB
    max_size: int = DEFAULT_MAX_SIZE
    timeout: float = DEFAULT_TIMEOUT
    refresh: bool = False
    only: tuple[str, ...] = ()
    token: str | None = field(default=None, repr=False)

    def __post_init__(self) -> None:
        # git runs in other folders, so every path it is given must be absolute.
        object.__setattr__(self, "root", Path(self.root).absolute())
        if self.workers < 1:
            raise ConfigError(f"--workers must be at least 1, not {self.workers}")
        if self.max_blob < 0:
            raise ConfigError("--max-blob must not be negative")
        if self.max_size < 1:
            raise ConfigError("--max-size must be positive")
        if self.timeout <= 0:
            raise ConfigError(f"--timeout must be positive, not {self.timeout:g}")
        if self.as_of is not None and self.as_of.tzinfo is None:
            raise ConfigError("--as-of must carry a time zone (use parse_as_of)")

    @property
    def as_of_text(self) -> str | None:
        """The as-of instant as stored: ISO 8601 in UTC, or None for the branch tip."""
        return None if self.as_of is None else iso_utc(self.as_of)


def parse_size(text: str, option: str = "--max-blob") -> int:
    """Bytes from '1M', '500k', '2G', '1.5MiB' or '1048576' (binary units, as git counts)."""
    match = _SIZE.match(str(text))
    if not match:
        raise ConfigError(f"{option}: {text!r} is not a size (e.g. 1M, 500k, 2G)")
    number, unit = match.groups()
    return int(float(number) * _UNITS[unit.lower()])


def parse_as_of(text: str) -> datetime:
    """A study date: 'YYYY-MM-DD' (midnight UTC) or an ISO 8601 time (UTC unless it says)."""
    value = str(text).strip()
    try:
        if len(value) == 10:
            day = date.fromisoformat(value)
            return datetime(day.year, day.month, day.day, tzinfo=timezone.utc)
        moment = datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(f"--as-of: {text!r} is not a date (use YYYY-MM-DD)") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def iso_utc(moment: datetime) -> str:
    """ISO 8601 in UTC with seconds, e.g. '2021-01-01T00:00:00+00:00'."""
    return moment.astimezone(timezone.utc).isoformat(timespec="seconds")


def human_bytes(count: int) -> str:
    """A short byte count for people: '812 B', '3.4 KiB', '1.2 GiB'."""
    value = float(count)
    for unit in ("B", "KiB", "MiB", "GiB"):
        if value < 1024 or unit == "GiB":
            return f"{value:.0f} {unit}" if unit == "B" else f"{value:.1f} {unit}"
        value /= 1024
    return f"{value:.1f} GiB"
