"""Requirements over time: each study date's share of projects stating each requirement, with
Wilson 95 % intervals, the transitions between consecutive dates, and the evidence that
appeared or disappeared with each change.

A project counts at a date when it existed then (a snapshot) and its commit was audited; a
project excluded at that date (a non-empty `exclude`) is left out unless asked for.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miner.errors import MinerError
from miner.report.records import Chart, ReportTable
from miner.report.tables import make_frame

if TYPE_CHECKING:
    from miner.store import Store

TREND_FIELDS = (
    "software_req",
    "dependency_file",
    "versions_pinned",
    "hardware_req",
    "hw_gpu",
    "hw_cpu",
    "hw_memory",
    "hw_other",
    "data_available",
)
Z95 = 1.959963984540054


def wilson(yes: int, n: int) -> tuple[float | None, float | None]:
    """The Wilson score 95 % interval of yes/n, in percent."""
    if n == 0:
        return None, None
    p = yes / n
    centre = p + Z95**2 / (2 * n)
    spread = Z95 * math.sqrt(p * (1 - p) / n + Z95**2 / (4 * n * n))
    scale = 1 + Z95**2 / n
    return round(100 * (centre - spread) / scale, 1), round(100 * (centre + spread) / scale, 1)


@dataclass(frozen=True)
class Snapshot:
    """One project at one date: its commit and labels (None: absent, or not audited yet)."""

    repo_id: int
    full_name: str
    as_of: str
    commit_sha: str | None
    labels: dict[str, str] | None


def load_snapshots(store: Store) -> list[Snapshot]:
    """Every (project, date) of the store's snapshots, with the labels of its commit's audit."""
    cache: dict[tuple[int, str], dict[str, str] | None] = {}
    found = []
    for row in store.snapshot_rows():
        sha = row["commit_sha"] if row["status"] == "ok" else None
        labels = None
        if sha is not None:
            key = (row["repo_id"], sha)
            if key not in cache:
                ok = store.audit_status(row["repo_id"], sha) == "ok"
                cache[key] = store.audit_labels(row["repo_id"], sha) if ok else None
            labels = cache[key]
        found.append(Snapshot(row["repo_id"], row["full_name"], row["as_of"], sha, labels))
    return found


def _counted(snap: Snapshot, include_excluded: bool) -> bool:
    return snap.labels is not None and (include_excluded or not snap.labels.get("exclude"))


def trend_tables(store: Store, include_excluded: bool = False) -> list[ReportTable]:
    """The trend table, the transitions table and the changes (with evidence) table."""
    snaps = load_snapshots(store)
    if not snaps:
        raise MinerError(
            "no snapshots in the store: run `miner clone --every 1y --since 2018` (or --at "
            "DATE ...) and `miner analyze` first"
        )
    dates = sorted({s.as_of for s in snaps})
    by_date: dict[str, dict[int, Snapshot]] = {d: {} for d in dates}
    for snap in snaps:
        by_date[snap.as_of][snap.repo_id] = snap
    return [
        _trend(by_date, include_excluded),
        _transitions(by_date, include_excluded),
        _changes(store, by_date, include_excluded),
    ]


def _trend(by_date: dict[str, dict[int, Snapshot]], include_excluded: bool) -> ReportTable:
    rows = []
    for field in TREND_FIELDS:
        for date, snaps in by_date.items():
            counted = [s for s in snaps.values() if _counted(s, include_excluded)]
            n = len(counted)
            yes = sum(s.labels is not None and s.labels.get(field) == "yes" for s in counted)
            low, high = wilson(yes, n)
            rows.append(
                {
                    "field": field,
                    "date": date[:10],
                    "projects": n,
                    "yes": yes,
                    "%": round(100 * yes / n, 1) if n else None,
                    "95% CI low": low,
                    "95% CI high": high,
                }
            )
    existing = {
        d[:10]: sum(s.commit_sha is not None for s in v.values()) for d, v in by_date.items()
    }
    pending = sum(
        s.commit_sha is not None and s.labels is None for v in by_date.values() for s in v.values()
    )
    notes = [
        "Projects existing at each date: "
        + ", ".join(f"{d} {n}" for d, n in existing.items())
        + ". Each project is read at its last commit before the date.",
        "Excluded projects are counted."
        if include_excluded
        else "Projects with a non-empty `exclude` at a date are left out at that date.",
    ]
    if pending:
        notes.append(f"{pending} snapshots are not audited yet: run `miner analyze`.")
    columns = ["field", "date", "projects", "yes", "%", "95% CI low", "95% CI high"]
    return ReportTable(
        "trend",
        "Requirements stated, by date",
        make_frame(rows, columns),
        tuple(notes),
        group="field",
    )


def _pairs(by_date: dict[str, dict[int, Snapshot]]) -> list[tuple[str, str]]:
    dates = list(by_date)
    return list(zip(dates, dates[1:], strict=False))


def _transitions(by_date: dict[str, dict[int, Snapshot]], include_excluded: bool) -> ReportTable:
    rows = []
    for field in TREND_FIELDS:
        for before, after in _pairs(by_date):
            counts = {"no → yes": 0, "yes → no": 0, "yes → yes": 0, "no → no": 0, "new": 0}
            for repo_id, now in by_date[after].items():
                if not _counted(now, include_excluded) or now.labels is None:
                    continue
                then = by_date[before].get(repo_id)
                if then is None or then.commit_sha is None:
                    counts["new"] += 1
                    continue
                if not _counted(then, include_excluded) or then.labels is None:
                    continue
                old = "yes" if then.labels.get(field) == "yes" else "no"
                new = "yes" if now.labels.get(field) == "yes" else "no"
                counts[f"{old} → {new}"] += 1
            rows.append({"field": field, "from": before[:10], "to": after[:10], **counts})
    columns = ["field", "from", "to", "no → yes", "yes → no", "yes → yes", "no → no", "new"]
    note = (
        "`new`: projects that did not exist (or were not counted) at the earlier date. A "
        "project unchanged between two dates is the same commit, audited once."
    )
    return ReportTable(
        "trend_transitions",
        "Transitions between consecutive dates",
        make_frame(rows, columns),
        (note,),
        group="field",
    )


def _changes(
    store: Store, by_date: dict[str, dict[int, Snapshot]], include_excluded: bool
) -> ReportTable:
    rows: list[dict[str, Any]] = []
    for before, after in _pairs(by_date):
        for repo_id, now in sorted(by_date[after].items(), key=lambda kv: kv[1].full_name.lower()):
            then = by_date[before].get(repo_id)
            if then is None or then.labels is None or now.labels is None:
                continue
            if not (_counted(now, include_excluded) and _counted(then, include_excluded)):
                continue
            for field in TREND_FIELDS:
                old, new = then.labels.get(field) == "yes", now.labels.get(field) == "yes"
                if old == new:
                    continue
                side = now if new else then  # the evidence that appeared, or that disappeared
                assert side.commit_sha is not None
                evidence = store.evidence_for(repo_id, side.commit_sha, field)[:1]
                where = (
                    f"{evidence[0].path}:{evidence[0].line} {evidence[0].text}" if evidence else ""
                )
                rows.append(
                    {
                        "project": now.full_name,
                        "field": field,
                        "from": before[:10],
                        "to": after[:10],
                        "change": "no → yes" if new else "yes → no",
                        "evidence": ("appeared: " if new else "disappeared: ") + where[:200],
                    }
                )
    columns = ["project", "field", "from", "to", "change", "evidence"]
    return ReportTable(
        "trend_changes",
        "Requirement changes and their evidence",
        make_frame(rows, columns),
        group="project",
    )


def trend_chart(table: ReportTable, folder: Path) -> Chart:
    """Share of projects stating each requirement over the dates, with 95 % bands."""
    from miner.report.charts import _figure, _style, save

    shown = ("software_req", "versions_pinned", "hardware_req", "hw_gpu", "data_available")
    colours = ("#0072B2", "#E69F00", "#009E73", "#CC79A7", "#56B4E9")
    with _style():
        figure = _figure(7, 3.8)
        axes = figure.add_subplot(1, 1, 1)
        for field, colour in zip(shown, colours, strict=True):
            rows = [r for r in table.frame.to_dict("records") if r["field"] == field]
            points = [
                (r["date"], r["%"], r["95% CI low"], r["95% CI high"])
                for r in rows
                if r["%"] is not None and not _nan(r["%"])
            ]
            if not points:
                continue
            dates = [p[0] for p in points]
            axes.plot(dates, [p[1] for p in points], marker="o", color=colour, label=field)
            axes.fill_between(
                dates,
                [p[2] for p in points],
                [p[3] for p in points],
                color=colour,
                alpha=0.12,
                linewidth=0,
            )
        axes.set_ylim(0, 100)
        axes.set_ylabel("% of projects")
        axes.tick_params(axis="x", labelrotation=45)
        axes.legend(frameon=False, fontsize=7)
        return save(figure, folder, "trend", "Requirements stated over time")


def _nan(value: object) -> bool:
    return isinstance(value, float) and math.isnan(value)
