"""`agreement`: two annotators' layers compared field by field, with the statistics reviewers ask
for and the warnings that keep a skewed kappa from misleading (the kappa paradox)."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from miner.annotate.layers import imported_layers, load_layer, was_prefilled
from miner.annotate.layout import Layout
from miner.annotate.prepare import read_manifest
from miner.annotate.sheets import SPECIAL_VALUES, study_fields
from miner.annotate.stats import PairStats, alpha_masi, pair_stats
from miner.annotate.validate import manifest_fields
from miner.codebook import DERIVED_FIELDS, FIELD_BY_NAME, FIELD_NAMES
from miner.errors import SheetError

FEW_ITEMS = 30
RARE = 5
SKEW = 0.8
EMPTY_LABEL = "none"  # how an empty set is shown as a category


@dataclass(frozen=True)
class ValueAgreement:
    """Agreement on one value of a set field: "is this value in the set?" as yes/no."""

    value: str
    positives_a: int
    positives_b: int
    stats: PairStats
    rare: bool


@dataclass(frozen=True)
class FieldAgreement:
    """One field's agreement between two annotators."""

    field: str
    kind: str
    derived: bool
    n: int
    missing: int  # items excluded because one annotator wrote unclear or n/a
    stats: PairStats
    prevalence: float | None  # share of `yes` (booleans) or of the commonest category
    modal: str | None
    alpha_masi: float | None
    per_value: tuple[ValueAgreement, ...]
    warnings: tuple[str, ...]


@dataclass(frozen=True)
class AgreementReport:
    """Agreement of two annotators in one round."""

    round: str
    annotator_a: str
    annotator_b: str
    items: int
    fields: tuple[FieldAgreement, ...]
    notes: tuple[str, ...]


def _category(kind: str, value: str) -> str:
    return EMPTY_LABEL if kind == "set" and value == "" else value


def _as_set(value: str) -> frozenset[str]:
    return frozenset(v for v in value.split(";") if v)


def field_agreement(name: str, values_a: Sequence[str], values_b: Sequence[str]) -> FieldAgreement:
    """Every statistic for one field from the two annotators' sheet values (aligned by item)."""
    kind = FIELD_BY_NAME[name].kind
    pairs = [
        (x, y)
        for x, y in zip(values_a, values_b, strict=True)
        if x not in SPECIAL_VALUES and y not in SPECIAL_VALUES
    ]
    missing = len(values_a) - len(pairs)
    a = [_category(kind, x) for x, _ in pairs]
    b = [_category(kind, y) for _, y in pairs]
    stats = pair_stats(a, b, ["yes", "no"] if kind == "bool" else None)
    n = len(pairs)
    pooled = Counter(a + b)
    warnings: list[str] = []
    prevalence: float | None = None
    modal: str | None = None
    if n:
        if kind == "bool":
            prevalence = pooled["yes"] / (2 * n)
            modal = "yes" if prevalence >= 0.5 else "no"
            share = max(prevalence, 1 - prevalence)
        else:
            modal, top = pooled.most_common(1)[0]
            share = prevalence = top / (2 * n)
        if share >= SKEW:
            paradox = stats.kappa is not None and stats.kappa < 0.6 and stats.observed >= SKEW
            warnings.append(
                f"skewed: {share:.0%} of ratings are {modal!r}"
                + (
                    f"; kappa paradox: p_o = {stats.observed:.2f} but kappa = {stats.kappa:.2f}"
                    if paradox and stats.kappa is not None
                    else ""
                )
                + "; kappa depends on prevalence here: read it beside PABAK and AC1"
            )
    if n == 0:
        warnings.append("no item with a codebook value from both annotators")
    elif n < FEW_ITEMS:
        warnings.append(f"few items (n = {n} < {FEW_ITEMS}): the confidence interval is wide")
    if n and stats.kappa is None:
        warnings.append("kappa undefined: both annotators used one category only")
    if n and not stats.ci_estimable:
        warnings.append(f"kappa's 95% CI not estimable (n/e): {stats.ci_note}")
    if n and kind == "bool" and stats.kappa is not None:
        rare = [f"{v!r} x{pooled[v]}" for v in ("yes", "no") if pooled[v] < RARE]
        if rare:
            warnings.append(f"rare value (< {RARE} ratings): {', '.join(rare)}")
    elif n and kind == "one":
        rare = [f"{v!r} x{c}" for v, c in sorted(pooled.items()) if c < RARE]
        if rare:
            warnings.append(f"rare values (< {RARE} ratings): {', '.join(rare)}")
    if missing:
        warnings.append(f"{missing} item(s) with `unclear` or `n/a` from an annotator left out")
    per_value: list[ValueAgreement] = []
    alpha = None
    if kind == "set" and n:
        sets = [(_as_set(x), _as_set(y)) for x, y in pairs]
        alpha = alpha_masi(sets)
        for value in sorted({v for pair in sets for s in pair for v in s}):
            ya = ["yes" if value in x else "no" for x, _ in sets]
            yb = ["yes" if value in y else "no" for _, y in sets]
            pos_a, pos_b = ya.count("yes"), yb.count("yes")
            per_value.append(
                ValueAgreement(
                    value, pos_a, pos_b, pair_stats(ya, yb, ["yes", "no"]), pos_a + pos_b < RARE
                )
            )
        rare_values = [v.value for v in per_value if v.rare]
        if rare_values:
            warnings.append(f"rare values (< {RARE} ratings): {', '.join(rare_values)}")
    return FieldAgreement(
        field=name,
        kind=kind,
        derived=name in DERIVED_FIELDS,
        n=n,
        missing=missing,
        stats=stats,
        prevalence=prevalence,
        modal=modal,
        alpha_masi=alpha,
        per_value=tuple(per_value),
        warnings=tuple(warnings),
    )


def agreement_from_rows(
    rows_a: Sequence[dict[str, str]],
    rows_b: Sequence[dict[str, str]],
    fields: Sequence[str] = FIELD_NAMES,
) -> tuple[int, tuple[FieldAgreement, ...]]:
    """Align two layers by repository id and compute each field's agreement."""
    by_b = {r["repo_id"]: r for r in rows_b}
    common = [r for r in rows_a if r["repo_id"] in by_b]
    if len(common) != len(rows_a) or len(common) != len(rows_b):
        raise SheetError("the two layers do not cover the same repositories")
    out = []
    for name in fields:
        values_a = [r.get(name, "") for r in common]
        values_b = [by_b[r["repo_id"]].get(name, "") for r in common]
        out.append(field_agreement(name, values_a, values_b))
    return len(common), tuple(out)


def round_agreement(
    root: Path,
    annotator_a: str,
    annotator_b: str,
    round_name: str,
    fields: Sequence[str] | None = None,
) -> AgreementReport:
    """The agreement report of one round (on the fields it asked for, unless `fields`)."""
    if annotator_a == annotator_b:
        raise SheetError("agreement needs two different annotators")
    asked = study_fields(manifest_fields(read_manifest(Layout(root), round_name)))
    if fields is None:
        fields = asked
    elif set(fields) - set(asked):
        missing = ", ".join(f for f in fields if f not in asked)
        raise SheetError(f"round {round_name} did not ask for {missing}")
    rows_a = load_layer(root, annotator_a, round_name)
    rows_b = load_layer(root, annotator_b, round_name)
    items, results = agreement_from_rows(rows_a, rows_b, fields)
    notes = [
        f"{name}'s sheet was pre-filled with the machine labels (not blind)"
        for name in (annotator_a, annotator_b)
        if was_prefilled(root, name, round_name)
    ]
    return AgreementReport(round_name, annotator_a, annotator_b, items, results, tuple(notes))


def agreement(
    root: Path,
    annotator_a: str,
    annotator_b: str,
    round_name: str | None = None,
    fields: Sequence[str] | None = None,
) -> list[AgreementReport]:
    """Agreement in one round, or in every round where both annotators were imported (None)."""
    unknown = [f for f in fields or () if f not in FIELD_BY_NAME]
    if unknown:
        raise SheetError(f"not codebook fields: {', '.join(unknown)}")
    if round_name is not None:
        return [round_agreement(root, annotator_a, annotator_b, round_name, fields)]
    rounds = [
        r
        for r in Layout(root).rounds()
        if {annotator_a, annotator_b} <= set(imported_layers(root, r))
    ]
    if not rounds:
        raise SheetError(f"no round has imported layers of both {annotator_a} and {annotator_b}")
    return [round_agreement(root, annotator_a, annotator_b, r, fields) for r in rounds]
