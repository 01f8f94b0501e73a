"""The annotator's pages: the queue beside one repository's documents and the codebook form.

Only the token's own sheet is ever read here, and machine labels only when that sheet was
prepared with `--prefill`: another annotator's values cannot reach this page.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from miner.annotate.web.app import WebState, not_found, page
from miner.annotate.web.documents import checkout_view
from miner.annotate.web.forms import Machine, field_view, posted_answers
from miner.annotate.web.queue import (
    Sheet,
    counts,
    hand_in,
    hand_in_check,
    load_sheet,
    save_answers,
)
from miner.errors import MinerError

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response

    from miner.store import Store


def _who(request: Request) -> tuple[WebState, str | None]:
    state: WebState = request.app.state.web
    return state, state.access.annotator_for(request.path_params["token"])


def _wants_json(request: Request) -> bool:
    return "application/json" in request.headers.get("accept", "")


def _machine(store: Store | None, sheet: Sheet, row: dict[str, str]) -> dict[str, Machine]:
    """Machine labels and evidence of a row, for pre-filled sheets only."""
    if store is None or not sheet.prefilled:
        return {}
    frame = store.labels_frame()
    match = frame[frame["repo_id"] == int(row["repo_id"])]
    if match.empty or match.iloc[0]["commit_sha"] != row["commit_sha"]:
        return {}
    labels = {k: str(v) for k, v in match.iloc[0].items()}
    out = {}
    for name in sheet.fields:
        hits = store.evidence_for(int(row["repo_id"]), row["commit_sha"], name)[:3]
        spots = tuple(f"{e.path}:{e.line} {e.text}".strip() for e in hits)
        out[name] = Machine(labels.get(name, ""), spots)
    return out


def resume(request: Request) -> Response:
    """Open the queue where it stopped: the first repository with an unanswered field."""
    from starlette.responses import RedirectResponse

    state, annotator = _who(request)
    if annotator is None:
        return not_found(request)
    sheet = load_sheet(state.config.root, state.config.round, annotator)
    if not sheet.rows:
        return not_found(request, "this queue is empty")
    target = sheet.rows[sheet.resume_at()]["repo_id"]
    return RedirectResponse(f"r/{target}", status_code=303)


def _context(
    state: WebState, sheet: Sheet, repo_id: str, extra: str | None = None
) -> dict[str, Any]:
    index = sheet.position(repo_id)
    row = sheet.rows[index]
    answered = set(sheet.answered(row))
    with state.store() as store:
        machine = _machine(store, sheet, row)
        checkout = None
        if store is not None:
            found = [c.path for c in store.checkouts() if str(c.repo_id) == repo_id]
            checkout = found[0] if found and found[0].is_dir() else None
    done, total, answered_all, asked = counts(sheet)
    return {
        "sheet": sheet,
        "row": row,
        "index": index,
        "previous": sheet.rows[index - 1]["repo_id"] if index > 0 else None,
        "next": sheet.rows[index + 1]["repo_id"] if index + 1 < len(sheet.rows) else None,
        "fields": [field_view(f, row, f in answered, machine.get(f)) for f in sheet.fields],
        "checkout": checkout_view(checkout, extra) if checkout else None,
        "queue": [(r, sheet.complete(r), len(sheet.answered(r))) for r in sheet.rows],
        "done": done,
        "total": total,
        "answered": answered_all,
        "asked": asked,
        "complete": done == total,
        "token": state.access.annotators[sheet.annotator],
    }


def repo_page(request: Request) -> Response:
    """One repository of the queue: documents, file tree and the codebook form."""
    state, annotator = _who(request)
    if annotator is None:
        return not_found(request)
    sheet = load_sheet(state.config.root, state.config.round, annotator)
    repo_id = request.path_params["repo_id"]
    if repo_id not in {r["repo_id"] for r in sheet.rows}:
        return not_found(request, "this repository is not in your queue")
    context = _context(state, sheet, repo_id, request.query_params.get("file"))
    return page(request, "repo.html", context)


async def save(request: Request) -> Response:
    """Save the posted answers into the sheet: JSON for the page's script, else a redirect."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import JSONResponse, RedirectResponse

    state, annotator = _who(request)
    if annotator is None:
        return not_found(request)
    repo_id = request.path_params["repo_id"]
    form = await request.form()
    config = state.config
    note = form.get("note")

    def write() -> Sheet:
        sheet = load_sheet(config.root, config.round, annotator)
        answers = posted_answers(form, sheet.fields)
        return save_answers(
            config.root,
            config.round,
            annotator,
            repo_id,
            answers,
            None if note is None else str(note),
        )

    try:
        sheet = await run_in_threadpool(write)
    except MinerError as exc:
        if _wants_json(request):
            return JSONResponse({"ok": False, "error": str(exc)}, status_code=422)
        context = _context(state, load_sheet(config.root, config.round, annotator), repo_id)
        return page(request, "repo.html", {**context, "error": str(exc)}, 422)
    row = sheet.rows[sheet.position(repo_id)]
    done, total, answered, asked = counts(sheet)
    if _wants_json(request):
        return JSONResponse(
            {
                "ok": True,
                "answered": sheet.answered(row),
                "repo_complete": sheet.complete(row),
                "done": done,
                "total": total,
                "answers": answered,
                "asked": asked,
            }
        )
    target = str(form.get("go") or repo_id)
    if target not in {r["repo_id"] for r in sheet.rows}:
        target = repo_id
    return RedirectResponse(target, status_code=303)  # relative: /a/<token>/r/<target>


def hand_in_page(request: Request) -> Response:
    """What the import would flag (unanswered fields, `yes` without evidence), and a confirm."""
    state, annotator = _who(request)
    if annotator is None:
        return not_found(request)
    config = state.config
    sheet = load_sheet(config.root, config.round, annotator)
    context = {
        "annotator": annotator,
        "round": config.round,
        "sheet": sheet,
        "check": None if sheet.handed_in else hand_in_check(config.root, config.round, annotator),
        "message": "",
        "warnings": (),
    }
    return page(request, "hand_in.html", context)


def hand_in_sheet(request: Request) -> Response:
    """Import the finished sheet as the annotator's immutable layer, once confirmed."""
    state, annotator = _who(request)
    if annotator is None:
        return not_found(request)
    config = state.config
    warnings: tuple[str, ...] = ()
    try:
        with state.log_lock:
            result = hand_in(config.root, config.round, annotator)
        message = f"handed in: layer {result.layer}, {result.rows} repositories"
        warnings, status = result.warnings, 200
    except MinerError as exc:
        message, status = str(exc), 422
    sheet = load_sheet(config.root, config.round, annotator)
    context = {
        "annotator": annotator,
        "round": config.round,
        "sheet": sheet,
        "check": None,
        "message": message,
        "warnings": warnings,
    }
    return page(request, "hand_in.html", context, status)
