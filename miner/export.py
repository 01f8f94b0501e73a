"""Stored tables as DataFrames, written in formats pandas, Excel and other tools open directly."""

from __future__ import annotations

import io
import json
from pathlib import Path
from typing import TYPE_CHECKING, Literal

from miner.errors import ConfigError

if TYPE_CHECKING:
    import pandas as pd

    from miner.store import Store

ExportFormat = Literal["csv", "json", "parquet"]
TABLES = ("repos", "clones", "labels", "searches")


def table_frame(store: Store, name: str) -> pd.DataFrame:
    """The stored table `name` as a DataFrame, one row per repository (or search)."""
    import pandas as pd

    if name == "labels":
        return store.labels_frame()
    if name not in TABLES:
        raise ConfigError(f"unknown table {name!r}; choose from {', '.join(TABLES)}")
    order = {"repos": "full_name", "clones": "full_name", "searches": "id"}[name]
    frame = pd.read_sql_query(f"SELECT * FROM {name} ORDER BY {order}", store.conn)
    # SQLite integers with gaps arrive as floats; keep them integers (3, not 3.0) in every format.
    for column in frame.columns:
        series = frame[column]
        if series.dtype.kind == "f" and series.dropna().apply(float.is_integer).all():
            frame[column] = series.astype("Int64")
    return frame


def render_frame(frame: pd.DataFrame, fmt: str) -> bytes:
    """Serialise a DataFrame: csv (UTF-8), json (records, one list), or parquet."""
    if fmt == "csv":
        return frame.to_csv(index=False, lineterminator="\n").encode("utf-8")
    if fmt == "json":
        records = json.loads(frame.to_json(orient="records", force_ascii=False))
        return (json.dumps(records, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    if fmt == "parquet":
        buffer = io.BytesIO()
        frame.to_parquet(buffer, index=False)
        return buffer.getvalue()
    raise ConfigError(f"unknown format {fmt!r}; choose csv, json or parquet")


def export_table(store: Store, name: str, fmt: str, output: Path | None) -> bytes | int:
    """Render table `name`; write it to `output` (returning the row count) or return the bytes."""
    frame = table_frame(store, name)
    data = render_frame(frame, fmt)
    if output is None:
        if fmt == "parquet":
            raise ConfigError("parquet is binary: give --output FILE")
        return data
    output.parent.mkdir(parents=True, exist_ok=True)
    # Excel needs the BOM to read UTF-8 CSV; pandas ignores it.
    output.write_bytes((b"\xef\xbb\xbf" + data) if fmt == "csv" else data)
    return len(frame)
