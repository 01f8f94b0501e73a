"""Tables from the pipeline's records: the search log (Table I) and the exclusion funnel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from miner.codebook import EXCLUSIONS
from miner.report.labels import LabelSet, set_values
from miner.report.records import ReportTable
from miner.report.tables import _frame

if TYPE_CHECKING:
    import pandas as pd

    from miner.store import Store

UNIQUE_ROW = "all keywords (unique repositories)"
ERROR_CLASSES = ("gone", "blocked", "auth", "timeout", "too_large", "other")
SEARCH_COLUMNS = [
    "keyword", "stars", "created", "pushed", "total_found", "fetched", "shortfall", "status",
]  # fmt: skip


def _value(cell: Any) -> Any:
    """A stored cell with NULL (NaN after pandas) as None and whole floats as ints."""
    if cell is None or (isinstance(cell, float) and cell != cell):
        return None
    if isinstance(cell, float) and cell.is_integer():
        return int(cell)
    if hasattr(cell, "item"):  # numpy scalar
        return _value(cell.item())
    return cell


def span(low: Any, high: Any) -> str:
    """A range in GitHub's qualifier notation: `200..*`, `*..2021-03-01`, or `any`."""
    low, high = _value(low), _value(high)
    if low is None and high is None:
        return "any"
    return f"{'*' if low is None else low}..{'*' if high is None else high}"


def search_table(searches: pd.DataFrame, unique_repos: int) -> ReportTable:
    """Table I: per query, the thresholds, time frame, projects found and fetched."""
    order = ["keyword", "min_stars", "max_stars", "created_after", "created_before", "id"]
    log = searches.sort_values(order, kind="stable", na_position="first")
    rows: list[dict[str, Any]] = []
    for _, s in log.iterrows():
        rows.append(
            {
                "keyword": s["keyword"],
                "stars": span(s["min_stars"], s["max_stars"]),
                "created": span(s["created_after"], s["created_before"]),
                "pushed": span(s["pushed_after"], None),
                "total_found": _value(s["total_found"]),
                "fetched": _value(s["fetched"]),
                "shortfall": _value(s["shortfall"]),
                "status": _value(s["status"]),
            }
        )
    rows.append({"keyword": UNIQUE_ROW, "fetched": unique_repos})
    notes = [
        "total_found is GitHub's count for the query; fetched is what was stored; shortfall is "
        "what GitHub's 1,000-result cap or errors kept out. The last row counts each repository "
        "once across all queries.",
    ]
    return ReportTable(
        key="search",
        title="Projects found per search query",
        frame=_frame(rows, SEARCH_COLUMNS),
        notes=tuple(notes),
    )


def exclusions_table(
    store: Store, repos: pd.DataFrame, clones: pd.DataFrame, labels: LabelSet
) -> ReportTable:
    """How many candidates each filter removed, in pipeline order, down to the kept projects."""
    flags = {
        int(r["id"]): {k: bool(_value(r[k])) for k in ("fork", "archived", "disabled")}
        for _, r in repos.iterrows()
    }
    remaining = sorted(flags)
    rows = [_step("search", "found (unique repositories)", len(remaining), None, len(remaining))]
    for flag in ("fork", "archived", "disabled"):
        matched = sum(f[flag] for f in flags.values())
        remaining, removed = _split(remaining, lambda rid, flag=flag: flags[rid][flag])
        rows.append(_step("metadata", flag, matched, removed, len(remaining)))

    clone_of = {int(r["repo_id"]): r for _, r in clones.iterrows()}
    reasons = {rid: _clone_reason(clone_of.get(rid)) for rid in remaining}
    for reason in _clone_order(reasons.values()):
        matched = sum(r == reason for r in reasons.values())
        remaining, removed = _split(remaining, lambda rid, reason=reason: reasons[rid] == reason)
        rows.append(_step("clone", reason, matched, removed, len(remaining)))

    labelled = {int(r): str(x) for r, x in zip(labels.frame["repo_id"], labels.frame["exclude"], strict=True) if r is not None}  # fmt: skip
    missing = {rid: _label_gap(store, labels.source, clone_of[rid]) for rid in remaining if rid not in labelled}  # fmt: skip
    for reason in sorted(set(missing.values())):
        matched = sum(r == reason for r in missing.values())
        remaining, removed = _split(remaining, lambda rid, reason=reason: missing.get(rid) == reason)
        rows.append(_step("labels", reason, matched, removed, len(remaining)))

    for value in EXCLUSIONS:
        has = {rid for rid in remaining if value in set_values(labelled[rid])}
        remaining, removed = _split(remaining, lambda rid, has=has: rid in has)
        rows.append(_step("exclude", value, len(has), removed, len(remaining)))
    rows.append(_step("kept", "kept", None, None, len(remaining)))

    notes = [
        f"Labels: {labels.source}. Each candidate is removed once, at the first filter it "
        "matches; matched counts every candidate reaching that step with the property.",
    ]
    outside = sorted(set(labelled) - set(flags))
    if outside:
        notes.append(f"{len(outside)} labelled projects are not among the search results.")
    return ReportTable(
        key="exclusions",
        title="Candidates removed by each filter",
        frame=_frame(rows, ["stage", "filter", "matched", "removed", "remaining"]),
        notes=tuple(notes),
        group="stage",
    )


def _step(stage: str, name: str, matched: Any, removed: Any, remaining: int) -> dict[str, Any]:
    return {
        "stage": stage,
        "filter": name,
        "matched": matched,
        "removed": removed,
        "remaining": remaining,
    }


def _split(ids: list[int], drop: Any) -> tuple[list[int], int]:
    kept = [rid for rid in ids if not drop(rid)]
    return kept, len(ids) - len(kept)


def _clone_reason(clone: Any) -> str | None:
    """None when the repository was cloned, else why it has no checkout."""
    if clone is None:
        return "not cloned"
    status = str(_value(clone["status"]) or "")
    if status == "cloned":
        return None
    error_class = _value(clone["error_class"]) or "other"
    return f"{status or 'failed'}: {error_class}"


def _clone_order(reasons: Any) -> list[str]:
    found = {r for r in reasons if r is not None}
    rank = {c: i for i, c in enumerate(ERROR_CLASSES)}

    def key(reason: str) -> tuple[int, str, int, str]:
        status, _, cls = reason.partition(": ")
        return (reason == "not cloned", status, rank.get(cls, len(rank)), cls)

    return sorted(found, key=key)


def _label_gap(store: Store, source: str, clone: Any) -> str:
    if source == "consensus":
        return "not in the consensus"
    sha = _value(clone["commit_sha"])
    if sha and store.audit_status(int(clone["repo_id"]), str(sha)) == "failed":
        return "analysis failed"
    return "not analysed"
