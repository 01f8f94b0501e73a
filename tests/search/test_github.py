"""The PyGithub client against the fake API: paging, mapping, errors, rate limits, retries."""

from __future__ import annotations

import pytest
from conftest import TOKEN
from search_fakes import Fault, make_population

from miner.errors import AuthError, GitHubError, QueryError
from miner.search.github import RetryPolicy, Waiting

QUERY = "deep learning stars:>=200"


def _search_statuses(api) -> list[int]:
    return [s.status for s in api.served if s.path == "/search/repositories"]


def test_pages_follow_link_headers_at_100_per_page(serve, connect) -> None:
    api = serve(make_population(250, noise=False))
    pages = list(connect(api).search_pages(QUERY))
    assert [len(p.repos) for p in pages] == [100, 100, 50]
    assert [p.total_count for p in pages] == [250] * 3
    first, *rest = [s.params for s in api.served]
    assert first == {"q": QUERY, "sort": "stars", "order": "asc", "per_page": "100"}
    assert [p["page"] for p in rest] == ["2", "3"]  # the next URLs GitHub (the fake) gave
    stars = [r.stars for p in pages for r in p.repos]
    assert stars == sorted(stars)  # fewest first: the crawl moves up the star range


def test_pages_can_start_after_the_ones_already_read(serve, connect) -> None:
    api = serve(make_population(250, noise=False))
    every = list(connect(api).search_pages(QUERY))
    served = len(api.served)
    later = list(connect(api).search_pages(QUERY, start=2))
    assert [p.number for p in later] == [2, 3]
    assert [p.repos for p in later] == [p.repos for p in every[1:]]
    assert [s.params["page"] for s in api.served[served:]] == ["2", "3"]


def test_items_become_repo_meta_with_every_study_field(serve, connect) -> None:
    repos = make_population(3, noise=False)
    repos[0].topics = ["deep-learning", "pytorch"]
    repos[0].license = "Apache-2.0"
    repos[0].stars = 1  # first in the results (fewest stars first)
    repos[0].fork = False
    api = serve(repos)
    meta = next(connect(api).search_pages("deep learning stars:>=0")).repos[0]
    source = repos[0].to_json(api.url)
    assert meta.id == source["id"] and meta.full_name == source["full_name"]
    assert meta.html_url == f"https://github.com/{source['full_name']}"
    assert meta.clone_url == source["clone_url"] and meta.clone_url.endswith(".git")
    assert (meta.stars, meta.forks, meta.watchers) == (1, source["forks_count"], 1)
    assert meta.open_issues == source["open_issues_count"]
    assert meta.topics == ("deep-learning", "pytorch")
    assert meta.license == "Apache-2.0"
    assert (meta.language, meta.default_branch, meta.size_kb) == (
        source["language"],
        "main",
        source["size"],
    )
    assert (meta.fork, meta.archived, meta.disabled) == (False, source["archived"], False)
    assert (meta.created_at, meta.updated_at, meta.pushed_at) == (
        source["created_at"],
        source["updated_at"],
        source["pushed_at"],
    )


def test_a_rejected_token_is_one_line_without_the_token(serve, connect) -> None:
    api = serve(make_population(5))
    wrong = "ghp_wrongTOKEN0000000000000000000000000"
    with pytest.raises(AuthError) as caught:
        next(connect(api, token=wrong).search_pages(QUERY))
    message = str(caught.value)
    assert "HTTP 401" in message and "\n" not in message
    assert wrong not in message and TOKEN not in message


def test_a_rejected_query_is_one_line(serve, connect) -> None:
    api = serve(make_population(5))
    with pytest.raises(QueryError, match="HTTP 422: Validation Failed: The search is longer"):
        next(connect(api).search_pages("deep " * 60))


@pytest.mark.parametrize("status", ["403", "429"])
def test_retry_after_is_honoured(serve, connect, clock, events, status) -> None:
    api = serve(make_population(50))
    api.inject(Fault(status, retry_after=7), 1)
    page = next(connect(api).search_pages(QUERY))
    assert len(page.repos) == 50 and page.requests == 2
    assert _search_statuses(api) == [int(status), 200]
    assert clock.slept == 7
    ticks = [e for e in events if isinstance(e, Waiting)]
    assert [t.seconds_left for t in ticks] == [7, 6, 5, 4, 3, 2, 1]  # a visible countdown
    assert ticks[0].first_tick and f"HTTP {status}" in ticks[0].reason


def test_403_without_retry_after_waits_a_minute_then_backs_off(serve, connect, clock) -> None:
    api = serve(make_population(50))
    api.inject(Fault("403"), 1, 2)
    next(connect(api).search_pages(QUERY))
    assert _search_statuses(api) == [403, 403, 200]
    assert clock.slept == 60 + 120


def test_an_empty_bucket_is_waited_out_before_github_refuses(serve, connect, clock, events) -> None:
    api = serve(make_population(500, noise=False), search_limit=3)
    pages = list(connect(api).search_pages(QUERY))
    assert len(pages) == 5
    assert 403 not in _search_statuses(api)  # the client waited instead of being refused
    waits = [e for e in events if isinstance(e, Waiting) and e.first_tick]
    assert len(waits) == 1 and waits[0].reason.startswith("search rate limit used up")
    assert 55 <= waits[0].seconds_total <= 62
    assert pages[2].rate is not None and pages[2].rate.remaining == 0


def test_a_primary_rate_limit_403_waits_until_reset(serve, connect, clock) -> None:
    api = serve(make_population(50))
    api.inject(Fault("403", primary=True), 1)
    page = next(connect(api).search_pages(QUERY))
    assert _search_statuses(api) == [403, 200]
    assert len(page.repos) == 50
    assert 55 <= clock.slept <= 62  # until x-ratelimit-reset, not a blind minute


def test_server_errors_are_retried_with_exponential_backoff(serve, connect, clock) -> None:
    api = serve(make_population(50))
    api.inject(Fault("500"), 1)
    api.inject(Fault("502"), 2)
    api.inject(Fault("503"), 3)
    page = next(connect(api).search_pages(QUERY))
    # Each failure reached us exactly once: PyGithub's own retries are off.
    assert _search_statuses(api) == [500, 502, 503, 200]
    assert clock.sleeps == [1.0] * (2 + 4 + 8) and page.requests == 4


def test_persistent_failure_gives_up_with_one_line(serve, connect) -> None:
    api = serve(make_population(50))
    api.inject(Fault("502"), *range(1, 10))
    client = connect(api, policy=RetryPolicy(attempts=3))
    with pytest.raises(GitHubError, match=r"HTTP 502\) after 3 attempts") as caught:
        next(client.search_pages(QUERY))
    assert "\n" not in str(caught.value)


def test_a_slow_response_times_out_and_is_retried(serve, connect, clock, events) -> None:
    api = serve(make_population(50))
    api.inject(Fault("slow", delay=2.5), 1)
    page = next(connect(api, timeout=1).search_pages(QUERY))
    assert len(page.repos) == 50 and page.requests == 2
    assert any(isinstance(e, Waiting) and e.reason == "timeout" for e in events)
    assert clock.slept == 2


def test_incomplete_results_are_asked_for_again(serve, connect) -> None:
    api = serve(make_population(150, noise=False))
    api.inject(Fault("incomplete"), 1)
    page = next(connect(api).search_pages(QUERY))
    assert (len(page.repos), page.incomplete, page.requests) == (100, False, 2)


def test_paging_stops_at_the_cap(serve, connect) -> None:
    api = serve(make_population(1500, noise=False))
    pages = list(connect(api).search_pages(QUERY))
    assert len(pages) == 10 and pages[0].total_count == 1500
    assert api.past_cap == 0 and len(api.served) == 10
