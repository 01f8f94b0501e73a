"""The agreement statistics against values computed independently: by hand from the
definitions (exact fractions), by a second library, or recorded from nltk."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import krippendorff
import numpy as np
import pytest
from sklearn.metrics import cohen_kappa_score

from miner.annotate.stats import alpha_masi, masi_distance, pair_stats

# The kappa paradox (Feinstein & Cicchetti 1990): raters agree on 118 of 125 items, both
# almost always say yes, and kappa is below zero.
PARADOX_A = ["yes"] * 118 + ["yes"] * 5 + ["no"] * 2
PARADOX_B = ["yes"] * 118 + ["no"] * 5 + ["yes"] * 2


def by_hand(a: list[str], b: list[str]) -> dict[str, Fraction]:
    """p_o, kappa, PABAK and AC1 of a yes/no table, from their definitions, exactly."""
    n = len(a)
    cats = ["yes", "no"]
    po = Fraction(sum(x == y for x, y in zip(a, b, strict=True)), n)
    pa = {c: Fraction(a.count(c), n) for c in cats}
    pb = {c: Fraction(b.count(c), n) for c in cats}
    pe = sum(pa[c] * pb[c] for c in cats)
    pi = {c: (pa[c] + pb[c]) / 2 for c in cats}
    pe_gwet = sum(pi[c] * (1 - pi[c]) for c in cats) / (len(cats) - 1)
    return {
        "po": po,
        "kappa": (po - pe) / (1 - pe),
        "pabak": 2 * po - 1,
        "ac1": (po - pe_gwet) / (1 - pe_gwet),
    }


def fleiss_cohen_everitt_se(table: np.ndarray) -> float:
    """The large-sample standard error of kappa (Fleiss, Cohen & Everitt 1969), written out."""
    n = table.sum()
    p = table / n
    rows, cols = p.sum(axis=1), p.sum(axis=0)
    po, pe = np.trace(p), float((rows * cols).sum())
    k = len(p)
    diag = sum(p[i, i] * ((1 - pe) - (rows[i] + cols[i]) * (1 - po)) ** 2 for i in range(k))
    off = (1 - po) ** 2 * sum(
        p[i, j] * (cols[i] + rows[j]) ** 2 for i in range(k) for j in range(k) if i != j
    )
    last = (po * pe - 2 * pe + po) ** 2
    return math.sqrt((diag + off - last) / (n * (1 - pe) ** 4))


def test_kappa_paradox_high_agreement_negative_kappa() -> None:
    stats = pair_stats(PARADOX_A, PARADOX_B, ["yes", "no"])
    expected = by_hand(PARADOX_A, PARADOX_B)
    assert stats.observed == pytest.approx(float(expected["po"]))  # 0.944
    assert stats.kappa == pytest.approx(float(expected["kappa"]))  # about -0.023
    assert stats.kappa == pytest.approx(cohen_kappa_score(PARADOX_A, PARADOX_B))
    assert stats.kappa < 0 < 0.9 < stats.observed
    assert stats.pabak == pytest.approx(float(expected["pabak"]))  # 0.888
    assert stats.ac1 == pytest.approx(float(expected["ac1"]))  # about 0.941
    assert stats.table == ((118, 5), (2, 0))


def test_kappa_confidence_interval_matches_the_written_out_variance() -> None:
    a = ["yes"] * 40 + ["no"] * 10 + ["yes"] * 6 + ["no"] * 4
    b = ["yes"] * 40 + ["no"] * 10 + ["no"] * 6 + ["yes"] * 4
    stats = pair_stats(a, b, ["yes", "no"])
    se = fleiss_cohen_everitt_se(np.array(stats.table))
    assert stats.kappa is not None and stats.kappa_low is not None
    assert stats.kappa_low == pytest.approx(stats.kappa - 1.96 * se, abs=1e-4)
    assert stats.kappa_high == pytest.approx(stats.kappa + 1.96 * se, abs=1e-4)
    assert stats.kappa == pytest.approx(float(by_hand(a, b)["kappa"]))


def test_multi_category_pabak_and_ac1_use_the_categories_seen() -> None:
    a = ["cnn", "rnn", "gan", "cnn", "cnn", "rnn"]
    b = ["cnn", "rnn", "cnn", "cnn", "gan", "rnn"]
    stats = pair_stats(a, b)
    assert stats.q == 3
    po = Fraction(4, 6)
    assert stats.pabak == pytest.approx(float((3 * po - 1) / 2))
    pi = {c: Fraction(a.count(c) + b.count(c), 12) for c in ("cnn", "rnn", "gan")}
    pe = sum(p * (1 - p) for p in pi.values()) / 2
    assert stats.ac1 == pytest.approx(float((po - pe) / (1 - pe)))
    assert stats.kappa == pytest.approx(cohen_kappa_score(a, b))


def test_kappa_is_undefined_when_both_raters_use_one_category() -> None:
    stats = pair_stats(["yes"] * 8, ["yes"] * 8, ["yes", "no"])
    assert stats.kappa is None and stats.kappa_low is None
    assert stats.pabak == 1.0 and stats.ac1 == 1.0


@pytest.mark.parametrize(
    ("first", "second", "distance"),
    [
        ({"a"}, {"a"}, 0.0),
        (set(), set(), 0.0),
        ({"a"}, {"a", "b"}, 1 - (1 / 2) * (2 / 3)),  # subset: monotonicity 2/3
        ({"a", "b"}, {"b", "c"}, 1 - (1 / 3) * (1 / 3)),  # overlap: monotonicity 1/3
        ({"a"}, {"b"}, 1.0),
        (set(), {"b"}, 1.0),
    ],
)
def test_masi_distance_follows_passonneau(first: set, second: set, distance: float) -> None:
    assert masi_distance(frozenset(first), frozenset(second)) == pytest.approx(distance)


def alpha_by_definition(pairs: list[tuple[frozenset[str], frozenset[str]]]) -> float:
    """Krippendorff's alpha from its pairable-values definition: 1 - D_o / D_e."""
    values = [v for pair in pairs for v in pair]
    n = len(values)
    observed = sum(2 * masi_distance(x, y) for x, y in pairs) / n  # m_u - 1 = 1 per unit
    expected = sum(
        masi_distance(values[i], values[j]) for i, j in itertools.permutations(range(n), 2)
    ) / (n * (n - 1))
    return 1 - observed / expected


NETWORKS_A = [
    "cnn",
    "cnn;rnn",
    "rnn",
    "gan;cnn",
    "transformer",
    "",
    "cnn",
    "mlp",
    "cnn;rnn",
    "drl;cnn",
    "gnn",
    "cnn",
]
NETWORKS_B = [
    "cnn",
    "cnn",
    "rnn;cnn",
    "gan",
    "transformer",
    "other",
    "cnn",
    "mlp;cnn",
    "cnn;rnn",
    "drl",
    "gnn;transformer",
    "rnn",
]


def as_sets(values: list[str]) -> list[frozenset[str]]:
    return [frozenset(v for v in value.split(";") if v) for value in values]


def test_alpha_masi_matches_the_definition_and_nltk() -> None:
    pairs = list(zip(as_sets(NETWORKS_A), as_sets(NETWORKS_B), strict=True))
    alpha = alpha_masi(pairs)
    assert alpha == pytest.approx(alpha_by_definition(pairs))
    # nltk 3.9 AnnotationTask(distance=masi_distance).alpha() on the same data:
    assert alpha == pytest.approx(0.40687679083094574)


def test_alpha_masi_on_single_values_is_nominal_alpha() -> None:
    a, b = ["x", "y", "y", "z", "x", "x"], ["x", "y", "z", "z", "x", "y"]
    pairs = [(frozenset({x}), frozenset({y})) for x, y in zip(a, b, strict=True)]
    nominal = krippendorff.alpha(reliability_data=[a, b], level_of_measurement="nominal")
    assert alpha_masi(pairs) == pytest.approx(nominal)


def test_alpha_masi_undefined_for_one_value() -> None:
    assert alpha_masi([(frozenset({"cnn"}), frozenset({"cnn"}))] * 4) is None


def test_an_interval_that_cannot_be_estimated_is_none_not_zero_width() -> None:
    # rater A says yes five times: kappa is 0, and its asymptotic variance 0 at this table
    stats = pair_stats(["yes"] * 5, ["yes", "yes", "yes", "yes", "no"], ["yes", "no"])
    assert stats.kappa == pytest.approx(0.0)
    assert stats.kappa_low is None and stats.kappa_high is None
    assert not stats.ci_estimable and "standard error is 0" in stats.ci_note
    perfect = pair_stats(["yes", "no", "no"], ["yes", "no", "no"], ["yes", "no"])
    assert perfect.kappa == 1.0 and not perfect.ci_estimable
    spread = pair_stats(["yes", "yes", "no", "no", "no"], ["yes", "no", "no", "no", "yes"])
    assert spread.ci_estimable and spread.kappa_low is not None and spread.ci_note == ""


def test_one_label_raises_no_scikit_learn_warning() -> None:
    import warnings

    from miner.annotate.score import score_field

    with warnings.catch_warnings():
        warnings.simplefilter("error")
        pair_stats(["python"] * 4, ["python"] * 4)
        score_field("language", ["python"] * 3, ["python"] * 3)
        score_field("exclude", [""] * 3, [""] * 3)
