"""The only PyGithub importer: one search page at a time, politely, with rate limits and retries.

PyGithub's Requester does the HTTP (base URL, auth, JSON, error classification); this module
follows GitHub's `Link: rel="next"` URLs page by page (PaginatedList iterates items, hiding
where a page ends and whether it was incomplete, which decide the next step), tracks the bucket
from `x-ratelimit-*` headers and decides every wait itself. PyGithub's own retry and request
spacing are switched off so that no sleep happens where the caller cannot see or inject it.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit, urlunsplit

from miner.errors import AuthError, GitHubError, QueryError
from miner.models import RepoMeta

if TYPE_CHECKING:
    from github.Requester import Requester

PER_PAGE = 100
RESULT_CAP = 1000  # GitHub serves at most the first 1,000 results of any search
MAX_PAGES = RESULT_CAP // PER_PAGE
SEARCH_PATH = "/search/repositories"


@dataclass(frozen=True)
class RateLimit:
    """The search bucket as the last response described it."""

    limit: int
    remaining: int
    reset: float  # epoch seconds
    resource: str = "search"


@dataclass(frozen=True)
class Waiting:
    """A pause before the next request; emitted once per second so a countdown can be shown."""

    reason: str
    seconds_left: float
    seconds_total: float
    attempt: int = 0

    @property
    def first_tick(self) -> bool:
        """True for the event that starts this wait."""
        return self.seconds_left >= self.seconds_total


@dataclass(frozen=True)
class RetryPolicy:
    """How long and how often to retry; GitHub's guidance for rate limits and transient errors."""

    attempts: int = 6  # per page, over every retryable failure
    backoff: float = 2.0  # first wait after a 5xx or timeout, doubled each time
    max_backoff: float = 120.0
    abuse_wait: float = 60.0  # 403/429 without Retry-After: GitHub asks for at least a minute
    max_abuse_wait: float = 900.0
    incomplete_retries: int = 2  # a page with incomplete_results is asked for again this often
    incomplete_wait: float = 1.0
    reset_margin: float = 1.0  # seconds added after x-ratelimit-reset, against clock skew


@dataclass(frozen=True)
class SearchPage:
    """One page of search results, after any retries it needed."""

    number: int
    total_count: int
    incomplete: bool
    repos: tuple[RepoMeta, ...]
    requests: int  # HTTP requests this page cost, retries included
    next_url: str | None
    rate: RateLimit | None


class _Retry(Exception):
    """A failure worth waiting for: `wait` seconds, for `reason`."""

    def __init__(self, reason: str, wait: float) -> None:
        super().__init__(reason)
        self.reason = reason
        self.wait = wait


def repo_from_json(item: Mapping[str, Any]) -> RepoMeta:
    """Turn one search result item (GitHub's JSON) into a RepoMeta."""
    licence = item.get("license") or {}
    return RepoMeta(
        id=int(item["id"]),
        full_name=str(item["full_name"]),
        html_url=str(item.get("html_url") or ""),
        clone_url=str(item.get("clone_url") or ""),
        description=item.get("description"),
        stars=int(item.get("stargazers_count") or 0),
        forks=int(item.get("forks_count") or 0),
        watchers=int(item.get("watchers_count") or 0),
        open_issues=int(item.get("open_issues_count") or 0),
        language=item.get("language"),
        topics=tuple(item.get("topics") or ()),
        license=licence.get("spdx_id") or licence.get("key") or licence.get("name"),
        default_branch=str(item.get("default_branch") or ""),
        size_kb=int(item.get("size") or 0),
        fork=bool(item.get("fork")),
        archived=bool(item.get("archived")),
        disabled=bool(item.get("disabled")),
        created_at=str(item.get("created_at") or ""),
        updated_at=str(item.get("updated_at") or ""),
        pushed_at=str(item.get("pushed_at") or ""),
    )


def public_url(url: str) -> str:
    """`url` without any user:password part, safe to store and show."""
    parts = urlsplit(url)
    if "@" not in parts.netloc:
        return url
    return urlunsplit(parts._replace(netloc=parts.netloc.rsplit("@", 1)[1]))


def _one_line(text: str, limit: int = 200) -> str:
    text = " ".join(str(text).split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _header(headers: Mapping[str, Any] | None, name: str) -> str | None:
    if not headers:
        return None
    value = headers.get(name)
    if value is None:
        value = headers.get(name.lower())
    return None if value is None else str(value)


def _message(data: Any) -> str:
    """GitHub's error message, with the first validation detail if there is one."""
    if not isinstance(data, dict):
        return _one_line(str(data or ""))
    message = str(data.get("message") or "")
    details = [
        str(e.get("message") or e.get("code") or "")
        for e in data.get("errors") or []
        if isinstance(e, dict)
    ]
    details = [d for d in details if d]
    return _one_line(": ".join([message, *details[:1]]) if details else message)


def _next_link(headers: Mapping[str, Any]) -> str | None:
    link = _header(headers, "link")
    if not link:
        return None
    for part in link.split(","):
        segments = [s.strip() for s in part.split(";")]
        if len(segments) > 1 and 'rel="next"' in segments[1:]:
            return segments[0].strip("<>")
    return None


class GitHubClient:
    """Searches repositories through PyGithub; every wait goes through the injectable `sleep`."""

    def __init__(
        self,
        api_url: str,
        token: str | None = None,
        *,
        timeout: int = 30,
        policy: RetryPolicy | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        on_event: Callable[[object], None] | None = None,
    ) -> None:
        from github import Auth, Github

        self.api_url = public_url(api_url.rstrip("/"))
        self.policy = policy or RetryPolicy()
        self.sleep = sleep
        self.clock = clock
        self.on_event = on_event
        self.rate: RateLimit | None = None
        self.requests = 0
        # Consecutive failures of each kind since the last good page: they set the backoff.
        self._abuse_strikes = 0
        self._transient_strikes = 0
        # retry=None and no request spacing: PyGithub would otherwise sleep on its own, unseen.
        self._github = Github(
            base_url=api_url.rstrip("/"),
            auth=Auth.Token(token) if token else None,
            timeout=timeout,
            per_page=PER_PAGE,
            retry=None,
            seconds_between_requests=None,
            seconds_between_writes=None,
            user_agent="miner (research repository search)",
        )
        self._requester: Requester = self._github.requester

    def close(self) -> None:
        """Release the HTTP connections."""
        self._github.close()

    def __enter__(self) -> GitHubClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def search_pages(self, query: str, order: str = "asc", start: int = 1) -> Iterator[SearchPage]:
        """Pages of `query` sorted by stars (fewest first unless `order` is "desc") from page
        `start` on, following GitHub's Link headers up to the cap."""
        url: str = SEARCH_PATH
        params: dict[str, Any] | None = {
            "q": query,
            "sort": "stars",
            "order": order,
            "per_page": PER_PAGE,
            **({"page": start} if start > 1 else {}),
        }
        for number in range(start, MAX_PAGES + 1):
            page = self._page(url, params, number, query)
            yield page
            if page.next_url is None:
                return
            url, params = page.next_url, None

    def _page(self, url: str, params: dict[str, Any] | None, number: int, query: str) -> SearchPage:
        requests = 0
        failures = 0
        incomplete_left = self.policy.incomplete_retries
        while True:
            self._respect_bucket()
            requests += 1
            self.requests += 1
            try:
                headers, data = self._get(url, params, query)
            except _Retry as retry:
                failures += 1
                if failures >= self.policy.attempts:
                    raise GitHubError(
                        f"GitHub kept failing ({retry.reason}) after {failures} attempts; "
                        "re-run the same command later to resume"
                    ) from None
                self._wait(retry.wait, retry.reason, failures)
                continue
            self._abuse_strikes = self._transient_strikes = 0
            incomplete = bool(data.get("incomplete_results"))
            if incomplete and incomplete_left > 0:
                incomplete_left -= 1
                self._wait(self.policy.incomplete_wait, "incomplete results, asking again", 0)
                continue
            return SearchPage(
                number=number,
                total_count=int(data.get("total_count") or 0),
                incomplete=incomplete,
                repos=tuple(repo_from_json(item) for item in data.get("items") or ()),
                requests=requests,
                next_url=_next_link(headers),
                rate=self.rate,
            )

    def _get(
        self, url: str, params: dict[str, Any] | None, query: str
    ) -> tuple[dict[str, Any], dict[str, Any]]:
        """One request; raises _Retry for what waiting can fix and a MinerError for the rest."""
        import requests
        from github.GithubException import GithubException

        try:
            headers, data = self._requester.requestJsonAndCheck("GET", url, parameters=params)
        except GithubException as exc:
            self._track(exc.headers)
            raise self._classify(exc.status, exc.headers, exc.data, query) from None
        except requests.exceptions.Timeout:
            raise _Retry("timeout", self._backoff()) from None
        except requests.exceptions.RequestException as exc:
            raise _Retry(f"connection error ({type(exc).__name__})", self._backoff()) from None
        self._track(headers)
        if not isinstance(data, dict):
            raise _Retry("malformed response", self._backoff())
        return headers, data

    def _classify(
        self, status: int, headers: Mapping[str, Any] | None, data: Any, query: str
    ) -> Exception:
        message = _message(data)
        if status == 401:
            return AuthError(
                f"GitHub rejected the token (HTTP 401: {message or 'Bad credentials'}); "
                "check --token or GITHUB_TOKEN"
            )
        if status == 422:
            return QueryError(
                f"GitHub rejected the search {_one_line(query, 80)!r} (HTTP 422: {message})"
            )
        if status in (403, 429) and self._rate_limited(status, headers, message):
            return _Retry(f"HTTP {status} rate limit", self._rate_wait(headers))
        if status >= 500:
            return _Retry(f"HTTP {status}", self._backoff())
        hint = "; check --api-url" if status == 404 else ""
        return GitHubError(
            f"GitHub refused the search (HTTP {status}: {message or 'no message'}){hint}"
        )

    def _rate_limited(self, status: int, headers: Mapping[str, Any] | None, message: str) -> bool:
        if status == 429 or _header(headers, "retry-after") is not None:
            return True
        if _header(headers, "x-ratelimit-remaining") == "0":
            return True
        return "rate limit" in message.lower()

    def _rate_wait(self, headers: Mapping[str, Any] | None) -> float:
        """GitHub's order: Retry-After; else the reset of an empty bucket; else 60 s, doubling."""
        retry_after = _header(headers, "retry-after")
        if retry_after is not None:
            try:
                return max(0.0, float(retry_after))
            except ValueError:
                pass
        reset = _header(headers, "x-ratelimit-reset")
        if _header(headers, "x-ratelimit-remaining") == "0" and reset is not None:
            return max(0.0, float(reset) - self.clock()) + self.policy.reset_margin
        self._abuse_strikes += 1
        wait = self.policy.abuse_wait * 2 ** (self._abuse_strikes - 1)
        return min(wait, self.policy.max_abuse_wait)

    def _backoff(self) -> float:
        """Exponential backoff for 5xx, timeouts and connection errors."""
        self._transient_strikes += 1
        wait = self.policy.backoff * 2 ** (self._transient_strikes - 1)
        return min(wait, self.policy.max_backoff)

    def _track(self, headers: Mapping[str, Any] | None) -> None:
        """Remember the search bucket from x-ratelimit-* headers (only search requests are made)."""
        remaining = _header(headers, "x-ratelimit-remaining")
        if remaining is None:
            return
        try:
            self.rate = RateLimit(
                limit=int(float(_header(headers, "x-ratelimit-limit") or 0)),
                remaining=int(float(remaining)),
                reset=float(_header(headers, "x-ratelimit-reset") or 0),
                resource=_header(headers, "x-ratelimit-resource") or "search",
            )
        except ValueError:
            return

    def _respect_bucket(self) -> None:
        """Wait for the reset when the last response said the bucket is empty."""
        rate = self.rate
        if rate is None or rate.remaining > 0:
            return
        wait = rate.reset - self.clock()
        if wait > 0:
            resets = datetime.fromtimestamp(rate.reset, timezone.utc).strftime("%H:%M:%S UTC")
            reason = f"{rate.resource} rate limit used up, resets at {resets}"
            self._wait(wait + self.policy.reset_margin, reason, 0)
        self.rate = replace(rate, remaining=rate.limit)

    def _wait(self, seconds: float, reason: str, attempt: int) -> None:
        """Sleep `seconds` in one-second ticks, announcing each so a countdown can be drawn."""
        left = seconds
        while left > 0:
            if self.on_event is not None:
                self.on_event(Waiting(reason, left, seconds, attempt))
            step = min(1.0, left)
            self.sleep(step)
            left -= step
        if seconds <= 0 and self.on_event is not None:
            self.on_event(Waiting(reason, 0.0, 0.0, attempt))
