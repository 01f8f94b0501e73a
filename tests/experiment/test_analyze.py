"""miner experiment analyze: statistics checked against numpy/scipy, hashes, plots, formats."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest
from scipy.stats import mannwhitneyu

from miner.errors import ExperimentError
from miner.experiment.analyze import analyze
from miner.experiment.records import RunRecord, write_record, write_runs_csv

ACCURACY = {
    (1, "fixed"): [0.90, 0.90, 0.90, 0.90],
    (2, "fixed"): [0.91, 0.91, 0.91, 0.91],
    (1, "default"): [0.88, 0.905, 0.87, 0.893],
    (2, "default"): [0.92, 0.915, 0.931, 0.899],
}
WALL = [1.0, 1.5, 1.25, 2.0]


def record(folder: Path, threads: int, mode: str, run: int, acc: float, status: str = "ok") -> None:
    """Write one synthetic run.json; fixed-seed runs share a weights hash per thread count."""
    config = f"threads-{threads:02d}_{mode}"
    run_dir = folder / config / f"run-{run:03d}"
    run_dir.mkdir(parents=True)
    digest = f"w{threads}" if mode == "fixed" else f"w{threads}-{run}"
    write_record(
        RunRecord(
            experiment="demo", config=config, threads=threads, seed_mode=mode, run=run,
            seed=0 if mode == "fixed" else None, pythonhashseed="0", status=status,
            exit_code=0 if status == "ok" else 1, wall_seconds=WALL[(run - 1) % 4],
            cpu_user_seconds=1.0, cpu_system_seconds=0.1, max_rss_kb=1000,
            cpus_requested=(0,), cpus_applied=(0,), cpus_observed=(0,), threads_observed_max=1,
            oversubscribed=False, machine_cpus=2, thread_env={"OMP_NUM_THREADS": str(threads)},
            started_at="t0", finished_at="t1", command="python train.py", run_dir=str(run_dir),
            stdout_sha256=digest, stderr_sha256="e", weights_sha256=digest, result_sha256=digest,
            metrics={"accuracy": acc},
        ),
        run_dir,
    )  # fmt: skip


@pytest.fixture
def experiment(tmp_path: Path) -> Path:
    folder = tmp_path / "demo"
    for (threads, mode), values in ACCURACY.items():
        for run, acc in enumerate(values, start=1):
            record(folder, threads, mode, run, acc)
    record(folder, 2, "default", 5, 0.1, status="failed")
    write_runs_csv(folder)
    return folder


def test_summary_matches_numpy(experiment, tmp_path):
    result = analyze([experiment], tmp_path / "out", ("json",), plots=())
    rows = result.summary.frame
    for (threads, mode), values in ACCURACY.items():
        row = rows[
            (rows.threads == threads) & (rows.seed_mode == mode) & (rows.measure == "accuracy")
        ]
        row = row.iloc[0]
        assert row["n"] == 4  # the failed run is left out
        assert row["mean"] == pytest.approx(np.mean(values))
        assert row["sd"] == pytest.approx(np.std(values, ddof=1))
        assert row["max_diff"] == pytest.approx(max(values) - min(values))
        assert (row["min"], row["max"]) == (pytest.approx(min(values)), pytest.approx(max(values)))
    wall = rows[
        (rows.measure == "wall_seconds") & (rows.threads == 1) & (rows.seed_mode == "fixed")
    ]
    assert wall.iloc[0]["mean"] == pytest.approx(np.mean(WALL))
    assert result.failed == 1 and result.runs == 17


def test_mann_whitney_matches_scipy(experiment, tmp_path):
    result = analyze([experiment], None, plots=())
    tests = result.tests.frame
    acc = tests[tests.measure == "accuracy"]
    pairs = {(r.config_a, r.config_b) for r in acc.itertuples()}
    assert ("threads-01_default", "threads-02_default") in pairs
    assert ("threads-01_default", "threads-02_fixed") not in pairs  # two factors apart
    row = acc[(acc.config_a == "threads-01_default") & (acc.config_b == "threads-02_default")]
    expected = mannwhitneyu(
        ACCURACY[(1, "default")], ACCURACY[(2, "default")], alternative="two-sided"
    )
    assert row.iloc[0]["u"] == pytest.approx(expected.statistic)
    assert row.iloc[0]["p_value"] == pytest.approx(expected.pvalue, abs=1e-6)


def test_identical_results_within_and_across_configs(experiment):
    result = analyze([experiment], None, plots=())
    table = result.identical.frame.set_index("config")
    assert bool(table.loc["threads-01_fixed", "all_identical"])
    assert table.loc["threads-01_default", "distinct_results"] == 4
    assert result.shared.frame.empty
    assert "threads-01_fixed: all identical." in result.findings
    assert (
        "demo, fixed seed across thread counts: 1 vs 2 threads: different results."
        in result.findings
    )


def test_files_in_every_format_and_plots(experiment, tmp_path):
    out = tmp_path / "out"
    result = analyze([experiment], out, ("markdown", "csv", "latex", "json"), plots=("png", "pdf"))
    assert (out / "summary.tex").read_text().count(r"\toprule") == 1
    assert json.loads((out / "identical.json").read_text())["rows"][0]["config"]
    assert (out / "plots" / "accuracy.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "plots" / "wall_seconds.pdf").read_bytes()[:4] == b"%PDF"
    assert len(result.files) == 16 + 4


def test_missing_runs_is_an_error(tmp_path):
    with pytest.raises(ExperimentError, match="no runs.csv"):
        analyze([tmp_path], None)
