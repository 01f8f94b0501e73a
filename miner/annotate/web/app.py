"""The web app of `miner annotate serve`: annotators label their queue beside the documents,
the adjudicator settles conflicts, and a status page shows progress and agreement so far.

Every page is reached through a token: an annotator's token opens only that annotator's sheet
(blindness is enforced here, not in the page), the adjudicator's opens conflicts and status.
All writes go through the annotate library, so the files are the ones the CLI reads and writes.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any
from urllib.parse import urlsplit

from miner.annotate.web.access import Access, round_access
from miner.errors import MinerError

if TYPE_CHECKING:
    from starlette.applications import Starlette
    from starlette.requests import Request
    from starlette.responses import Response

    from miner.store import Store

HERE = Path(__file__).parent
CSP = (
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
    "connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
)
HEADERS = {
    "Content-Security-Policy": CSP,
    "X-Content-Type-Options": "nosniff",
    "Referrer-Policy": "same-origin",  # the token is in the URL: never send it elsewhere
    "Cache-Control": "no-store",
    "X-Frame-Options": "DENY",
}


@dataclass(frozen=True)
class WebConfig:
    """What the app serves: a study's annotation folder, one round, the store (optional)."""

    root: Path
    round: str
    db: Path | None = None
    adjudicator: str = "adjudicator"


@dataclass
class WebState:
    """The app's shared state: its configuration, the round's tokens, one writer lock."""

    config: WebConfig
    access: Access
    # imports, conflicts and decisions append to the hash-chained audit log: one at a time
    log_lock: threading.Lock

    @contextmanager
    def store(self) -> Iterator[Store | None]:
        """The study's store for this request, when the study has one."""
        from miner.store import Store

        db = self.config.db
        if db is None or not db.exists():
            yield None
            return
        with Store(db) as store:
            yield store


class _SecurityHeaders:
    """ASGI middleware: the CSP and friends on every response; cross-site posts refused."""

    def __init__(self, app: Any) -> None:
        self.app = app

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope.get("headers") or [])
        origin = headers.get(b"origin", b"").decode("latin-1")
        host = headers.get(b"host", b"").decode("latin-1")
        if scope["method"] == "POST" and origin and urlsplit(origin).netloc != host:
            from starlette.responses import PlainTextResponse

            refused = PlainTextResponse("cross-site form refused", status_code=403)
            await refused(scope, receive, send)
            return

        async def send_with_headers(message: Any) -> None:
            if message["type"] == "http.response.start":
                extra = [(k.lower().encode(), v.encode()) for k, v in HEADERS.items()]
                message["headers"] = [*message.get("headers", []), *extra]
            await send(message)

        await self.app(scope, receive, send_with_headers)


def templates() -> Any:
    """The Jinja2 templates shipped with the package (autoescaped)."""
    from starlette.templating import Jinja2Templates

    return Jinja2Templates(directory=str(HERE / "templates"))


def page(request: Request, name: str, context: dict[str, Any], status: int = 200) -> Response:
    """Render a template."""
    engine: Any = request.app.state.templates
    return engine.TemplateResponse(request, name, context, status_code=status)


def not_found(request: Request, what: str = "unknown link") -> Response:
    """The answer to an unknown token or repository: it does not say which tokens exist."""
    return page(request, "error.html", {"title": "Not found", "message": what}, 404)


async def _refused(request: Request, exc: Exception) -> Response:
    """A library refusal (bad round, damaged sheet...) as a readable page, not a traceback."""
    return page(request, "error.html", {"title": "Refused", "message": str(exc)}, 422)


def create_app(config: WebConfig) -> Starlette:
    """The Starlette app serving one round of a study."""
    from starlette.applications import Starlette
    from starlette.middleware import Middleware
    from starlette.responses import Response
    from starlette.routing import Mount, Route
    from starlette.staticfiles import StaticFiles

    from miner.annotate.web import annotator, judge

    state = WebState(config, round_access(config.root, config.round), threading.Lock())
    routes = [
        Route(
            "/", lambda request: not_found(request, "open the link `miner annotate serve` printed")
        ),
        Route("/favicon.ico", lambda request: Response(status_code=204)),
        Route("/a/{token}/", annotator.resume),
        Route("/a/{token}/r/{repo_id}", annotator.repo_page, methods=["GET"]),
        Route("/a/{token}/r/{repo_id}", annotator.save, methods=["POST"]),
        Route("/a/{token}/hand-in", annotator.hand_in_page, methods=["GET"]),
        Route("/a/{token}/hand-in", annotator.hand_in_sheet, methods=["POST"]),
        Route("/j/{token}/", judge.conflicts_page, methods=["GET"]),
        Route("/j/{token}/conflicts", judge.list_conflicts, methods=["POST"]),
        Route("/j/{token}/decide", judge.decide, methods=["POST"]),
        Route("/j/{token}/status", judge.status_page, methods=["GET"]),
        Route("/j/{token}/docs/{conflict_id}", judge.conflict_docs, methods=["GET"]),
        Mount("/static", StaticFiles(directory=str(HERE / "static")), name="static"),
    ]
    app = Starlette(
        routes=routes,
        middleware=[Middleware(_SecurityHeaders)],
        exception_handlers={MinerError: _refused},
    )
    app.state.web = state
    app.state.templates = templates()
    return app


def links(base: str, access: Access) -> list[tuple[str, str]]:
    """(who, URL): each annotator's queue, the adjudicator's view and the status page."""
    base = base.rstrip("/")
    out = [(f"annotator {name}", f"{base}/a/{token}/") for name, token in access.annotators.items()]
    out.append(("adjudicator", f"{base}/j/{access.adjudicator}/"))
    out.append(("status", f"{base}/j/{access.adjudicator}/status"))
    return out
