"""Tables from the pipeline's records: the search log (Table I) and the exclusion funnel."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from miner.codebook import EXCLUSIONS
from miner.report.labels import LabelSet, set_values
from miner.report.records import ReportTable
from miner.report.tables import make_frame

if TYPE_CHECKING:
    import pandas as pd

    from miner.store import Store

UNIQUE_ROW = "all queries (unique)"
ERROR_CLASSES = ("gone", "blocked", "auth", "timeout", "too_large", "too_new", "other")
SEARCH_COLUMNS = [
    "keyword",
    "stars",
    "created",
    "pushed",
    "total_found",
    "fetched",
    "shortfall",
    "status",
]


def stored_value(cell: Any) -> Any:
    """A stored cell with NULL (NaN or pd.NA after pandas) as None and whole floats as ints."""
    import pandas as pd

    if cell is None or cell is pd.NA or (isinstance(cell, float) and cell != cell):
        return None
    if isinstance(cell, float) and cell.is_integer():
        return int(cell)
    if hasattr(cell, "item"):  # numpy scalar
        return stored_value(cell.item())
    return cell


def span(low: Any, high: Any) -> str:
    """A range in GitHub's qualifier notation: `200..*`, `*..2021-03-01`, or `any`."""
    low, high = stored_value(low), stored_value(high)
    if low is None and high is None:
        return "any"
    return f"{'*' if low is None else low}..{'*' if high is None else high}"


def latest_searches(searches: pd.DataFrame) -> pd.DataFrame:
    """The newest search log entry per query (a re-run supersedes the earlier entry)."""
    if searches.empty:
        return searches
    newest = searches.sort_values("id").groupby("query_key", sort=False).tail(1)
    order = ["keyword", "min_stars", "max_stars", "created_after", "created_before", "id"]
    return newest.sort_values(order, kind="stable", na_position="first").reset_index(drop=True)


def search_table(store: Store, searches: pd.DataFrame) -> ReportTable:
    """Table I: per query, the thresholds, time frame, projects found and fetched."""
    log = latest_searches(searches)
    rows: list[dict[str, Any]] = []
    for _, s in log.iterrows():
        rows.append(
            {
                "keyword": s["keyword"],
                "stars": span(s["min_stars"], s["max_stars"]),
                "created": span(s["created_after"], s["created_before"]),
                "pushed": span(s["pushed_after"], None),
                "total_found": stored_value(s["total_found"]),
                "fetched": stored_value(s["fetched"]),
                "shortfall": stored_value(s["shortfall"]),
                "status": stored_value(s["status"]),
            }
        )
    unique = store.unique_repos([int(i) for i in log["id"]]) if len(log) else 0
    rows.append({"keyword": UNIQUE_ROW, "fetched": unique})
    notes = [
        "total_found is GitHub's count for the query; fetched is the number of repositories "
        "stored for it; shortfall is what GitHub reported but would not serve. The last row "
        "counts each repository once across the queries above.",
    ]
    if len(searches) > len(log):
        notes.append(
            f"{len(searches) - len(log)} earlier runs of the same queries are not shown "
            "(the newest run of each query is)."
        )
    return ReportTable(
        key="search",
        title="Projects found per search query",
        frame=make_frame(rows, SEARCH_COLUMNS),
        notes=tuple(notes),
    )


def exclusions_table(
    store: Store, repos: pd.DataFrame, clones: pd.DataFrame, labels: LabelSet
) -> ReportTable:
    """How many candidates each filter removed, in pipeline order, down to the kept projects."""
    flags = {
        int(r["id"]): {k: bool(stored_value(r[k])) for k in ("fork", "archived", "disabled")}
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

    labelled = {
        int(r): str(x)
        for r, x in zip(labels.frame["repo_id"], labels.frame["exclude"], strict=True)
        if r is not None
    }
    missing = {
        rid: _label_gap(store, labels.source, clone_of[rid])
        for rid in remaining
        if rid not in labelled
    }
    for reason in sorted(set(missing.values())):
        matched = sum(r == reason for r in missing.values())
        remaining, removed = _split(
            remaining, lambda rid, reason=reason: missing.get(rid) == reason
        )
        rows.append(_step("labels", reason, matched, removed, len(remaining)))

    entering = list(remaining)
    for value in EXCLUSIONS:
        has = {rid for rid in entering if value in set_values(labelled[rid])}
        remaining, removed = _split(remaining, lambda rid, has=has: rid in has)
        rows.append(_step("exclude", value, len(has), removed, len(remaining)))
    rows.append(_step("kept", "kept", None, None, len(remaining)))

    notes = [
        f"Labels: {labels.source}. Each candidate is removed once, at the first filter it "
        "matches; matched counts the candidates entering that stage with the property, so a "
        "project with two `exclude` values is matched twice but removed once.",
    ]
    outside = sorted(set(labelled) - set(flags))
    if outside:
        notes.append(f"{len(outside)} labelled projects are not among the search results.")
    return ReportTable(
        key="exclusions",
        title="Candidates removed by each filter",
        frame=make_frame(rows, ["stage", "filter", "matched", "removed", "remaining"]),
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
    status = str(stored_value(clone["status"]) or "")
    if status == "cloned":
        return None
    error_class = stored_value(clone["error_class"]) or "other"
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
    sha = stored_value(clone["commit_sha"])
    if sha and store.audit_status(int(clone["repo_id"]), str(sha)) == "failed":
        return "analysis failed"
    return "not analyzed"
