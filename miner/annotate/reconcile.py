"""`resolve` and the consensus layer: decisions on conflicts (value, who, method, rationale,
time), recorded append-only, and annotations/consensus.csv rebuilt from agreements + decisions.

A decision is kept in rounds/<round>/resolutions.jsonl and in the audit log; the newest decision
for a conflict counts, so a decision can be revised without losing the history.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miner.annotate.auditlog import last_event, log_event, now
from miner.annotate.conflicts import (
    Conflict,
    compared_fields,
    find_conflicts,
    is_conflict,
    round_pair,
    shown_machine,
    shown_value,
)
from miner.annotate.dialog import Dialog, Quit
from miner.annotate.layers import load_layer
from miner.annotate.layout import Layout, append_line, sha256_file
from miner.annotate.prepare import read_manifest
from miner.annotate.sheets import (
    NOTE_COLUMN,
    SHEET_COLUMNS,
    UNCLEAR,
    evidence_column,
    fill_derived,
    read_sheet,
    write_csv,
)
from miner.annotate.validate import manifest_fields, normalise_cell
from miner.codebook import DERIVED_FIELDS, FIELD_NAMES
from miner.config import Settings
from miner.errors import SheetError

if TYPE_CHECKING:
    import pandas as pd

    from miner.store import Store

METHODS = ("discussion", "tiebreaker")


@dataclass(frozen=True)
class ConsensusResult:
    """The consensus layer as written."""

    path: Path
    rows: int
    resolved: int
    unresolved: int
    rounds: tuple[str, ...]


def current_resolutions(root: Path, round_name: str) -> dict[str, dict[str, Any]]:
    """The newest decision per conflict id in a round."""
    path = Layout(root).resolutions(round_name)
    out: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                record = json.loads(line)
                out[record["conflict_id"]] = record
    return out


def _applies(record: Mapping[str, Any] | None, conflict: Conflict) -> bool:
    """A decision counts only for the values it decided between."""
    return bool(
        record
        and record.get("value_a") == conflict.value_a
        and record.get("value_b") == conflict.value_b
    )


def record_resolution(
    root: Path,
    round_name: str,
    conflict: Conflict,
    value: str,
    by: str,
    method: str,
    rationale: str,
) -> dict[str, Any]:
    """Validate and append one decision (to the round's resolutions and the audit log)."""
    if method not in METHODS:
        raise SheetError(f"method {method!r}: choose {' or '.join(METHODS)}")
    if not by.strip():
        raise SheetError("say who decided (--by NAME)")
    if not rationale.strip():
        raise SheetError(f"{conflict.conflict_id}: give a rationale for the decision")
    try:
        canonical = normalise_cell(conflict.field, value)
    except ValueError as exc:
        raise SheetError(f"{conflict.conflict_id} ({conflict.field}): {exc}") from None
    record = {
        "conflict_id": conflict.conflict_id,
        "round": round_name,
        "repo_id": conflict.repo_id,
        "full_name": conflict.full_name,
        "field": conflict.field,
        "value": canonical,
        "value_a": conflict.value_a,
        "value_b": conflict.value_b,
        "by": by.strip(),
        "method": method,
        "rationale": rationale.strip(),
        "time": now(),
    }
    append_line(Layout(root).resolutions(round_name), json.dumps(record, ensure_ascii=False))
    log_event(Layout(root).audit_log, "resolve", **record)
    return record


def open_conflicts(
    root: Path, round_name: str, store: Store | None = None
) -> tuple[list[Conflict], dict[str, dict[str, Any]]]:
    """The round's conflicts (for its recorded pair) and the decisions that apply to them."""
    a, b = round_pair(root, round_name)
    annotated = manifest_fields(read_manifest(Layout(root), round_name))
    _, found = find_conflicts(
        load_layer(root, a, round_name), load_layer(root, b, round_name), a, b, store, annotated
    )
    decided = current_resolutions(root, round_name)
    return found, {
        c.conflict_id: decided[c.conflict_id]
        for c in found
        if _applies(decided.get(c.conflict_id), c)
    }


def resolve_from_file(
    root: Path, round_name: str, source: Path, by: str | None = None, method: str = "discussion"
) -> int:
    """Record every filled-in decision of an edited conflicts file; returns how many were new."""
    conflicts, decided = open_conflicts(root, round_name)
    by_id = {c.conflict_id: c for c in conflicts}
    raw = read_sheet(source)
    errors: list[str] = []
    todo: list[tuple[Conflict, str, str, str, str]] = []
    for number, cells in raw.rows:
        value = cells.get("consensus_value", "").strip()
        if not value:
            continue
        cid = cells.get("conflict_id", "").strip()
        conflict = by_id.get(cid)
        if conflict is None:
            errors.append(f"row {number}: conflict {cid!r} is not an open conflict of the round")
            continue
        who = cells.get("resolved_by", "").strip() or (by or "")
        how = cells.get("method", "").strip().lower() or method
        why = cells.get("rationale", "").strip()
        try:
            canonical = normalise_cell(conflict.field, value)
        except ValueError as exc:
            errors.append(f"row {number}, column consensus_value: {exc}")
            continue
        if not who:
            errors.append(f"row {number}, column resolved_by: blank (or pass --by NAME)")
        if how not in METHODS:
            errors.append(f"row {number}, column method: {how!r} is not discussion/tiebreaker")
        if not why:
            errors.append(f"row {number}, column rationale: blank; say why")
        done = decided.get(cid)
        if done and (done["value"], done["by"], done["method"], done["rationale"]) == (
            canonical,
            who,
            how,
            why,
        ):
            continue
        todo.append((conflict, value, who, how, why))
    if errors:
        raise SheetError(f"{source}: {len(errors)} problem(s)\n  " + "\n  ".join(errors))
    for conflict, value, who, how, why in todo:
        record_resolution(root, round_name, conflict, value, who, how, why)
    return len(todo)


def _describe(c: Conflict) -> str:
    lines = [
        f"{c.full_name} @ {c.commit_sha[:10]}  {c.url}",
        f"field: {c.field}",
        f"  a) {c.annotator_a}: {shown_value(c.field, c.value_a)}"
        f"   evidence: {c.evidence_a or '-'}",
        f"     note: {c.note_a or '-'}",
        f"  b) {c.annotator_b}: {shown_value(c.field, c.value_b)}"
        f"   evidence: {c.evidence_b or '-'}",
        f"     note: {c.note_b or '-'}",
        f"  m) machine: {shown_machine(c)}   evidence: {c.machine_evidence or '-'}",
    ]
    return "\n".join(lines)


def resolve_interactive(
    root: Path, round_name: str, by: str, method: str, dialog: Dialog, store: Store | None = None
) -> int:
    """Walk the undecided conflicts, recording each decision as soon as it is given."""
    conflicts, decided = open_conflicts(root, round_name, store)
    todo = [c for c in conflicts if c.conflict_id not in decided]
    count = 0
    dialog.say(f"{len(todo)} undecided conflict(s) of {len(conflicts)} in round {round_name}")
    try:
        for index, c in enumerate(todo, start=1):
            dialog.say(f"\n[{index}/{len(todo)}] " + _describe(c))
            while True:
                answer = dialog.ask("consensus (a, b, m, a value; s = skip, q = quit)").strip()
                if answer == "q":
                    raise Quit
                if answer == "s":
                    break
                if answer == "m" and not c.machine_available:
                    dialog.say("  no machine label for this commit")
                    continue
                picks = {"a": c.value_a, "b": c.value_b, "m": c.machine_value}
                value = shown_value(c.field, picks[answer]) if answer in picks else answer
                try:
                    normalise_cell(c.field, value)
                except ValueError as exc:
                    dialog.say(f"  {exc}")
                    continue
                why = ""
                while not why:
                    why = dialog.ask("rationale").strip()
                    if why == "q":
                        raise Quit
                record_resolution(root, round_name, c, value, by, method, why)
                count += 1
                break
    except Quit:
        dialog.say(f"stopped: {count} decision(s) recorded; run resolve again to go on")
    return count


def _consensus_rows(root: Path, round_name: str) -> tuple[list[dict[str, str]], int, int]:
    a, b = round_pair(root, round_name)
    annotated = manifest_fields(read_manifest(Layout(root), round_name))
    rows_a = load_layer(root, a, round_name)
    by_b = {r["repo_id"]: r for r in load_layer(root, b, round_name)}
    decided = current_resolutions(root, round_name)
    rows, resolved, unresolved = [], 0, 0
    for row_a in rows_a:
        row_b = by_b[row_a["repo_id"]]
        out = {
            k: row_a[k] for k in ("full_name", "repo_id", "commit_sha", "url", "codebook_version")
        }
        done_fields, open_fields = [], []
        for name in compared_fields(row_a, row_b, annotated):
            va, vb = row_a[name], row_b[name]
            if not is_conflict(va, vb):
                out[name] = va
                same = row_a[evidence_column(name)] == row_b[evidence_column(name)]
                parts = [row_a[evidence_column(name)]] + (
                    [] if same else [row_b[evidence_column(name)]]
                )
                out[evidence_column(name)] = " | ".join(p for p in parts if p)
                continue
            record = decided.get(f"{row_a['repo_id']}:{name}")
            if record and record.get("value_a") == va and record.get("value_b") == vb:
                out[name] = record["value"]
                out[evidence_column(name)] = (
                    f"{record['method']} ({record['by']}): {record['rationale']}"
                )
                done_fields.append(name)
            else:
                out[name] = UNCLEAR
                out[evidence_column(name)] = "unresolved conflict"
                open_fields.append(name)
        if out.get("primary_framework") != "keras":
            out.pop("paper_framework", None)
        for name in DERIVED_FIELDS:
            out.setdefault(name, "")
        out = fill_derived(out, annotated)
        notes = [f"round {round_name}"]
        if done_fields:
            notes.append("resolved: " + ", ".join(done_fields))
        if open_fields:
            notes.append("unresolved: " + ", ".join(open_fields))
        out[NOTE_COLUMN] = "; ".join(notes)
        rows.append(out)
        resolved += len(done_fields)
        unresolved += len(open_fields)
    return rows, resolved, unresolved


def build_consensus(root: Path) -> ConsensusResult:
    """Rebuild annotations/consensus.csv from every round with listed conflicts (newest wins)."""
    layout = Layout(root)
    by_repo: dict[str, dict[str, str]] = {}
    used, resolved, unresolved = [], 0, 0
    for round_name in layout.rounds():
        try:
            round_pair(root, round_name)
        except SheetError:
            continue
        rows, done, left = _consensus_rows(root, round_name)
        for row in rows:
            by_repo[row["repo_id"]] = row
        used.append(round_name)
        resolved += done
        unresolved += left
    if not used:
        raise SheetError("no round has listed conflicts yet: run `miner annotate conflicts A B`")
    rows = sorted(by_repo.values(), key=lambda r: r["full_name"].lower())
    write_csv(layout.consensus, rows, SHEET_COLUMNS)
    digest = sha256_file(layout.consensus)
    previous = last_event(layout.audit_log, "consensus")
    if previous is None or previous.get("sha256") != digest:
        log_event(
            layout.audit_log,
            "consensus",
            path="consensus.csv",
            rows=len(rows),
            resolved=resolved,
            unresolved=unresolved,
            rounds=used,
            sha256=digest,
        )
    return ConsensusResult(layout.consensus, len(rows), resolved, unresolved, tuple(used))


def load_consensus(settings_or_dir: Settings | Path | str) -> pd.DataFrame:
    """The consensus layer: full_name, repo_id, commit_sha and every codebook field (sheet format).

    Accepts the study's Settings, its annotations folder, or the consensus CSV itself.
    """
    import pandas as pd

    if isinstance(settings_or_dir, Settings):
        path = Layout(settings_or_dir.annotations).consensus
    else:
        path = Path(settings_or_dir)
        if path.is_dir():
            path = Layout(path).consensus
    if not path.exists():
        raise SheetError(f"no consensus at {path}: run `miner annotate conflicts` and `resolve`")
    frame = pd.read_csv(path, dtype=str, keep_default_na=False, encoding="utf-8-sig")
    missing = [c for c in ("full_name", "repo_id", "commit_sha", *FIELD_NAMES) if c not in frame]
    if missing:
        raise SheetError(f"{path}: missing column(s) {', '.join(missing)}")
    frame = frame[["full_name", "repo_id", "commit_sha", *FIELD_NAMES]].copy()
    frame["repo_id"] = frame["repo_id"].astype(int)
    return frame.reset_index(drop=True)
