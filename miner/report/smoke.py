"""Smoke-run tables: the share of candidates per outcome class, and one row per project."""

from __future__ import annotations

import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from miner.models import SMOKE_OUTCOMES as OUTCOMES
from miner.report.records import ReportTable
from miner.report.tables import make_frame, percent, projects

OUTCOME_MEANING = {
    "ok": "trained at least one step or printed a metric",
    "install": "the environment could not be built (no solution, no wheel for this Python)",
    "import": "a module could not be imported",
    "data": "dataset missing, or a download blocked",
    "gpu_only": "hard-coded CUDA",
    "runtime": "crashed otherwise",
    "timeout": "no training progress within the time bound",
}
# A pass that needed help is shown apart from a plain one (the hook's words, in its order).
ASSISTED = {
    "ok (stand-in data)": "trained on synthetic data with the real loader's shapes and classes",
    "ok (cpu shim)": "trained with hard-coded CUDA kept on the CPU",
    "ok (stand-in data, cpu shim)": "trained on stand-in data, CUDA kept on the CPU",
}
LABELS = (OUTCOMES[0], *ASSISTED, *OUTCOMES[1:])
CLIP = 90


def smoke_tables(rows: Sequence[Mapping[str, Any]]) -> list[ReportTable]:
    """The outcome shares (the executability figure) and the per-project table."""
    return [outcome_table(rows), project_table(rows)]


def _seconds(values: list[float]) -> str:
    if not values:
        return "-"
    return f"median {statistics.median(values):.1f} s, mean {statistics.fmean(values):.1f} s"


def _column(row: Mapping[str, Any], name: str) -> str:
    """A column that rows stored before it existed lack."""
    try:
        return str(row[name] or "")
    except (KeyError, IndexError):
        return ""


def smoke_label(row: Mapping[str, Any]) -> str:
    """'ok (stand-in data)' for a pass that needed stand-in data or the CPU shim, else the
    outcome."""
    assists = _column(row, "assists")
    labels = [a for a in assists.split("; ") if a]
    outcome = str(row["outcome"])
    return f"{outcome} ({', '.join(labels)})" if outcome == "ok" and labels else outcome


def outcome_table(rows: Sequence[Mapping[str, Any]]) -> ReportTable:
    """Projects and percent per outcome class, every class listed."""
    counts = dict.fromkeys(LABELS, 0)
    for row in rows:
        label = smoke_label(row)
        counts[label] = counts.get(label, 0) + 1
    meaning = {**OUTCOME_MEANING, **ASSISTED}
    table_rows = [
        {"outcome": o, "meaning": meaning.get(o, ""), "projects": n,
         "percent": percent(n, len(rows))}
        for o, n in counts.items()
        if n or o not in ASSISTED
    ]  # fmt: skip
    reached = [r for r in rows if r["outcome"] != "install"]  # the ones that got to train
    cut = sum(bool(r["network_cut"]) for r in reached)
    bounds = sorted({float(r["timeout"]) for r in rows})
    notes = (
        f"N = {projects(len(rows))} smoke-tested on CPU; training bounded at "
        f"{', '.join(f'{b:g}' for b in bounds) or '-'} s; network cut while training in {cut} of "
        f"the {len(reached)} that got to train.",
        f"Time per candidate: {_seconds([float(r['seconds']) for r in rows])} (install "
        f"{_seconds([float(r['install_seconds']) for r in rows])}; training "
        f"{_seconds([float(r['train_seconds']) for r in rows])}).",
    )
    return ReportTable(
        key="smoke_outcomes",
        title="Smoke runs: does the project install and train unattended?",
        frame=make_frame(table_rows, ["outcome", "meaning", "projects", "percent"]),
        notes=notes,
    )


def project_table(rows: Sequence[Mapping[str, Any]]) -> ReportTable:
    """One row per smoke-tested project, grouped by outcome, with the evidence line."""
    order = {o: i for i, o in enumerate(LABELS)}
    ordered = sorted(
        rows, key=lambda r: (order.get(smoke_label(r), len(order)), str(r["full_name"]).lower())
    )
    table_rows = []
    for r in ordered:
        where = f"{r['evidence_path']}:{r['evidence_line']}"
        text = " ".join(str(r["evidence_text"]).split())[:CLIP]
        helped = _column(r, "assist_evidence").splitlines()
        if helped:  # what the pass stood on: the first stand-in or shim rewrite
            text += f" · {helped[0][:CLIP]}" + (f" (+{len(helped) - 1})" if len(helped) > 1 else "")
        table_rows.append({
            "outcome": smoke_label(r),
            "repository": r["full_name"],
            "commit": str(r["commit_sha"])[:10],
            "evidence": f"{where} {text}",
            "install_s": round(float(r["install_seconds"]), 1),
            "train_s": round(float(r["train_seconds"]), 1),
            "total_s": round(float(r["seconds"]), 1),
        })  # fmt: skip
    columns = ["outcome", "repository", "commit", "evidence", "install_s", "train_s", "total_s"]
    return ReportTable(
        key="smoke",
        title="Smoke runs per project",
        frame=make_frame(table_rows, columns),
        notes=("Evidence: the log line (or file) that decided the outcome.",),
        group="outcome",
    )
