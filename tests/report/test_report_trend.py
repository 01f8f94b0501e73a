"""`miner report trend` on repositories with dated histories, run as a user runs it."""

from __future__ import annotations

import csv
import importlib.util
import sys
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from miner.cli import app
from miner.report.trend import wilson
from miner.store import Store

_PATH = Path(__file__).resolve().parents[1] / "clone" / "dated_repos.py"
_spec = importlib.util.spec_from_file_location("dated_repos", _PATH)
assert _spec is not None and _spec.loader is not None
dated_repos = importlib.util.module_from_spec(_spec)
sys.modules.setdefault("dated_repos", dated_repos)
_spec.loader.exec_module(dated_repos)


def rows(path: Path) -> list[dict[str, str]]:
    with path.open(encoding="utf-8-sig", newline="") as fh:
        return list(csv.DictReader(fh))


@pytest.fixture(scope="module")
def study(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A study folder after `clone --every 1y --since 2019 && analyze && report trend`."""
    root = tmp_path_factory.mktemp("trend-study")
    dated_repos.build_dated_repos(root / "origins")
    with Store(root / "data" / "miner.db") as store:
        dated_repos.store_dated_repos(store, root / "origins")
    runner = CliRunner()
    cwd = Path.cwd()
    try:
        import os

        os.chdir(root)  # relative paths, as the README's commands use them
        for args in (
            ["clone", "--every", "1y", "--since", "2019", "--until", "2023-01-01"],
            ["analyze"],
            ["report", "trend", "--format", "csv", "--format", "markdown"],
        ):
            result = runner.invoke(app, args)
            assert result.exit_code == 0, f"{args}: {result.output}"
    finally:
        os.chdir(cwd)
    return root


def by(table: list[dict[str, str]], *keys: str) -> dict[tuple[str, ...], dict[str, Any]]:
    return {tuple(r[k] for k in keys): r for r in table}


def test_shares_per_date_follow_the_histories(study: Path) -> None:
    trend = by(rows(study / "reports" / "trend.csv"), "field", "date")
    dates = ("2019-01-01", "2020-01-01", "2021-01-01", "2022-01-01", "2023-01-01")
    # three projects exist until 2022; the fourth is created in March 2022
    assert [trend[("hardware_req", d)]["projects"] for d in dates] == ["3", "3", "3", "3", "4"]
    # the hardware section arrives in June 2020
    assert [trend[("hardware_req", d)]["yes"] for d in dates] == ["0", "0", "1", "1", "1"]
    assert [trend[("hw_gpu", d)]["yes"] for d in dates] == ["0", "0", "1", "1", "1"]
    # the requirements file disappears in February 2021
    assert [trend[("dependency_file", d)]["yes"] for d in dates] == ["3", "3", "3", "2", "3"]
    row = trend[("dependency_file", "2022-01-01")]
    low, high = wilson(2, 3)
    assert (float(row["%"]), float(row["95% CI low"]), float(row["95% CI high"])) == (
        66.7,
        low,
        high,
    )


def test_wilson_interval_matches_its_formula() -> None:
    assert wilson(0, 0) == (None, None)
    assert wilson(2, 3) == (20.8, 93.9)  # the standard Wilson score interval of 2/3
    assert wilson(5, 5) == (56.6, 100.0)


def test_transitions_between_consecutive_dates(study: Path) -> None:
    table = by(rows(study / "reports" / "trend_transitions.csv"), "field", "from", "to")
    hw = table[("hardware_req", "2020-01-01", "2021-01-01")]
    assert (hw["no → yes"], hw["yes → no"], hw["no → no"], hw["new"]) == ("1", "0", "2", "0")
    deps = table[("dependency_file", "2021-01-01", "2022-01-01")]
    assert (deps["yes → no"], deps["yes → yes"]) == ("1", "2")
    born = table[("dependency_file", "2022-01-01", "2023-01-01")]
    assert (born["new"], born["yes → yes"], born["no → no"]) == ("1", "2", "1")


def test_changes_carry_the_evidence_that_appeared_or_disappeared(study: Path) -> None:
    changes = rows(study / "reports" / "trend_changes.csv")
    gained = [c for c in changes if c["project"] == "lab/adds-hardware" and c["field"] == "hw_gpu"]
    assert len(gained) == 1 and gained[0]["change"] == "no → yes"
    assert (
        gained[0]["evidence"].startswith("appeared: README.md:") and "V100" in gained[0]["evidence"]
    )
    lost = [
        c
        for c in changes
        if c["project"] == "lab/drops-requirements" and c["field"] == "dependency_file"
    ]
    assert lost[0]["evidence"].startswith("disappeared: requirements.txt:1")
    assert not [c for c in changes if c["project"] == "lab/never-changes"]


def test_each_commit_is_audited_once_and_table_x_reads_the_latest(study: Path) -> None:
    with Store(study / "data" / "miner.db") as store:
        audits = store.query("SELECT COUNT(*) FROM audits WHERE status = 'ok'")[0][0]
        assert audits == 6  # 20 (project, date) pairs, 4 absent, 6 distinct commits
        frame = store.labels_frame()
    latest = dict(zip(frame["full_name"], frame["dependency_file"], strict=True))
    assert latest["lab/drops-requirements"] == "no"  # its newest snapshot, not its oldest
    assert (study / "reports" / "trend.png").stat().st_size > 0
    assert "Requirements stated, by date" in (study / "reports" / "trend.md").read_text()


def test_trend_without_snapshots_is_a_one_line_error(tmp_path: Path) -> None:
    Store(tmp_path / "data" / "miner.db").close()
    result = CliRunner().invoke(
        app, ["report", "trend", "--db", str(tmp_path / "data" / "miner.db")]
    )
    assert result.exit_code == 1 and "no snapshots in the store" in result.output


def roll_back_smoke_ladder(store: Store) -> None:
    """Undo the smoke-ladder migration (it comes after snapshots)."""
    store.conn.execute("DROP TABLE smoke_attempts")
    for column in ("stage", "stage_seconds", "qualifier", "repairs", "blob_files", "blob_bytes",
                   "entry", "notes"):  # fmt: skip
        store.conn.execute(f"ALTER TABLE smoke_runs DROP COLUMN {column}")


def test_a_store_from_before_snapshots_migrates_and_reports_the_same_table_x(
    tmp_path: Path,
) -> None:
    """A store whose schema predates snapshots is migrated on open; Table X is unchanged."""
    from report_study import build_store

    from miner.report import ReportOptions, write_report
    from miner.store.core import _migrations

    golden = Path(__file__).resolve().parents[1] / "golden" / "report" / "auto" / "coverage.md"
    snapshots = next(n for n, name, _ in _migrations() if name.endswith("_snapshots.sql"))
    before = max(n for n, _, _ in _migrations() if n < snapshots)
    path = tmp_path / "data" / "miner.db"
    build_store(path).close()
    with Store(path) as store:  # roll the schema back to the release before snapshots
        store.conn.execute("DROP TABLE snapshots")
        roll_back_smoke_ladder(store)
        for column in ("assists", "assist_evidence"):  # and the smoke columns added after it
            store.conn.execute(f"ALTER TABLE smoke_runs DROP COLUMN {column}")
        store.conn.execute(f"PRAGMA user_version = {before}")
    with Store(path) as store:
        assert store.schema_version == max(n for n, _, _ in _migrations())
        assert store.snapshot_rows() == []
        write_report(
            store,
            ReportOptions(
                kind="coverage",
                formats=("markdown",),
                output_dir=tmp_path / "reports",
                charts=False,
            ),
        )
    assert (tmp_path / "reports" / "coverage.md").read_text() == golden.read_text()
