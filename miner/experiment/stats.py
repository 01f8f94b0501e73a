"""The statistics of the variance studies, as plain functions of arrays.

Spread (max-min, SD), Levene and Mann-Whitney U (scipy), Cohen's d with the pooled SD,
predictive churn (1 - agreement of two runs' predictions), the L2 distance between trained
weights, and the overhead of one set of timings over another with a bootstrap interval.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def clean(value: Any, digits: int = 8) -> float | None:
    """A finite float rounded to `digits`, else None (NaN, inf, None)."""
    if value is None:
        return None
    number = float(value)
    return round(number, digits) if math.isfinite(number) else None


def significant(value: Any, digits: int = 6) -> float | None:
    """A finite float to `digits` significant digits (distances span many magnitudes)."""
    number = clean(value, 300)
    return None if number is None else float(f"{number:.{digits}g}")


def spread(values: Sequence[float]) -> dict[str, Any]:
    """n, min, max, mean, SD (n-1), max-min and max-min as a % of the mean."""
    import numpy as np

    x = np.asarray(values, dtype=float)
    if x.size == 0:
        return {"n": 0}
    mean = float(x.mean())
    span = float(x.max() - x.min())
    return {
        "n": int(x.size),
        "min": clean(x.min()),
        "max": clean(x.max()),
        "mean": clean(mean),
        "sd": clean(x.std(ddof=1)) if x.size > 1 else None,
        "max_diff": clean(span),
        "max_diff_pct": clean(100 * span / abs(mean)) if mean else None,
    }


def cohen_d(a: Sequence[float], b: Sequence[float]) -> float | None:
    """(mean a - mean b) / pooled SD; None when it is undefined (n < 2 or both SDs zero)."""
    import numpy as np

    x, y = np.asarray(a, dtype=float), np.asarray(b, dtype=float)
    if x.size < 2 or y.size < 2 or (np.ptp(x) == 0 and np.ptp(y) == 0):
        return None  # exact test: a mean of equal floats can leave a variance of ~1e-32
    pooled = ((x.size - 1) * x.var(ddof=1) + (y.size - 1) * y.var(ddof=1)) / (x.size + y.size - 2)
    return clean((x.mean() - y.mean()) / math.sqrt(pooled))


def levene(a: Sequence[float], b: Sequence[float]) -> tuple[float | None, float | None]:
    """Levene's test of equal variances (median-centred, scipy's default): (W, p)."""
    import warnings

    from scipy.stats import levene as scipy_levene

    if len(a) < 2 or len(b) < 2:
        return None, None
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # no spread in either: W is 0/0
        result = scipy_levene(a, b)
    return clean(result.statistic), clean(result.pvalue, 6)


def mann_whitney(a: Sequence[float], b: Sequence[float]) -> tuple[float | None, float | None]:
    """Two-sided Mann-Whitney U: (U of a, p)."""
    from scipy.stats import mannwhitneyu

    if len(a) == 0 or len(b) == 0:
        return None, None
    result = mannwhitneyu(a, b, alternative="two-sided")
    return clean(result.statistic), clean(result.pvalue, 6)


def agreement(p: Any, q: Any) -> float:
    """The share of test examples on which two runs predict the same class."""
    import numpy as np

    x, y = np.asarray(p), np.asarray(q)
    if x.shape != y.shape:
        raise ValueError(f"predictions of different lengths: {x.shape} vs {y.shape}")
    return float(np.mean(x == y))


def churn(p: Any, q: Any) -> float:
    """Predictive churn: 1 - agreement."""
    return 1.0 - agreement(p, q)


def l2_distance(u: Any, v: Any) -> float:
    """Euclidean distance between two flattened weight vectors."""
    import numpy as np

    x, y = np.asarray(u, dtype=np.float64), np.asarray(v, dtype=np.float64)
    if x.shape != y.shape:
        raise ValueError(f"weights of different sizes: {x.shape} vs {y.shape}")
    return float(np.linalg.norm(x - y))


def mean_pairwise(items: Sequence[T], measure: Callable[[T, T], float]) -> float | None:
    """The mean of `measure` over every unordered pair of items; None for fewer than two."""
    values = [measure(a, b) for a, b in itertools.combinations(items, 2)]
    return sum(values) / len(values) if values else None


def mean_cross(left: Sequence[T], right: Sequence[T], measure: Callable[[T, T], float]) -> float:
    """The mean of `measure` over every pair with one item from each side."""
    values = [measure(a, b) for a in left for b in right]
    return sum(values) / len(values) if values else math.nan


def overhead(
    slow: Sequence[float], fast: Sequence[float], level: float = 0.95, resamples: int = 5000
) -> dict[str, float | None]:
    """Overhead of `slow` over `fast` in % of fast's time, of the means and of the medians, each
    with a percentile bootstrap interval (each side resampled on its own; a fixed generator, so
    tables are reproducible). The median's is the one a stray slow run cannot move."""
    import numpy as np

    x, y = np.asarray(slow, dtype=float), np.asarray(fast, dtype=float)
    out: dict[str, float | None] = {}
    for name, centre in (("", np.mean), ("median_", np.median)):
        keys = (f"{name}overhead_pct", f"{name}ci_low", f"{name}ci_high")
        if x.size == 0 or y.size == 0 or centre(y) == 0:
            out.update(dict.fromkeys(keys))
            continue
        point = clean(100 * (centre(x) / centre(y) - 1), 4)
        if x.size < 2 or y.size < 2:
            out.update(zip(keys, (point, None, None), strict=True))
            continue
        rng = np.random.default_rng(0)
        xs = centre(rng.choice(x, size=(resamples, x.size)), axis=1)
        ys = centre(rng.choice(y, size=(resamples, y.size)), axis=1)
        ratios = 100 * (xs / ys - 1)
        tail = 100 * (1 - level) / 2
        low, high = np.percentile(ratios, [tail, 100 - tail])
        out.update(zip(keys, (point, clean(low, 4), clean(high, 4)), strict=True))
    return out
