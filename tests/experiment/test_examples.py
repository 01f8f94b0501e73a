"""The shipped examples at a few epochs: what the noise settings must show on each."""

from __future__ import annotations

import json
from pathlib import Path

from miner.experiment.analyze import analyze
from miner.experiment.run import run_experiment
from miner.experiment.settings import parse_settings


def test_numpy_control_is_bit_identical_and_algo_is_not(tiny_example, tmp_path):
    settings = parse_settings("control,algo")
    records = [e.record for e in run_experiment(tiny_example, tmp_path, (1,), settings, 2)]
    by = {s: {r.weights_sha256 for r in records if r.setting == s} for s in ("control", "algo")}
    assert len(by["control"]) == 1 and len(by["algo"]) == 2
    variance = analyze([tmp_path], None, plots=()).tables["variance"].frame.set_index("config")
    assert variance.loc["threads-01_control", "bit_identical"]
    assert variance.loc["threads-01_control", "churn"] == 0
    assert variance.loc["threads-01_algo", "weights_l2"] > 0


def test_cnn_control_identical_impl_differs_across_threads_algo_churns(
    torch_installed, tiny_cnn, tmp_path
):
    held = run_experiment(tiny_cnn, tmp_path, (1,), parse_settings("control,algo"), 2)
    across = run_experiment(tiny_cnn, tmp_path, (1, 2), parse_settings("impl"), 1)
    records = [e.record for e in [*held, *across]]
    assert all(r.status == "ok" for r in records), [r.error for r in records]
    for r in records:
        child = json.loads((Path(r.run_dir) / "metrics.json").read_text())
        assert child["deterministic_algorithms"] is r.deterministic  # seen inside the child
        assert child["threads"] == r.threads
        assert r.outputs["predictions"] and r.metrics["class_accuracy.9"] >= 0
    analysis = analyze([tmp_path], None, plots=())
    variance = analysis.tables["variance"].frame.set_index("config")
    assert variance.loc["threads-01_control", "bit_identical"]
    assert variance.loc["threads-01_algo", "churn"] > 0
    assert variance.loc["threads-01_algo", "weights_l2"] > 0
    between = analysis.tables["between"].frame
    threads = between[
        (between.config_a == "threads-01_impl") & (between.config_b == "threads-02_impl")
    ]
    assert not threads.iloc[0]["shared_weights"] and threads.iloc[0]["weights_l2"] > 0
    selection = analysis.tables["selection"].frame
    assert set(selection["mode"]) == {"best_val_loss", "best_val_accuracy", "last_epoch"}


def test_gpu_sized_cnn_embeds_pixels_and_reports_its_training_time(
    torch_installed, small_cnn_gpu, tmp_path
):
    manifest = small_cnn_gpu
    assert "--pixel-embedding" in manifest.run.command
    records = [
        e.record for e in run_experiment(manifest, tmp_path, (1,), parse_settings("control"), 2)
    ]
    assert all(r.status == "ok" for r in records), [r.error for r in records]
    assert len({r.weights_sha256 for r in records}) == 1
    child = json.loads((Path(records[0].run_dir) / "metrics.json").read_text())
    assert child["model"] == {"side": 16, "width": 8, "pixel_embedding": 16}
    assert 0 < records[0].metrics["train_seconds"] < records[0].wall_seconds
    variance = analyze([tmp_path], None, plots=()).tables["variance"].frame
    assert variance.iloc[0]["bit_identical"]


def test_pixel_embedding_is_an_index_select_that_learns(torch_installed):
    import torch

    from miner.examples.train_cnn import build_model

    torch.manual_seed(0)
    model = build_model(0.0, side=16, width=4, pixel_embedding=3)
    images = torch.tensor([0.0, 0.5, 1.0]).repeat(2, 1, 16, 16 // 3 + 1)[..., :16]
    logits = model(images)
    assert logits.shape == (2, 10)
    logits.sum().backward()
    table = model[0].table
    assert table.shape == (17, 3)
    used = table.grad.abs().sum(dim=1) > 0
    assert used.nonzero().flatten().tolist() == [0, 8, 16]  # only the levels in the images
