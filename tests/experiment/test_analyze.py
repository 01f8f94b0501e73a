"""miner experiment analyze on hand-made runs: every table's figures against hand-worked values."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy.stats import levene

from miner.errors import ExperimentError
from miner.experiment.analyze import analyze
from miner.experiment.records import RunRecord, write_record, write_runs_csv

LABELS = [0, 0, 1, 1]
# (threads, setting): per run (accuracy, wall seconds, predictions, weights, weights hash)
RUNS = {
    (1, "control"): [(0.9, 2.0, [0, 1, 1, 0], [0, 0], "wc")] * 3,
    (1, "impl"): [(0.9, 1.0, [0, 1, 1, 0], [0, 0], "wc")] * 3,
    (2, "impl"): [(0.95, 1.5, [0, 1, 1, 1], [3, 4], "w2")] * 3,
    (1, "algo"): [
        (0.8, 2.0, [0, 0, 0, 0], [0, 0], "a1"),
        (0.9, 2.5, [0, 0, 1, 1], [3, 4], "a2"),
        (1.0, 3.0, [1, 1, 1, 1], [6, 8], "a3"),
    ],
}


def record(folder: Path, threads: int, setting: str, run: int, values, predictions=True,
           status: str = "ok") -> None:  # fmt: skip
    """One run.json with its predictions and weights files, as the runner leaves them."""
    acc, wall, predicted, weights, digest = values
    config = f"threads-{threads:02d}_{setting}"
    run_dir = folder / config / f"run-{run:03d}"
    run_dir.mkdir(parents=True)
    np.save(run_dir / "weights.npy", np.array(weights, dtype=np.float32))
    outputs = {"weights_dir": "."}
    # the project's own training time: wall time less a second of start-up
    metrics = {
        "test_accuracy": acc, "selected.last_epoch.test_accuracy": acc,
        "train_seconds": wall - 0.5,
    }  # fmt: skip
    if predictions:
        np.save(run_dir / "predictions.npy", np.array(predicted))
        outputs["predictions"] = "predictions.npy"
        for label in (0, 1):
            hits = [p == label for p, t in zip(predicted, LABELS, strict=True) if t == label]
            metrics[f"class_accuracy.{label}"] = sum(hits) / len(hits)
    write_record(
        RunRecord(
            experiment=folder.name, config=config, threads=threads, setting=setting, run=run,
            seed=0, pythonhashseed="0", status=status, exit_code=0 if status == "ok" else 1,
            wall_seconds=wall, cpu_user_seconds=1.0, cpu_system_seconds=0.1, max_rss_kb=1000,
            cpus_requested=(0,), cpus_applied=(0,), cpus_observed=(0,), threads_observed_max=1,
            oversubscribed=False, machine_cpus=2, thread_env={"OMP_NUM_THREADS": str(threads)},
            started_at="t0", finished_at="t1", command="python train.py", run_dir=str(run_dir),
            stdout_sha256=digest, stderr_sha256="e", weights={"weights.npy": digest},
            weights_sha256=digest, result_sha256=digest, metrics=metrics,
            deterministic="impl" not in setting, outputs=outputs,
        ),
        run_dir,
    )  # fmt: skip


def make_experiment(folder: Path, predictions: bool = True) -> Path:
    for (threads, setting), runs in RUNS.items():
        for run, values in enumerate(runs, start=1):
            record(folder, threads, setting, run, values, predictions)
    record(folder, 1, "algo", 4, (0.1, 9.0, [0] * 4, [0, 0], "x"), predictions, status="failed")
    write_runs_csv(folder)
    return folder


@pytest.fixture
def experiment(tmp_path: Path) -> Path:
    return make_experiment(tmp_path / "demo")


def _row(frame, **where):
    for key, value in where.items():
        frame = frame[frame[key] == value]
    assert len(frame) == 1, where
    return frame.iloc[0]


def test_variance_per_configuration(experiment):
    result = analyze([experiment], None, plots=())
    table = result.tables["variance"].frame
    control = _row(table, config="threads-01_control")
    assert control["bit_identical"] and control["distinct_weights"] == 1
    assert (control["churn"], control["agreement"], control["weights_l2"]) == (0.0, 1.0, 0.0)
    algo = _row(table, config="threads-01_algo")
    assert algo["runs"] == 3 and not algo["bit_identical"]  # the failed run is left out
    assert algo["churn"] == pytest.approx(2 / 3, abs=1e-6)  # pairs: 0.5, 1.0, 0.5
    assert algo["agreement"] == pytest.approx(1 / 3, abs=1e-6)
    assert algo["weights_l2"] == pytest.approx(20 / 3, rel=1e-5)  # distances 5, 10, 5
    assert algo["accuracy_sd"] == pytest.approx(0.1) and algo["accuracy_max_diff"] == 0.2
    assert algo["class_max_diff"] == 1.0  # class 0: 1.0, 1.0, 0.0
    assert algo["time_max_diff_pct"] == pytest.approx(40.0)  # (3.0 - 2.0) / 2.5
    assert result.failed == 1 and result.runs == 13
    per_class = result.tables["per_class"].frame
    assert _row(per_class, config="threads-01_algo", **{"class": "1"})["max_diff"] == 1.0


def test_tests_between_configurations(experiment):
    tests = analyze([experiment], None, plots=()).tables["tests"].frame
    wall = _row(tests, measure="wall_seconds", config_a="threads-01_control",
                config_b="threads-01_algo")  # fmt: skip
    assert wall["factor"] == "setting"
    # means 2.0 and 2.5, variances 0 and 0.25 -> pooled (2 * 0.25) / 4 = 0.125
    assert wall["cohen_d"] == pytest.approx(-0.5 / np.sqrt(0.125))
    assert wall["levene_w"] == pytest.approx(levene([2.0] * 3, [2.0, 2.5, 3.0]).statistic)
    pairs = set(zip(tests["config_a"], tests["config_b"], strict=True))
    assert ("threads-01_algo", "threads-02_impl") not in pairs  # two factors apart
    threads = _row(tests, measure="test_accuracy", config_a="threads-01_impl",
                   config_b="threads-02_impl")  # fmt: skip
    assert threads["factor"] == "threads" and pd.isna(threads["cohen_d"])  # no spread in either


def test_between_overhead_threads_and_selection(experiment):
    tables = analyze([experiment], None, plots=()).tables
    between = tables["between"].frame
    threads = _row(between, config_a="threads-01_impl", config_b="threads-02_impl")
    assert (threads["churn"], threads["weights_l2"], threads["shared_weights"]) == (
        0.25,
        5.0,
        False,
    )
    assert _row(between, config_a="threads-01_control", config_b="threads-01_impl")[
        "shared_weights"
    ]
    overhead = _row(
        tables["overhead"].frame, deterministic="threads-01_control", measure="wall_seconds"
    )
    assert overhead["nondeterministic"] == "threads-01_impl"
    assert (overhead["overhead_pct"], overhead["ci_low"], overhead["ci_high"]) == (100, 100, 100)
    assert overhead["median_overhead_pct"] == 100
    # on the training time alone (1.5 s against 0.5 s) the same kernels cost three times as much
    training = _row(
        tables["overhead"].frame, deterministic="threads-01_control", measure="train_seconds"
    )
    assert (training["time_det"], training["time_nondet"]) == (1.5, 0.5)
    assert training["overhead_pct"] == training["median_overhead_pct"] == 200
    trade = tables["threads"].frame
    assert _row(trade, setting="impl", threads=2)["speedup"] == pytest.approx(0.667)
    selection = _row(tables["selection"].frame, config="threads-01_algo", mode="last_epoch")
    assert selection["max_diff"] == pytest.approx(0.2)


def test_findings(experiment):
    found = analyze([experiment], None, plots=()).findings
    assert "threads-01_control: bit-identical (one weights hash), mean churn 0.0000." in found
    assert "threads-01_algo: 3 distinct weights in 3 runs, mean churn 0.6667." in found
    assert (
        "demo, impl, fixed seeds across thread counts: 1 vs 2 threads: different results." in found
    )


def test_runs_without_predictions_mark_columns_missing(tmp_path):
    folder = make_experiment(tmp_path / "bare", predictions=False)
    result = analyze([folder], tmp_path / "out", ("csv",), plots=())
    variance = result.tables["variance"]
    algo = _row(variance.frame, config="threads-01_algo")
    assert (algo["churn"], algo["agreement"], algo["class_max_diff"]) == ("missing",) * 3
    assert algo["weights_l2"] == pytest.approx(20 / 3, rel=1e-5)  # weights are still there
    assert any("churn, agreement: missing" in note for note in variance.notes)
    assert result.tables["per_class"].frame.empty
    assert "missing" in (tmp_path / "out" / "between.csv").read_text()


def test_files_in_every_format_and_plots_per_factor(experiment, tmp_path):
    out = tmp_path / "out"
    result = analyze([experiment], out, ("markdown", "csv", "latex", "json"), plots=("png",))
    assert (out / "variance.tex").read_text().count(r"\toprule") == 1
    assert json.loads((out / "overhead.json").read_text())["rows"][0]["overhead_pct"] == 100
    assert (out / "plots" / "test_accuracy_by_setting.png").read_bytes()[:4] == b"\x89PNG"
    assert (out / "plots" / "wall_seconds_by_threads.png").exists()
    assert not (out / "plots" / "wall_seconds_by_device.png").exists()  # one device only
    assert len([f for f in result.files if f.suffix != ".png"]) == 10 * 4


def test_missing_runs_is_an_error(tmp_path):
    with pytest.raises(ExperimentError, match="no runs.csv"):
        analyze([tmp_path], None)


def test_a_run_whose_weights_are_nan_is_counted_diverged_and_kept_out_of_distances(tmp_path):
    folder = make_experiment(tmp_path / "demo")
    first = folder / "threads-01_algo" / "run-001" / "weights.npy"
    np.save(first, np.array([np.nan, 0], dtype=np.float32))  # the loss went to NaN
    result = analyze([folder], None, plots=())
    algo = _row(result.tables["variance"].frame, config="threads-01_algo")
    assert algo["diverged"] == 1
    assert algo["weights_l2"] == pytest.approx(5.0)  # [3, 4] to [6, 8]; the NaN run left out
    assert _row(result.tables["variance"].frame, config="threads-01_impl")["diverged"] == 0
    assert (
        "threads-01_algo: 3 distinct weights in 3 runs, mean churn 0.6667; 1 of 3 runs diverged"
        " (NaN or infinite weights), left out of the weight distance." in result.findings
    )
