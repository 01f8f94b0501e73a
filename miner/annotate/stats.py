"""Agreement statistics for two raters, from scikit-learn, statsmodels and krippendorff where
they exist; Gwet's AC1 and the MASI distance, which those libraries lack, follow their papers.

- Cohen's kappa and its asymptotic 95 % CI: statsmodels `cohens_kappa` (Fleiss, Cohen & Everitt).
- PABAK: statsmodels `fleiss_kappa(method="randolph")`, which for two raters is
  (q * p_o - 1) / (q - 1), Byrt et al.'s prevalence- and bias-adjusted kappa.
- Gwet's AC1: p_e = 1/(q-1) * sum_k pi_k (1 - pi_k), pi_k the mean share of category k (Gwet 2008).
- Krippendorff's alpha with MASI distance (Passonneau 2006): `krippendorff.alpha` with the
  MASI distance as its metric over the distinct sets observed.
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass(frozen=True)
class PairStats:
    """Two raters' agreement on one categorical variable."""

    n: int
    observed: float  # p_o
    kappa: float | None  # None when undefined (both raters used one category only)
    kappa_low: float | None
    kappa_high: float | None
    pabak: float | None
    ac1: float | None
    q: int  # categories the chance-corrected statistics assume
    table: tuple[tuple[int, ...], ...]  # rater A (rows) x rater B (columns)
    categories: tuple[str, ...]
    ci_note: str = ""  # why kappa has no interval although kappa itself is defined

    @property
    def ci_estimable(self) -> bool:
        """False when kappa is defined but its interval could not be estimated."""
        return self.kappa is None or self.kappa_low is not None


SINGLE_LABEL = "A single label was found"  # scikit-learn's note; `labels` fixes the shape
NO_SPREAD = (
    "its asymptotic standard error is 0 at this table (a rater used one category only, or"
    " agreement is perfect): that is no certainty, the sample is too uniform to tell"
)


def confusion(a: Sequence[str], b: Sequence[str], categories: Sequence[str]) -> np.ndarray:
    """scikit-learn's confusion matrix over `categories`, without its single-label warning
    (the categories are passed, so the shape is right even when one label occurs)."""
    from sklearn.metrics import confusion_matrix

    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=SINGLE_LABEL)
        return np.asarray(confusion_matrix(list(a), list(b), labels=list(categories)))


def contingency(a: Sequence[str], b: Sequence[str], categories: Sequence[str]) -> np.ndarray:
    """Rater A (rows) by rater B (columns) counts over `categories`, via scikit-learn."""
    if not a:
        return np.zeros((len(categories), len(categories)), dtype=int)
    return confusion(a, b, categories)


def kappa_with_ci(table: np.ndarray) -> tuple[float | None, float | None, float | None]:
    """Cohen's kappa with its 95 % CI (statsmodels); None where kappa is undefined, and no
    interval (None, None) where its standard error is 0, which would read as certainty."""
    from statsmodels.stats.inter_rater import cohens_kappa

    total = table.sum()
    if total == 0:
        return None, None, None
    rows, cols = table.sum(axis=1) / total, table.sum(axis=0) / total
    if math.isclose(float((rows * cols).sum()), 1.0):  # chance agreement 1: kappa is 0/0
        return None, None, None
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # statsmodels' z-test divides by 0 at perfect agreement
        result: Any = cohens_kappa(table)
    kappa = float(result.kappa)
    se = math.sqrt(max(float(result.var_kappa), 0.0))  # rounding can make a 0 variance negative
    if se < 1e-12:
        return kappa, None, None
    return (
        kappa,
        max(-1.0, kappa - 1.959963984540054 * se),
        min(1.0, kappa + 1.959963984540054 * se),
    )


def pabak(a: Sequence[int], b: Sequence[int], q: int) -> float | None:
    """Randolph's free-marginal kappa (= PABAK for two raters) over q categories (statsmodels)."""
    from statsmodels.stats.inter_rater import aggregate_raters, fleiss_kappa

    if not a or q < 2:
        return None
    counts, _ = aggregate_raters(np.column_stack([a, b]), n_cat=q)
    return float(fleiss_kappa(counts, method="randolph"))


def gwet_ac1(table: np.ndarray) -> float | None:
    """Gwet's AC1 for two raters from their contingency table (q = the table's size)."""
    total = float(table.sum())
    q = table.shape[0]
    if total == 0 or q < 2:
        return None
    observed = float(np.trace(table)) / total
    pi = (table.sum(axis=0) + table.sum(axis=1)) / (2 * total)
    chance = float((pi * (1 - pi)).sum()) / (q - 1)
    if math.isclose(chance, 1.0):
        return None
    return (observed - chance) / (1 - chance)


def pair_stats(
    a: Sequence[str], b: Sequence[str], categories: Sequence[str] | None = None
) -> PairStats:
    """Every two-rater statistic for paired ratings (items with a missing rating removed first)."""
    if len(a) != len(b):
        raise ValueError("the two raters must rate the same items")
    cats = list(categories) if categories else sorted(set(a) | set(b))
    extra = sorted((set(a) | set(b)) - set(cats))
    cats += extra
    table = contingency(a, b, cats)
    n = len(a)
    observed = float(np.trace(table)) / n if n else math.nan
    kappa, low, high = kappa_with_ci(table)
    q = max(len(cats), 2)
    index = {c: i for i, c in enumerate(cats)}
    free = pabak([index[x] for x in a], [index[x] for x in b], q) if n else None
    padded = table
    if len(cats) < 2:  # one category seen: AC1 still needs the other of a yes/no scale
        padded = np.pad(table, ((0, 1), (0, 1)))
    return PairStats(
        n=n,
        observed=observed,
        kappa=kappa,
        kappa_low=low,
        kappa_high=high,
        pabak=free,
        ac1=gwet_ac1(padded) if n else None,
        q=q,
        table=tuple(tuple(int(x) for x in row) for row in table),
        categories=tuple(cats),
        ci_note=NO_SPREAD if kappa is not None and low is None else "",
    )


def masi_distance(first: frozenset[str], second: frozenset[str]) -> float:
    """MASI distance (Passonneau 2006): 1 - Jaccard * monotonicity; two empty sets are equal."""
    if first == second:
        return 0.0
    union = len(first | second)
    common = len(first & second)
    if common == 0:
        return 1.0
    monotonicity = 2 / 3 if common == min(len(first), len(second)) else 1 / 3
    return 1.0 - (common / union) * monotonicity


def alpha_masi(pairs: Sequence[tuple[frozenset[str], frozenset[str]]]) -> float | None:
    """Krippendorff's alpha with MASI distance for two raters' set-valued ratings."""
    import krippendorff

    domain = sorted({s for pair in pairs for s in pair}, key=lambda s: sorted(s))
    if len(domain) < 2 or not pairs:
        return None
    index = {s: i for i, s in enumerate(domain)}
    distance = np.array([[masi_distance(x, y) for y in domain] for x in domain])
    counts = np.zeros((len(pairs), len(domain)), dtype=int)
    for row, (x, y) in enumerate(pairs):
        counts[row, index[x]] += 1
        counts[row, index[y]] += 1

    def metric(v1: Any, v2: Any, i1: Any, i2: Any, n_v: Any, dtype: Any = np.float64) -> Any:
        return distance[i1, i2].astype(dtype)

    return float(krippendorff.alpha(value_counts=counts, level_of_measurement=metric))
