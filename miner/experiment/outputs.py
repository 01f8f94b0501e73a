"""Collect a run's per-epoch metrics and test predictions, where the manifest says they are.

`run.epoch_pattern` is a regex with named groups matched on every line of the output (e.g.
`epoch (?P<epoch>\\d+) .* val_loss (?P<val_loss>\\S+) .* test_accuracy (?P<test_accuracy>\\S+)`);
`run.epochs_file` is a CSV with a header, or JSON lines, with one row per epoch. The rows are
kept as `epochs.csv` in the run folder, and the three model-selection modes of Pham et al. are
read off them: the epoch with the best validation loss, the one with the best validation
accuracy, and the last one, each giving its `test_*` values.

`run.predictions` (and `run.labels`) name the files the project writes its test predictions (and
the true classes) to; the launcher copies them into the run folder as `predictions.npy` and
`labels.npy` and adds the accuracy of every class to the run's metrics.
"""

from __future__ import annotations

import csv
import json
import math
import re
from pathlib import Path
from typing import Any

from miner.experiment.arrays import read_classes

EPOCHS_CSV = "epochs.csv"
PREDICTIONS = "predictions.npy"
LABELS = "labels.npy"
SELECTION_MODES = ("best_val_loss", "best_val_accuracy", "last_epoch")


def _float(value: Any) -> float | None:
    try:
        number = float(str(value).strip().rstrip("%"))
    except (TypeError, ValueError):
        return None
    return number if math.isfinite(number) else None


def parse_epochs(text: str, pattern: str) -> list[dict[str, float]]:
    """One row per output line matching `pattern`, its named groups as numbers."""
    rows = []
    for match in re.finditer(pattern, text, flags=re.MULTILINE):
        row = {k: _float(v) for k, v in match.groupdict().items() if v is not None}
        clean = {k: v for k, v in row.items() if v is not None}
        if clean:
            rows.append(clean)
    return rows


def read_epochs_file(path: Path) -> list[dict[str, float]]:
    """Rows of a per-epoch CSV (with header) or JSON-lines file; [] when missing or unreadable."""
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    raw: list[dict[str, Any]] = []
    if path.suffix.lower() in (".jsonl", ".json", ".ndjson"):
        for line in text.splitlines():
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if isinstance(item, dict):
                raw.append(item)
    else:
        raw = list(csv.DictReader(text.splitlines()))
    rows = []
    for item in raw:
        row = {str(k): _float(v) for k, v in item.items()}
        clean = {k: v for k, v in row.items() if v is not None}
        if clean:
            rows.append(clean)
    return rows


def write_epochs(rows: list[dict[str, float]], run_dir: Path) -> Path:
    """epochs.csv in the run folder, one column per name seen."""
    columns: dict[str, None] = {}
    for row in rows:
        columns.update(dict.fromkeys(row))
    path = run_dir / EPOCHS_CSV
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.DictWriter(fh, fieldnames=list(columns), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
    return path


def select_models(rows: list[dict[str, float]]) -> dict[str, float]:
    """`selected.<mode>.<test measure>` and `.epoch` for each model-selection mode that the
    rows allow (best validation loss, best validation accuracy, last epoch)."""
    if not rows:
        return {}
    targets = sorted({k for row in rows for k in row if k.startswith("test_")})
    chosen: dict[str, int] = {"last_epoch": len(rows) - 1}
    losses = [(r["val_loss"], i) for i, r in enumerate(rows) if "val_loss" in r]
    if losses:
        chosen["best_val_loss"] = min(losses)[1]  # ties: the earliest epoch
    accuracies = [(-r["val_accuracy"], i) for i, r in enumerate(rows) if "val_accuracy" in r]
    if accuracies:
        chosen["best_val_accuracy"] = min(accuracies)[1]
    out: dict[str, float] = {}
    for mode in SELECTION_MODES:
        if mode not in chosen:
            continue
        row = rows[chosen[mode]]
        out[f"selected.{mode}.epoch"] = row.get("epoch", float(chosen[mode] + 1))
        for target in targets:
            if target in row:
                out[f"selected.{mode}.{target}"] = row[target]
    return out


def per_class_accuracy(predictions: Any, labels: Any) -> dict[str, float]:
    """Accuracy within each true class (the share of its examples predicted as it)."""
    import numpy as np

    pred, true = np.asarray(predictions), np.asarray(labels)
    return {
        str(int(c)): float(np.mean(pred[true == c] == c)) for c in np.unique(true)
    }  # fmt: skip


def collect_predictions(
    predictions: Path | None, labels: Path | None, run_dir: Path
) -> tuple[dict[str, float], str | None]:
    """Copy predictions and labels into the run folder; (per-class metrics, problem or None)."""
    import numpy as np

    if predictions is None:
        return {}, None
    pred = read_classes(predictions, "predictions")
    if pred is None:
        return {}, f"predictions: {predictions.name} missing or unreadable"
    np.save(run_dir / PREDICTIONS, pred)
    if labels is None:
        return {}, None
    true = read_classes(labels, "labels")
    if true is None:
        return {}, f"labels: {labels.name} missing or unreadable"
    np.save(run_dir / LABELS, true)
    if len(true) != len(pred):
        return {}, f"{len(pred)} predictions for {len(true)} labels"
    metrics = {f"class_accuracy.{c}": v for c, v in per_class_accuracy(pred, true).items()}
    metrics["prediction_accuracy"] = float(np.mean(pred == true))
    return metrics, None
