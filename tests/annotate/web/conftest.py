"""Fixtures of the web tests: a prepared round served by the app, in process or over HTTP."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any

import pytest
from annotate_study import Study

from miner.annotate.prepare import prepare_sheets
from miner.annotate.web import WebConfig, create_app

FIELDS = ["is_dl", "frameworks", "hw_gpu"]  # a short round keeps the browser tests quick


@dataclass(frozen=True)
class Round:
    """A prepared round of two annotators and the app serving it."""

    study: Study
    app: Any

    def url(self, who: str) -> str:
        """The path of an annotator's queue, or of the adjudicator's view."""
        access = self.app.state.web.access
        if who == "adjudicator":
            return f"/j/{access.adjudicator}/"
        return f"/a/{access.annotators[who]}/"


def prepared(study: Study, fields: list[str] | None = None, prefill: bool = False) -> Round:
    """Sheets for ann and bob in round main, and the app."""
    with study.store() as store:
        prepare_sheets(store, study.annotations, ["ann", "bob"], "main", prefill=prefill,
                       fields=fields)  # fmt: skip
    config = WebConfig(study.annotations, "main", study.store_path, "cara")
    return Round(study, create_app(config))


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
