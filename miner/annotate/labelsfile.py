"""Any labels file as one table keyed by repository: annotation sheets, the consensus, layers,
`miner export labels` output, the store's auto labels, or a TSV such as the dev corpus (its
`repo` column is the full name). Only codebook columns are read; values are checked."""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from miner.annotate.sheets import (
    EMPTY_SET,
    SPECIAL_VALUES,
    evidence_column,
    fill_derived,
    read_sheet,
)
from miner.annotate.validate import canonical_token, column_letter
from miner.codebook import FIELD_BY_NAME, FIELD_NAMES, format_value
from miner.errors import SheetError

if TYPE_CHECKING:
    import pandas as pd

MISSING = None  # a cell with no usable value: blank (non-set field), `unclear` or `n/a`
NAME_COLUMNS = ("full_name", "repo")
NOTE_COLUMNS = ("note", "adjudication_notes")
HARDWARE = ("hardware_req", "hw_gpu", "hw_cpu", "hw_memory", "hw_other")
_BOOL = {
    "yes": "yes",
    "no": "no",
    "true": "yes",
    "false": "no",
    "1": "yes",
    "0": "no",
    "y": "yes",
    "n": "no",
}


@dataclass(frozen=True)
class LabelsTable:
    """Labels by lower-cased full name: canonical sheet values, None where missing."""

    source: str
    fields: tuple[str, ...]
    rows: dict[str, dict[str, str | None]]
    names: dict[str, str]  # key -> full name as written
    extra: dict[str, dict[str, str]] = field(default_factory=dict)  # evidence and note columns
    evidence: Callable[[str, str], str] | None = None  # lazily looked-up evidence (store)

    def evidence_text(self, key: str, name: str) -> str:
        """The evidence and notes this source holds for one field of one repository."""
        cells = self.extra.get(key, {})
        parts = [cells.get(evidence_column(name), ""), cells.get(f"{name}_evidence", "")]
        if name in HARDWARE:
            parts.append(cells.get("hardware_evidence", ""))
        parts += [field_note(cells.get(c, ""), name) for c in NOTE_COLUMNS]
        if self.evidence is not None:
            parts.append(self.evidence(key, name))
        return " | ".join(p for p in parts if p)


def field_note(note: str, name: str) -> str:
    """The part of a note about one field, when the note is written as `field=value: why | ...`."""
    parts = [p.strip() for p in note.split(" | ") if p.strip()]
    keyed = {p.split("=", 1)[0].strip(): p for p in parts if re.match(r"^\w+=", p)}
    if not keyed:
        return note
    related = HARDWARE if name in HARDWARE else (name,)
    return " | ".join(p for key, p in keyed.items() if key in related)


def canonical_value(name: str, cell: str) -> str | None:
    """A cell's canonical value (None when missing); raises ValueError for non-codebook values."""
    spec = FIELD_BY_NAME[name]
    text = cell.strip()
    low = text.lower()
    if low in SPECIAL_VALUES:
        return MISSING
    if spec.kind == "set":
        if low in ("", EMPTY_SET):
            return ""
        items = set()
        for token in (t.strip() for t in text.split(";")):
            if not token:
                continue
            value = canonical_token(spec, token)
            if value is None:
                raise ValueError(f"{token!r} is not a codebook value (values are ';'-separated)")
            items.add(value)
        return format_value(frozenset(items))
    if not text:
        return MISSING
    if spec.kind == "bool":
        if low not in _BOOL:
            raise ValueError(f"{text!r} is not yes/no")
        return _BOOL[low]
    value = canonical_token(spec, text)
    if value is None:
        raise ValueError(f"{text!r} is not a codebook value")
    return value


DERIVED_INPUTS = {
    "hardware_req": ("hw_gpu", "hw_cpu", "hw_memory", "hw_other"),
    "paper_network": ("network_types",),
    "paper_framework": ("primary_framework",),
}


def derive_blanks(values: dict[str, str | None]) -> dict[str, str | None]:
    """Fill a blank derived field by the codebook rule when all its inputs have values."""
    out = dict(values)
    for name, inputs in DERIVED_INPUTS.items():
        if name in out and out[name] is None and all(out.get(i) is not None for i in inputs):
            filled = fill_derived({k: v for k, v in out.items() if v is not None} | {name: ""})
            out[name] = filled[name]
    return out


def _table(
    source: str,
    columns: list[str],
    records: list[tuple[int, dict[str, str]]],
    asked: Collection[str] = (),
) -> LabelsTable:
    name_col = next((c for c in NAME_COLUMNS if c in columns), None)
    if name_col is None:
        raise SheetError(f"{source}: no full_name (or repo) column")
    # A column nobody filled in carries no labels (e.g. a field a round did not ask for),
    # except a set field the source is known to answer: a blank set is the empty set, so an
    # all-blank `exclude` means "every repository kept".
    fields = tuple(
        f
        for f in FIELD_NAMES
        if f in columns
        and (
            (f in asked and FIELD_BY_NAME[f].kind == "set")
            or any(c.get(f, "").strip() for _, c in records)
        )
    )
    if not fields:
        raise SheetError(f"{source}: no codebook field columns")
    keep = [c for c in columns if c.endswith("evidence") or c in NOTE_COLUMNS]
    position = {c: i for i, c in enumerate(columns)}
    rows: dict[str, dict[str, str | None]] = {}
    names: dict[str, str] = {}
    extra: dict[str, dict[str, str]] = {}
    first_row: dict[str, int] = {}
    errors: list[str] = []
    for number, cells in records:
        full = cells.get(name_col, "").strip()
        if not full:
            errors.append(f"row {number}: blank {name_col}")
            continue
        key = full.lower()
        if key in first_row:
            errors.append(f"row {number}: {full} repeats row {first_row[key]}")
            continue
        first_row[key] = number
        values: dict[str, str | None] = {}
        for name in fields:
            try:
                values[name] = canonical_value(name, cells.get(name, ""))
            except ValueError as exc:
                letter = column_letter(position[name])
                errors.append(f"row {number}, column {name} ({letter}): {exc}")
        rows[key] = derive_blanks(values)
        names[key] = full
        extra[key] = {c: cells.get(c, "") for c in keep if cells.get(c, "")}
    if errors:
        shown = errors[:40]
        more = f"\n  ... and {len(errors) - 40} more" if len(errors) > 40 else ""
        raise SheetError(f"{source}: {len(errors)} problem(s)\n  " + "\n  ".join(shown) + more)
    return LabelsTable(source, fields, rows, names, extra)


def read_labels(path: Path, asked: Collection[str] = ()) -> LabelsTable:
    """Read a labels file: CSV/TSV/XLSX in the sheet or export format, or a `repo` TSV.
    `asked`: fields the file is known to answer, kept even when every cell is blank."""
    raw = read_sheet(path)
    return _table(str(path), list(raw.columns), list(raw.rows), asked)


def labels_from_frame(
    frame: pd.DataFrame, source: str, evidence: Callable[[str, str], str] | None = None
) -> LabelsTable:
    """A labels table from a DataFrame of sheet-format strings (e.g. the store's labels, which
    answer every field they have a column for)."""
    columns = [str(c) for c in frame.columns]
    records = [
        (index + 2, {c: "" if v is None else str(v) for c, v in zip(columns, row, strict=True)})
        for index, row in enumerate(frame.itertuples(index=False, name=None))
    ]
    table = _table(source, columns, records, FIELD_NAMES)
    if evidence is None:
        return table
    return LabelsTable(table.source, table.fields, table.rows, table.names, table.extra, evidence)
