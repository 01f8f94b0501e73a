"""Strict validation of a returned sheet against its round: every problem, with row and column.

A spreadsheet row number counts the header as row 1, as Excel shows it; columns are named and
lettered. All problems are collected and raised together as one SheetError.
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from miner.annotate.sheets import (
    EMPTY_SET,
    INPUT_FIELDS,
    NOT_APPLICABLE,
    NOTE_COLUMN,
    SHEET_COLUMNS,
    SPECIAL_VALUES,
    UNCLEAR,
    RawSheet,
    check_consistent,
    choices,
    evidence_column,
    fill_derived,
    study_fields,
)
from miner.codebook import DERIVED_FIELDS, FIELD_BY_NAME, FIELD_NAMES, Field, format_value
from miner.errors import SheetError

MAX_REPORTED = 60  # beyond this the message gets a count instead of every line
EVIDENCE_EXPECTED = tuple(
    n
    for n in FIELD_NAMES
    if FIELD_BY_NAME[n].kind == "bool" and n not in ("is_dl", *DERIVED_FIELDS)
)


def manifest_fields(manifest: Mapping[str, Any]) -> tuple[str, ...]:
    """The input fields a round asks for (every input field unless the round chose some)."""
    return tuple(manifest.get("fields") or INPUT_FIELDS)


def column_letter(index: int) -> str:
    """Spreadsheet letter of a 0-based column index (0 -> A, 26 -> AA)."""
    letters = ""
    index += 1
    while index:
        index, rem = divmod(index - 1, 26)
        letters = chr(65 + rem) + letters
    return letters


def _suggest(word: str, options: tuple[str, ...]) -> str:
    close = difflib.get_close_matches(word.lower(), [o.lower() for o in options], n=1, cutoff=0.6)
    if not close:
        return ""
    original = next(o for o in options if o.lower() == close[0])
    return f" (did you mean {original!r}?)"


def canonical_token(spec: Field, token: str) -> str | None:
    """The codebook spelling of `token` (case-insensitive), or None when it is not a value."""
    for value in spec.values:
        if value.lower() == token.lower():
            return value
    prefix = spec.open_prefix
    if prefix and token.lower().startswith(prefix) and token[len(prefix) :].strip():
        return prefix + token[len(prefix) :].strip()
    return None


def normalise_cell(name: str, cell: str) -> str:
    """The canonical sheet value of one cell; raises ValueError with a readable reason."""
    spec = FIELD_BY_NAME[name]
    text = cell.strip()
    low = text.lower()
    if not text:
        hint = ", `none` for an empty set," if spec.kind == "set" else ""
        raise ValueError(f"blank: write a value{hint} or `unclear` / `n/a`")
    if low in SPECIAL_VALUES:
        return low
    if low in ("na", "n.a.", "unknown", "?"):
        raise ValueError(f"{text!r} is not a value: write `{NOT_APPLICABLE}` or `{UNCLEAR}`")
    if spec.kind == "bool":
        if low in ("yes", "no"):
            return low
        raise ValueError(f"{text!r} is not yes/no/unclear/n/a")
    if spec.kind == "one":
        value = canonical_token(spec, text)
        if value is None:
            raise ValueError(f"{text!r} is not a codebook value{_suggest(text, choices(name))}")
        return value
    if low == EMPTY_SET:
        return ""
    for wrong in (",", "|", "/", "+"):
        if wrong in text and not all(
            canonical_token(spec, t.strip()) for t in text.split(";") if t.strip()
        ):
            raise ValueError(f"{text!r}: separate values with ';', not {wrong!r}")
    tokens = [t.strip() for t in text.split(";") if t.strip()]
    items = set()
    for token in tokens:
        if token.lower() in (*SPECIAL_VALUES, EMPTY_SET):
            raise ValueError(f"{text!r}: {token!r} cannot be combined with other values")
        value = canonical_token(spec, token)
        if value is None:
            pieces = token.split()
            if len(pieces) > 1 and all(canonical_token(spec, p) for p in pieces):
                raise ValueError(f"{text!r}: separate values with ';', not spaces")
            raise ValueError(f"unknown value {token!r}{_suggest(token, spec.values)}")
        items.add(value)
    return format_value(frozenset(items))


@dataclass(frozen=True)
class ValidatedSheet:
    """A sheet that passed validation: canonical rows in the round's order, and warnings."""

    rows: tuple[dict[str, str], ...]
    warnings: tuple[str, ...]


def validate_sheet(raw: RawSheet, manifest: Mapping[str, Any]) -> ValidatedSheet:
    """Check a sheet against its round's manifest; raise one SheetError listing every problem."""
    errors: list[str] = []
    position = {name: i for i, name in enumerate(raw.columns)}

    def where(row: int, column: str) -> str:
        index = position.get(column)
        letter = f" ({column_letter(index)})" if index is not None else ""
        return f"row {row}, column {column}{letter}"

    annotated = manifest_fields(manifest)
    wanted = study_fields(annotated)
    required = ("full_name", "repo_id", "commit_sha", "codebook_version", *annotated)
    known = set(SHEET_COLUMNS)
    for column in raw.columns:
        if column and column not in known:
            errors.append(
                f"column {column!r} is not a sheet column{_suggest(column, SHEET_COLUMNS)}"
            )
    missing = [c for c in required if c not in position]
    if missing:
        errors.append(f"missing column(s): {', '.join(missing)}")
    duplicated = sorted({c for c in raw.columns if c and list(raw.columns).count(c) > 1})
    if duplicated:
        errors.append(f"duplicated column(s): {', '.join(duplicated)}")
    if errors:
        raise SheetError(_message(raw, errors))

    expected = {int(r["repo_id"]): r for r in manifest["repos"]}
    version = str(manifest["codebook_version"])
    seen: dict[int, int] = {}
    by_id: dict[int, dict[str, str]] = {}
    unevidenced: dict[str, int] = {}
    for number, cells in raw.rows:
        text_id = cells.get("repo_id", "").strip()
        try:
            repo_id = int(float(text_id)) if text_id else None  # Excel may write 123.0
        except ValueError:
            repo_id = None
        if repo_id is None:
            errors.append(f"{where(number, 'repo_id')}: {text_id!r} is not a repository id")
            continue
        if repo_id in seen:
            errors.append(f"row {number}: repository {repo_id} repeats row {seen[repo_id]}")
            continue
        seen[repo_id] = number
        entry = expected.get(repo_id)
        if entry is None:
            name = cells.get("full_name", "")
            errors.append(f"row {number}: repository {repo_id} ({name}) is not in this round")
            continue
        if cells.get("full_name", "").strip().lower() != str(entry["full_name"]).lower():
            errors.append(
                f"{where(number, 'full_name')}: {cells.get('full_name')!r} but repository"
                f" {repo_id} is {entry['full_name']!r}"
            )
        if cells.get("commit_sha", "").strip() != entry["commit_sha"]:
            errors.append(
                f"{where(number, 'commit_sha')}: the round pins {entry['commit_sha'][:12]},"
                f" not {cells.get('commit_sha', '')[:12]!r}"
            )
        book = cells.get("codebook_version", "").strip()
        if book != version:
            errors.append(
                f"{where(number, 'codebook_version')}: {book!r}, but the round uses codebook"
                f" {version}"
            )
        out = {
            "full_name": str(entry["full_name"]),
            "repo_id": str(repo_id),
            "commit_sha": str(entry["commit_sha"]),
            "url": str(entry["url"]),
            "codebook_version": version,
            NOTE_COLUMN: cells.get(NOTE_COLUMN, "").strip(),
        }
        for name in FIELD_NAMES:
            cell = cells.get(name, "")
            out[evidence_column(name)] = cells.get(evidence_column(name), "").strip()
            if name not in wanted or (name in DERIVED_FIELDS and not cell.strip()):
                out[name] = ""  # not asked in this round, or derived below
                continue
            try:
                out[name] = normalise_cell(name, cell)
            except ValueError as exc:
                errors.append(f"{where(number, name)}: {exc}")
                out[name] = UNCLEAR
        for name, problem in check_consistent(out, annotated):
            errors.append(f"{where(number, name)}: {problem}")
        out = fill_derived(out, annotated)
        for name in (n for n in EVIDENCE_EXPECTED if n in wanted):
            if out.get(name) == "yes" and not out[evidence_column(name)]:
                unevidenced[name] = unevidenced.get(name, 0) + 1
        by_id[repo_id] = out
    absent = [r for rid, r in expected.items() if rid not in seen]
    if absent:
        names = ", ".join(str(r["full_name"]) for r in absent[:10])
        more = f" and {len(absent) - 10} more" if len(absent) > 10 else ""
        errors.append(f"{len(absent)} repositories of the round are missing: {names}{more}")
    if errors:
        raise SheetError(_message(raw, errors))
    warnings = tuple(
        f"{count} `yes` in {name} without evidence" for name, count in sorted(unevidenced.items())
    )
    ordered = tuple(by_id[int(r["repo_id"])] for r in manifest["repos"])
    return ValidatedSheet(ordered, warnings)


def _message(raw: RawSheet, errors: list[str]) -> str:
    shown = errors[:MAX_REPORTED]
    more = len(errors) - len(shown)
    tail = f"\n  ... and {more} more" if more else ""
    noun = "problem" if len(errors) == 1 else "problems"
    return f"{raw.path}: {len(errors)} {noun}\n  " + "\n  ".join(shown) + tail
