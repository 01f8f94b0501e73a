"""Score reports as text (rich tables), JSON, Markdown or CSV; misses of one field likewise."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
from collections.abc import Sequence
from typing import Any

from miner.annotate.render import clean_nan, num
from miner.annotate.score import FieldScore, Miss, ScoreReport

FORMATS = ("text", "json", "markdown", "csv")
SUMMARY = (
    "field",
    "n",
    "excl.",
    "accuracy",
    "precision",
    "recall",
    "F1",
    "average",
    "kappa",
    "misses",
)


def summary_cells(f: FieldScore) -> list[str]:
    """One row of the per-field summary."""
    return [
        f.field,
        str(f.n),
        str(f.missing),
        num(f.accuracy),
        num(f.precision),
        num(f.recall),
        num(f.f1),
        f.average,
        num(f.kappa),
        str(len(f.misses)),
    ]


def _header(r: ScoreReport) -> list[str]:
    lines = [f"truth: {r.truth}", f"labels: {r.labels}", f"matched repositories: {r.matched}"]
    if r.only_truth:
        lines.append(
            f"only in the truth ({len(r.only_truth)}): {', '.join(r.only_truth[:8])}"
            + (" ..." if len(r.only_truth) > 8 else "")
        )
    if r.only_labels:
        lines.append(f"only in the labels: {len(r.only_labels)} repositories")
    return lines


def render_text(r: ScoreReport, width: int = 120) -> str:
    """Summary table, then a confusion table per field (truth rows x labels columns)."""
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, color_system=None)
    for line in _header(r):
        console.print(line, highlight=False, markup=False)
    table = Table(title="Scores per field", title_justify="left")
    for index, head in enumerate(SUMMARY):
        table.add_column(head, justify="left" if index in (0, 7) else "right")
    for f in r.fields:
        table.add_row(*summary_cells(f))
    console.print(table)
    perfect = [f.field for f in r.fields if f.n and not f.misses]
    for f in r.fields:
        if not f.misses:
            continue
        if f.per_value:
            sub = Table(title=f"{f.field}: per value", title_justify="left")
            for head in ("value", "TP", "FP", "FN", "TN", "precision", "recall", "F1"):
                sub.add_column(head, justify="left" if head == "value" else "right")
            for v in f.per_value:
                sub.add_row(
                    v.value, str(v.tp), str(v.fp), str(v.fn), str(v.tn),
                    num(v.precision), num(v.recall), num(v.f1),
                )  # fmt: skip
            console.print(sub)
        elif len(f.categories) <= 12:
            console.print(confusion_table(f))
        else:
            console.print(f"{f.field}: {len(f.categories)} categories; see --format json")
    if perfect:
        console.print(f"no misses in: {', '.join(perfect)}", highlight=False, markup=False)
    console.print("list a field's misses with --misses FIELD", highlight=False, markup=False)
    return buffer.getvalue()


def confusion_table(f: FieldScore) -> Any:
    """A rich table of truth (rows) by labels (columns)."""
    from rich.table import Table

    table = Table(title=f.field, title_justify="left")
    table.add_column("truth \\ labels")
    for cat in f.categories:
        table.add_column(cat, justify="right")
    for cat, row in zip(f.categories, f.confusion, strict=True):
        table.add_row(cat, *(str(x) for x in row))
    return table


def render_json(r: ScoreReport) -> str:
    """Everything, misses included, as JSON."""
    return json.dumps(clean_nan(dataclasses.asdict(r)), indent=2, ensure_ascii=False) + "\n"


def render_markdown(r: ScoreReport) -> str:
    """Header lines and the summary as a pipe table."""
    out = [f"- {line}" for line in _header(r)] + ["", "| " + " | ".join(SUMMARY) + " |"]
    out.append("|" + "|".join("---" if i in (0, 7) else "---:" for i in range(len(SUMMARY))) + "|")
    out += ["| " + " | ".join(summary_cells(f)) + " |" for f in r.fields]
    for f in r.fields:
        if f.misses and f.confusion and not f.per_value:
            out += ["", f"`{f.field}` (rows: truth, columns: labels):", ""]
            out.append("| truth \\ labels | " + " | ".join(f.categories) + " |")
            out.append("|---|" + "---:|" * len(f.categories))
            out += [
                f"| {cat} | " + " | ".join(str(x) for x in row) + " |"
                for cat, row in zip(f.categories, f.confusion, strict=True)
            ]
    return "\n".join(out) + "\n"


def render_csv(r: ScoreReport) -> str:
    """One row per field with every summary number (empty where undefined)."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(
        [
            "field",
            "n",
            "excluded",
            "accuracy",
            "precision",
            "recall",
            "f1",
            "average",
            "kappa",
            "misses",
        ]
    )
    for f in r.fields:
        writer.writerow(
            [
                f.field,
                f.n,
                f.missing,
                *(num(x, 4, "") for x in (f.accuracy, f.precision, f.recall, f.f1)),
                f.average,
                num(f.kappa, 4, ""),
                len(f.misses),
            ]
        )
    return buffer.getvalue()


def render_score(r: ScoreReport, fmt: str) -> str:
    """Render in one of FORMATS."""
    renderers = {
        "text": render_text,
        "json": render_json,
        "markdown": render_markdown,
        "csv": render_csv,
    }
    if fmt not in renderers:
        raise ValueError(f"unknown format {fmt!r}")
    return renderers[fmt](r)


MISS_COLUMNS = ("full_name", "field", "truth", "labels", "truth_evidence", "labels_evidence")


def render_misses(misses: Sequence[Miss], fmt: str, width: int = 160) -> str:
    """The repositories where the labels differ from the truth in one field."""
    rows = [dataclasses.asdict(m) for m in misses]
    if fmt == "json":
        return json.dumps(rows, indent=2, ensure_ascii=False) + "\n"
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, fieldnames=list(MISS_COLUMNS), lineterminator="\n")
        writer.writeheader()
        writer.writerows(rows)
        return buffer.getvalue()
    if fmt == "markdown":
        out = ["| " + " | ".join(MISS_COLUMNS) + " |", "|" + "---|" * len(MISS_COLUMNS)]
        out += [
            "| " + " | ".join(str(row[c]).replace("|", "\\|") for c in MISS_COLUMNS) + " |"
            for row in rows
        ]
        return "\n".join(out) + "\n"
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, color_system=None)
    if not misses:
        return "no misses\n"
    table = Table(title=f"{len(misses)} misses in {misses[0].field}", title_justify="left")
    for head in ("repository", "truth", "labels", "truth evidence", "labels evidence"):
        table.add_column(head, overflow="fold")
    for m in misses:
        table.add_row(m.full_name, m.truth, m.labels, m.truth_evidence, m.labels_evidence)
    console.print(table)
    return buffer.getvalue()
