"""Search filters and slices: GitHub queries narrow enough to stay under the 1,000-result cap.

A slice is a star range and a creation-date range, both inclusive, either end possibly open. A
slice with more than 1,000 results is split: first by stars, at the star count of its 1,000th
result (results come fewest stars first, so the part below is already mined and the crawl moves
up the star range, the way stars drift), and once a single star count holds more than 1,000
repositories, by halving its creation-date range down to the second.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from datetime import datetime, timedelta, timezone
from typing import Any

from miner.errors import ConfigError

UTC = timezone.utc
# No repository is older than GitHub itself: the lower end of an open creation-date range.
GITHUB_EPOCH = datetime(2007, 10, 1, tzinfo=UTC)
IN_FIELDS = ("name", "description", "readme", "topics")
# The upper part of a star split also covers this many star counts of the mined lower part, so a
# repository losing a star between the two queries is still found (then deduplicated by id).
# Gains need no overlap: they carry a repository into the part still to be crawled.
OVERLAP_STARS = 1


def parse_when(text: str, *, end: bool = False) -> datetime:
    """A date (YYYY-MM-DD) or ISO date-time as UTC; a bare date's `end` is its last second."""
    raw = text.strip()
    try:
        if len(raw) == 10:
            day = datetime.strptime(raw, "%Y-%m-%d").replace(tzinfo=UTC)
            return day + timedelta(days=1, seconds=-1) if end else day
        moment = datetime.fromisoformat(raw.replace("Z", "+00:00"))
    except ValueError:
        raise ConfigError(
            f"not a date: {text!r} (use YYYY-MM-DD or YYYY-MM-DDTHH:MM:SSZ)"
        ) from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return moment.astimezone(UTC).replace(microsecond=0)


def iso(moment: datetime) -> str:
    """GitHub's timestamp format: 2021-01-19T23:59:59Z."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def _normal_date(text: str | None) -> str | None:
    """A validated date as GitHub takes it: bare dates stay bare, date-times become UTC."""
    if text is None or not text.strip():
        return None
    text = text.strip()
    parse_when(text)
    return text if len(text) == 10 else iso(parse_when(text))


def _range(name: str, lo: str | None, hi: str | None) -> str:
    """A date qualifier; both ends inclusive, None meaning open."""
    if lo and hi:
        return f"{name}:{lo}..{hi}"
    if lo:
        return f"{name}:>={lo}"
    if hi:
        return f"{name}:<={hi}"
    return ""


@dataclass(frozen=True)
class SearchFilters:
    """What a study searches for besides the keyword; validated on creation."""

    min_stars: int = 0
    max_stars: int | None = None
    created_after: str | None = None  # inclusive
    created_before: str | None = None  # inclusive ("up to")
    pushed_after: str | None = None  # inclusive
    language: str | None = None
    in_fields: tuple[str, ...] = ()
    include_forks: bool = False

    def __post_init__(self) -> None:
        if self.min_stars < 0:
            raise ConfigError("--min-stars must be 0 or more")
        if self.max_stars is not None and self.max_stars < self.min_stars:
            raise ConfigError("--max-stars must not be below --min-stars")
        for name in ("created_after", "created_before", "pushed_after"):
            object.__setattr__(self, name, _normal_date(getattr(self, name)))
        if self.created_after and self.created_before:
            if parse_when(self.created_after) > parse_when(self.created_before, end=True):
                raise ConfigError("--created-after is later than --created-before")
        unknown = sorted(set(self.in_fields) - set(IN_FIELDS))
        if unknown:
            raise ConfigError(
                f"--in: unknown field(s) {', '.join(unknown)}; choose from {', '.join(IN_FIELDS)}"
            )
        object.__setattr__(self, "in_fields", tuple(f for f in IN_FIELDS if f in self.in_fields))
        if self.language is not None:
            language = self.language.strip().strip('"')
            object.__setattr__(self, "language", language or None)

    def qualifiers(self) -> str:
        """The qualifiers every slice of the search shares (stars and created belong to slices)."""
        parts = [_range("pushed", self.pushed_after, None)]
        if self.language:
            lang = self.language
            parts.append(f'language:"{lang}"' if " " in lang else f"language:{lang}")
        if self.in_fields:
            parts.append("in:" + ",".join(self.in_fields))
        if self.include_forks:
            parts.append("fork:true")  # GitHub leaves forks out unless asked
        return " ".join(p for p in parts if p)

    def root(self) -> Slice:
        """The slice covering the whole search."""
        return Slice(self.min_stars, self.max_stars, self.created_after, self.created_before)

    def as_params(self) -> dict[str, Any]:
        """JSON-ready form, stored in the search log."""
        params = asdict(self)
        params["in_fields"] = list(self.in_fields)
        return params


@dataclass(frozen=True)
class Slice:
    """A star range and a creation-date range (inclusive; None is open) of one search."""

    stars_lo: int
    stars_hi: int | None = None
    created_lo: str | None = None
    created_hi: str | None = None
    kind: str = field(default="root", compare=False)  # root | stars | mined | date

    @property
    def qualifier(self) -> str:
        """The slice's own qualifiers, e.g. `stars:200..350 created:2015-01-01..2021-01-19`."""
        if self.stars_hi is None:
            stars = f"stars:>={self.stars_lo}"
        elif self.stars_hi == self.stars_lo:
            stars = f"stars:{self.stars_lo}"
        else:
            stars = f"stars:{self.stars_lo}..{self.stars_hi}"
        created = _range("created", self.created_lo, self.created_hi)
        return f"{stars} {created}".strip()

    def query(self, keyword: str, filters: SearchFilters) -> str:
        """The full GitHub `q` for this slice."""
        return " ".join(p for p in (keyword.strip(), self.qualifier, filters.qualifiers()) if p)

    @property
    def star_splittable(self) -> bool:
        """True while the star range holds more than one star count."""
        return self.stars_hi is None or self.stars_lo < self.stars_hi

    def created_window(self, as_of: datetime) -> tuple[datetime, datetime]:
        """The creation-date range as instants; open ends become GitHub's start and `as_of`."""
        lo = parse_when(self.created_lo) if self.created_lo else GITHUB_EPOCH
        hi = parse_when(self.created_hi, end=True) if self.created_hi else as_of
        return lo, hi

    def sql_bounds(self) -> tuple[str | None, str | None]:
        """Creation bounds as full timestamps (None if open), comparable with stored dates."""
        lo = iso(parse_when(self.created_lo)) if self.created_lo else None
        hi = iso(parse_when(self.created_hi, end=True)) if self.created_hi else None
        return lo, hi


def split_by_stars(parent: Slice, first: int, last: int) -> list[Slice]:
    """Children of an over-full slice whose first 1,000 results, fewest stars first (`first` up
    to `last` stars), are stored. The part below `last` was mined by that query, so only its
    total is checked; it comes first, then the rest, which overlaps it by OVERLAP_STARS."""
    if parent.stars_hi is not None:
        last = min(last, parent.stars_hi)
    rest_hi = parent.stars_hi
    if first >= last:
        # The first 1,000 share one star count: it needs date slicing; above it, stars again.
        children = [Slice(last, last, parent.created_lo, parent.created_hi, kind="stars")]
        if rest_hi is None or last < rest_hi:
            children.append(Slice(last + 1, rest_hi, parent.created_lo, parent.created_hi, "stars"))
        return children
    rest_lo = last - OVERLAP_STARS if last - OVERLAP_STARS > first else last
    return [
        Slice(parent.stars_lo, last - 1, parent.created_lo, parent.created_hi, kind="mined"),
        Slice(rest_lo, rest_hi, parent.created_lo, parent.created_hi, kind="stars"),
    ]


def split_by_date(parent: Slice, as_of: datetime) -> list[Slice] | None:
    """The two halves of a single-star-count slice's creation range; None for a single second."""
    lo, hi = parent.created_window(as_of)
    if hi - lo < timedelta(seconds=1):
        return None
    mid = lo + (hi - lo) / 2
    mid = mid.replace(microsecond=0)
    first = Slice(parent.stars_lo, parent.stars_hi, parent.created_lo, iso(mid), kind="date")
    second_hi = parent.created_hi and iso(hi)
    second = Slice(
        parent.stars_lo, parent.stars_hi, iso(mid + timedelta(seconds=1)), second_hi, "date"
    )
    return [first, second]
