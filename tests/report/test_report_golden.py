"""Golden files: every report table in every format, from the test study's store.

The expected files live in tests/golden/report/<labels>/<table>.<ext>. After an intended change
to a table, regenerate them and review the diff before committing:

    MINER_UPDATE_GOLDEN=1 python -m pytest tests/report/test_report_golden.py

Without MINER_UPDATE_GOLDEN the tests only compare, and a missing golden file fails.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from report_study import build_store, write_consensus

from miner.export import table_frame
from miner.report import KIND_TABLES, ReportOptions, ReportTable, build_tables, load_labels, render
from miner.report.records import FORMAT_SUFFIX, FORMATS
from miner.store import Store

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "report"
UPDATE = os.environ.get("MINER_UPDATE_GOLDEN") == "1"
# The trend tables need snapshots; tests/report/test_report_trend.py builds a study with them.
SNAPSHOT_KINDS = ("trend",)
TABLE_KEYS = [
    key for kind, keys in KIND_TABLES.items() if kind not in SNAPSHOT_KINDS for key in keys
]
SOURCES = ("auto", "consensus")


@pytest.fixture(scope="module")
def tables(tmp_path_factory: pytest.TempPathFactory) -> dict[str, dict[str, ReportTable]]:
    """Every table of the test study, for auto and for consensus labels."""
    root = tmp_path_factory.mktemp("golden-study")
    consensus = write_consensus(root / "annotations" / "consensus.csv")
    built: dict[str, dict[str, ReportTable]] = {}
    with build_store(root / "data" / "miner.db") as store:
        assert isinstance(store, Store)
        frames = {name: table_frame(store, name) for name in ("repos", "searches", "clones")}
        for source in SOURCES:
            labels = load_labels(store, source, consensus)
            kinds = tuple(k for k in KIND_TABLES if k not in SNAPSHOT_KINDS)
            made = build_tables(kinds, store, frames, labels, ReportOptions())
            built[source] = {t.key: t for t in made}
    return built


def test_every_table_is_built(tables: dict[str, dict[str, ReportTable]]) -> None:
    for source in SOURCES:
        assert sorted(tables[source]) == sorted(TABLE_KEYS)


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("key", TABLE_KEYS)
@pytest.mark.parametrize("source", SOURCES)
def test_table_matches_golden_file(
    tables: dict[str, dict[str, ReportTable]], source: str, key: str, fmt: str
) -> None:
    text = render(tables[source][key], fmt)
    golden = GOLDEN / source / f"{key}{FORMAT_SUFFIX[fmt]}"
    if UPDATE:
        golden.parent.mkdir(parents=True, exist_ok=True)
        golden.write_bytes(text.encode("utf-8"))
    assert golden.is_file(), f"missing {golden}: run with MINER_UPDATE_GOLDEN=1 and review it"
    assert text == golden.read_bytes().decode("utf-8")
