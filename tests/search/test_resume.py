"""A crawl interrupted in the middle of a slice goes on after the last page it stored."""

from __future__ import annotations

from pathlib import Path

import pytest
from search_fakes import Drift, make_population

from miner.search.crawl import PageFetched, search
from miner.search.slicing import SearchFilters
from miner.store import Store

DL = "deep learning"
ROOT = f"{DL} stars:>=200"
FILTERS = SearchFilters(min_stars=200)


class Interrupted(Exception):
    """Stands in for a crash right after a page was stored."""


def _crash_after(pages: int):
    seen = 0

    def handler(event: object) -> None:
        nonlocal seen
        seen += isinstance(event, PageFetched)
        if seen == pages:
            raise Interrupted

    return handler


def _asked(api, since: int = 0) -> list[tuple[str, int]]:
    return [(s.params["q"], int(s.params.get("page", "1"))) for s in api.served[since:]]


def _part_read(store) -> list:
    return store.query(
        "SELECT qualifier, read_pages, read_query FROM search_slices "
        "WHERE status = 'pending' AND read_pages > 0"
    )


@pytest.mark.parametrize("crash_after", [3, 12, 15, 24])
def test_an_interrupted_slice_costs_no_request_again(
    serve, connect, store, tmp_path: Path, crash_after: int
) -> None:
    with Store(tmp_path / "uninterrupted.db") as other:
        fresh = search(other, connect(serve(make_population(2600, seed=11))), [DL], FILTERS)
    api = serve(make_population(2600, seed=11))

    with pytest.raises(Interrupted):
        search(store, connect(api), [DL], FILTERS, on_event=_crash_after(crash_after))
    assert _part_read(store), "the crash should land in the middle of a slice"
    before = _asked(api)
    summary = search(store, connect(api), [DL], FILTERS)
    again = _asked(api, len(before))

    keyword = summary.keywords[0]
    assert (keyword.fetched, keyword.shortfall, keyword.runs) == (2600, 0, 2)
    # Every page stored before the crash stays stored; only the search's final total is asked
    # again (the root's first page), as in any crawl.
    assert set(again) & set(before) == {(ROOT, 1)} and again[-1] == (ROOT, 1)
    assert len(before) + len(again) == fresh.keywords[0].requests == keyword.requests


@pytest.mark.parametrize("losses", [False, True], ids=["gains", "gains-and-losses"])
def test_star_drift_between_the_runs_is_caught_or_logged(serve, connect, store, losses) -> None:
    # Ranks move before every request and while no crawl runs, so the pages after the crash are
    # not where the stored ones left off; what slips past the page boundary is caught by the
    # slice's total check. Stars only gain, as on GitHub: nothing is lost. Gains and losses alike
    # (never below 200, so the set of matches is fixed): whatever is missing is in the log.
    drift = Drift(per_request=40, max_delta=3, floor=200, losses=losses)
    api = serve(make_population(2600, seed=10), drift=drift)
    with pytest.raises(Interrupted):
        search(store, connect(api), [DL], FILTERS, on_event=_crash_after(14))
    assert _part_read(store)
    api.move_stars(rounds=20)
    summary = search(store, connect(api), [DL], FILTERS)
    found = {r[0] for r in store.query("SELECT repo_id FROM repo_hits")}
    expected = api.ids(ROOT)
    assert found <= expected
    if losses:
        assert len(found) + summary.keywords[0].shortfall >= len(expected)
    else:
        assert found == expected
    rows = store.query("SELECT COUNT(*), COUNT(DISTINCT id) FROM repos")[0]
    assert rows[0] == rows[1]


def test_pages_stored_for_another_query_are_read_again(serve, connect, store) -> None:
    api = serve(make_population(2600, seed=11))
    with pytest.raises(Interrupted):
        search(store, connect(api), [DL], FILTERS, on_event=_crash_after(14))
    (row,) = _part_read(store)
    # As if the slice's query had been written differently when its pages were stored.
    store.conn.execute(
        "UPDATE search_slices SET read_query = ? WHERE qualifier = ?",
        (row["read_query"] + " fork:true", row["qualifier"]),
    )
    before = len(api.served)
    summary = search(store, connect(api), [DL], FILTERS)
    assert (f"{DL} {row['qualifier']}", 1) in _asked(api, before)
    assert summary.keywords[0].fetched == 2600
