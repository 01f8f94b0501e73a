"""`score`: one labels source scored against another taken as the truth (the auto labels
against the consensus by default), per field: n, accuracy, precision/recall/F1, Cohen's kappa
and a confusion table, with every miss listable. Repositories are matched by full name,
case-insensitively; only fields present in both sources are scored."""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miner.annotate.labelsfile import LabelsTable
from miner.codebook import FIELD_BY_NAME
from miner.errors import SheetError

if TYPE_CHECKING:
    from miner.store import Store

EMPTY_LABEL = "none"


@dataclass(frozen=True)
class ValueScore:
    """One value of a set field as a yes/no decision."""

    value: str
    tp: int
    fp: int
    fn: int
    tn: int
    precision: float | None
    recall: float | None
    f1: float | None


@dataclass(frozen=True)
class Miss:
    """A repository whose labels differ from the truth in one field."""

    full_name: str
    field: str
    truth: str
    labels: str
    truth_evidence: str
    labels_evidence: str


@dataclass(frozen=True)
class FieldScore:
    """How well the labels match the truth in one field."""

    field: str
    kind: str
    n: int
    missing: int  # matched repositories without a usable value on one side
    accuracy: float | None
    precision: float | None
    recall: float | None
    f1: float | None
    average: str  # binary (positive = yes), macro over categories, or micro over set values
    kappa: float | None
    categories: tuple[str, ...]
    confusion: tuple[tuple[int, ...], ...]  # truth (rows) x labels (columns)
    per_value: tuple[ValueScore, ...]
    misses: tuple[Miss, ...]


@dataclass(frozen=True)
class ScoreReport:
    """Per-field scores of `labels` against `truth`."""

    truth: str
    labels: str
    matched: int
    only_truth: tuple[str, ...]
    only_labels: tuple[str, ...]
    fields: tuple[FieldScore, ...]


def _none(value: float) -> float | None:
    return None if value is None or math.isnan(value) else float(value)


def _shown(kind: str, value: str) -> str:
    return EMPTY_LABEL if kind == "set" and value == "" else value


def _ratio(num: int, den: int) -> float | None:
    return num / den if den else None


def _f1(p: float | None, r: float | None) -> float | None:
    if p is None or r is None:
        return None
    return 0.0 if p + r == 0 else 2 * p * r / (p + r)


def score_field(name: str, truth: Sequence[str], labels: Sequence[str]) -> dict[str, Any]:
    """Accuracy, P/R/F1, kappa and the confusion table for aligned non-missing values."""
    import numpy as np
    from sklearn.metrics import cohen_kappa_score, precision_recall_fscore_support

    from miner.annotate.stats import confusion

    kind = FIELD_BY_NAME[name].kind
    t = [_shown(kind, v) for v in truth]
    p = [_shown(kind, v) for v in labels]
    n = len(t)
    cats = ["yes", "no"] if kind == "bool" else sorted(set(t) | set(p))
    out: dict[str, Any] = {"n": n, "categories": tuple(cats), "per_value": ()}
    if n == 0:
        out.update(
            accuracy=None,
            precision=None,
            recall=None,
            f1=None,
            kappa=None,
            confusion=(),
            average="",
        )
        return out
    matrix = confusion(t, p, cats)
    out["confusion"] = tuple(tuple(int(x) for x in row) for row in matrix)
    out["accuracy"] = float(np.trace(matrix)) / n
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore")  # one category only: kappa is 0/0, reported as None
        kappa = float(cohen_kappa_score(t, p, labels=cats))
    out["kappa"] = _none(kappa)
    if kind == "bool":
        tp, fp, fn = int(matrix[0, 0]), int(matrix[1, 0]), int(matrix[0, 1])
        precision, recall = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
        out.update(
            precision=precision, recall=recall, f1=_f1(precision, recall), average="binary (yes)"
        )
    elif kind == "one":
        prec, rec, f1, _ = precision_recall_fscore_support(
            t, p, labels=sorted(set(t)), average="macro", zero_division=0
        )
        out.update(precision=float(prec), recall=float(rec), f1=float(f1), average="macro")
    else:
        sets_t = [frozenset(v.split(";")) - {""} for v in truth]
        sets_p = [frozenset(v.split(";")) - {""} for v in labels]
        values = sorted(set().union(*sets_t, *sets_p))
        per = []
        total_tp = total_fp = total_fn = 0
        for value in values:
            tp = sum(value in x and value in y for x, y in zip(sets_t, sets_p, strict=True))
            fp = sum(value not in x and value in y for x, y in zip(sets_t, sets_p, strict=True))
            fn = sum(value in x and value not in y for x, y in zip(sets_t, sets_p, strict=True))
            tn = n - tp - fp - fn
            vp, vr = _ratio(tp, tp + fp), _ratio(tp, tp + fn)
            per.append(ValueScore(value, tp, fp, fn, tn, vp, vr, _f1(vp, vr)))
            total_tp, total_fp, total_fn = total_tp + tp, total_fp + fp, total_fn + fn
        precision = _ratio(total_tp, total_tp + total_fp)
        recall = _ratio(total_tp, total_tp + total_fn)
        out.update(
            precision=precision,
            recall=recall,
            f1=_f1(precision, recall),
            average="micro over values",
            per_value=tuple(per),
        )
    return out


def score(
    truth: LabelsTable,
    labels: LabelsTable,
    fields: Sequence[str] | None = None,
) -> ScoreReport:
    """Score `labels` against `truth` on the fields both have (or the `fields` asked for)."""
    shared = [f for f in truth.fields if f in labels.fields]
    if fields:
        absent = [f for f in fields if f not in shared]
        if absent:
            raise SheetError(
                f"not in both sources: {', '.join(absent)} (shared: {', '.join(shared) or 'none'})"
            )
        shared = list(fields)
    if not shared:
        raise SheetError(f"{truth.source} and {labels.source} have no codebook field in common")
    keys = sorted(set(truth.rows) & set(labels.rows))
    if not keys:
        raise SheetError(f"no repository is in both {truth.source} and {labels.source}")
    results = []
    for name in shared:
        kind = FIELD_BY_NAME[name].kind
        pairs = [
            (k, truth.rows[k][name], labels.rows[k][name])
            for k in keys
            if truth.rows[k][name] is not None and labels.rows[k][name] is not None
        ]
        stats = score_field(name, [str(t) for _, t, _ in pairs], [str(p) for _, _, p in pairs])
        misses = tuple(
            Miss(
                full_name=truth.names[k],
                field=name,
                truth=_shown(kind, str(t)),
                labels=_shown(kind, str(p)),
                truth_evidence=truth.evidence_text(k, name),
                labels_evidence=labels.evidence_text(k, name),
            )
            for k, t, p in pairs
            if t != p
        )
        results.append(
            FieldScore(
                field=name, kind=kind, missing=len(keys) - len(pairs), misses=misses, **stats
            )
        )
    return ScoreReport(
        truth=truth.source,
        labels=labels.source,
        matched=len(keys),
        only_truth=tuple(truth.names[k] for k in sorted(set(truth.rows) - set(labels.rows))),
        only_labels=tuple(labels.names[k] for k in sorted(set(labels.rows) - set(truth.rows))),
        fields=tuple(results),
    )


def asked_fields(root: Path, round_name: str) -> tuple[str, ...]:
    """The fields a round asked for, with the derived ones they determine."""
    from miner.annotate.layout import Layout
    from miner.annotate.prepare import read_manifest
    from miner.annotate.sheets import study_fields
    from miner.annotate.validate import manifest_fields

    return study_fields(manifest_fields(read_manifest(Layout(root), round_name)))


def consensus_fields(root: Path) -> tuple[str, ...]:
    """The fields the consensus answers: those asked by any round with listed conflicts."""
    from miner.annotate.conflicts import round_pair
    from miner.annotate.layout import Layout

    fields: set[str] = set()
    for round_name in Layout(root).rounds():
        try:
            round_pair(root, round_name)
        except SheetError:
            continue
        fields |= set(asked_fields(root, round_name))
    return tuple(sorted(fields))


def load_source(spec: str, root: Path, store: Callable[[], Store] | None = None) -> LabelsTable:
    """A labels source: `consensus`, `auto` (the store), `<annotator>@<round>`, or a file."""
    from miner.annotate.labelsfile import labels_from_frame, read_labels
    from miner.annotate.layout import Layout

    layout = Layout(root)
    if spec == "consensus":
        if not layout.consensus.exists():
            raise SheetError(
                f"no consensus at {layout.consensus}: run `miner annotate conflicts` and"
                " `resolve`, or pass --truth FILE"
            )
        return read_labels(layout.consensus, consensus_fields(root))
    if spec == "auto":
        if store is None:
            raise SheetError("`auto` labels need the study's store")
        db = store()
        frame = db.labels_frame()
        if frame.empty:
            raise SheetError("the store has no audited repositories: run the analysis first")
        ids = {
            str(r.full_name).lower(): (int(r.repo_id), str(r.commit_sha))
            for r in frame.itertuples(index=False)
        }

        def evidence(key: str, name: str) -> str:
            repo_id, sha = ids[key]
            hits = db.evidence_for(repo_id, sha, name)[:3]
            return " | ".join(f"{e.path}:{e.line} {e.text}".strip() for e in hits)

        return labels_from_frame(frame, "auto labels (store)", evidence)
    if "@" in spec and not Path(spec).exists():
        annotator, round_name = spec.split("@", 1)
        from miner.annotate.layers import load_layer

        load_layer(root, annotator, round_name)  # checks the layer's hash
        return read_labels(layout.layer(annotator, round_name), asked_fields(root, round_name))
    return read_labels(Path(spec))
