"""Fixtures of the clone tests: upstream repositories, a store and a local git host."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from clone_repos import (
    TOKEN,
    GitServer,
    Upstream,
    build_submodule,
    build_unfiltered,
    build_upstream,
)

from miner.store import Store


@pytest.fixture(scope="session")
def upstreams(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Upstream]:
    """Repositories shared by the tests that only read them (built once per run)."""
    root = tmp_path_factory.mktemp("upstream")
    sub = build_submodule(root)
    history = build_upstream(root, "history")
    history.add_commit("2021-06-01T00:00:00Z")
    return {
        "deep": build_upstream(root, "deep", submodule=sub),
        "history": history,
        "sub": Upstream(sub),
        "nofilter": build_unfiltered(root),
    }


@pytest.fixture
def upstream(tmp_path: Path) -> Upstream:
    """A private copy of the DL-like repository, for tests that add commits or run hooks."""
    root = tmp_path / "up"
    return build_upstream(root, submodule=build_submodule(root))


@pytest.fixture(autouse=True)
def quiet_git_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The machine's own ~/.gitconfig never leaks into a test (tests may write this one)."""
    config = tmp_path / "global.gitconfig"
    config.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    return config


@pytest.fixture
def store(tmp_path: Path) -> Iterator[Store]:
    """A study's store at <tmp>/data/miner.db."""
    with Store(tmp_path / "data" / "miner.db") as opened:
        yield opened


@pytest.fixture
def git_server(upstreams: dict[str, Upstream]) -> Iterator[GitServer]:
    """A local git host serving the shared upstream repositories over HTTP."""
    server = GitServer(upstreams["deep"].path.parent, TOKEN)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.stopping.set()
        server.shutdown()
        server.server_close()
