"""The analysis tables, one DataFrame each, built from the runs that finished (runs.csv rows)
and the arrays they left behind (predictions, weights).

A configuration is one (setting, threads, device) of one experiment. Two configurations are
compared when they differ in exactly one of those factors. Columns whose inputs no run recorded
(no predictions: churn; no readable weights: L2) hold the word `missing`.
"""

from __future__ import annotations

import itertools
import json
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miner.errors import ExperimentError
from miner.experiment import stats
from miner.experiment.arrays import read_classes, read_weight_files
from miner.experiment.outputs import SELECTION_MODES
from miner.experiment.records import METRIC_PREFIX, RUN_FILE
from miner.experiment.settings import setting_rank

if TYPE_CHECKING:
    import numpy as np
    import pandas as pd

TIME = "wall_seconds"
# The training time a project reports itself (the example's `train_seconds`): start-up, data
# loading and evaluation left out, which on a GPU can outweigh the training steps.
TRAIN_TIME = f"{METRIC_PREFIX}train_seconds"
FACTORS = ("setting", "threads", "device")
MISSING = "missing"
CLASS_PREFIX = f"{METRIC_PREFIX}class_accuracy."
SELECTED_PREFIX = f"{METRIC_PREFIX}selected."


def headline_measures(runs: pd.DataFrame) -> list[str]:
    """Run-level metrics (not per class, not per selection mode), then wall time."""
    metrics = [
        c for c in runs.columns
        if c.startswith(METRIC_PREFIX) and not c.startswith((CLASS_PREFIX, SELECTED_PREFIX))
    ]  # fmt: skip
    return [*metrics, TIME]


def primary_accuracy(runs: pd.DataFrame) -> str | None:
    """The overall accuracy column: test accuracy, else from predictions, else any accuracy."""
    for name in ("metric_test_accuracy", "metric_prediction_accuracy"):
        if name in runs.columns and runs[name].notna().any():
            return name
    found = [c for c in headline_measures(runs) if "acc" in c and runs[c].notna().any()]
    return found[0] if found else None


def configs(ok: pd.DataFrame) -> list[tuple[str, pd.DataFrame]]:
    """(group, its runs) in a stable order: experiment, device, setting, threads."""
    firsts = ok.drop_duplicates("group")
    keys = {
        row.group: (row.experiment, row.device, rank(row.setting), int(row.threads))
        for row in firsts.itertuples(index=False)
    }
    return [(g, ok[ok["group"] == g]) for g in sorted(keys, key=keys.__getitem__)]


def rank(setting: str) -> tuple[int, int, tuple[int, ...]]:
    """Sort key of a setting name; names this version does not know sort last."""
    try:
        return setting_rank(setting)
    except ExperimentError:  # a name this version does not know: after the known ones
        return (9, 9, ())


def _factors(part: pd.DataFrame) -> dict[str, Any]:
    row = part.iloc[0]
    return {"config": row["group"], "setting": row["setting"], "threads": int(row["threads"]),
            "device": row["device"]}  # fmt: skip


def one_factor_pairs(ok: pd.DataFrame) -> list[tuple[str, str, str]]:
    """(group a, group b, the factor they differ in) for every comparable pair."""
    groups = configs(ok)
    out = []
    for (a, pa), (b, pb) in itertools.combinations(groups, 2):
        ra, rb = pa.iloc[0], pb.iloc[0]
        if ra["experiment"] != rb["experiment"]:
            continue
        differ = [f for f in FACTORS if ra[f] != rb[f]]
        if len(differ) == 1:
            out.append((a, b, differ[0]))
    return out


class Artifacts:
    """Predictions and weight vectors of each run, read once, on first use."""

    def __init__(self, ok: pd.DataFrame) -> None:
        self.ok = ok

    @cache  # noqa: B019 - one instance per analysis; it lives only as long as that
    def predictions(self, index: int) -> np.ndarray | None:
        """The run's predicted classes, or None when it saved none."""
        row = self.ok.loc[index]
        name = row.get("predictions")
        if not isinstance(name, str) or not name:
            return None
        return read_classes(Path(row["run_dir"]) / name)

    @cache  # noqa: B019
    def weights(self, index: int) -> np.ndarray | None:
        """The run's trained weights as one vector, or None when they cannot be read."""
        row = self.ok.loc[index]
        folder = row.get("weights_dir")
        if not isinstance(folder, str) or not folder:
            return None
        run_dir = Path(row["run_dir"])
        try:
            record = json.loads((run_dir / RUN_FILE).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        files = [run_dir / folder / rel for rel in sorted(record.get("weights") or {})]
        return read_weight_files(files) if files else None

    def churn_of(self, left: pd.DataFrame, right: pd.DataFrame | None = None) -> dict[str, Any]:
        """Mean churn and agreement within one configuration, or across two."""
        a = [p for i in left.index if (p := self.predictions(i)) is not None]
        b = (
            a
            if right is None
            else [p for i in right.index if (p := self.predictions(i)) is not None]
        )
        try:
            if right is None:
                value = stats.mean_pairwise(a, stats.churn) if len(a) > 1 else None
            else:
                value = stats.mean_cross(a, b, stats.churn) if a and b else None
        except ValueError:
            value = None
        if value is None:
            return {"churn": MISSING, "agreement": MISSING}
        return {"churn": stats.clean(value, 6), "agreement": stats.clean(1 - value, 6)}

    @cache  # noqa: B019 - asked per table and per pair of configurations
    def diverged(self, index: int) -> bool:
        """The run's trained weights hold NaN or infinity: training diverged (its metrics were
        dropped as not finite, and its weights would make every distance NaN)."""
        import numpy as np

        vector = self.weights(index)
        return vector is not None and not bool(np.all(np.isfinite(vector)))

    def l2_of(self, left: pd.DataFrame, right: pd.DataFrame | None = None) -> Any:
        """Mean pairwise L2 distance of trained weights within one configuration or across;
        runs that diverged are left out."""
        a = self._finite_weights(left)
        b = a if right is None else self._finite_weights(right)
        try:
            if right is None:
                value = stats.mean_pairwise(a, stats.l2_distance) if len(a) > 1 else None
            else:
                value = stats.mean_cross(a, b, stats.l2_distance) if a and b else None
        except ValueError:
            value = None
        return MISSING if value is None else stats.significant(value, 6)

    def _finite_weights(self, runs: pd.DataFrame) -> list[np.ndarray]:
        return [
            w for i in runs.index if (w := self.weights(i)) is not None and not self.diverged(i)
        ]


def summary_table(ok: pd.DataFrame) -> pd.DataFrame:
    """Per configuration and measure: n, min, max, mean, SD, max-min (absolute and %)."""
    import pandas as pd

    rows = []
    for _, part in configs(ok):
        for measure in headline_measures(ok):
            values = part[measure].dropna().astype(float)
            if not values.empty:
                name = measure.removeprefix(METRIC_PREFIX)
                rows.append({**_factors(part), "measure": name, **stats.spread(values)})
    return pd.DataFrame(rows)


def variance_table(ok: pd.DataFrame, artifacts: Artifacts) -> pd.DataFrame:
    """One row per configuration: identical weights?, accuracy spread overall and per class,
    churn, weight distance and training-time spread (the studies' headline figures)."""
    import pandas as pd

    accuracy = primary_accuracy(ok)
    classes = [c for c in ok.columns if c.startswith(CLASS_PREFIX)]
    rows = []
    for _, part in configs(ok):
        hashes = part["weights_sha256"].dropna()
        acc = stats.spread(part[accuracy].dropna().astype(float)) if accuracy else {}
        worst_class, worst = (MISSING if not classes else ""), None
        for column in classes:
            values = part[column].dropna().astype(float)
            span = float(values.max() - values.min()) if len(values) else None
            if span is not None and (worst is None or span > worst):
                worst = span
                worst_class = column.split(".")[-1] if span > 0 else ""
        time = stats.spread(part[TIME].astype(float))
        rows.append({
            **_factors(part), "runs": len(part),
            "diverged": sum(artifacts.diverged(i) for i in part.index),
            "distinct_weights": int(hashes.nunique()) if len(hashes) else MISSING,
            "bit_identical": bool(len(part) > 1 and len(hashes) == len(part)
                                  and hashes.nunique() == 1),
            "accuracy_mean": _r(acc.get("mean", MISSING)), "accuracy_sd": _r(acc.get("sd")),
            "accuracy_max_diff": _r(acc.get("max_diff", MISSING)),
            "class_max_diff": stats.clean(worst, 6) if worst is not None else MISSING,
            "class_worst": worst_class,
            **artifacts.churn_of(part), "weights_l2": artifacts.l2_of(part),
            "time_mean": _r(time["mean"], 4), "time_sd": _r(time["sd"], 4),
            "time_max_diff_pct": _r(time["max_diff_pct"], 2),
        })  # fmt: skip
    return pd.DataFrame(rows)


def _r(value: Any, digits: int = 6) -> Any:
    """Round a figure for display; leave None and `missing` as they are."""
    return round(value, digits) if isinstance(value, float) else value


def per_class_table(ok: pd.DataFrame) -> pd.DataFrame:
    """Per configuration and class: the spread of that class's accuracy across runs."""
    import pandas as pd

    classes = sorted(
        (c for c in ok.columns if c.startswith(CLASS_PREFIX)),
        key=lambda c: (len(c), c),
    )
    rows = []
    for _, part in configs(ok):
        for column in classes:
            values = part[column].dropna().astype(float)
            if len(values):
                rows.append({**_factors(part), "class": column.split(".")[-1],
                             **stats.spread(values)})  # fmt: skip
    columns = ["config", "setting", "threads", "device", "class", "n", "mean", "sd", "max_diff"]
    frame = pd.DataFrame(rows)
    return frame[columns] if not frame.empty else pd.DataFrame(columns=columns)


def tests_table(ok: pd.DataFrame) -> pd.DataFrame:
    """Levene, Mann-Whitney U and Cohen's d for each headline measure and comparable pair."""
    import pandas as pd

    rows = []
    for measure in headline_measures(ok):
        for a, b, factor in one_factor_pairs(ok):
            xa = ok.loc[ok["group"] == a, measure].dropna().astype(float).tolist()
            xb = ok.loc[ok["group"] == b, measure].dropna().astype(float).tolist()
            if not xa or not xb:
                continue
            w, p_levene = stats.levene(xa, xb)
            u, p_u = stats.mann_whitney(xa, xb)
            rows.append({
                "measure": measure.removeprefix(METRIC_PREFIX), "factor": factor,
                "config_a": a, "config_b": b, "n_a": len(xa), "n_b": len(xb),
                "levene_w": w, "levene_p": p_levene, "u": u, "p_value": p_u,
                "significant": bool(p_u is not None and p_u < 0.05),
                "cohen_d": stats.cohen_d(xa, xb),
            })  # fmt: skip
    return pd.DataFrame(rows)


def between_table(ok: pd.DataFrame, artifacts: Artifacts) -> pd.DataFrame:
    """Churn and weight distance between the runs of two configurations one factor apart."""
    import pandas as pd

    rows = []
    for a, b, factor in one_factor_pairs(ok):
        pa, pb = ok[ok["group"] == a], ok[ok["group"] == b]
        shared = set(pa["weights_sha256"].dropna()) & set(pb["weights_sha256"].dropna())
        rows.append({
            "factor": factor, "config_a": a, "config_b": b, "shared_weights": bool(shared),
            **artifacts.churn_of(pa, pb), "weights_l2": artifacts.l2_of(pa, pb),
        })  # fmt: skip
    return pd.DataFrame(rows)


def overhead_table(ok: pd.DataFrame) -> pd.DataFrame:
    """Time overhead of deterministic kernels: each setting without IMPL noise against the same
    setting with it, at the same thread count and device, with 95% bootstrap intervals; on the
    wall time and, where the project reports it, on its own training time."""
    import pandas as pd

    timings = [c for c in (TIME, TRAIN_TIME) if c in ok.columns and ok[c].notna().any()]
    rows = []
    for _, part in configs(ok):
        row = part.iloc[0]
        if "impl" in str(row["setting"]).split("+"):
            continue  # the nondeterministic side: found from its deterministic partner
        partner = "impl" if row["setting"] == "control" else f"{row['setting']}+impl"
        same = [ok[f] == row[f] for f in ("experiment", "threads", "device")]
        other = ok[(ok["setting"] == partner) & same[0] & same[1] & same[2]]
        if other.empty:
            continue
        for timing in timings:
            det, nondet = part[timing].dropna().astype(float), other[timing].dropna().astype(float)
            result = stats.overhead(det, nondet)
            rows.append({
                "deterministic": row["group"], "nondeterministic": other.iloc[0]["group"],
                "threads": int(row["threads"]), "device": row["device"],
                "measure": timing.removeprefix(METRIC_PREFIX), "n_det": len(det),
                "n_nondet": len(nondet), "time_det": stats.clean(det.mean(), 4),
                "time_nondet": stats.clean(nondet.mean(), 4),
                "median_det": stats.clean(det.median(), 4),
                "median_nondet": stats.clean(nondet.median(), 4), **result,
            })  # fmt: skip
    return pd.DataFrame(rows)


def selection_table(ok: pd.DataFrame) -> pd.DataFrame:
    """Per configuration and model-selection mode: the spread of the selected model's test
    measures (best validation loss, best validation accuracy, last epoch)."""
    import pandas as pd

    rows = []
    for _, part in configs(ok):
        for mode in SELECTION_MODES:
            prefix = f"{SELECTED_PREFIX}{mode}."
            for column in sorted(c for c in ok.columns if c.startswith(prefix)):
                measure = column.removeprefix(prefix)
                values = part[column].dropna().astype(float)
                if measure == "epoch" or values.empty:
                    continue
                epochs = part.get(f"{prefix}epoch")
                rows.append({
                    **_factors(part), "mode": mode, "measure": measure, **stats.spread(values),
                    "mean_epoch": stats.clean(epochs.mean(), 2) if epochs is not None else None,
                })  # fmt: skip
    return pd.DataFrame(rows)


def threads_table(ok: pd.DataFrame, artifacts: Artifacts) -> pd.DataFrame:
    """Training time against thread count beside the accuracy spread and churn at each count:
    the time-variance trade-off, per setting and device."""
    import pandas as pd

    accuracy = primary_accuracy(ok)
    rows = []
    groups = ok.groupby(["experiment", "device", "setting"])
    for (experiment, device, setting), part in sorted(
        groups, key=lambda item: (item[0][0], item[0][1], rank(item[0][2]))
    ):
        base = None
        for threads, at in sorted(part.groupby("threads"), key=lambda item: int(item[0])):
            time = float(at[TIME].mean())
            base = base or time
            acc = stats.spread(at[accuracy].dropna().astype(float)) if accuracy else {}
            rows.append({
                "experiment": experiment, "setting": setting, "device": device,
                "threads": int(threads), "runs": len(at), "time_mean": stats.clean(time, 4),
                "speedup": stats.clean(base / time, 3) if time else None,
                "accuracy_sd": _r(acc.get("sd")),
                "accuracy_max_diff": _r(acc.get("max_diff", MISSING)),
                "distinct_weights": int(at["weights_sha256"].dropna().nunique()),
                "churn": artifacts.churn_of(at)["churn"],
            })  # fmt: skip
    return pd.DataFrame(rows)
