"""Filters, slice qualifiers and the split rules."""

from __future__ import annotations

import itertools
from datetime import datetime, timedelta

import pytest

from miner.errors import ConfigError
from miner.search.slicing import (
    UTC,
    SearchFilters,
    Slice,
    iso,
    parse_when,
    split_by_date,
    split_by_stars,
)

AS_OF = datetime(2024, 1, 1, tzinfo=UTC)


@pytest.mark.parametrize(
    ("piece", "qualifier"),
    [
        (Slice(200), "stars:>=200"),
        (Slice(200, 350), "stars:200..350"),
        (Slice(7, 7), "stars:7"),
        (Slice(0, None, "2015-01-01", "2021-01-19"), "stars:>=0 created:2015-01-01..2021-01-19"),
        (Slice(10, None, None, "2021-01-19"), "stars:>=10 created:<=2021-01-19"),
        (Slice(10, None, "2021-01-19T00:00:00Z"), "stars:>=10 created:>=2021-01-19T00:00:00Z"),
    ],
)
def test_slice_qualifiers(piece: Slice, qualifier: str) -> None:
    assert piece.qualifier == qualifier


def test_filters_become_github_qualifiers() -> None:
    filters = SearchFilters(
        min_stars=200,
        created_before="2021-01-19",
        pushed_after="2020-01-01",
        language="Jupyter Notebook",
        in_fields=("readme", "name"),
        include_forks=True,
    )
    assert filters.root().query("deep learning", filters) == (
        "deep learning stars:>=200 created:<=2021-01-19 pushed:>=2020-01-01 "
        'language:"Jupyter Notebook" in:name,readme fork:true'
    )


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"created_before": "19/01/2021"}, "not a date"),
        ({"created_after": "2021-02-01", "created_before": "2021-01-19"}, "later than"),
        ({"in_fields": ("name", "code")}, "unknown field"),
        ({"min_stars": 10, "max_stars": 5}, "--max-stars"),
        ({"min_stars": -1}, "--min-stars"),
    ],
)
def test_bad_filters_are_config_errors(options: dict, message: str) -> None:
    with pytest.raises(ConfigError, match=message):
        SearchFilters(**options)


def test_dates_are_inclusive_and_normalised_to_utc() -> None:
    assert iso(parse_when("2021-01-19", end=True)) == "2021-01-19T23:59:59Z"
    assert iso(parse_when("2021-01-19T12:00:00+02:00")) == "2021-01-19T10:00:00Z"
    assert SearchFilters(created_after="2021-01-19T12:00:00+02:00").created_after == (
        "2021-01-19T10:00:00Z"
    )


def test_star_split_checks_the_mined_lower_part_first_then_overlaps_it() -> None:
    mined, rest = split_by_stars(Slice(200), first=200, last=445)
    assert (mined.qualifier, mined.kind) == ("stars:200..444", "mined")
    assert (rest.qualifier, rest.kind) == ("stars:>=444", "stars")
    mined, rest = split_by_stars(Slice(200, 900), first=200, last=201)
    assert (mined.qualifier, rest.qualifier) == ("stars:200", "stars:201..900")


def test_star_split_of_a_single_star_count_hands_it_to_date_slicing() -> None:
    assert [c.qualifier for c in split_by_stars(Slice(200, 900), first=250, last=250)] == [
        "stars:250",
        "stars:251..900",
    ]
    assert [c.qualifier for c in split_by_stars(Slice(200, 250), first=250, last=250)] == [
        "stars:250"
    ]


def test_star_splits_always_narrow_the_slice_and_cover_it() -> None:
    """No split hands back its parent (no endless loop) or drops a star count it had."""
    for lo, hi, first, last in itertools.product(range(3), (None, 1, 2, 3), range(4), range(4)):
        top = hi if hi is not None else 4
        if top <= lo or not lo <= first <= last <= top:
            continue
        parent = Slice(lo, hi)
        children = split_by_stars(parent, first, last)
        assert children and parent not in children
        covered = {
            s
            for c in children
            for s in range(c.stars_lo, (c.stars_hi if c.stars_hi is not None else 4) + 1)
        }
        assert covered >= set(range(first, top + 1)), (lo, hi, first, last, children)
        assert all(c.stars_lo >= lo and (hi is None or c.stars_hi <= hi) for c in children)


def test_date_split_halves_the_window_without_gap_or_overlap() -> None:
    parent = Slice(250, 250, "2015-01-01", "2021-01-19")
    first, second = split_by_date(parent, AS_OF)
    assert first.created_lo == "2015-01-01" and second.created_hi == "2021-01-19T23:59:59Z"
    gap = parse_when(second.created_lo) - parse_when(first.created_hi)
    assert gap == timedelta(seconds=1)
    # Open ends stay open, so repositories created during the crawl are still covered.
    first, second = split_by_date(Slice(250, 250), AS_OF)
    assert first.created_lo is None and second.created_hi is None


def test_a_single_second_cannot_be_split() -> None:
    moment = "2020-05-05T10:00:00Z"
    assert split_by_date(Slice(250, 250, moment, moment), AS_OF) is None
    halves = split_by_date(Slice(250, 250, moment, "2020-05-05T10:00:01Z"), AS_OF)
    assert [h.qualifier for h in halves] == [
        f"stars:250 created:{moment}..{moment}",
        "stars:250 created:2020-05-05T10:00:01Z..2020-05-05T10:00:01Z",
    ]
