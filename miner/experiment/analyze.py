"""Analyze experiment runs: spread per configuration, Mann-Whitney U between configurations,
identical results via hashes, boxplots; tables rendered like `miner report`'s."""

from __future__ import annotations

import itertools
import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miner.errors import ExperimentError
from miner.experiment.records import METRIC_PREFIX, RUN_FILE, RUNS_CSV, write_runs_csv

if TYPE_CHECKING:
    import pandas as pd

    from miner.report.records import ReportTable

TIME = "wall_seconds"
FORMATS = ("markdown", "csv", "latex", "json")
SUFFIX = {"markdown": ".md", "csv": ".csv", "latex": ".tex", "json": ".json"}


@dataclass(frozen=True)
class Analysis:
    """The analysis tables, the plain-language findings and the files written."""

    summary: ReportTable
    tests: ReportTable
    identical: ReportTable
    shared: ReportTable
    findings: tuple[str, ...]
    runs: int
    failed: int
    files: tuple[Path, ...]


def load_runs(dirs: list[Path]) -> pd.DataFrame:
    """runs.csv of every experiment folder (rebuilt from run.json files when missing)."""
    import pandas as pd

    frames = []
    for folder in dirs:
        csv_path = folder / RUNS_CSV
        if not csv_path.exists() and any(folder.glob(f"*/run-*/{RUN_FILE}")):
            write_runs_csv(folder)
        if not csv_path.exists():
            raise ExperimentError(f"{folder}: no {RUNS_CSV} (run `miner experiment run` first)")
        frames.append(pd.read_csv(csv_path, dtype={"result_sha256": str, "weights_sha256": str}))
    runs = pd.concat(frames, ignore_index=True)
    if runs.empty:
        raise ExperimentError("no runs recorded yet")
    many = runs["experiment"].nunique() > 1
    runs["group"] = (runs["experiment"] + "/" + runs["config"]) if many else runs["config"]
    return runs


def measures(runs: pd.DataFrame) -> list[str]:
    """The analyzed columns: every metric, then wall time."""
    return [c for c in runs.columns if c.startswith(METRIC_PREFIX)] + [TIME]


def summary_table(ok: pd.DataFrame) -> pd.DataFrame:
    """Per configuration and measure: n, min, max, mean, SD, max difference (absolute and %)."""
    import pandas as pd

    rows = []
    for (group, threads, mode), part in ok.groupby(["group", "threads", "seed_mode"], sort=True):
        for measure in measures(ok):
            values = part[measure].dropna().astype(float)
            if values.empty:
                continue
            spread = float(values.max() - values.min())
            mean = float(values.mean())
            rows.append(
                {
                    "config": group,
                    "threads": int(threads),
                    "seed_mode": mode,
                    "measure": measure.removeprefix(METRIC_PREFIX),
                    "n": len(values),
                    "min": _round(values.min()),
                    "max": _round(values.max()),
                    "mean": _round(mean),
                    "sd": _round(values.std(ddof=1)) if len(values) > 1 else None,
                    "max_diff": _round(spread),
                    "max_diff_pct": _round(100 * spread / abs(mean)) if mean else None,
                }
            )
    return pd.DataFrame(rows)


def _round(value: Any, digits: int = 8) -> float | None:
    number = float(value)
    return None if math.isnan(number) else round(number, digits)


def mann_whitney_table(ok: pd.DataFrame) -> pd.DataFrame:
    """Two-sided Mann-Whitney U (scipy) for every measure and every pair of configurations of
    one experiment that differ in one factor (thread count, or seed mode)."""
    import pandas as pd
    from scipy.stats import mannwhitneyu

    rows = []
    groups = sorted(ok["group"].unique(), key=lambda g: _order(ok, g))
    for measure in measures(ok):
        for a, b in itertools.combinations(groups, 2):
            if not _one_factor_apart(ok, a, b):
                continue
            xa = ok.loc[ok["group"] == a, measure].dropna().astype(float).to_numpy()
            xb = ok.loc[ok["group"] == b, measure].dropna().astype(float).to_numpy()
            if len(xa) == 0 or len(xb) == 0:
                continue
            result = mannwhitneyu(xa, xb, alternative="two-sided")
            p = float(result.pvalue)
            rows.append(
                {
                    "measure": measure.removeprefix(METRIC_PREFIX),
                    "config_a": a,
                    "config_b": b,
                    "n_a": len(xa),
                    "n_b": len(xb),
                    "u": float(result.statistic),
                    "p_value": None if math.isnan(p) else round(p, 6),
                    "significant": bool(p < 0.05) if not math.isnan(p) else False,
                }
            )
    return pd.DataFrame(rows)


def _one_factor_apart(runs: pd.DataFrame, a: str, b: str) -> bool:
    """True when two configurations of one experiment differ only in threads or in seed mode."""
    ea, ta, ma = _order(runs, a)
    eb, tb, mb = _order(runs, b)
    return ea == eb and (ta == tb or ma == mb)


def _order(runs: pd.DataFrame, group: str) -> tuple[str, int, str]:
    row = runs.loc[runs["group"] == group].iloc[0]
    return (str(row["experiment"]), int(row["threads"]), str(row["seed_mode"]))


def identical_table(ok: pd.DataFrame) -> pd.DataFrame:
    """Per configuration: runs, distinct results (weights, else metrics, hashes), identical?"""
    import pandas as pd

    rows = []
    for (group, threads, mode), part in ok.groupby(["group", "threads", "seed_mode"], sort=True):
        hashes = part["result_sha256"].dropna()
        counts = hashes.value_counts()
        rows.append(
            {
                "config": group,
                "threads": int(threads),
                "seed_mode": mode,
                "runs": len(part),
                "hashed": len(hashes),
                "distinct_results": int(counts.size),
                "largest_identical_group": int(counts.max()) if counts.size else 0,
                "all_identical": bool(
                    len(part) > 1 and counts.size == 1 and len(hashes) == len(part)
                ),
                "distinct_logs": int(part["stdout_sha256"].nunique()),
            }
        )
    return pd.DataFrame(rows)


def shared_results_table(ok: pd.DataFrame) -> pd.DataFrame:
    """Results (hashes) produced by more than one configuration, with where they occurred."""
    import pandas as pd

    rows = []
    for digest, part in ok.dropna(subset=["result_sha256"]).groupby("result_sha256"):
        groups = sorted(part["group"].unique(), key=lambda g: _order(ok, g))
        if len(groups) > 1:
            rows.append(
                {"result_sha256": str(digest)[:16], "configs": ", ".join(groups), "runs": len(part)}
            )
    return pd.DataFrame(rows, columns=["result_sha256", "configs", "runs"])


def findings(ok: pd.DataFrame, identical: pd.DataFrame, shared: pd.DataFrame) -> list[str]:
    """Plain sentences answering: identical within a thread count? across thread counts?"""
    out = []
    for row in identical.itertuples(index=False):
        verdict = (
            "all identical"
            if row.all_identical
            else f"{row.distinct_results} distinct results in {row.runs} runs"
        )
        out.append(f"{row.config}: {verdict}.")
    fixed = ok[ok["seed_mode"] == "fixed"]
    for experiment, part in fixed.groupby("experiment"):
        counts = sorted(part["threads"].unique())
        if len(counts) < 2:
            continue
        by_threads = {
            t: set(part.loc[part["threads"] == t, "result_sha256"].dropna()) for t in counts
        }
        pairs = []
        for a, b in itertools.combinations(counts, 2):
            same = by_threads[a] & by_threads[b]
            pairs.append(f"{a} vs {b} threads: {'same result' if same else 'different results'}")
        out.append(f"{experiment}, fixed seed across thread counts: " + "; ".join(pairs) + ".")
    if shared.empty and len(ok["group"].unique()) > 1:
        out.append("No result occurs in more than one configuration.")
    return out


def _table(key: str, title: str, frame: pd.DataFrame, notes: tuple[str, ...] = ()) -> ReportTable:
    from miner.report.records import ReportTable

    return ReportTable(key=key, title=title, frame=frame, notes=notes)


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
    identical = identical_table(ok)
    shared = shared_results_table(ok)
    notes = (
        (f"{len(runs) - len(ok)} of {len(runs)} runs failed and are left out.",)
        if len(ok) < len(runs)
        else ()
    )
    tables = (
        _table("summary", "Spread of each measure per configuration", summary_table(ok), notes),
        _table("mann_whitney", "Mann-Whitney U between configurations differing in one factor",
               mann_whitney_table(ok)),
        _table("identical", "Identical results per configuration (SHA-256 of weights)", identical),
        _table("shared_results", "Results shared across configurations", shared),
    )  # fmt: skip
    files: list[Path] = []
    if out_dir is not None:
        files += _write_tables(tables, out_dir, formats)
        if plots:
            files += boxplots(ok, out_dir / "plots", plots)
    return Analysis(
        *tables,
        findings=tuple(findings(ok, identical, shared)),
        runs=len(runs),
        failed=len(runs) - len(ok),
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


def boxplots(ok: pd.DataFrame, out_dir: Path, kinds: tuple[str, ...]) -> list[Path]:
    """One boxplot per measure, configurations side by side, runs overlaid as points."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out_dir.mkdir(parents=True, exist_ok=True)
    groups = sorted(ok["group"].unique(), key=lambda g: _order(ok, g))
    written = []
    for measure in measures(ok):
        data = [ok.loc[ok["group"] == g, measure].dropna().astype(float).to_numpy() for g in groups]
        if not any(len(d) for d in data):
            continue
        fig, ax = plt.subplots(figsize=(max(4.0, 1.2 * len(groups) + 1.5), 3.6))
        ax.boxplot(data, showmeans=True)
        for i, values in enumerate(data, start=1):
            ax.plot([i] * len(values), values, "o", alpha=0.5, markersize=4)
        ax.set_xticks(range(1, len(groups) + 1), groups, rotation=20, ha="right", fontsize=8)
        name = measure.removeprefix(METRIC_PREFIX)
        ax.set_ylabel(name)
        ax.set_title(f"{name} per configuration")
        ax.ticklabel_format(axis="y", useOffset=False)
        fig.tight_layout()
        for kind in kinds:
            path = out_dir / f"{name}.{kind}"
            fig.savefig(path)
            written.append(path)
        plt.close(fig)
    return written
