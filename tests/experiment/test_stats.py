"""The variance statistics against values worked out by hand on small arrays."""

from __future__ import annotations

import math

import pytest

from miner.experiment import stats


def test_churn_and_agreement():
    assert stats.agreement([0, 1, 2, 3], [0, 1, 0, 0]) == 0.5
    assert stats.churn([0, 1, 2, 3], [0, 1, 0, 0]) == 0.5
    runs = [[0, 0, 0, 0], [0, 0, 1, 1], [1, 1, 1, 1]]  # pairs: 0.5, 1.0, 0.5
    assert stats.mean_pairwise(runs, stats.churn) == pytest.approx(2 / 3)
    assert stats.mean_cross(runs[:1], runs[1:], stats.churn) == pytest.approx(0.75)
    with pytest.raises(ValueError, match="different lengths"):
        stats.churn([0, 1], [0, 1, 2])


def test_l2_distance():
    assert stats.l2_distance([0, 0], [3, 4]) == 5.0
    vectors = [[0, 0], [3, 4], [6, 8]]  # 5, 10, 5
    assert stats.mean_pairwise(vectors, stats.l2_distance) == pytest.approx(20 / 3)
    assert stats.mean_pairwise(vectors[:1], stats.l2_distance) is None


def test_cohen_d_with_pooled_sd():
    assert stats.cohen_d([1, 2, 3], [3, 4, 5]) == pytest.approx(-2.0)
    # variances 2 and 4, pooled (1*2 + 3*4) / 4 = 3.5; means 2 and 3
    assert stats.cohen_d([1, 3], [2, 2, 2, 6]) == pytest.approx(-1 / math.sqrt(3.5))
    assert stats.cohen_d([1, 1], [1, 1]) is None  # no spread at all: undefined
    assert stats.cohen_d([1], [2, 3]) is None


def test_levene_and_mann_whitney():
    # median-centred deviations |x - median|: (1, 0, 1) and (2, 0, 2); ANOVA on them gives 0.8
    w, p = stats.levene([1, 2, 3], [2, 4, 6])
    assert w == pytest.approx(0.8)
    assert 0 < p < 1
    u, p = stats.mann_whitney([1, 2, 3], [4, 5, 6])
    assert u == 0 and p == pytest.approx(0.1)  # exact: 2 of the 20 orderings are as extreme


def test_spread():
    result = stats.spread([0.9, 0.8, 1.0])
    assert result["max_diff"] == pytest.approx(0.2)
    assert result["sd"] == pytest.approx(0.1)
    assert result["max_diff_pct"] == pytest.approx(100 * 0.2 / 0.9)
    assert stats.spread([0.5])["sd"] is None


def test_overhead_with_interval():
    result = stats.overhead([2.0, 2.0], [1.0, 1.0])
    assert result == {
        "overhead_pct": 100.0, "ci_low": 100.0, "ci_high": 100.0,
        "median_overhead_pct": 100.0, "median_ci_low": 100.0, "median_ci_high": 100.0,
    }  # fmt: skip
    varied = stats.overhead([1.5, 2.5, 2.0], [1.0, 1.0, 1.0])
    assert varied["overhead_pct"] == pytest.approx(100.0)
    assert varied["ci_low"] < 100 < varied["ci_high"]
    assert stats.overhead([2.0], [1.0])["ci_low"] is None
    assert stats.overhead([2.0], [1.0])["median_ci_low"] is None


def test_median_overhead_is_not_moved_by_one_slow_run():
    result = stats.overhead([1.1, 1.1, 1.1, 1.1, 9.9], [1.0, 1.0, 1.0, 1.0, 1.0])
    assert result["overhead_pct"] == pytest.approx(186.0)  # one run of 9.9 s drags the mean
    assert result["median_overhead_pct"] == pytest.approx(10.0)
    assert result["median_ci_low"] == pytest.approx(10.0)
    assert result["median_ci_high"] > result["median_ci_low"]  # resamples that draw 9.9 thrice
