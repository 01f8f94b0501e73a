"""`conflicts`: where two annotators disagree, with both values, notes and evidence beside the
machine label. Agreements are accepted automatically; both annotators writing `unclear` is not
an agreement and is listed too. Derived fields follow their inputs, except a Keras project's
paper framework (it depends on the Keras backend), which is compared when both chose `keras`."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from miner.annotate.auditlog import last_event, log_event
from miner.annotate.layers import load_layer
from miner.annotate.layout import Layout, sha256_file
from miner.annotate.prepare import read_manifest
from miner.annotate.sheets import (
    EMPTY_SET,
    INPUT_FIELDS,
    NOTE_COLUMN,
    UNCLEAR,
    derivable,
    evidence_column,
    read_sheet,
    write_csv,
)
from miner.annotate.validate import manifest_fields
from miner.codebook import DERIVED_FIELDS, FIELD_BY_NAME
from miner.errors import SheetError

if TYPE_CHECKING:
    from miner.store import Store

RESOLUTION_COLUMNS = ("consensus_value", "resolved_by", "method", "rationale")
CONFLICT_COLUMNS = (
    "conflict_id",
    "full_name",
    "repo_id",
    "commit_sha",
    "url",
    "field",
    "annotator_a",
    "value_a",
    "evidence_a",
    "note_a",
    "annotator_b",
    "value_b",
    "evidence_b",
    "note_b",
    "machine_value",
    "machine_evidence",
    *RESOLUTION_COLUMNS,
)


@dataclass(frozen=True)
class Conflict:
    """One field of one repository on which the two annotators disagree."""

    conflict_id: str
    repo_id: int
    full_name: str
    commit_sha: str
    url: str
    field: str
    annotator_a: str
    value_a: str
    evidence_a: str
    note_a: str
    annotator_b: str
    value_b: str
    evidence_b: str
    note_b: str
    machine_value: str
    machine_evidence: str
    machine_available: bool = False


@dataclass(frozen=True)
class ConflictsResult:
    """The conflicts of a round and where they were written."""

    round: str
    annotator_a: str
    annotator_b: str
    items: int
    compared: int  # field values compared
    conflicts: tuple[Conflict, ...]
    path: Path
    consensus_rows: int = 0
    unresolved: int = 0
    derived: int = 0  # of `compared`: derived values (a Keras project's paper framework)


def compared_fields(
    row_a: dict[str, str], row_b: dict[str, str], annotated: Sequence[str] = INPUT_FIELDS
) -> list[str]:
    """The fields whose disagreement is a conflict for this pair of rows."""
    fields = [f for f in INPUT_FIELDS if f in annotated]
    keras = row_a.get("primary_framework") == "keras" == row_b.get("primary_framework")
    if keras and "paper_framework" in derivable(annotated):
        fields.append("paper_framework")
    return fields


def derived_compared(
    rows_a: list[dict[str, str]], rows_b: list[dict[str, str]], annotated: Sequence[str]
) -> int:
    """How many of the compared values are derived fields rather than annotated ones."""
    by_b = {r["repo_id"]: r for r in rows_b}
    return sum(
        name in DERIVED_FIELDS
        for row_a in rows_a
        for name in compared_fields(row_a, by_b.get(row_a["repo_id"], {}), annotated)
    )


def is_conflict(value_a: str, value_b: str) -> bool:
    """Different values, or both `unclear` (nobody could decide)."""
    return value_a != value_b or value_a == UNCLEAR


def _machine(store: Store | None) -> dict[int, dict[str, str]]:
    if store is None:
        return {}
    frame = store.labels_frame()
    return {int(r["repo_id"]): {k: str(v) for k, v in r.items()} for r in frame.to_dict("records")}


def find_conflicts(
    rows_a: list[dict[str, str]],
    rows_b: list[dict[str, str]],
    annotator_a: str,
    annotator_b: str,
    store: Store | None = None,
    annotated: Sequence[str] = INPUT_FIELDS,
) -> tuple[int, list[Conflict]]:
    """(field values compared, conflicts) between two layers aligned by repository id."""
    machine = _machine(store)
    by_b = {r["repo_id"]: r for r in rows_b}
    if set(by_b) != {r["repo_id"] for r in rows_a}:
        raise SheetError("the two layers do not cover the same repositories")
    compared = 0
    found = []
    for row_a in rows_a:
        row_b = by_b[row_a["repo_id"]]
        repo_id = int(row_a["repo_id"])
        auto = machine.get(repo_id, {})
        same_commit = auto.get("commit_sha") == row_a["commit_sha"]
        for name in compared_fields(row_a, row_b, annotated):
            compared += 1
            if not is_conflict(row_a[name], row_b[name]):
                continue
            evidence = ""
            if store is not None and same_commit:
                hits = store.evidence_for(repo_id, row_a["commit_sha"], name)[:3]
                evidence = " | ".join(f"{e.path}:{e.line} {e.text}".strip() for e in hits)
            found.append(
                Conflict(
                    conflict_id=f"{repo_id}:{name}",
                    repo_id=repo_id,
                    full_name=row_a["full_name"],
                    commit_sha=row_a["commit_sha"],
                    url=row_a.get("url", ""),
                    field=name,
                    annotator_a=annotator_a,
                    value_a=row_a[name],
                    evidence_a=row_a.get(evidence_column(name), ""),
                    note_a=row_a.get(NOTE_COLUMN, ""),
                    annotator_b=annotator_b,
                    value_b=row_b[name],
                    evidence_b=row_b.get(evidence_column(name), ""),
                    note_b=row_b.get(NOTE_COLUMN, ""),
                    machine_value=auto.get(name, "") if same_commit else "",
                    machine_evidence=evidence,
                    machine_available=same_commit and name in auto,
                )
            )
    return compared, found


def shown_value(field: str, value: str) -> str:
    """A value as people read it: `none` for an empty set."""
    return EMPTY_SET if value == "" and FIELD_BY_NAME[field].kind == "set" else value


def shown_machine(c: Conflict) -> str:
    """The machine label for display: `none` for an empty set, `-` when there is no label."""
    return shown_value(c.field, c.machine_value) if c.machine_available else "-"


def round_pair(root: Path, round_name: str) -> tuple[str, str]:
    """The two annotators whose conflicts were listed for a round."""
    event = last_event(Layout(root).audit_log, "conflicts", round=round_name)
    if event is None:
        raise SheetError(
            f"no conflicts listed for round {round_name!r}: run `miner annotate conflicts A B"
            f" --round {round_name}` first"
        )
    return str(event["annotator_a"]), str(event["annotator_b"])


def write_conflicts(
    root: Path,
    annotator_a: str,
    annotator_b: str,
    round_name: str,
    store: Store | None = None,
) -> ConflictsResult:
    """List a round's conflicts into rounds/<round>/conflicts.csv, showing recorded decisions."""
    from miner.annotate.reconcile import build_consensus, current_resolutions

    if annotator_a == annotator_b:
        raise SheetError("conflicts need two different annotators")
    layout = Layout(root)
    rows_a = load_layer(root, annotator_a, round_name)
    rows_b = load_layer(root, annotator_b, round_name)
    annotated = manifest_fields(read_manifest(layout, round_name))
    compared, found = find_conflicts(rows_a, rows_b, annotator_a, annotator_b, store, annotated)
    derived = derived_compared(rows_a, rows_b, annotated)
    decided = current_resolutions(root, round_name)
    path = layout.conflicts(round_name)
    if path.exists():
        pending = [
            cells.get("conflict_id", "")
            for _, cells in read_sheet(path).rows
            if cells.get("consensus_value", "").strip()
            and cells.get("conflict_id", "") not in decided
        ]
        if pending:
            raise SheetError(
                f"{path} has {len(pending)} decision(s) not recorded yet (e.g. {pending[0]}):"
                f" run `miner annotate resolve --from {path} --round {round_name}` first"
            )
    rows = []
    for c in found:
        row: dict[str, object] = dict(c.__dict__)
        if FIELD_BY_NAME[c.field].kind == "set":  # a blank cell would read as "not answered"
            for key in ("value_a", "value_b"):
                row[key] = row[key] or EMPTY_SET
        row["machine_value"] = shown_machine(c)
        del row["machine_available"]
        done = decided.get(c.conflict_id)
        if done:
            row.update(
                consensus_value=done["value"],
                resolved_by=done["by"],
                method=done["method"],
                rationale=done["rationale"],
            )
        rows.append(row)
    write_csv(path, rows, CONFLICT_COLUMNS)
    log_event(
        layout.audit_log,
        "conflicts",
        round=round_name,
        annotator_a=annotator_a,
        annotator_b=annotator_b,
        conflicts=len(found),
        compared=compared,
        derived=derived,
        path=str(path.relative_to(root)),
        sha256=sha256_file(path),
    )
    consensus = build_consensus(root)  # agreements are accepted at once
    return ConflictsResult(
        round_name, annotator_a, annotator_b, len(rows_a), compared, tuple(found), path,
        consensus.rows, consensus.unresolved, derived,
    )  # fmt: skip
