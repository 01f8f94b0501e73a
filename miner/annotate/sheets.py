"""The annotation sheet format: its columns, special values, derived fields, CSV/XLSX I/O.

A sheet has the identifying columns, then for every codebook field its value and its evidence
(`<field>__evidence`), then `note`. Values are in the codebook's sheet format (yes/no, a
`;`-separated set, or the single value); `unclear` and `n/a` are allowed in any field, and an
annotator writes `none` for an empty set so that a blank cell always means "not answered yet".
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from miner.annotate.layout import atomic_write
from miner.codebook import (
    DERIVED_FIELDS,
    FIELD_BY_NAME,
    FIELD_NAMES,
    FIELDS,
    paper_framework,
    paper_network,
)
from miner.errors import SheetError

UNCLEAR = "unclear"
NOT_APPLICABLE = "n/a"
SPECIAL_VALUES = (UNCLEAR, NOT_APPLICABLE)
EMPTY_SET = "none"  # what an annotator writes for an empty set
ID_COLUMNS = ("full_name", "repo_id", "commit_sha", "url", "codebook_version")
NOTE_COLUMN = "note"
EVIDENCE_SUFFIX = "__evidence"
INPUT_FIELDS = tuple(name for name in FIELD_NAMES if name not in DERIVED_FIELDS)
BOM = "\ufeff"


def evidence_column(field: str) -> str:
    """The evidence column of a codebook field."""
    return f"{field}{EVIDENCE_SUFFIX}"


SHEET_COLUMNS: tuple[str, ...] = (
    *ID_COLUMNS,
    *(col for name in FIELD_NAMES for col in (name, evidence_column(name))),
    NOTE_COLUMN,
)


DERIVED_INPUTS: dict[str, tuple[str, ...]] = {
    "paper_framework": ("primary_framework",),
    "paper_network": ("network_types",),
    "hardware_req": ("hw_gpu", "hw_cpu", "hw_memory", "hw_other"),
}


def derivable(fields: Sequence[str]) -> tuple[str, ...]:
    """The derived fields whose every input is among `fields`."""
    return tuple(d for d, inputs in DERIVED_INPUTS.items() if set(inputs) <= set(fields))


def study_fields(fields: Sequence[str]) -> tuple[str, ...]:
    """Annotated fields plus the derived ones they determine, in codebook order."""
    chosen = set(fields) | set(derivable(fields))
    return tuple(name for name in FIELD_NAMES if name in chosen)


def sheet_columns(fields: Sequence[str] = INPUT_FIELDS) -> tuple[str, ...]:
    """The columns of a sheet that asks for `fields` (all input fields by default)."""
    names = study_fields(fields)
    return (*ID_COLUMNS, *(c for n in names for c in (n, evidence_column(n))), NOTE_COLUMN)


def choices(field: str) -> tuple[str, ...]:
    """The drop-down choices of a yes/no or single-value field, special values last."""
    spec = FIELD_BY_NAME[field]
    base = ("yes", "no") if spec.kind == "bool" else spec.values
    return (*base, *SPECIAL_VALUES)


def is_missing(value: str) -> bool:
    """True for cells that carry no codebook value: blank, unclear or n/a."""
    return value.strip().lower() in ("", *SPECIAL_VALUES)


def _derive_from(inputs: Sequence[str], rule: str) -> str | None:
    """The special value to propagate when an input is unclear or n/a (None: derive normally)."""
    lowered = [v.strip().lower() for v in inputs]
    if rule == "any" and "yes" in lowered:
        return None
    if UNCLEAR in lowered or "" in lowered:
        return UNCLEAR
    if NOT_APPLICABLE in lowered:
        return NOT_APPLICABLE
    return None


def fill_derived(
    values: Mapping[str, str], annotated: Sequence[str] = INPUT_FIELDS
) -> dict[str, str]:
    """Fill blank derived fields (paper_framework, paper_network, hardware_req) by the rules.

    Values are sheet-format strings; an unclear or n/a input makes the derived value the same.
    A filled-in derived value is kept (e.g. paper_framework `Others` for Keras on Theano).
    Only derived fields whose inputs are all `annotated` are filled.
    """
    out = dict(values)
    allowed = derivable(annotated)
    if "hardware_req" in allowed and not out.get("hardware_req", "").strip():
        hw = [out.get(k, "") for k in ("hw_gpu", "hw_cpu", "hw_memory", "hw_other")]
        special = _derive_from(hw, "any")
        out["hardware_req"] = special or (
            "yes" if any(v.strip().lower() == "yes" for v in hw) else "no"
        )
    if "paper_network" in allowed and not out.get("paper_network", "").strip():
        types = out.get("network_types", "").strip().lower()
        if types in SPECIAL_VALUES:
            out["paper_network"] = types
        else:  # "" and `none` are the empty set here
            kinds = [] if types == EMPTY_SET else types.split(";")
            out["paper_network"] = paper_network(k.strip() for k in kinds if k.strip())
    if "paper_framework" in allowed and not out.get("paper_framework", "").strip():
        primary = out.get("primary_framework", "")
        special = _derive_from([primary], "one")
        out["paper_framework"] = special or paper_framework(primary.strip())
    return out


def check_consistent(
    values: Mapping[str, str], annotated: Sequence[str] = INPUT_FIELDS
) -> list[tuple[str, str]]:
    """(field, message) for derived values that contradict their inputs under the rules."""
    derived = fill_derived({**values, **dict.fromkeys(DERIVED_FIELDS, "")}, annotated)
    problems = []
    for name in derivable(annotated):
        given = values.get(name, "").strip()
        expected = derived[name]
        if not given or given == expected or is_missing(expected):
            continue
        if name == "paper_framework" and values.get("primary_framework", "").strip() == "keras":
            if given in ("Keras (TensorFlow)", "Others"):  # depends on the Keras backend
                continue
        problems.append(
            (name, f"{given!r} contradicts the codebook rule, which gives {expected!r}")
        )
    return problems


@dataclass(frozen=True)
class RawSheet:
    """A sheet as read: its header and its rows keyed by spreadsheet row number (header = 1)."""

    path: Path
    columns: tuple[str, ...]
    rows: tuple[tuple[int, dict[str, str]], ...]


def _sniff_delimiter(header: str) -> str:
    counts = {d: header.count(d) for d in (",", ";", "\t")}
    return max(counts, key=lambda d: counts[d]) if any(counts.values()) else ","


def read_sheet(path: Path) -> RawSheet:
    """Read a CSV/TSV (UTF-8, with or without BOM; `,` `;` or tab delimited) or XLSX sheet."""
    if not path.is_file():
        raise SheetError(f"{path}: no such file")
    if path.suffix.lower() in (".xlsx", ".xlsm"):
        return _read_xlsx(path)
    try:
        text = path.read_bytes().decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise SheetError(
            f"{path}: not UTF-8 (byte {exc.start}); save it as 'CSV UTF-8' or as XLSX"
        ) from None
    first = text.split("\n", 1)[0]
    delimiter = "\t" if path.suffix.lower() == ".tsv" else _sniff_delimiter(first)
    reader = csv.reader(io.StringIO(text, newline=""), delimiter=delimiter)
    try:
        table = list(reader)
    except csv.Error as exc:
        raise SheetError(f"{path}: not a readable CSV file ({exc})") from None
    return _to_raw(path, table)


def _read_xlsx(path: Path) -> RawSheet:
    import openpyxl

    try:
        book = openpyxl.load_workbook(path, read_only=True, data_only=True)
    except Exception as exc:  # openpyxl raises many unrelated types for a bad file
        raise SheetError(f"{path}: not a readable XLSX workbook ({exc})") from None
    sheet = book["labels"] if "labels" in book.sheetnames else book.worksheets[0]
    table = [
        ["" if cell is None else str(cell) for cell in row]
        for row in sheet.iter_rows(values_only=True)
    ]
    book.close()
    return _to_raw(path, table)


def _to_raw(path: Path, table: list[list[str]]) -> RawSheet:
    if not table:
        raise SheetError(f"{path}: the file is empty")
    header = [h.strip() for h in table[0]]
    while header and not header[-1]:  # spreadsheet tools add empty trailing columns
        header.pop()
    rows = []
    for number, cells in enumerate(table[1:], start=2):
        if not any(c.strip() for c in cells):
            continue
        padded = [*cells, *[""] * max(0, len(header) - len(cells))]
        extra = [c for c in padded[len(header) :] if c.strip()]
        if extra:
            raise SheetError(
                f"{path}: row {number} has {len(cells)} cells but the header has {len(header)}"
            )
        rows.append((number, dict(zip(header, padded, strict=False))))
    return RawSheet(path, tuple(header), tuple(rows))


def render_csv(rows: Iterable[Mapping[str, object]], columns: Sequence[str]) -> bytes:
    """Rows as UTF-8 CSV with a BOM, so Excel opens it as UTF-8 and pandas ignores the BOM."""
    buffer = io.StringIO()
    writer = csv.DictWriter(buffer, fieldnames=list(columns), lineterminator="\n")
    writer.writeheader()
    for row in rows:
        writer.writerow({c: "" if row.get(c) is None else row.get(c) for c in columns})
    return (BOM + buffer.getvalue()).encode("utf-8")


def write_csv(path: Path, rows: Iterable[Mapping[str, object]], columns: Sequence[str]) -> None:
    """Write rows as a CSV file atomically."""
    atomic_write(path, render_csv(rows, columns))


def write_xlsx(path: Path, rows: Sequence[Mapping[str, object]], columns: Sequence[str]) -> None:
    """Write a sheet as XLSX with drop-downs for controlled vocabularies and a codebook tab."""
    import openpyxl
    from openpyxl.styles import Font
    from openpyxl.utils import get_column_letter
    from openpyxl.worksheet.datavalidation import DataValidation

    book = openpyxl.Workbook()
    sheet = book.active
    assert sheet is not None
    sheet.title = "labels"
    sheet.append(list(columns))
    for cell in sheet[1]:
        cell.font = Font(bold=True)
    for row in rows:
        sheet.append(["" if row.get(c) is None else str(row.get(c)) for c in columns])
    vocab = book.create_sheet("vocabulary")
    last = max(len(rows) + 1, 2)
    position = {name: index for index, name in enumerate(columns, start=1)}
    listed = [f for f in FIELDS if f.kind != "set" and f.name in position]
    for index, spec in enumerate(listed, start=1):
        letter = get_column_letter(index)
        values = choices(spec.name)
        vocab.cell(row=1, column=index, value=spec.name)
        for offset, value in enumerate(values, start=2):
            vocab.cell(row=offset, column=index, value=value)
        rule = DataValidation(
            type="list",
            formula1=f"vocabulary!${letter}$2:${letter}${len(values) + 1}",
            allow_blank=True,
            showErrorMessage=True,
            errorTitle=spec.name,
            error=f"Choose a codebook value for {spec.name}",
        )
        target = get_column_letter(position[spec.name])
        rule.add(f"{target}2:{target}{last}")
        sheet.add_data_validation(rule)
    for spec in FIELDS:
        if spec.kind != "set" or spec.name not in position:
            continue
        allowed = ";".join(spec.values) + (f";{spec.open_prefix}<name>" if spec.open_prefix else "")
        hint = DataValidation(type=None, allow_blank=True, showInputMessage=True)
        hint.promptTitle = spec.name[:32]
        hint.prompt = f"';'-separated, or none / unclear / n/a. Values: {allowed}"[:255]
        target = get_column_letter(position[spec.name])
        hint.add(f"{target}2:{target}{last}")
        sheet.add_data_validation(hint)
    vocab.sheet_state = "hidden"
    sheet.freeze_panes = "B2"
    for index, name in enumerate(columns, start=1):
        wide = 14 if name in FIELD_NAMES else 30 if name.endswith(EVIDENCE_SUFFIX) else 18
        sheet.column_dimensions[get_column_letter(index)].width = wide
    buffer = io.BytesIO()
    book.save(buffer)
    atomic_write(path, buffer.getvalue())


def write_sheet(path: Path, rows: Sequence[Mapping[str, object]], columns: Sequence[str]) -> None:
    """Write CSV or XLSX by the file's suffix."""
    if path.suffix.lower() == ".xlsx":
        write_xlsx(path, rows, columns)
    else:
        write_csv(path, rows, columns)
