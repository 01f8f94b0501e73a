"""Render a ReportTable as Markdown, CSV (UTF-8 with BOM for Excel), LaTeX (booktabs) or JSON.

Every renderer formats cells the same way (empty for missing, ints as ints, floats as Python
prints them), so one table gives the same numbers in every format and the same bytes every run.
"""

from __future__ import annotations

import csv
import io
import json
from typing import Any

from miner.errors import ConfigError
from miner.latex import latex_escape
from miner.report.records import ReportTable

BOM = "\ufeff"  # lets Excel open UTF-8 CSV; pandas ignores it with encoding="utf-8-sig"
HEADERS = {
    "field": "Field",
    "value": "Value",
    "projects": "Projects",
    "percent": "%",
    "among": "Among",
    "base": "Base",
    "breakdown": "Breakdown",
    "hardware": "Hardware",
    "percent_all": "% of all",
    "keyword": "Keyword",
    "stars": "Stars",
    "created": "Created",
    "pushed": "Pushed",
    "total_found": "Total found",
    "fetched": "Fetched",
    "shortfall": "Shortfall",
    "status": "Status",
    "stage": "Stage",
    "filter": "Filter",
    "matched": "Matched",
    "removed": "Removed",
    "remaining": "Remaining",
    "primary_framework": "Primary framework",
    "star_band": "Stars",
    "push_year": "Last push",
    "yes": "Yes",
    "no": "No",
    "unclear": "Unclear",
    "n/a": "n/a",
    "(missing)": "Missing",
    "total": "Total",
    "percent_yes": "% yes",
    "outcome": "Outcome",
    "by": "By",
    "n": "N",
    "categories": "Categories",
    "test": "Test",
    "statistic": "Statistic",
    "dof": "df",
    "p_value": "p",
    "cramers_v": "Cramer's V",
    "note": "Note",
    "meaning": "Meaning",
    "repository": "Repository",
    "commit": "Commit",
    "evidence": "Evidence",
    "install_s": "Install (s)",
    "train_s": "Train (s)",
    "total_s": "Total (s)",
    "of_previous": "% of previous stage",
    "median_s": "Median (s)",
    "mean_s": "Mean (s)",
    "repair": "Repair",
}
WIDE_TEXT = {"note", "meaning", "evidence", "repair"}  # long text columns wrap in LaTeX


def cell(value: Any) -> str:
    """One cell as text: empty for None/NaN, yes/no for booleans, numbers as Python prints them."""
    if value is None or (isinstance(value, float) and value != value):
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value)


def header(column: str) -> str:
    """The column's heading in Markdown and LaTeX."""
    return HEADERS.get(column, column)


def _numeric(table: ReportTable, column: str) -> bool:
    values = [v for v in table.frame[column] if cell(v) != ""]
    return bool(values) and all(
        isinstance(v, int | float) and not isinstance(v, bool) for v in values
    )


def _rows(table: ReportTable) -> list[list[str]]:
    """Cells as text, with repeated values of the group column blanked."""
    columns = list(table.frame.columns)
    out, previous = [], None
    for record in table.frame.itertuples(index=False, name=None):
        texts = [cell(v) for v in record]
        if table.group is not None:
            i = columns.index(table.group)
            current = texts[i]
            if current == previous:
                texts[i] = ""
            previous = current
        out.append(texts)
    return out


def _group_starts(table: ReportTable) -> set[int]:
    if table.group is None:
        return set()
    values = [cell(v) for v in table.frame[table.group]]
    return {i for i in range(1, len(values)) if values[i] != values[i - 1]}


def to_markdown(table: ReportTable) -> str:
    """A GitHub-flavoured Markdown pipe table under a heading, notes as paragraphs below."""
    columns = list(table.frame.columns)

    def line(cells: list[str]) -> str:
        return "| " + " | ".join(c.replace("|", "\\|") for c in cells) + " |"

    align = ["---:" if _numeric(table, c) else "---" for c in columns]
    lines = [
        f"## {table.title}",
        "",
        line([header(c) for c in columns]),
        "|" + "|".join(align) + "|",
    ]
    lines += [line(row) for row in _rows(table)]
    for note in table.notes:
        lines += ["", note]
    return "\n".join(lines) + "\n"


def to_csv(table: ReportTable) -> str:
    """CSV with the table's machine column names, every value filled in, BOM first."""
    buffer = io.StringIO()
    writer = csv.writer(buffer, lineterminator="\n")
    writer.writerow(list(table.frame.columns))
    for record in table.frame.itertuples(index=False, name=None):
        writer.writerow([cell(v) for v in record])
    return BOM + buffer.getvalue()


def _latex_text(text: str) -> str:
    # `code` spans in notes become \texttt{...}.
    parts = text.split("`")
    return "".join(
        rf"\texttt{{{latex_escape(p)}}}" if i % 2 else latex_escape(p) for i, p in enumerate(parts)
    )


def to_latex(table: ReportTable) -> str:
    """A booktabs `table` (needs booktabs and graphicx); shrunk to the line width if wider."""
    columns = list(table.frame.columns)
    spec = "".join(
        r"p{0.3\linewidth}" if c in WIDE_TEXT else ("r" if _numeric(table, c) else "l")
        for c in columns
    )
    starts = _group_starts(table)
    lines = [
        f"% {table.title}. Written by `miner report`; needs \\usepackage{{booktabs,graphicx}}.",
        r"\begin{table}[htbp]",
        r"  \centering",
        rf"  \caption{{{_latex_text(table.title)}}}",
        rf"  \label{{tab:{table.key}}}",
        # Typeset into a scratch box first, so a table wider than the line can be scaled down.
        r"  \sbox0{%",
        rf"  \begin{{tabular}}{{{spec}}}",
        r"    \toprule",
        "    " + " & ".join(latex_escape(header(c)) for c in columns) + r" \\",
        r"    \midrule",
    ]
    for i, row in enumerate(_rows(table)):
        if i in starts:
            lines.append(r"    \midrule")
        lines.append("    " + " & ".join(latex_escape(c) for c in row) + r" \\")
    lines += [
        r"    \bottomrule",
        r"  \end{tabular}}%",
        r"  \ifdim\wd0>\linewidth\resizebox{\linewidth}{!}{\usebox0}\else\usebox0\fi",
    ]
    if table.notes:
        notes = " ".join(_latex_text(n) for n in table.notes)
        lines += [r"  \par\smallskip", rf"  {{\footnotesize\raggedright {notes}\par}}"]
    lines.append(r"\end{table}")
    return "\n".join(lines) + "\n"


def to_json(table: ReportTable) -> str:
    """{key, title, columns, rows (one object per row), notes, ...extra} with stable key order."""
    columns = list(table.frame.columns)
    rows = [
        {c: _json_value(v) for c, v in zip(columns, record, strict=True)}
        for record in table.frame.itertuples(index=False, name=None)
    ]
    document = {
        "key": table.key,
        "title": table.title,
        "columns": columns,
        "rows": rows,
        "notes": list(table.notes),
        **table.extra,
    }
    return json.dumps(document, indent=2, ensure_ascii=False) + "\n"


def _json_value(value: Any) -> Any:
    if value is None or (isinstance(value, float) and value != value):
        return None
    if hasattr(value, "item"):  # numpy scalar
        return value.item()
    return value


RENDERERS = {"markdown": to_markdown, "csv": to_csv, "latex": to_latex, "json": to_json}


def render(table: ReportTable, fmt: str) -> str:
    """The table in format `fmt` (markdown, csv, latex or json)."""
    renderer = RENDERERS.get(fmt)
    if renderer is None:
        raise ConfigError(f"unknown format {fmt!r}; choose {', '.join(RENDERERS)}")
    return renderer(table)
