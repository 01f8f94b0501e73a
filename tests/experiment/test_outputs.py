"""Per-epoch rows, model selection, predictions and weights as the launcher collects them."""

from __future__ import annotations

import numpy as np
import pytest

from miner.experiment.arrays import read_classes, read_weight_files, read_weights
from miner.experiment.outputs import (
    collect_predictions,
    parse_epochs,
    per_class_accuracy,
    read_epochs_file,
    select_models,
)

LOG = """\
epoch 1 val_loss 0.5 val_accuracy 0.80 test_accuracy 0.70
noise
epoch 2 val_loss 0.3 val_accuracy 0.85 test_accuracy 0.75
epoch 3 val_loss 0.4 val_accuracy 0.90 test_accuracy 0.72
"""
PATTERN = (
    r"^epoch (?P<epoch>\d+) val_loss (?P<val_loss>\S+) val_accuracy (?P<val_accuracy>\S+) "
    r"test_accuracy (?P<test_accuracy>\S+)"
)


def test_epochs_and_the_three_selection_modes(tmp_path):
    rows = parse_epochs(LOG, PATTERN)
    assert [r["epoch"] for r in rows] == [1, 2, 3]
    selected = select_models(rows)
    assert selected["selected.best_val_loss.test_accuracy"] == 0.75
    assert selected["selected.best_val_loss.epoch"] == 2
    assert selected["selected.best_val_accuracy.test_accuracy"] == 0.72
    assert selected["selected.last_epoch.test_accuracy"] == 0.72
    csv_file = tmp_path / "log.csv"
    csv_file.write_text("epoch,val_loss,test_accuracy\n1,0.5,0.7\n2,0.2,0.6\n")
    from_file = select_models(read_epochs_file(csv_file))
    assert from_file["selected.best_val_loss.test_accuracy"] == 0.6
    assert "selected.best_val_accuracy.test_accuracy" not in from_file  # no val accuracy logged
    lines = tmp_path / "log.jsonl"
    lines.write_text('{"epoch": 1, "val_accuracy": 0.5, "test_accuracy": 0.4}\nbroken\n')
    assert read_epochs_file(lines) == [{"epoch": 1, "val_accuracy": 0.5, "test_accuracy": 0.4}]


def test_per_class_accuracy_by_hand():
    labels = [0, 0, 1, 1, 1, 2]
    predictions = [0, 1, 1, 1, 0, 0]
    assert per_class_accuracy(predictions, labels) == {
        "0": pytest.approx(0.5), "1": pytest.approx(2 / 3), "2": 0.0,
    }  # fmt: skip


def test_collect_predictions_from_scores_and_text(tmp_path):
    scores = tmp_path / "scores.npy"
    np.save(scores, np.array([[0.9, 0.1], [0.2, 0.8], [0.6, 0.4]]))
    labels = tmp_path / "labels.csv"
    labels.write_text("0\n1\n1\n")
    run_dir = tmp_path / "run"
    run_dir.mkdir()
    metrics, problem = collect_predictions(scores, labels, run_dir)
    assert problem is None
    assert metrics == {
        "class_accuracy.0": 1.0, "class_accuracy.1": 0.5,
        "prediction_accuracy": pytest.approx(2 / 3),
    }  # fmt: skip
    assert np.load(run_dir / "predictions.npy").tolist() == [0, 1, 0]
    short = tmp_path / "short.json"
    short.write_text("[0, 1]")
    assert collect_predictions(scores, short, run_dir)[1] == "3 predictions for 2 labels"
    assert "missing" in collect_predictions(tmp_path / "none.npy", None, run_dir)[1]
    assert read_classes(tmp_path / "none.npy") is None


def test_weights_from_npy_sequences_and_npz(tmp_path):
    seq = tmp_path / "w.npy"
    with seq.open("wb") as fh:
        np.save(fh, np.array([[1.0, 2.0]], dtype=np.float32))
        np.save(fh, np.array([3.0]))
    assert read_weights(seq).tolist() == [1.0, 2.0, 3.0]
    archive = tmp_path / "w.npz"
    np.savez(archive, b=np.array([5.0]), a=np.array([4.0]))
    assert read_weights(archive).tolist() == [4.0, 5.0]  # in name order
    assert read_weight_files([archive, seq]).tolist() == [1.0, 2.0, 3.0, 4.0, 5.0]  # path order
    assert read_weights(tmp_path / "w.h5") is None


def test_weights_from_a_torch_checkpoint(torch_installed, tmp_path):
    import torch

    path = tmp_path / "model.pt"
    torch.save({"state_dict": {"b": torch.tensor([2.0]), "a": torch.tensor([[1.0]])}}, path)
    assert read_weights(path).tolist() == [1.0, 2.0]
