"""A fake GitHub REST API on 127.0.0.1: `/search/repositories` and `/rate_limit`, over real HTTP.

It holds a generated population of repositories and answers like GitHub: parses `q` (keywords and
"phrases", stars:, forks:, size:, created:, pushed:, fork:, in:, language:, archived:, topic:,
user:), sorts, pages with Link headers pointing back at itself, serves at most 1,000 results (422
beyond), reports total_count, incomplete_results and x-ratelimit-* headers, enforces a search
bucket, and injects faults on chosen requests: 403/429 with or without Retry-After, 5xx, slow
responses, incomplete results, and star drift between requests.

    python tests/fakes/github_api.py --port 8765 --population 2500
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import math
import random
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any
from urllib.parse import parse_qs, urlencode, urlsplit


def _sibling(name: str) -> ModuleType:
    """Import a module next to this file, whether this runs as a script or was loaded by path."""
    if name not in sys.modules:
        spec = importlib.util.spec_from_file_location(name, Path(__file__).with_name(f"{name}.py"))
        assert spec is not None and spec.loader is not None
        module = importlib.util.module_from_spec(spec)
        sys.modules[name] = module  # dataclasses look their module up while it executes
        spec.loader.exec_module(module)
    return sys.modules[name]


_query = _sibling("github_query")
_population = _sibling("github_population")
if TYPE_CHECKING:
    from github_population import make_population
    from github_query import FakeRepo, QueryInvalid, parse_q
else:
    FakeRepo, QueryInvalid, parse_q = _query.FakeRepo, _query.QueryInvalid, _query.parse_q
    make_population = _population.make_population
RESULT_CAP = 1000
DOCS = "https://docs.github.com/rest/search/search#search-repositories"

# ---------------------------------------------------------------- faults, drift, clock


@dataclass(frozen=True)
class Fault:
    """What goes wrong with one search request: 403, 429, 500, 502, 503, slow, incomplete."""

    kind: str
    retry_after: int | None = None
    delay: float = 0.0
    primary: bool = False  # a 403 "API rate limit exceeded" with x-ratelimit-remaining: 0


@dataclass
class Drift:
    """Stars change between requests: `per_request` repos move by up to `max_delta`, never
    below `floor` (so the set of matches can be held constant while ranks shift). With
    `losses=False` they only gain, as on GitHub, where unstarring is rare."""

    per_request: int = 20
    max_delta: int = 3
    floor: int = 0
    seed: int = 7
    losses: bool = True


class FakeClock:
    """A clock whose sleep advances it instantly; shared by the client under test and the fake."""

    def __init__(self, start: float = 1_700_000_000.0) -> None:
        self.now = start
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds

    @property
    def slept(self) -> float:
        return sum(self.sleeps)


@dataclass(frozen=True)
class Served:
    """One request as the fake saw it (the Authorization header is never kept)."""

    path: str
    params: dict[str, str]
    status: int
    authenticated: bool


# ---------------------------------------------------------------- the server


class FakeGitHub:
    """The fake API; `with FakeGitHub(repos) as api:` serves on `api.url` until the block ends."""

    def __init__(
        self,
        repos: Iterable[FakeRepo],
        *,
        token: str | None = None,
        search_limit: int = 100_000,
        anonymous_limit: int = 10,
        clock: Callable[[], float] = time.time,
        drift: Drift | None = None,
        latency: float = 0.0,
        port: int = 0,
    ) -> None:
        self.repos = list(repos)
        self.token = token
        self.search_limit = search_limit
        self.anonymous_limit = anonymous_limit
        self.clock = clock
        self.drift = drift
        self.latency = latency  # seconds added to every search response
        self._drift_rng = random.Random(drift.seed if drift else 0)
        self.faults: dict[int, Fault] = {}
        self.served: list[Served] = []
        self.search_requests = 0
        self._lock = threading.Lock()
        self._window: dict[bool, tuple[float, int]] = {}  # authenticated -> (reset, used)
        # Text never changes once served, so the text part of each query is matched once.
        self._static: dict[tuple[Any, ...], list[FakeRepo]] = {}
        self._server = ThreadingHTTPServer(("127.0.0.1", port), self._handler())
        self._server.daemon_threads = True
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self) -> FakeGitHub:
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        self._server.shutdown()
        self._server.server_close()

    def __enter__(self) -> FakeGitHub:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def inject(self, fault: Fault, *at: int) -> None:
        """Make the search requests numbered `at` (1-based, counted from now on) fail."""
        for n in at:
            self.faults[self.search_requests + n] = fault

    def matching(self, q: str) -> list[FakeRepo]:
        """Every repository `q` matches now, uncapped: the oracle for completeness."""
        query = parse_q(q)
        return [r for r in self.repos if query.matches(r)]

    def ids(self, q: str) -> set[int]:
        return {r.id for r in self.matching(q)}

    def move_stars(self, rounds: int = 1) -> None:
        """Apply the drift `rounds` times now, as stars move while no crawl is running."""
        with self._lock:
            for _ in range(rounds):
                self._apply_drift()

    def spend_bucket(self, authenticated: bool = True) -> None:
        """Use up the search bucket, as another client with the same token would."""
        with self._lock:
            reset, _ = self._bucket(authenticated)
            self._window[authenticated] = (reset, self._limit(authenticated))

    @property
    def past_cap(self) -> int:
        """Requests that asked for results beyond the first 1,000."""
        return sum(
            1
            for s in self.served
            if s.path == "/search/repositories"
            and (int(s.params.get("page", 1)) - 1) * int(s.params.get("per_page", 30)) >= RESULT_CAP
        )

    # -- internals

    def _limit(self, authenticated: bool) -> int:
        return self.search_limit if authenticated else self.anonymous_limit

    def _bucket(self, authenticated: bool) -> tuple[float, int]:
        now = self.clock()
        reset, used = self._window.get(authenticated, (0.0, 0))
        if now >= reset:
            reset, used = float(math.floor(now) + 60), 0
            self._window[authenticated] = (reset, used)
        return reset, used

    def _rate_headers(self, authenticated: bool, consume: bool) -> tuple[dict[str, str], bool]:
        reset, used = self._bucket(authenticated)
        limit = self._limit(authenticated)
        allowed = used < limit
        if consume and allowed:
            used += 1
            self._window[authenticated] = (reset, used)
        headers = {
            "x-ratelimit-limit": str(limit),
            "x-ratelimit-remaining": str(max(0, limit - used)),
            "x-ratelimit-reset": str(int(reset)),
            "x-ratelimit-used": str(used),
            "x-ratelimit-resource": "search",
        }
        return headers, allowed

    def _apply_drift(self) -> None:
        drift, rng = self.drift, self._drift_rng
        if drift is None:
            return
        movable = [r for r in self.repos if r.stars >= drift.floor]
        for repo in rng.sample(movable, min(drift.per_request, len(movable))):
            delta = rng.randint(-drift.max_delta if drift.losses else 0, drift.max_delta)
            repo.stars = max(drift.floor, repo.stars + delta)

    def _search(
        self, params: dict[str, str], authenticated: bool
    ) -> tuple[int, dict[str, str], Any, float]:
        """(status, headers, body, delay) for one /search/repositories request."""
        self.search_requests += 1
        fault = self.faults.pop(self.search_requests, None)
        self._apply_drift()
        if fault and fault.primary:  # another client emptied the bucket
            reset, _ = self._bucket(authenticated)
            self._window[authenticated] = (reset, self._limit(authenticated))
        headers, allowed = self._rate_headers(authenticated, consume=True)
        if not allowed:
            return (
                403,
                headers,
                {"message": "API rate limit exceeded for user ID 1.", "documentation_url": DOCS},
                0.0,
            )
        if fault and fault.kind in ("403", "429"):
            if fault.retry_after is not None:
                headers["retry-after"] = str(fault.retry_after)
            message = (
                "You have exceeded a secondary rate limit. Please wait a few minutes "
                "before you try again."
            )
            return int(fault.kind), headers, {"message": message, "documentation_url": DOCS}, 0.0
        if fault and fault.kind in ("500", "502", "503"):
            return int(fault.kind), headers, {"message": "Server Error"}, 0.0
        try:
            query = parse_q(params.get("q", ""))
            per_page = min(100, int(params.get("per_page", 30)))
            page = int(params.get("page", 1))
        except QueryInvalid as exc:
            return 422, headers, _validation(str(exc)), 0.0
        except ValueError:
            return 422, headers, _validation("per_page and page must be numbers"), 0.0
        if per_page < 1 or page < 1:
            return 422, headers, _validation("per_page and page must be positive"), 0.0
        start = (page - 1) * per_page
        body: dict[str, Any]
        if start >= RESULT_CAP:
            body = {
                "message": "Only the first 1000 search results are available",
                "errors": [
                    {
                        "message": "Only the first 1000 search results are available",
                        "resource": "Search",
                        "field": "q",
                        "code": "invalid",
                    }
                ],
                "documentation_url": DOCS,
                "status": "422",
            }
            return 422, headers, body, 0.0
        key = query.static_key()
        if key not in self._static:
            self._static[key] = [r for r in self.repos if query.matches_static(r)]
        found = [r for r in self._static[key] if query.matches_counts(r)]
        found.sort(key=_query.sort_key(params.get("sort"), params.get("order", "desc")))
        items = found[start : min(start + per_page, RESULT_CAP)]
        incomplete = bool(fault and fault.kind == "incomplete")
        if incomplete:
            items = items[: len(items) // 2]
        headers["link"] = self._links(params, page, per_page, len(found))
        body = {
            "total_count": len(found),
            "incomplete_results": incomplete,
            "items": [r.to_json(self.url) for r in items],
        }
        delay = fault.delay if fault and fault.kind == "slow" else 0.0
        return 200, headers, body, delay + self.latency

    def _links(self, params: dict[str, str], page: int, per_page: int, total: int) -> str:
        last = max(1, min(math.ceil(total / per_page), math.ceil(RESULT_CAP / per_page)))
        rels = []
        if page < last:
            rels += [("next", page + 1), ("last", last)]
        if page > 1:
            rels += [("prev", page - 1), ("first", 1)]
        base = f"{self.url}/search/repositories"
        return ", ".join(
            f'<{base}?{urlencode({**params, "per_page": per_page, "page": n})}>; rel="{rel}"'
            for rel, n in rels
        )

    def _respond(
        self, path: str, params: dict[str, str], auth: str | None
    ) -> tuple[int, dict[str, str], Any, float]:
        authenticated = auth is not None
        if auth is not None and self.token is not None:
            scheme, _, given = auth.partition(" ")
            if scheme.lower() not in ("token", "bearer") or given != self.token:
                return (
                    401,
                    {},
                    {"message": "Bad credentials", "documentation_url": DOCS, "status": "401"},
                    0.0,
                )
        with self._lock:
            if path == "/search/repositories":
                return self._search(params, authenticated)
            if path == "/rate_limit":
                headers, _ = self._rate_headers(authenticated, consume=False)
                search = {k.removeprefix("x-ratelimit-"): v for k, v in headers.items()}
                body = {"resources": {"search": search}, "rate": search}
                return 200, headers, body, 0.0
        return 404, {}, {"message": "Not Found", "documentation_url": DOCS}, 0.0

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"
            disable_nagle_algorithm = True  # headers and body go out in separate writes

            def do_GET(self) -> None:  # noqa: N802 (http.server's naming)
                parts = urlsplit(self.path)
                params = {k: v[-1] for k, v in parse_qs(parts.query).items()}
                auth = self.headers.get("Authorization")
                status, headers, body, delay = fake._respond(parts.path, params, auth)
                with fake._lock:
                    fake.served.append(Served(parts.path, params, status, auth is not None))
                if delay:
                    time.sleep(delay)
                data = json.dumps(body).encode()
                try:
                    self.send_response(status)
                    self.send_header("Content-Type", "application/json; charset=utf-8")
                    self.send_header("Content-Length", str(len(data)))
                    for name, value in headers.items():
                        self.send_header(name, value)
                    self.end_headers()
                    self.wfile.write(data)
                except (BrokenPipeError, ConnectionResetError):
                    pass  # the client gave up waiting (a timeout test)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler


def _validation(message: str) -> dict[str, Any]:
    return {
        "message": "Validation Failed",
        "errors": [{"message": message, "resource": "Search", "field": "q", "code": "invalid"}],
        "documentation_url": DOCS,
        "status": "422",
    }


def main(argv: Sequence[str] | None = None) -> None:
    """Serve a generated population until interrupted (for demos and manual runs)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--port", type=int, default=8765)
    parser.add_argument("--population", type=int, default=2500, help="matching repositories")
    parser.add_argument("--keyword", action="append", help="keyword(s) the matches contain")
    parser.add_argument("--min-stars", type=int, default=200)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--token", help="accept only this token (default: any)")
    parser.add_argument("--search-limit", type=int, default=30, help="search requests a minute")
    parser.add_argument("--latency", type=float, default=0.0, help="seconds added to each answer")
    args = parser.parse_args(argv)
    keywords = args.keyword or ["deep learning"]
    repos = make_population(
        args.population, keywords=keywords, min_stars=args.min_stars, seed=args.seed
    )
    api = FakeGitHub(
        repos,
        token=args.token,
        search_limit=args.search_limit,
        latency=args.latency,
        port=args.port,
    )
    print(
        f"fake GitHub API on {api.url}: {len(repos):,} repositories, {args.population:,} "
        f"matching {' / '.join(keywords)!r} with >= {args.min_stars} stars (Ctrl-C stops)",
        flush=True,
    )
    try:
        api._server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        api._server.server_close()


if __name__ == "__main__":
    main()
