"""The adjudicator's pages: the round's conflicts with both annotators' values, notes and
evidence beside the machine label, decided into the same records and audit log as
`miner annotate resolve`; and the status page (progress, agreement so far, the log's state)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

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
from miner.annotate.web.overview import overview
from miner.codebook import FIELD_BY_NAME
from miner.errors import MinerError, SheetError

if TYPE_CHECKING:
    from starlette.requests import Request
    from starlette.responses import Response


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


def conflicts_page(request: Request, error: str = "", status: int = 200) -> Response:
    """Every conflict of the round, undecided first, with a decision form each."""
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
        conflicts, _ = open_conflicts(config.root, config.round)
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
        return conflicts_page(request, str(exc), 422)
    return RedirectResponse(".", status_code=303)


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
