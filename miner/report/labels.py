"""The labels a report counts: the store's auto labels or the annotators' consensus, normalised.

Both sources arrive in sheet format (yes/no, `;`-separated sets, single values). The consensus may
also say `unclear` or `n/a`; those stay as they are so tables count them apart from `no`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from miner.codebook import (
    FIELD_BY_NAME,
    FIELD_NAMES,
    format_value,
    paper_framework,
    paper_network,
    parse_value,
)
from miner.errors import ConfigError, MinerError, SheetError, StoreError

if TYPE_CHECKING:
    import pandas as pd

    from miner.store import Store

UNCLEAR = "unclear"
NOT_APPLICABLE = "n/a"
SPECIAL_VALUES = (UNCLEAR, NOT_APPLICABLE)
EMPTY_SET = "none"  # what annotators write for an empty set
ID_COLUMNS = ("repo_id", "full_name", "commit_sha")


@dataclass(frozen=True, eq=False)
class LabelSet:
    """One row per labelled repository: ID_COLUMNS and every codebook field as a sheet cell."""

    source: str  # auto | consensus
    origin: str  # the store or the consensus file the labels were read from
    frame: pd.DataFrame
    as_of: str | None = None  # the latest analysis time, for auto labels


def load_labels(store: Store, source: str, consensus_path: Path | None = None) -> LabelSet:
    """Read the auto labels from the store, or the consensus sheet, as a normalised LabelSet."""
    if source == "auto":
        raw = store.labels_frame()
        frame = normalise(raw, str(store.path), StoreError)
        times = sorted(str(t) for t in raw["analyzed_at"] if t)
        return LabelSet("auto", str(store.path), frame, times[-1] if times else None)
    if source == "consensus":
        if consensus_path is None:
            raise ConfigError("--labels consensus needs the consensus file's path")
        raw = read_consensus(consensus_path)
        frame = normalise(raw, str(consensus_path), SheetError)
        return LabelSet("consensus", str(consensus_path), frame)
    raise ConfigError(f"unknown label source {source!r}; choose auto or consensus")


def read_consensus(path: Path) -> pd.DataFrame:
    """The annotation stage's consensus layer (full_name, repo_id, commit_sha, codebook fields)."""
    from miner.annotate.reconcile import load_consensus

    try:
        return load_consensus(path)
    except ValueError as exc:  # pandas' parse errors and a repo_id that is not a number
        raise SheetError(f"{path}: not a readable consensus sheet ({exc})") from None


def normalise(raw: pd.DataFrame, origin: str, error: type[MinerError]) -> pd.DataFrame:
    """Validate every cell against the codebook and rewrite it in canonical sheet format."""
    import pandas as pd

    rows = []
    for number, record in enumerate(raw.to_dict("records"), start=2):
        name = str(record.get("full_name") or "").strip()
        row: dict[str, object] = {
            "repo_id": _as_int(record.get("repo_id")),
            "full_name": name,
            "commit_sha": str(record.get("commit_sha") or "").strip(),
        }
        for field in FIELD_NAMES:
            try:
                row[field] = canonical(field, record.get(field))
            except ValueError as exc:
                raise error(f"{origin}: row {number} ({name or '?'}): {exc}") from None
        rows.append(_derive(row))
    frame = pd.DataFrame(rows, columns=[*ID_COLUMNS, *FIELD_NAMES], dtype=object)
    return frame.sort_values(["full_name", "commit_sha"], kind="stable").reset_index(drop=True)


def canonical(field: str, cell: object) -> str:
    """One cell in canonical sheet format; `unclear`, `n/a` and empty pass through."""
    text = "" if cell is None or _is_nan(cell) else str(cell).strip()
    if text.lower() in SPECIAL_VALUES or not text:
        return text.lower()
    kind = FIELD_BY_NAME[field].kind
    if kind == "set" and text.lower() == EMPTY_SET:
        return ""
    if kind != "bool":
        text = text.lower() if not text.startswith("other:") else text
        if field in ("paper_framework", "paper_network"):
            text = _paper_case(field, text)
    return format_value(parse_value(field, text))


def _paper_case(field: str, text: str) -> str:
    # Paper values are capitalised in the codebook; accept any case in a sheet.
    for value in FIELD_BY_NAME[field].values:
        if value.lower() == text.lower():
            return value
    return text


def _derive(row: dict[str, object]) -> dict[str, object]:
    # Annotators may leave the derived columns empty: fill them by the codebook's rules.
    primary = str(row["primary_framework"])
    if not row["paper_framework"] and primary:
        row["paper_framework"] = primary if primary in SPECIAL_VALUES else paper_framework(primary)
    types = str(row["network_types"])
    if not row["paper_network"] and types:
        row["paper_network"] = types if types in SPECIAL_VALUES else paper_network(types.split(";"))
    parts = [str(row[f]) for f in ("hw_gpu", "hw_cpu", "hw_memory", "hw_other")]
    if not row["hardware_req"] and any(parts):
        if "yes" in parts:
            row["hardware_req"] = "yes"
        elif UNCLEAR in parts or "" in parts:
            row["hardware_req"] = UNCLEAR
        elif NOT_APPLICABLE in parts:
            row["hardware_req"] = NOT_APPLICABLE
        else:
            row["hardware_req"] = "no"
    return row


def excluded(cell: str) -> bool:
    """True when an `exclude` cell names at least one exclusion (unclear and n/a do not)."""
    return bool(cell) and cell not in SPECIAL_VALUES


def included(frame: pd.DataFrame, include_excluded: bool = False) -> pd.DataFrame:
    """The repositories a table counts: without exclusions unless `include_excluded`."""
    if include_excluded:
        return frame
    keep = [not excluded(str(cell)) for cell in frame["exclude"]]
    return frame[keep].reset_index(drop=True)


def set_values(cell: str) -> list[str]:
    """The members of a set cell (a special value is its own single member)."""
    return [part for part in cell.split(";") if part] if cell else []


def _as_int(value: object) -> int | None:
    if value is None or _is_nan(value) or str(value).strip() == "":
        return None
    try:
        return int(float(str(value).strip()))
    except ValueError:
        return None


def _is_nan(value: object) -> bool:
    return isinstance(value, float) and value != value


__all__ = [
    "ID_COLUMNS",
    "NOT_APPLICABLE",
    "SPECIAL_VALUES",
    "UNCLEAR",
    "LabelSet",
    "canonical",
    "excluded",
    "included",
    "load_labels",
    "normalise",
    "read_consensus",
    "set_values",
]
