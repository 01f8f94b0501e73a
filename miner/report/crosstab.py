"""Cross-tabulations of requirement coverage, with a chi-square test where the counts allow it.

The test compares yes against no across categories; `unclear`, `n/a`, empty cells and unknown
categories are shown but left out of it. It is reported only when Cochran's rule holds (every
expected count >= 1 and at most 20% below 5); a 2x2 table that fails it gets Fisher's exact test.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from miner.codebook import FIELD_BY_NAME
from miner.report.funnel import stored_value
from miner.report.labels import SPECIAL_VALUES
from miner.report.records import ReportTable
from miner.report.tables import MISSING, Population, make_frame, percent

if TYPE_CHECKING:
    import pandas as pd

UNKNOWN = "unknown"
OUTCOMES = ("hardware_req", "software_req")
BY = ("primary_framework", "star_band", "push_year")
BY_TITLE = {
    "primary_framework": "primary framework",
    "star_band": "stars",
    "push_year": "year of last push",
}
TEST_COLUMNS = [
    "outcome",
    "by",
    "n",
    "categories",
    "test",
    "statistic",
    "dof",
    "p_value",
    "cramers_v",
    "note",
]


@dataclass(frozen=True)
class IndependenceTest:
    """The outcome of one independence test (test is `none` when the counts did not allow one)."""

    test: str
    n: int
    categories: int
    statistic: float | None = None
    dof: int | None = None
    p_value: float | None = None
    cramers_v: float | None = None
    note: str = ""

    def sentence(self, outcome: str, by: str) -> str:
        """The result in words, for the notes under the table."""
        if self.test == "chi-square":
            return (
                f"Chi-square test of independence of {outcome} (yes vs no) and {BY_TITLE[by]}: "
                f"chi2({self.dof}, N = {self.n}) = {self.statistic}, p = {self.p_value}, "
                f"Cramer's V = {self.cramers_v}."
            )
        if self.test == "fisher":
            return (
                f"Fisher's exact test of {outcome} (yes vs no) and {BY_TITLE[by]} "
                f"(N = {self.n}): odds ratio = {self.statistic}, p = {self.p_value}. {self.note}"
            )
        return f"No test of independence for {outcome} and {BY_TITLE[by]}: {self.note}"


def star_band(stars: Any, bands: Sequence[int]) -> str:
    """The band of `stars` given the bands' lower bounds, e.g. `100-499` or `5000+`."""
    value = stored_value(stars)
    if value is None:
        return UNKNOWN
    label = UNKNOWN
    for i, low in enumerate(bands):
        if int(value) >= low:
            high = bands[i + 1] - 1 if i + 1 < len(bands) else None
            label = f"{low}+" if high is None else f"{low}-{high}"
    return label


def categories(
    pop: Population, repos: pd.DataFrame, by: str, bands: Sequence[int]
) -> tuple[list[str], list[str]]:
    """Each counted repository's category for `by`, and the categories in table order."""
    meta = {int(r["id"]): r for _, r in repos.iterrows()}
    cats: list[str] = []
    for _, row in pop.frame.iterrows():
        repo = meta.get(int(row["repo_id"])) if row["repo_id"] is not None else None
        if by == "primary_framework":
            cats.append(str(row["primary_framework"]) or MISSING)
        elif by == "star_band":
            cats.append(star_band(None if repo is None else repo["stars"], bands))
        else:
            pushed = None if repo is None else stored_value(repo["pushed_at"])
            cats.append(str(pushed)[:4] if pushed else UNKNOWN)
    last = [UNKNOWN, *SPECIAL_VALUES, MISSING]
    present = set(cats)
    if by == "primary_framework":
        rank = {v: i for i, v in enumerate(FIELD_BY_NAME["primary_framework"].values)}
        main = sorted(
            present - set(last), key=lambda c: (-cats.count(c), rank.get(c, len(rank)), c)
        )
    elif by == "star_band":
        labels = [star_band(low, bands) for low in bands]
        main = [b for b in labels if b in present]
    else:
        main = sorted(present - set(last))
    return cats, [*main, *(c for c in last if c in present)]


def crosstab(
    pop: Population, repos: pd.DataFrame, outcome: str, by: str, bands: Sequence[int]
) -> tuple[ReportTable, IndependenceTest]:
    """One outcome by one category: yes/no (and special) counts, % yes, and the test."""
    cats, order = categories(pop, repos, by, bands)
    values = [str(v) or MISSING for v in pop.frame[outcome]]
    columns = ["yes", "no", *(v for v in (*SPECIAL_VALUES, MISSING) if v in values)]
    tally = Counter(zip(cats, values, strict=True))
    rows: list[dict[str, Any]] = []
    testable: list[tuple[int, int]] = []
    for cat in order:
        counts = {c: tally[(cat, c)] for c in columns}
        total = sum(counts.values())
        rows.append(
            {by: cat, **counts, "total": total, "percent_yes": percent(counts["yes"], total)}
        )
        if cat not in (UNKNOWN, *SPECIAL_VALUES, MISSING):
            testable.append((counts["yes"], counts["no"]))
    result = independence_test(testable)
    table = ReportTable(
        key=f"{outcome}_by_{by}",
        title=f"{outcome} by {BY_TITLE[by]}",
        frame=make_frame(rows, [by, *columns, "total", "percent_yes"]),
        notes=(pop.note(), result.sentence(outcome, by)),
        extra={"test": _test_record(outcome, by, result)},
    )
    return table, result


def independence_test(counts: Sequence[tuple[int, int]]) -> IndependenceTest:
    """Chi-square (or Fisher for 2x2) on yes/no counts per category, when the counts allow."""
    from scipy.stats import chi2_contingency, fisher_exact

    table = [list(r) for r in counts if sum(r) > 0]
    n = sum(sum(r) for r in table)
    if len(table) < 2:
        return IndependenceTest(
            "none", n, len(table), note="fewer than two categories with labels."
        )
    if not sum(r[0] for r in table) or not sum(r[1] for r in table):
        return IndependenceTest("none", n, len(table), note="every project has the same value.")
    chi2, p, dof, expected = chi2_contingency(table, correction=False)
    cells = [e for row in expected for e in row]
    small = sum(e < 5 for e in cells)
    if min(cells) >= 1 and small <= 0.2 * len(cells):
        v = math.sqrt(chi2 / n)  # min(rows, 2 columns) - 1 = 1
        return IndependenceTest("chi-square", n, len(table), _r(chi2), int(dof), _p(p), _r(v))
    why = f"{small} of {len(cells)} expected counts are below 5 (Cochran's rule)"
    if len(table) == 2:
        odds, p_exact = fisher_exact(table)
        odds = None if math.isinf(odds) or math.isnan(odds) else _r(odds)
        return IndependenceTest(
            "fisher", n, 2, odds, None, _p(p_exact), note=f"Chi-square not used: {why}."
        )
    return IndependenceTest("none", n, len(table), note=f"{why}; merge categories to test.")


def _r(x: float) -> float:
    return round(float(x), 3)


def _p(p: float) -> float:
    return float(f"{float(p):.3g}")


def _test_record(outcome: str, by: str, r: IndependenceTest) -> dict[str, Any]:
    return {
        "outcome": outcome,
        "by": by,
        "n": r.n,
        "categories": r.categories,
        "test": r.test,
        "statistic": r.statistic,
        "dof": r.dof,
        "p_value": r.p_value,
        "cramers_v": r.cramers_v,
        "note": r.note or None,
    }


def crosstab_tables(
    pop: Population, repos: pd.DataFrame, bands: Sequence[int]
) -> list[ReportTable]:
    """Every outcome by every category, then one table of all the tests."""
    tables: list[ReportTable] = []
    for outcome in OUTCOMES:
        for by in BY:
            table, _ = crosstab(pop, repos, outcome, by, bands)
            tables.append(table)
    records = [t.extra["test"] for t in tables]
    tables.append(
        ReportTable(
            key="crosstab_tests",
            title="Tests of independence for the cross-tabulations",
            frame=make_frame(records, TEST_COLUMNS),
            notes=(
                pop.note(),
                "statistic is chi2 for the chi-square test and the odds ratio for Fisher's "
                "exact test. Only yes and no are tested; unknown categories are left out.",
            ),
        )
    )
    return tables
