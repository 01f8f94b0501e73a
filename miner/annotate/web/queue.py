"""An annotator's queue in the browser: the rows of their sheet, what is answered, and saving
answers straight into that sheet (the file `miner annotate import` reads), atomically.

A field counts as answered when its cell is filled, and, on a pre-filled sheet, once the
annotator confirmed it: the same rule and the same progress file as the terminal `review`.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from miner.annotate.layers import ImportResult, import_layer, imported_layers
from miner.annotate.layout import Layout, atomic_write
from miner.annotate.prepare import read_manifest
from miner.annotate.review import _progress_path as progress_path
from miner.annotate.sheets import (
    EMPTY_SET,
    NOTE_COLUMN,
    evidence_column,
    read_sheet,
    write_csv,
)
from miner.annotate.validate import manifest_fields, normalise_cell
from miner.codebook import FIELD_BY_NAME
from miner.errors import SheetError

_LOCKS: dict[Path, threading.Lock] = {}
_LOCKS_GUARD = threading.Lock()


def sheet_lock(path: Path) -> threading.Lock:
    """One lock per sheet file: a save reads, changes and rewrites the whole sheet."""
    with _LOCKS_GUARD:
        return _LOCKS.setdefault(path.resolve(), threading.Lock())


@dataclass(frozen=True)
class Answer:
    """One field's answer as posted: the value (sheet format) and its evidence; with
    `evidence_only` the value is left as it is and only the evidence is saved."""

    value: str
    evidence: str = ""
    evidence_only: bool = False


@dataclass(frozen=True)
class HandInCheck:
    """What `import` would say of a sheet handed in now, shown before the annotator confirms."""

    unanswered: tuple[tuple[str, str, tuple[str, ...]], ...]  # repo_id, full name, fields
    unevidenced: tuple[tuple[str, str, str], ...]  # repo_id, full name, field: `yes`, no evidence
    refused: str  # the import's refusal, when it would refuse
    warnings: tuple[str, ...]  # the import's warnings, as written to the audit log

    @property
    def ready(self) -> bool:
        """True when the import would accept the sheet."""
        return not self.unanswered and not self.refused


@dataclass(frozen=True)
class Sheet:
    """An annotator's sheet as it stands: rows in round order and the confirmed fields."""

    annotator: str
    round: str
    path: Path
    fields: tuple[str, ...]
    prefilled: bool
    handed_in: bool
    columns: tuple[str, ...]
    rows: tuple[dict[str, str], ...]
    confirmed: dict[str, list[str]]

    def answered(self, row: Mapping[str, str]) -> list[str]:
        """The fields of a row that count as answered."""
        seen = set(self.confirmed.get(row["repo_id"], []))
        return [
            f for f in self.fields if row.get(f, "").strip() and (not self.prefilled or f in seen)
        ]

    def complete(self, row: Mapping[str, str]) -> bool:
        """True when every field of the row is answered."""
        return len(self.answered(row)) == len(self.fields)

    def position(self, repo_id: str) -> int:
        """0-based index of a repository in the queue; SheetError when it is not there."""
        for index, row in enumerate(self.rows):
            if row["repo_id"] == repo_id:
                return index
        raise SheetError(f"repository {repo_id} is not in this queue")

    def resume_at(self) -> int:
        """The first repository with an unanswered field (the last one when all are done)."""
        for index, row in enumerate(self.rows):
            if not self.complete(row):
                return index
        return max(0, len(self.rows) - 1)


def load_sheet(root: Path, round_name: str, annotator: str) -> Sheet:
    """An annotator's sheet and progress; SheetError when the round prepared none for them."""
    layout = Layout(root)
    manifest = read_manifest(layout, round_name)
    path = layout.sheet(round_name, annotator)
    if annotator not in manifest.get("sheets", {}) or not path.exists():
        raise SheetError(f"no sheet for {annotator} in round {round_name}")
    raw = read_sheet(path)
    progress_file = progress_path(layout, round_name, annotator)
    confirmed = (
        json.loads(progress_file.read_text(encoding="utf-8")) if progress_file.exists() else {}
    )
    return Sheet(
        annotator=annotator,
        round=round_name,
        path=path,
        fields=manifest_fields(manifest),
        prefilled=bool(manifest["sheets"][annotator].get("prefill", False)),
        handed_in=annotator in imported_layers(root, round_name),
        columns=raw.columns,
        rows=tuple({c: cells.get(c, "") for c in raw.columns} for _, cells in raw.rows),
        confirmed=confirmed,
    )


def canonical_answer(field: str, value: str) -> str:
    """A posted value in sheet format (`none` for an empty set); ValueError says what is wrong."""
    canonical = normalise_cell(field, value)
    return EMPTY_SET if FIELD_BY_NAME[field].kind == "set" and canonical == "" else canonical


def save_answers(
    root: Path,
    round_name: str,
    annotator: str,
    repo_id: str,
    answers: Mapping[str, Answer],
    note: str | None = None,
) -> Sheet:
    """Check the answers, then write them into the annotator's sheet atomically.

    Every answer is checked before anything is written, so one bad value saves nothing and the
    SheetError names each problem. Only the posted fields change: two tabs of the same queue,
    or two annotators at once, never overwrite each other's other answers.
    """
    layout = Layout(root)
    path = layout.sheet(round_name, annotator)
    with sheet_lock(path):
        sheet = load_sheet(root, round_name, annotator)
        if sheet.handed_in:
            raise SheetError(
                f"{annotator}'s sheet was handed in (imported) already; layers are immutable"
            )
        index = sheet.position(repo_id)
        problems, values = [], {}
        for field, answer in answers.items():
            if field not in sheet.fields:
                problems.append(f"{field}: not a field this round asks for")
                continue
            if answer.evidence_only:
                continue
            try:
                values[field] = canonical_answer(field, answer.value)
            except ValueError as exc:
                problems.append(f"{field}: {exc}")
        if problems:
            raise SheetError("; ".join(problems))
        rows = [dict(r) for r in sheet.rows]
        row = rows[index]
        for field, value in values.items():
            row[field] = value
        for field, answer in answers.items():
            row[evidence_column(field)] = " ".join(answer.evidence.split())
        if note is not None:
            row[NOTE_COLUMN] = " ".join(note.split())
        write_csv(path, rows, sheet.columns)
        confirmed = dict(sheet.confirmed)
        done = confirmed.get(repo_id, [])
        confirmed[repo_id] = [*done, *(f for f in values if f not in done)]
        atomic_write(
            progress_path(layout, round_name, annotator),
            json.dumps(confirmed, indent=1).encode("utf-8"),
        )
        return load_sheet(root, round_name, annotator)


def hand_in(root: Path, round_name: str, annotator: str) -> ImportResult:
    """Import a complete sheet as the annotator's immutable layer (what `import` does)."""
    path = Layout(root).sheet(round_name, annotator)
    with sheet_lock(path):
        sheet = load_sheet(root, round_name, annotator)
        left = [r["full_name"] for r in sheet.rows if not sheet.complete(r)]
        if left:
            raise SheetError(
                f"{len(left)} repositories still have unanswered fields (first: {left[0]})"
            )
        return import_layer(root, annotator, path, round_name)


def hand_in_check(root: Path, round_name: str, annotator: str) -> HandInCheck:
    """Run the import's checks on the sheet without importing it."""
    from miner.annotate.validate import EVIDENCE_EXPECTED, validate_sheet

    sheet = load_sheet(root, round_name, annotator)
    unanswered = tuple(
        (r["repo_id"], r["full_name"], tuple(f for f in sheet.fields if f not in sheet.answered(r)))
        for r in sheet.rows
        if not sheet.complete(r)
    )
    unevidenced = tuple(
        (r["repo_id"], r["full_name"], f)
        for r in sheet.rows
        for f in sheet.fields
        if f in EVIDENCE_EXPECTED
        and r.get(f, "").strip() == "yes"
        and not r.get(evidence_column(f), "").strip()
    )
    refused = ""
    warnings: tuple[str, ...] = ()
    if not unanswered:
        manifest = read_manifest(Layout(root), round_name)
        try:
            warnings = validate_sheet(read_sheet(sheet.path), manifest).warnings
        except SheetError as exc:
            refused = str(exc)
    return HandInCheck(unanswered, unevidenced, refused, warnings)


def counts(sheet: Sheet) -> tuple[int, int, int, int]:
    """(repositories complete, repositories, fields answered, fields asked) of a sheet."""
    done = sum(sheet.complete(r) for r in sheet.rows)
    answered = sum(len(sheet.answered(r)) for r in sheet.rows)
    return done, len(sheet.rows), answered, len(sheet.rows) * len(sheet.fields)


def split_set(value: str) -> Sequence[str]:
    """The items of a set cell (empty for `none` and the special values)."""
    return [v for v in value.split(";") if v.strip()]
