"""miner experiment run: real child processes, pinned and read back, recorded and resumable."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

import pytest

from miner.errors import ExperimentError
from miner.experiment.pinning import parse_cpu_list, parse_threads, pinning_for, usable_cpus
from miner.experiment.run import run_experiment
from miner.experiment.settings import parse_settings

IMPL = parse_settings("impl")
RANDOM = parse_settings("algo+impl")

CPUS = usable_cpus()
two_cpus = pytest.mark.skipif(len(CPUS) < 2, reason="needs two usable CPUs")


@two_cpus
def test_example_end_to_end_pins_threads_and_records_everything(tiny_example, tmp_path):
    events = list(run_experiment(tiny_example, tmp_path, (1, 2), parse_settings("impl,random"), 2))
    records = [e.record for e in events]
    assert len(records) == 8 and all(r.status == "ok" for r in records), [r.error for r in records]
    for r in records:
        expected = CPUS[: r.threads]
        assert r.cpus_requested == expected
        assert r.cpus_applied == expected  # read back by the child after sched_setaffinity
        assert tuple(r.child_report["affinity"]) == expected  # and by the training script
        assert r.child_report["workers"] == r.threads
        blas = {p["internal_api"]: p["num_threads"] for p in r.child_report["blas"]}
        assert blas.get("openblas", r.threads) == r.threads
        assert r.thread_env["OMP_NUM_THREADS"] == str(r.threads)
        assert r.libraries["numpy"]
        assert set(r.metrics) >= {"test_accuracy", "test_loss"}
        assert r.metric_sources["test_accuracy"] == "file"
        assert r.weights_sha256 and r.stdout_sha256 and r.wall_seconds > 0
        launch = json.loads((Path(r.run_dir) / "launch.json").read_text())
        assert launch["env"]["PYTHONHASHSEED"] == r.pythonhashseed
    one = [r for r in records if r.threads == 1]
    assert all(r.threads_observed_max in (None, 1) for r in one)  # no extra OS thread at 1
    by = {}
    for r in records:
        by.setdefault((r.threads, r.setting), set()).add(r.result_sha256)
    assert len(by[(1, "impl")]) == 1 and len(by[(2, "impl")]) == 1  # identical within a count
    assert by[(1, "impl")] != by[(2, "impl")]  # the reduction order changed
    assert len(by[(1, "algo+impl")]) == 2  # fresh seeds: runs differ
    assert {r.pythonhashseed for r in records if r.setting == "impl"} == {"0"}
    assert {r.seed_mode for r in records} == {"fixed", "random"}
    fresh = [r.seed for r in records if r.setting == "algo+impl"]
    assert len(set(fresh)) == 4 and 0 not in fresh  # recorded, one per run
    for r in records:
        assert set(r.metrics) >= {"class_accuracy.0", "selected.best_val_loss.test_accuracy"}
        assert r.outputs["predictions"] == "predictions.npy" and r.outputs["epochs"]
    with (tmp_path / "runs.csv").open(encoding="utf-8") as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 8 and rows[0]["metric_test_accuracy"]
    assert {row["cpus_applied"] for row in rows} == {str(CPUS[0]), f"{CPUS[0]} {CPUS[1]}"}


def test_resume_skips_finished_runs_and_reruns_lost_ones(tiny_example, tmp_path):
    first = [e.record for e in run_experiment(tiny_example, tmp_path, (1,), IMPL, 2)]
    again = list(run_experiment(tiny_example, tmp_path, (1,), IMPL, 3))
    assert [e.skipped for e in again] == [True, True, False]
    assert again[0].record == first[0]
    os.remove(Path(first[1].run_dir) / "run.json")  # as if the machine died mid-run
    (Path(first[1].run_dir) / "partial.tmp").write_text("x")
    third = list(run_experiment(tiny_example, tmp_path, (1,), IMPL, 3))
    assert [e.skipped for e in third] == [True, False, True]
    assert not (Path(first[1].run_dir) / "partial.tmp").exists()
    assert len((tmp_path / "runs.csv").read_text().splitlines()) == 4


def test_oversubscribed_threads_are_recorded(python, tmp_path, manifest_for):
    manifest = manifest_for("env", command=[python, "-c", "print('acc 1')"])
    threads = len(CPUS) + 2
    (event,) = run_experiment(manifest, tmp_path, (threads,), RANDOM, 1)
    record = event.record
    assert record.oversubscribed and record.cpus_applied == CPUS
    assert record.thread_env["OPENBLAS_NUM_THREADS"] == str(threads)
    assert record.seed not in (None, 0) and record.pythonhashseed != "0"


def test_failures_are_recorded_and_retried_on_request(python, tmp_path, manifest_for):
    manifest = manifest_for("fail", command=[python, "-c", "import sys; sys.exit(3)"])
    (event,) = run_experiment(manifest, tmp_path, (1,), IMPL, 1)
    assert (event.record.status, event.record.exit_code) == ("failed", 3)
    (again,) = run_experiment(manifest, tmp_path, (1,), IMPL, 1)
    assert again.skipped
    (retried,) = run_experiment(manifest, tmp_path, (1,), IMPL, 1, retry_failed=True)
    assert not retried.skipped


def test_timeout_kills_the_run(python, tmp_path, manifest_for):
    manifest = manifest_for(
        "slow", command=[python, "-c", "import time; time.sleep(30)"], timeout=0.5
    )
    (event,) = run_experiment(manifest, tmp_path, (1,), IMPL, 1)
    assert event.record.status == "timeout" and event.record.wall_seconds < 10


def test_seeds_reach_the_child_fixed_or_fresh(python, tmp_path, manifest_for):
    code = "import os, sys; print('seed', os.environ.get('MINER_SEED'), sys.argv[1:])"
    manifest = manifest_for(
        "seed", command=[python, "-c", code], seed_args=["--seed", "{seed}"], seed=7
    )
    settings = parse_settings("impl,algo+impl")
    records = [e.record for e in run_experiment(manifest, tmp_path, (1,), settings, 1)]
    logs = [(Path(r.run_dir) / "stdout.log").read_text() for r in records]
    assert logs[0].strip() == "seed 7 ['--seed', '7']"
    fresh = records[1].seed
    assert fresh != 7 and logs[1].strip() == f"seed {fresh} ['--seed', '{fresh}']"


def test_narrowed_algo_varies_only_its_own_seed(python, tmp_path, manifest_for):
    code = "import sys; print(sys.argv[1:])"
    manifest = manifest_for(
        "sources", command=[python, "-c", code], seed_args=["--seed", "{seed}"], seed=3,
        seed_sources={"init": ["--init", "{seed}"], "data": ["--data", "{seed}"]},
    )  # fmt: skip
    (event,) = run_experiment(manifest, tmp_path, (1,), parse_settings("init"), 1)
    record = event.record
    init = record.seeds["init"]
    assert init != 3 and (record.seeds["data"], record.seeds["dropout"], record.seed) == (3, 3, 3)
    log = (Path(record.run_dir) / "stdout.log").read_text().strip()
    assert log == str(["--seed", "3", "--init", str(init), "--data", "3"])
    assert record.setting == "init" and record.deterministic
    with pytest.raises(ExperimentError, match="separate seed for dropout"):
        list(run_experiment(manifest, tmp_path / "b", (1,), parse_settings("dropout"), 1))


def test_relative_out_folder_is_made_absolute(python, tmp_path, manifest_for, monkeypatch):
    monkeypatch.chdir(tmp_path)
    manifest = manifest_for("rel", command=[python, "-c", "import os; print(os.getcwd())"])
    (event,) = run_experiment(manifest, Path("runs"), (1,), IMPL, 1)
    assert Path(event.record.run_dir).is_absolute()
    assert (tmp_path / "runs" / "runs.csv").exists()


def test_another_manifest_needs_another_folder(python, tmp_path, manifest_for):
    list(run_experiment(manifest_for("a", command=[python, "-c", "0"]), tmp_path, (1,), IMPL, 1))
    with pytest.raises(ExperimentError, match="different manifest"):
        list(
            run_experiment(manifest_for("b", command=[python, "-c", "0"]), tmp_path, (1,), IMPL, 1)
        )


def test_pinning_helpers():
    pin = pinning_for(3, (4, 5))
    assert pin.cpus == (4, 5) and pin.oversubscribed and pin.env()["TF_NUM_INTEROP_THREADS"] == "3"
    assert pinning_for(1, (4, 5)).cpus == (4,)
    assert parse_threads("1,2,6,12,2") == (1, 2, 6, 12)
    assert parse_cpu_list("0-2,5") == (0, 1, 2, 5)
    with pytest.raises(ExperimentError):
        parse_threads("1,zero")
