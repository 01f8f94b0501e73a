"""The adjudicator's pages: the round's conflicts with both annotators' values, notes and
evidence beside the machine label, decided into the same records and audit log as
`miner annotate resolve`; and the status page (progress, agreement so far, the log's state)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any
from urllib.parse import quote

from miner.annotate.auditlog import verify_log
from miner.annotate.conflicts import shown_machine, shown_value, write_conflicts
from miner.annotate.layers import imported_layers
from miner.annotate.layout import Layout
from miner.annotate.reconcile import (
    METHODS,
    build_consensus,
    current_resolutions,
    open_conflicts,
    record_resolution,
)
from miner.annotate.render import HEADER, field_cells
from miner.annotate.review import FIELD_HELP
from miner.annotate.sheets import choices, read_sheet
from miner.annotate.web.app import WebState, not_found, page
from miner.annotate.web.documents import citations, cited_view
from miner.annotate.web.overview import overview
from miner.codebook import FIELD_BY_NAME
from miner.errors import MinerError, SheetError

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response


KEPT = ("conflict_id", "pick", "value", "method", "by", "rationale")  # shown again on error


def _state(request: Request) -> WebState | None:
    state: WebState = request.app.state.web
    return state if state.access.is_adjudicator(request.path_params["token"]) else None


def _pair(state: WebState) -> tuple[str, str] | None:
    """The round's pair: the one whose conflicts were listed, else its two annotators."""
    from miner.annotate.conflicts import round_pair

    try:
        return round_pair(state.config.root, state.config.round)
    except SheetError:
        names = sorted(state.access.annotators)
        return (names[0], names[1]) if len(names) == 2 else None


def _allowed(field: str) -> list[str]:
    spec = FIELD_BY_NAME[field]
    return list(choices(field)) if spec.kind != "set" else [*spec.values, "none", "unclear", "n/a"]


def conflicts_page(
    request: Request, error: str = "", status: int = 200, kept: dict[str, str] | None = None
) -> Response:
    """Every conflict of the round, undecided first, with a decision form each; `kept`: what
    the adjudicator had entered in a refused decision, shown again in its form."""
    state = _state(request)
    if state is None:
        return not_found(request)
    config = state.config
    pair = _pair(state)
    handed = imported_layers(config.root, config.round)
    context: dict[str, Any] = {
        "round": config.round,
        "pair": pair,
        "handed_in": handed,
        "annotators": sorted(state.access.annotators),
        "token": request.path_params["token"],
        "by": config.adjudicator,
        "methods": METHODS,
        "error": error,
        "listed": Layout(config.root).conflicts(config.round).exists(),
        "cards": [],
        "kept": kept or {},
    }
    if context["listed"]:
        with state.store() as store:
            found, decided = open_conflicts(config.root, config.round, store)
        found.sort(key=lambda c: (c.conflict_id in decided, c.full_name.lower(), c.field))
        context["cards"] = [
            {
                "c": c,
                "value_a": shown_value(c.field, c.value_a),
                "value_b": shown_value(c.field, c.value_b),
                "machine": shown_machine(c),
                "decision": decided.get(c.conflict_id),
                "allowed": _allowed(c.field),
                "help": FIELD_HELP.get(c.field, ""),
                "docs": f"docs/{quote(c.conflict_id)}",
            }
            for c in found
        ]
        context["open"] = sum(card["decision"] is None for card in context["cards"])
    return page(request, "adjudicate.html", context, status)


def list_conflicts(request: Request) -> Response:
    """List the pair's conflicts (both must have handed in), as `miner annotate conflicts`."""
    from starlette.responses import RedirectResponse

    state = _state(request)
    if state is None:
        return not_found(request)
    pair = _pair(state)
    try:
        if pair is None:
            raise SheetError("this view settles a round of two annotators")
        with state.log_lock, state.store() as store:
            write_conflicts(state.config.root, pair[0], pair[1], state.config.round, store)
    except MinerError as exc:
        return conflicts_page(request, str(exc), 422)
    return RedirectResponse(".", status_code=303)


async def decide(request: Request) -> Response:
    """Record one decision (value, who, method, rationale) and rebuild the consensus."""
    from starlette.concurrency import run_in_threadpool
    from starlette.responses import RedirectResponse

    state = _state(request)
    if state is None:
        return not_found(request)
    form = await request.form()
    config = state.config

    def record() -> None:
        with state.store() as store:  # the machine's value is offered from the store
            conflicts, _ = open_conflicts(config.root, config.round, store)
        wanted = str(form.get("conflict_id") or "")
        conflict = next((c for c in conflicts if c.conflict_id == wanted), None)
        if conflict is None:
            raise SheetError(f"conflict {wanted!r} is not an open conflict of the round")
        pick = str(form.get("pick") or "own")
        picks = {"a": conflict.value_a, "b": conflict.value_b}
        if conflict.machine_available:
            picks["m"] = conflict.machine_value
        if pick in picks:
            value = shown_value(conflict.field, picks[pick])
        elif pick == "own":
            value = str(form.get("value") or "")
        else:
            raise SheetError(f"{conflict.conflict_id}: no value to take for {pick!r}")
        with state.log_lock:
            record_resolution(
                config.root,
                config.round,
                conflict,
                value,
                str(form.get("by") or ""),
                str(form.get("method") or ""),
                str(form.get("rationale") or ""),
            )
            build_consensus(config.root)

    try:
        await run_in_threadpool(record)
    except MinerError as exc:
        kept = {k: str(form.get(k) or "") for k in KEPT}
        return conflicts_page(request, str(exc), 422, kept)
    return RedirectResponse(".", status_code=303)


def conflict_docs(request: Request) -> Response:
    """The documents of a conflict's repository with the lines each side cites highlighted
    (a fragment for the adjudicator's page, or a page of its own)."""
    state = _state(request)
    if state is None:
        return not_found(request)
    config = state.config
    wanted = request.path_params["conflict_id"]
    with state.store() as store:
        found, _ = open_conflicts(config.root, config.round, store)
        conflict = next((c for c in found if c.conflict_id == wanted), None)
        if conflict is None:
            return not_found(request, "not a conflict of this round")
        checkout = None
        if store is not None:
            paths = [c.path for c in store.checkouts() if c.repo_id == conflict.repo_id]
            checkout = paths[0] if paths and paths[0].is_dir() else None
    cited = [
        *citations(conflict.evidence_a, conflict.annotator_a),
        *citations(conflict.evidence_b, conflict.annotator_b),
        *citations(conflict.machine_evidence, "machine"),
    ]
    context = {
        "c": conflict,
        "cited": cited,
        "checkout": cited_view(checkout, cited) if checkout else None,
        "fragment": request.query_params.get("fragment") == "1",
        "round": config.round,
        "file_base": "",
    }
    return page(request, "conflict_docs.html", context)


def status_page(request: Request) -> Response:
    """Per annotator done/left, agreement so far, conflicts, consensus and the audit log."""
    state = _state(request)
    if state is None:
        return not_found(request)
    config = state.config
    layout = Layout(config.root)
    info = overview(config.root, config.round, sorted(state.access.annotators))
    tables = [
        {"report": r, "rows": [field_cells(f) for f in r.fields], "warnings": _warnings(r)}
        for r in info.reports
    ]
    conflicts = layout.conflicts(config.round)
    context = {
        "round": config.round,
        "info": info,
        "header": HEADER,
        "tables": tables,
        "token": request.path_params["token"],
        "conflicts": len(read_sheet(conflicts).rows) if conflicts.exists() else None,
        "decided": len(current_resolutions(config.root, config.round)),
        "consensus": len(read_sheet(layout.consensus).rows) if layout.consensus.exists() else None,
        "log": _log_state(layout),
    }
    return page(request, "status.html", context)


def _log_state(layout: Layout) -> str:
    try:
        return f"{verify_log(layout.audit_log)} entries, hash chain intact"
    except SheetError as exc:
        return str(exc)


def _warnings(report: Any) -> list[str]:
    grouped: dict[str, list[str]] = {}
    for f in report.fields:
        for warning in f.warnings:
            grouped.setdefault(warning, []).append(f.field)
    return [*report.notes, *(f"{', '.join(v)}: {k}" for k, v in grouped.items())]
