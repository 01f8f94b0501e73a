"""Fixtures for the search stage: a fake GitHub API over real HTTP, a clock, a store."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from search_fakes import FakeClock, FakeGitHub

from miner.search.github import GitHubClient
from miner.store import Store

TOKEN = "ghp_fakeTOKENvalue0123456789abcdefABCDEF"


@pytest.fixture
def clock() -> FakeClock:
    """A clock whose sleep only advances it; the client's waits are read from it."""
    return FakeClock()


@pytest.fixture
def serve(clock: FakeClock) -> Iterator[Callable[..., FakeGitHub]]:
    """Start fake APIs (stopped after the test): serve(repos, **options) -> FakeGitHub."""
    started: list[FakeGitHub] = []

    def start(repos: list[Any], **options: Any) -> FakeGitHub:
        options.setdefault("clock", clock.time)
        options.setdefault("token", TOKEN)
        api = FakeGitHub(repos, **options).start()
        started.append(api)
        return api

    yield start
    for api in started:
        api.stop()


@pytest.fixture
def events() -> list[object]:
    """Every event the client and the search emitted."""
    return []


@pytest.fixture
def connect(clock: FakeClock, events: list[object]) -> Iterator[Callable[..., GitHubClient]]:
    """connect(api, **options) -> a GitHubClient on the fake, sleeping on the fake clock."""
    clients: list[GitHubClient] = []

    def make(api: FakeGitHub, **options: Any) -> GitHubClient:
        options.setdefault("token", TOKEN)
        client = GitHubClient(
            api.url, sleep=clock.sleep, clock=clock.time, on_event=events.append, **options
        )
        clients.append(client)
        return client

    yield make
    for client in clients:
        client.close()


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """An empty study store."""
    with Store(tmp_path / "miner.db") as opened:
        yield opened
