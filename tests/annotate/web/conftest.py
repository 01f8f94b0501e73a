"""Fixtures of the web tests: a prepared round served by the app, in process or over HTTP."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator

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


@pytest.fixture
def served(short_round: Round) -> Iterator[tuple[Round, str]]:
    """The short round served over real HTTP on a free local port: (round, base URL)."""
    import uvicorn

    port = _free_port()
    server = uvicorn.Server(
        uvicorn.Config(short_round.app, host="127.0.0.1", port=port, log_level="warning")
    )
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 10
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    yield short_round, f"http://127.0.0.1:{port}"
    server.should_exit = True
    thread.join(timeout=10)
