"""Analyze experiment runs: per configuration and between configurations, the spread of every
measure (overall and per-class accuracy, time), Levene / Mann-Whitney U / Cohen's d, churn and
weight distances, determinism overhead, model selection, time against threads; identical results
via hashes; boxplots per factor; tables rendered like `miner report`'s."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from miner.errors import ExperimentError
from miner.experiment import tables as t
from miner.experiment.records import RUN_FILE, RUNS_CSV, write_runs_csv

if TYPE_CHECKING:
    import pandas as pd

    from miner.report.records import ReportTable

FORMATS = ("markdown", "csv", "latex", "json")
SUFFIX = {"markdown": ".md", "csv": ".csv", "latex": ".tex", "json": ".json"}
TABLES = (
    ("variance", "Spread per configuration: identical weights, accuracy overall and per class, "
                 "churn, weight L2 distance, training time"),
    ("summary", "Spread of each measure per configuration"),
    ("per_class", "Spread of each class's accuracy per configuration"),
    ("tests", "Levene, Mann-Whitney U and Cohen's d between configurations one factor apart"),
    ("between", "Churn and weight distance between configurations one factor apart"),
    ("overhead", "Time overhead of deterministic kernels (95% bootstrap interval)"),
    ("selection", "Spread of the selected model per model-selection mode"),
    ("threads", "Training time against thread count beside the accuracy spread"),
    ("identical", "Identical results per configuration (SHA-256 of weights)"),
    ("shared_results", "Results shared across configurations"),
)  # fmt: skip


@dataclass(frozen=True)
class Analysis:
    """The analysis tables (keyed as in TABLES), plain-language findings and files written."""

    tables: dict[str, ReportTable]
    findings: tuple[str, ...]
    runs: int
    failed: int
    files: tuple[Path, ...]


def load_runs(dirs: list[Path]) -> pd.DataFrame:
    """runs.csv of every experiment folder (rebuilt from run.json files when missing or old)."""
    import pandas as pd

    frames = []
    for folder in dirs:
        csv_path = folder / RUNS_CSV
        has_records = any(folder.glob(f"*/run-*/{RUN_FILE}"))
        if has_records and (not csv_path.exists() or "setting" not in _header(csv_path)):
            write_runs_csv(folder)
        if not csv_path.exists():
            raise ExperimentError(f"{folder}: no {RUNS_CSV} (run `miner experiment run` first)")
        text = dict.fromkeys(("result_sha256", "weights_sha256", "predictions", "weights_dir"), str)
        frames.append(pd.read_csv(csv_path, dtype=text))
    runs = pd.concat(frames, ignore_index=True)
    if runs.empty:
        raise ExperimentError("no runs recorded yet")
    if "device" not in runs.columns:
        runs["device"] = "cpu"
    runs["device"] = runs["device"].fillna("cpu")
    many = runs["experiment"].nunique() > 1
    runs["group"] = (runs["experiment"] + "/" + runs["config"]) if many else runs["config"]
    return runs


def _header(path: Path) -> list[str]:
    with path.open(encoding="utf-8") as fh:
        return fh.readline().strip().split(",")


def identical_table(ok: pd.DataFrame) -> pd.DataFrame:
    """Per configuration: runs, distinct results (weights, else metrics, hashes), identical?"""
    import pandas as pd

    rows = []
    for _, part in t.configs(ok):
        hashes = part["result_sha256"].dropna()
        counts = hashes.value_counts()
        rows.append({
            **t._factors(part), "runs": len(part), "hashed": len(hashes),
            "distinct_results": int(counts.size),
            "largest_identical_group": int(counts.max()) if counts.size else 0,
            "all_identical": bool(len(part) > 1 and counts.size == 1 and len(hashes) == len(part)),
            "distinct_logs": int(part["stdout_sha256"].nunique()),
        })  # fmt: skip
    return pd.DataFrame(rows)


def shared_results_table(ok: pd.DataFrame) -> pd.DataFrame:
    """Results (hashes) produced by more than one configuration, with where they occurred."""
    import pandas as pd

    order = [g for g, _ in t.configs(ok)]
    rows = []
    for digest, part in ok.dropna(subset=["result_sha256"]).groupby("result_sha256"):
        groups = sorted(part["group"].unique(), key=order.index)
        if len(groups) > 1:
            rows.append(
                {"result_sha256": str(digest)[:16], "configs": ", ".join(groups), "runs": len(part)}
            )
    return pd.DataFrame(rows, columns=["result_sha256", "configs", "runs"])


def findings(ok: pd.DataFrame, variance: pd.DataFrame, shared: pd.DataFrame) -> list[str]:
    """Plain sentences: identical within a configuration? across thread counts? churn?"""
    out = []
    for row in variance.itertuples(index=False):
        if row.bit_identical:
            verdict = "bit-identical (one weights hash)"
        elif row.distinct_weights == t.MISSING:
            verdict = f"{row.runs} runs, no weights hashed"
        else:
            verdict = f"{row.distinct_weights} distinct weights in {row.runs} runs"
        if row.churn not in (t.MISSING, None):
            verdict += f", mean churn {row.churn:.4f}"
        if row.diverged:
            verdict += (
                f"; {row.diverged} of {row.runs} runs diverged (NaN or infinite weights), "
                "left out of the weight distance"
            )
        out.append(f"{row.config}: {verdict}.")
    held = ok[~ok["setting"].str.contains("algo|init|data|dropout", regex=True)]
    for (experiment, setting, device), part in held.groupby(["experiment", "setting", "device"]):
        counts = sorted(part["threads"].unique())
        if len(counts) < 2:
            continue
        by = {n: set(part.loc[part["threads"] == n, "result_sha256"].dropna()) for n in counts}
        pairs = [
            f"{a} vs {b} threads: {'same result' if by[a] & by[b] else 'different results'}"
            for a, b in itertools.combinations(counts, 2)
        ]
        where = "" if device == "cpu" else f" on {device}"
        out.append(f"{experiment}, {setting}{where}, fixed seeds across thread counts: "
                   + "; ".join(pairs) + ".")  # fmt: skip
    if shared.empty and ok["group"].nunique() > 1:
        out.append("No result occurs in more than one configuration.")
    return out


def _table(key: str, frame: pd.DataFrame, notes: tuple[str, ...] = ()) -> ReportTable:
    from miner.report.records import ReportTable

    return ReportTable(key=key, title=dict(TABLES)[key], frame=frame, notes=notes)


def _missing_notes(ok: pd.DataFrame) -> tuple[str, ...]:
    notes = []
    if "predictions" not in ok.columns or not ok["predictions"].fillna("").astype(bool).any():
        notes.append("churn, agreement: missing (the runs saved no test predictions).")
    if "weights_dir" not in ok.columns or not ok["weights_dir"].fillna("").astype(bool).any():
        notes.append("weights_l2: missing (the runs saved no weights miner can read).")
    if not any(c.startswith(t.CLASS_PREFIX) for c in ok.columns):
        notes.append("class_max_diff: missing (no predictions with labels).")
    return tuple(notes)


def analyze(
    dirs: list[Path],
    out_dir: Path | None = None,
    formats: tuple[str, ...] = ("markdown",),
    plots: tuple[str, ...] = ("png", "pdf"),
) -> Analysis:
    """Analyze the runs of one or more experiment folders; write tables and boxplots to out_dir."""
    bad = [f for f in formats if f not in FORMATS]
    if bad:
        raise ExperimentError(f"unknown format {bad[0]!r}; choose {', '.join(FORMATS)}")
    runs = load_runs(dirs)
    ok = runs[runs["status"] == "ok"].copy()
    if ok.empty:
        raise ExperimentError(f"none of the {len(runs)} recorded runs finished with exit status 0")
    artifacts = t.Artifacts(ok)
    failed = len(runs) - len(ok)
    notes = (f"{failed} of {len(runs)} runs failed and are left out.",) if failed else ()
    variance = t.variance_table(ok, artifacts)
    shared = shared_results_table(ok)
    frames = {
        "variance": variance,
        "summary": t.summary_table(ok),
        "per_class": t.per_class_table(ok),
        "tests": t.tests_table(ok),
        "between": t.between_table(ok, artifacts),
        "overhead": t.overhead_table(ok),
        "selection": t.selection_table(ok),
        "threads": t.threads_table(ok, artifacts),
        "identical": identical_table(ok),
        "shared_results": shared,
    }
    missing = _missing_notes(ok)
    tables = {
        key: _table(key, frame, notes + (missing if key in ("variance", "between") else ()))
        for key, frame in frames.items()
    }
    files: list[Path] = []
    if out_dir is not None:
        files += _write_tables(tuple(tables.values()), out_dir, formats)
        if plots:
            from miner.experiment.plots import boxplots

            files += boxplots(ok, out_dir / "plots", plots)
    return Analysis(
        tables=tables,
        findings=tuple(findings(ok, variance, shared)),
        runs=len(runs),
        failed=failed,
        files=tuple(files),
    )


def _write_tables(
    tables: tuple[ReportTable, ...], out_dir: Path, formats: tuple[str, ...]
) -> list[Path]:
    from miner.report.render import render

    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for table in tables:
        for fmt in formats:
            path = out_dir / f"{table.key}{SUFFIX[fmt]}"
            path.write_text(render(table, fmt), encoding="utf-8")
            written.append(path)
    return written
