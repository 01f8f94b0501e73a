"""Smoke-run tables: the ladder (how far candidates got, stage by stage, and the time each
stage took), the share of candidates per outcome class, one row per project with its evidence
in full, and the repairs applied to environments."""

from __future__ import annotations

import json
import statistics
from collections.abc import Mapping, Sequence
from typing import Any

from miner.models import SMOKE_OUTCOMES as OUTCOMES
from miner.models import SMOKE_STAGES
from miner.report.records import ReportTable
from miner.report.tables import make_frame, percent, projects

OUTCOME_MEANING = {
    "ok": "trained at least one step or printed a metric",
    "no_entry": "no training entry point found",
    "python2": "Python 2 code",
    "install": "the environment could not be built (no solution, no wheel for this Python)",
    "import": "a module could not be imported",
    "usage": "required arguments missing (the argparse message)",
    "needs_gpu": "hard-coded CUDA",
    "needs_weights": "a pretrained checkpoint to download, or a weights file missing",
    "needs_data": "a file-path dataset missing (or README placeholders for it)",
    "data": "a data set download blocked",
    "runtime": "crashed otherwise",
    "timeout": "no training progress within the time bound",
}
# A pass that needed help is shown apart from a plain one (the hook's words, in its order).
ASSISTED = {
    "ok (stand-in data)": "trained on synthetic data with the real loader's shapes and classes",
    "ok (cpu shim)": "trained with hard-coded CUDA kept on the CPU",
    "ok (stand-in data, cpu shim)": "trained on stand-in data, CUDA kept on the CPU",
    "ok (stand-in weights)": "trained from a random initialisation: the pretrained weights "
    "could not be downloaded",
}
LABELS = (OUTCOMES[0], *ASSISTED, *OUTCOMES[1:])


def smoke_tables(rows: Sequence[Mapping[str, Any]]) -> list[ReportTable]:
    """The ladder, the outcome shares (the executability figure), the per-project table and,
    when any were applied, the repairs."""
    tables = [ladder_table(rows), outcome_table(rows), project_table(rows)]
    repairs = repair_table(rows)
    return tables + ([repairs] if len(repairs.frame) else [])


def _json(value: Any, empty: Any) -> Any:
    if isinstance(value, str):
        try:
            return json.loads(value)
        except ValueError:
            return empty
    return value if value is not None else empty


def _stage(row: Mapping[str, Any]) -> int:
    value = row.get("stage")
    return int(value) if value is not None else -1


def ladder_table(rows: Sequence[Mapping[str, Any]]) -> ReportTable:
    """Candidates at each stage (of all smoke-tested, and of those at the stage before) and the
    time spent reaching it, median and mean over the candidates that reached it."""
    total = len(rows)
    table_rows = []
    before = total
    for index, (name, meaning) in enumerate(SMOKE_STAGES):
        at = [r for r in rows if _stage(r) >= index]
        spent = [float(s[name]) for r in at if name in (s := _json(r.get("stage_seconds"), {}))]
        table_rows.append({
            "stage": name, "meaning": meaning, "projects": len(at),
            "percent": percent(len(at), total), "of_previous": percent(len(at), before),
            "median_s": round(statistics.median(spent), 1) if spent else None,
            "mean_s": round(statistics.fmean(spent), 1) if spent else None,
        })  # fmt: skip
        before = len(at)
    qualified = sum(1 for r in rows if _qualifier(r) and _stage(r) >= 5)
    notes = (
        f"N = {projects(total)} smoke-tested; a stage counts only with evidence of it (S2: got "
        "past its imports; S3: an argument parser returned, or a script without one started; "
        "S4: data arrived; S5: a training-step line or an optimiser's step; S6: the bounded "
        "training ended by itself).",
        f"Of those at S5, {qualified} with stand-in data, stand-in weights or the CPU shim.",
        f"Time per candidate: {_seconds([float(r['seconds']) for r in rows])}.",
    )
    return ReportTable(
        key="smoke_ladder",
        title="Smoke ladder: how far each candidate got",
        frame=make_frame(
            table_rows,
            ["stage", "meaning", "projects", "percent", "of_previous", "median_s", "mean_s"],
        ),  # fmt: skip
        notes=notes,
    )


def repair_table(rows: Sequence[Mapping[str, Any]]) -> ReportTable:
    """One row per repair applied to a smoke run's environment, with its reason."""
    table_rows = []
    for r in sorted(rows, key=lambda r: str(r["full_name"]).lower()):
        for repair in _json(r.get("repairs"), []):
            text = (
                "; ".join(f"{k}: {v}" for k, v in repair.items() if v not in (None, ""))
                if isinstance(repair, dict) else str(repair)
            )  # fmt: skip
            table_rows.append({"repository": r["full_name"], "outcome": smoke_label(r),
                               "repair": text})  # fmt: skip
    return ReportTable(
        key="smoke_repairs",
        title="Repairs applied to smoke-run environments",
        frame=make_frame(table_rows, ["repository", "outcome", "repair"]),
        group="repository",
    )


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


def _qualifier(row: Mapping[str, Any]) -> str:
    """How an outcome was reached ('stand-in data, cpu shim'): the stored qualifier, else the
    assists of a pass stored without one."""
    if _column(row, "qualifier"):
        return _column(row, "qualifier")
    labels = [a for a in _column(row, "assists").split("; ") if a]
    return ", ".join(labels) if str(row["outcome"]) == "ok" else ""


def smoke_label(row: Mapping[str, Any]) -> str:
    """'ok (stand-in data)' for a pass that needed stand-in data or the CPU shim, else the
    outcome."""
    qualifier = _qualifier(row)
    return f"{row['outcome']} ({qualifier})" if qualifier else str(row["outcome"])


def outcome_table(rows: Sequence[Mapping[str, Any]]) -> ReportTable:
    """Projects and percent per outcome class, every class listed."""
    counts = dict.fromkeys(LABELS, 0)
    for row in rows:
        label = smoke_label(row)
        counts[label] = counts.get(label, 0) + 1
    meaning = {**OUTCOME_MEANING, **ASSISTED}
    table_rows = [
        {"outcome": o, "meaning": meaning.get(o, OUTCOME_MEANING.get(o.split(" (")[0], "")),
         "projects": n, "percent": percent(n, len(rows))}
        for o, n in counts.items()
        if n or o in OUTCOMES
    ]  # fmt: skip
    reached = [r for r in rows if _stage(r) >= 1]  # the ones that got to train
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
        text = " ".join(str(r["evidence_text"]).split())
        helped = _column(r, "assist_evidence").splitlines()
        if helped:  # what the pass stood on: the first stand-in or shim rewrite
            text += f" · {helped[0]}" + (f" (+{len(helped) - 1})" if len(helped) > 1 else "")
        stage = _stage(r)
        table_rows.append({
            "outcome": smoke_label(r),
            "stage": SMOKE_STAGES[stage][0] if stage >= 0 else "-",
            "repository": r["full_name"],
            "commit": str(r["commit_sha"])[:10],
            "evidence": f"{where} {text}",
            "install_s": round(float(r["install_seconds"]), 1),
            "train_s": round(float(r["train_seconds"]), 1),
            "total_s": round(float(r["seconds"]), 1),
        })  # fmt: skip
    columns = [
        "outcome", "stage", "repository", "commit", "evidence", "install_s", "train_s", "total_s"
    ]  # fmt: skip
    return ReportTable(
        key="smoke",
        title="Smoke runs per project",
        frame=make_frame(table_rows, columns),
        notes=("Evidence: the log line (or file) that decided the outcome.",),
        group="outcome",
    )
