"""Boxplots of an experiment's runs: per configuration, and per factor (setting, threads,
device) pooling the other factors, each run overlaid as a point."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miner.experiment.records import METRIC_PREFIX
from miner.experiment.tables import FACTORS, configs, headline_measures, primary_accuracy, rank

if TYPE_CHECKING:
    import pandas as pd

TIME = "wall_seconds"


def _draw(groups: list[tuple[str, list[float]]], name: str, title: str, path_stem: Path,
          kinds: tuple[str, ...]) -> list[Path]:  # fmt: skip
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    labels = [g for g, _ in groups]
    data = [values for _, values in groups]
    fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(groups) + 1.5), 3.6))
    ax.boxplot(data, showmeans=True)
    for i, values in enumerate(data, start=1):
        ax.plot([i] * len(values), values, "o", alpha=0.5, markersize=4)
    ax.set_xticks(range(1, len(labels) + 1), labels, rotation=20, ha="right", fontsize=8)
    ax.set_ylabel(name)
    ax.set_title(title)
    ax.ticklabel_format(axis="y", useOffset=False)
    fig.tight_layout()
    written = []
    for kind in kinds:
        path = path_stem.with_suffix(f".{kind}")
        fig.savefig(path)
        written.append(path)
    plt.close(fig)
    return written


def _level_key(factor: str) -> Callable[[Any], Any]:
    if factor == "setting":
        return lambda v: rank(str(v))
    return lambda v: (str(type(v)), v)


def boxplots(ok: pd.DataFrame, out_dir: Path, kinds: tuple[str, ...]) -> list[Path]:
    """`<measure>.<kind>` per configuration for every headline measure, and
    `<measure>_by_<factor>.<kind>` for overall accuracy and time per factor with 2+ levels."""
    out_dir.mkdir(parents=True, exist_ok=True)
    written: list[Path] = []
    for measure in headline_measures(ok):
        groups = [(g, part[measure].dropna().astype(float).tolist()) for g, part in configs(ok)]
        if not any(values for _, values in groups):
            continue
        name = measure.removeprefix(METRIC_PREFIX)
        written += _draw(groups, name, f"{name} per configuration", out_dir / name, kinds)
    accuracy = primary_accuracy(ok)
    for measure in [m for m in (accuracy, TIME) if m]:
        name = measure.removeprefix(METRIC_PREFIX)
        for factor in FACTORS:
            levels = sorted(ok[factor].unique(), key=_level_key(factor))
            if len(levels) < 2:
                continue
            groups = [
                (str(level), ok.loc[ok[factor] == level, measure].dropna().astype(float).tolist())
                for level in levels
            ]
            written += _draw(groups, name, f"{name} by {factor}",
                             out_dir / f"{name}_by_{factor}", kinds)  # fmt: skip
    return written
