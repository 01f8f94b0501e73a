"""Agreement reports as text (rich tables), JSON, Markdown or LaTeX (booktabs) strings."""

from __future__ import annotations

import csv
import dataclasses
import io
import json
import math
from collections.abc import Sequence
from typing import Any

from miner.annotate.agreement import AgreementReport, FieldAgreement
from miner.latex import latex_escape

FORMATS = ("text", "json", "markdown", "latex", "csv")
NOT_ESTIMABLE = "n/e"  # kappa is defined, its interval is not (explained in the footnotes)
HEADER = ("field", "n", "excl.", "p_o", "kappa", "95% CI", "prev.", "PABAK", "AC1", "alpha MASI")


def num(value: float | None, digits: int = 3, empty: str = "–") -> str:
    """A statistic rounded for tables; undefined values shown as `empty`."""
    return empty if value is None else f"{value:.{digits}f}"


def _ci(f: FieldAgreement, empty: str = "–") -> str:
    s = f.stats
    if not s.ci_estimable:
        return NOT_ESTIMABLE
    if s.kappa_low is None or s.kappa_high is None:
        return empty
    low, high = (f"{x:.2f}".replace("-0.00", "0.00") for x in (s.kappa_low, s.kappa_high))
    return f"[{low}, {high}]"


def _prev(f: FieldAgreement) -> str:
    if f.prevalence is None:
        return "–"
    label = "yes" if f.kind == "bool" else f.modal
    return f"{f.prevalence:.2f} {label}"


def field_cells(f: FieldAgreement, empty: str = "–") -> list[str]:
    """One table row of a field's statistics."""
    s = f.stats
    name = f"{f.field}*" if f.derived else f.field
    return [
        name,
        str(f.n),
        str(f.missing),
        num(s.observed if f.n else None, empty=empty),
        num(s.kappa, empty=empty),
        _ci(f, empty),
        _prev(f),
        num(s.pabak, empty=empty),
        num(s.ac1, empty=empty),
        num(f.alpha_masi, empty=empty),
    ]


def _title(r: AgreementReport) -> str:
    pair = f"{r.annotator_a} and {r.annotator_b}"
    return f"Agreement of {pair}, round {r.round} ({r.items} repositories)"


def _footnotes(r: AgreementReport) -> list[str]:
    lines = ["* derived by the codebook rule from other fields"]
    lines += list(r.notes)
    grouped: dict[str, list[str]] = {}
    for f in r.fields:
        for warning in f.warnings:
            grouped.setdefault(warning, []).append(f.field)
    lines += [f"{', '.join(fields)}: {warning}" for warning, fields in grouped.items()]
    return lines


def render_text(reports: Sequence[AgreementReport], width: int = 120) -> str:
    """Rich tables, rendered to plain text (the CLI prints it)."""
    from rich.console import Console
    from rich.table import Table

    buffer = io.StringIO()
    console = Console(file=buffer, width=width, force_terminal=False, color_system=None)
    for r in reports:
        table = Table(title=_title(r), title_justify="left")
        for index, head in enumerate(HEADER):
            table.add_column(head, justify="left" if index == 0 else "right", no_wrap=index == 0)
        for f in r.fields:
            table.add_row(*field_cells(f))
        console.print(table)
        for f in r.fields:
            if not f.per_value:
                continue
            sub = Table(title=f"{f.field}: per-value kappa", title_justify="left")
            for head in ("value", "yes A", "yes B", "p_o", "kappa", "PABAK", "AC1"):
                sub.add_column(head, justify="left" if head == "value" else "right")
            for v in f.per_value:
                name = f"{v.value} (rare)" if v.rare else v.value
                sub.add_row(
                    name,
                    str(v.positives_a),
                    str(v.positives_b),
                    num(v.stats.observed),
                    num(v.stats.kappa),
                    num(v.stats.pabak),
                    num(v.stats.ac1),
                )
            console.print(sub)
        for line in _footnotes(r):
            console.print(line, highlight=False, markup=False)
        console.print()
    return buffer.getvalue()


def clean_nan(value: Any) -> Any:
    """Replace NaN floats by None throughout lists/dicts, so the JSON is strict."""
    if isinstance(value, float) and math.isnan(value):
        return None
    if isinstance(value, dict):
        return {k: clean_nan(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [clean_nan(v) for v in value]
    return value


def render_json(reports: Sequence[AgreementReport]) -> str:
    """Every statistic, per round and field, as JSON (undefined values as null)."""
    data = clean_nan([dataclasses.asdict(r) for r in reports])
    return json.dumps({"rounds": data}, indent=2, ensure_ascii=False) + "\n"


def render_markdown(reports: Sequence[AgreementReport]) -> str:
    """Pipe tables (GitHub Markdown)."""
    out: list[str] = []
    for r in reports:
        out += [f"### {_title(r)}", "", "| " + " | ".join(HEADER) + " |"]
        out.append("|" + "|".join(["---"] + ["---:"] * (len(HEADER) - 1)) + "|")
        out += ["| " + " | ".join(field_cells(f)) + " |" for f in r.fields]
        out.append("")
        for f in r.fields:
            if f.per_value:
                out += [f"`{f.field}` per value:", "", "| value | yes A | yes B | kappa |"]
                out.append("|---|---:|---:|---:|")
                out += [
                    f"| {v.value}{' (rare)' if v.rare else ''} | {v.positives_a} |"
                    f" {v.positives_b} | {num(v.stats.kappa)} |"
                    for v in f.per_value
                ]
                out.append("")
        out += [f"- {line}" for line in _footnotes(r)]
        out.append("")
    return "\n".join(out) + "\n"


def render_latex(reports: Sequence[AgreementReport]) -> str:
    """A booktabs table per round, ready for \\input{} in a paper."""
    out: list[str] = []
    heads = [
        "Field",
        "$n$",
        "Excl.",
        "$p_o$",
        r"$\kappa$",
        r"95\,\% CI",
        "Prev.",
        "PABAK",
        "AC1",
        r"$\alpha_{\mathrm{MASI}}$",
    ]
    for r in reports:
        out += [
            r"\begin{table}[t]",
            r"\centering",
            rf"\caption{{{latex_escape(_title(r))}}}",
            r"\begin{tabular}{l" + "r" * (len(heads) - 1) + "}",
            r"\toprule",
            " & ".join(heads) + r" \\",
            r"\midrule",
        ]
        for f in r.fields:
            cells = [latex_escape(c) for c in field_cells(f, empty="--")]
            out.append(" & ".join(cells) + r" \\")
        out += [r"\bottomrule", r"\end{tabular}", r"\end{table}", ""]
    return "\n".join(out)


CSV_COLUMNS = (
    "round", "annotator_a", "annotator_b", "field", "derived", "n", "excluded", "p_o", "kappa",
    "kappa_low", "kappa_high", "ci_estimable", "prevalence", "modal", "pabak", "ac1",
    "alpha_masi", "warnings",
)  # fmt: skip


def render_csv(reports: Sequence[AgreementReport]) -> str:
    """One row per round and field with every number (empty where undefined)."""

    def cell(value: float | None) -> str:
        return "" if value is None or math.isnan(value) else f"{value:.4f}"

    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(CSV_COLUMNS)
    for r in reports:
        for f in r.fields:
            s = f.stats
            writer.writerow(
                [
                    r.round, r.annotator_a, r.annotator_b, f.field, "yes" if f.derived else "no",
                    f.n, f.missing, cell(s.observed if f.n else None), cell(s.kappa),
                    cell(s.kappa_low), cell(s.kappa_high), "yes" if s.ci_estimable else "no",
                    cell(f.prevalence), f.modal or "", cell(s.pabak), cell(s.ac1),
                    cell(f.alpha_masi), " | ".join(f.warnings),
                ]
            )  # fmt: skip
    return buffer.getvalue()


def render_agreement(reports: Sequence[AgreementReport], fmt: str) -> str:
    """Render in one of FORMATS."""
    renderers = {
        "text": render_text,
        "json": render_json,
        "markdown": render_markdown,
        "latex": render_latex,
        "csv": render_csv,
    }
    if fmt not in renderers:
        raise ValueError(f"unknown format {fmt!r}")
    return renderers[fmt](reports)
