"""Fixtures of the web tests: a prepared round served by the app, in process or over HTTP."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import pytest
from annotate_study import Study
from web_round import FIELDS, Round, prepared


@pytest.fixture
def short_round(study: Study) -> Round:
    """Round main asking three fields of six repositories."""
    return prepared(study, FIELDS)


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@contextmanager
def serving(r: Round) -> Iterator[str]:
    """A round's app served over real HTTP on a free local port: its base URL."""
    import uvicorn

    port = _free_port()
    server = uvicorn.Server(uvicorn.Config(r.app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)


@pytest.fixture
def served(short_round: Round) -> Iterator[tuple[Round, str]]:
    """The short round served over real HTTP on a free local port: (round, base URL)."""
    with serving(short_round) as base:
        yield short_round, base


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """One headless chromium for the module."""
    from browsing import CHROMIUM
    from playwright.sync_api import sync_playwright

    if CHROMIUM is None:
        pytest.skip("no chromium binary: install it with `apt-get install -y chromium`")
    with sync_playwright() as play:
        launched = play.chromium.launch(executable_path=CHROMIUM, headless=True)
        yield launched
        launched.close()


# A loaded 2-core machine can take longer than Playwright's 30 s default for one action.
BROWSER_TIMEOUT_MS = 120_000


def open_page(browser: Any, width: int = 1400, height: int = 900) -> Iterator[Any]:
    """A fresh page of the given viewport that fails the test on any script error."""
    context = browser.new_context(viewport={"width": width, "height": height})
    context.set_default_timeout(BROWSER_TIMEOUT_MS)
    opened = context.new_page()
    errors: list[str] = []
    opened.on("pageerror", lambda exc: errors.append(str(exc)))
    yield opened
    context.close()
    assert not errors


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    """A 1400x900 page."""
    yield from open_page(browser)


@pytest.fixture
def small_page(browser: Any) -> Iterator[Any]:
    """A 1280x720 page, the smallest screen the form must fit."""
    yield from open_page(browser, 1280, 720)
