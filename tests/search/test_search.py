"""Whole crawls on the fake API: completeness past the cap, slicing, merging, faults, resume."""

from __future__ import annotations

import json
import math
from datetime import datetime

import pytest
from search_fakes import Drift, Fault, make_population

from miner.search.crawl import PageFetched, SearchStarted, search
from miner.search.slicing import UTC, SearchFilters

DL = "deep learning"
FILTERS = SearchFilters(min_stars=200)


def _hit_ids(store, search_id: int | None = None) -> set[int]:
    sql = "SELECT repo_id FROM repo_hits" + (" WHERE search_id = ?" if search_id else "")
    return {r[0] for r in store.query(sql, (search_id,) if search_id else ())}


def _no_duplicates(store) -> None:
    repos = store.query("SELECT COUNT(*), COUNT(DISTINCT id), COUNT(DISTINCT full_name) FROM repos")
    assert repos[0][0] == repos[0][1] == repos[0][2]


def test_every_match_of_a_large_population_is_found(serve, connect, store) -> None:
    api = serve(make_population(2600, seed=3))
    expected = api.ids(f"{DL} stars:>=200")
    assert len(expected) == 2600

    summary = search(store, connect(api), [DL], FILTERS)

    assert _hit_ids(store) == expected
    assert {r[0] for r in store.query("SELECT id FROM repos")} == expected  # nothing else stored
    _no_duplicates(store)
    log = store.searches()[0]
    assert (log["total_found"], log["fetched"], log["shortfall"], log["status"]) == (
        2600,
        2600,
        0,
        "done",
    )
    assert log["requests"] == api.search_requests == summary.requests
    assert api.past_cap == 0
    assert summary.requests <= 1.05 * (math.ceil(2600 / 100) + summary.keywords[0].probes)
    assert summary.unique_repos == 2600 and summary.keywords[0].slices >= 3


def test_stored_rows_carry_github_fields_and_provenance(serve, connect, store) -> None:
    repos = make_population(120, seed=4)
    api = serve(repos)
    search(store, connect(api), [DL], FILTERS)
    source = next(r for r in repos if r.id in api.ids(f"{DL} stars:>=200")).to_json(api.url)
    row = store.query("SELECT * FROM repos WHERE id = ?", (source["id"],))[0]
    assert row["full_name"] == source["full_name"] and row["stars"] == source["stargazers_count"]
    assert json.loads(row["topics"]) == source["topics"]
    assert row["license"] == (source["license"] or {}).get("spdx_id")
    assert (row["fork"], row["created_at"], row["pushed_at"]) == (
        0,
        source["created_at"],
        source["pushed_at"],
    )
    hit = store.query("SELECT * FROM repo_hits WHERE repo_id = ?", (source["id"],))[0]
    assert hit["keyword"] == DL and hit["qualifier"] == "stars:>=200" and hit["fetched_at"]


def test_a_star_count_over_the_cap_is_sliced_by_creation_date(serve, connect, store) -> None:
    repos = make_population(1400, seed=5, noise=False)
    for repo in repos[:1250]:
        repo.stars = 250
    api = serve(repos)
    summary = search(store, connect(api), [DL], FILTERS)
    assert _hit_ids(store) == api.ids(f"{DL} stars:>=200")
    qualifiers = [r["qualifier"] for r in store.query("SELECT qualifier FROM search_slices")]
    assert any(q.startswith("stars:250 created:") for q in qualifiers)
    assert summary.keywords[0].shortfall == 0 and summary.keywords[0].probes >= 1
    assert api.past_cap == 0


def test_an_unsplittable_slice_is_mined_to_the_cap_and_the_shortfall_logged(
    serve, connect, store
) -> None:
    repos = make_population(1150, seed=6, noise=False)
    moment = datetime(2019, 3, 1, 12, 0, 0, tzinfo=UTC)
    for repo in repos:
        repo.stars, repo.created_at = 300, moment
    api = serve(repos)
    # The study's time frame (one day here) is bisected down to the second before giving up.
    frame = SearchFilters(min_stars=200, created_after="2019-03-01", created_before="2019-03-01")
    summary = search(store, connect(api), [DL], frame)
    keyword = summary.keywords[0]
    assert (keyword.total_found, keyword.fetched, keyword.shortfall) == (1150, 1000, 150)
    short = store.query("SELECT * FROM search_slices WHERE shortfall > 0")
    assert len(short) == 1 and short[0]["qualifier"].startswith("stars:300 created:2019-03-01")
    assert api.past_cap == 0


def test_two_keywords_are_merged_with_dedupe(serve, connect, store) -> None:
    nn = "neural network"
    api = serve(make_population(1800, keywords=(DL, nn), overlap=0.3, seed=7))
    dl_ids, nn_ids = api.ids(f"{DL} stars:>=200"), api.ids(f"{nn} stars:>=200")
    assert dl_ids & nn_ids and dl_ids - nn_ids and nn_ids - dl_ids

    summary = search(store, connect(api), [DL, nn], FILTERS)

    first, second = summary.keywords
    assert (first.fetched, second.fetched) == (len(dl_ids), len(nn_ids))
    assert (first.new, second.new) == (len(dl_ids), len(nn_ids - dl_ids))
    assert summary.unique_repos == len(dl_ids | nn_ids)
    assert store.query("SELECT COUNT(*) FROM repos")[0][0] == len(dl_ids | nn_ids)
    both = next(iter(dl_ids & nn_ids))
    keywords = {r[0] for r in store.query("SELECT keyword FROM repo_hits WHERE repo_id=?", (both,))}
    assert keywords == {DL, nn}


@pytest.mark.parametrize(
    ("filters", "q"),
    [
        (SearchFilters(min_stars=200, created_before="2016-06-30"), "created:<=2016-06-30"),
        (SearchFilters(min_stars=200, created_after="2018-01-01"), "created:>=2018-01-01"),
        (SearchFilters(min_stars=200, pushed_after="2019-01-01"), "pushed:>=2019-01-01"),
        (SearchFilters(min_stars=200, max_stars=600), "stars:200..600"),
        (SearchFilters(min_stars=200, language="Jupyter Notebook"), 'language:"Jupyter Notebook"'),
        (SearchFilters(min_stars=200, include_forks=True), "fork:true"),
        (SearchFilters(min_stars=200, in_fields=("readme",)), "in:readme"),
    ],
)
def test_filters_select_what_github_would(serve, connect, store, filters, q) -> None:
    api = serve(make_population(900, seed=8))
    expected = api.ids(f"{DL} stars:>=200 {q}")
    assert 0 < len(expected) < 1200
    search(store, connect(api), [DL], filters)
    assert _hit_ids(store) == expected


@pytest.mark.parametrize(
    "fault",
    [
        Fault("403", retry_after=5),
        Fault("429", retry_after=3),
        Fault("403"),
        Fault("403", primary=True),
        Fault("500"),
        Fault("502"),
        Fault("503"),
        Fault("slow", delay=1.6),
        Fault("incomplete"),
    ],
    ids=lambda f: f.kind + ("-retry-after" if f.retry_after else "-primary" if f.primary else ""),
)
def test_a_crawl_survives_each_fault_kind(serve, connect, store, clock, fault) -> None:
    api = serve(make_population(1200, seed=9))
    api.inject(fault, 1, 4, 12)
    search(store, connect(api, timeout=1), [DL], FILTERS)
    assert _hit_ids(store) == api.ids(f"{DL} stars:>=200")
    assert store.searches()[0]["status"] == "done"
    assert clock.slept > 0 and api.past_cap == 0
    _no_duplicates(store)


def test_star_drift_during_the_crawl_loses_nothing(serve, connect, store) -> None:
    # 40 repositories gain or lose up to 3 stars before every request; none falls below 200,
    # so the matching set is fixed while ranks and slice boundaries move under the crawl.
    api = serve(make_population(2600, seed=10), drift=Drift(per_request=40, max_delta=3, floor=200))
    summary = search(store, connect(api), [DL], FILTERS)
    assert _hit_ids(store) == api.ids(f"{DL} stars:>=200")
    assert summary.keywords[0].shortfall == 0
    _no_duplicates(store)


class Interrupted(Exception):
    """Stands in for a crash in the middle of a crawl."""


def test_an_interrupted_crawl_resumes_without_loss_or_duplicates(serve, connect, store) -> None:
    api = serve(make_population(2600, seed=11))
    expected = api.ids(f"{DL} stars:>=200")
    pages = 0

    def crash_after_15_pages(event: object) -> None:
        nonlocal pages
        pages += isinstance(event, PageFetched)
        if pages == 15:
            raise Interrupted

    with pytest.raises(Interrupted):
        search(store, connect(api), [DL], FILTERS, on_event=crash_after_15_pages)
    log = store.searches()[0]
    done_before = {
        r["qualifier"] for r in store.query("SELECT * FROM search_slices WHERE status != 'pending'")
    }
    stored_before = _hit_ids(store)
    assert log["status"] == "running" and done_before and 1000 <= len(stored_before) < 2600
    served_before = len(api.served)

    seen: list[object] = []
    summary = search(store, connect(api), [DL], FILTERS, on_event=seen.append)

    started = next(e for e in seen if isinstance(e, SearchStarted))
    assert started.resumed and started.fetched == len(stored_before)
    assert _hit_ids(store) == expected
    _no_duplicates(store)
    keyword = summary.keywords[0]
    assert (keyword.fetched, keyword.runs, keyword.status) == (2600, 2, "done")
    # Slices completed before the crash were not mined again (the root's total is re-read once).
    asked_again = [s.params for s in api.served[served_before:]]
    root = f"{DL} stars:>=200"
    assert not {p["q"] for p in asked_again} & {f"{DL} {q}" for q in done_before} - {root}
    assert [p.get("page", "1") for p in asked_again if p["q"] == root] == ["1"]


def test_a_complete_search_is_not_repeated_unless_refreshed(serve, connect, store) -> None:
    api = serve(make_population(300, seed=12))
    first = search(store, connect(api), [DL], FILTERS)
    served = api.search_requests
    again = search(store, connect(api), [DL], FILTERS)
    assert api.search_requests == served  # nothing asked
    assert again.keywords[0].search_id == first.keywords[0].search_id
    fresh = search(store, connect(api), [DL], FILTERS, refresh=True)
    assert fresh.keywords[0].search_id != first.keywords[0].search_id
    assert api.search_requests > served and len(store.searches()) == 2
    assert fresh.keywords[0].fetched == 300
