"""reports/index.md and index.html: every table and chart, and the data they came from.

index.json keeps the same facts for machines and lets a later run of one report kind keep the
other kinds' entries, as long as they came from the same data (same provenance).
"""

from __future__ import annotations

import json
from html import escape
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miner.report.funnel import latest_searches, span, stored_value
from miner.report.records import FORMAT_SUFFIX, KIND_TABLES, Chart, ReportTable

if TYPE_CHECKING:
    import pandas as pd

FORMAT_NAMES = {"markdown": "Markdown", "csv": "CSV", "latex": "LaTeX", "json": "JSON"}
CSS = (
    "body{font-family:system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;"
    "line-height:1.45}table{border-collapse:collapse}th,td{border:1px solid #ccc;"
    "padding:.2rem .5rem}img{max-width:100%}code{background:#f4f4f4;padding:0 .2rem}"
)


def search_summary(searches: pd.DataFrame) -> dict[str, Any]:
    """The queries of the search log and the time frames they cover, for the provenance."""
    log = latest_searches(searches)
    queries = [
        {
            "keyword": str(s["keyword"]),
            "query": stored_value(s.get("query")),
            "stars": span(s["min_stars"], s["max_stars"]),
            "created": span(s["created_after"], s["created_before"]),
            "pushed": span(s["pushed_after"], None),
            "status": stored_value(s["status"]),
        }
        for _, s in log.iterrows()
    ]
    started = sorted(str(v) for v in searches["started_at"] if stored_value(v))
    finished = sorted(str(v) for v in searches["finished_at"] if stored_value(v))
    return {
        "queries": queries,
        "searched_from": started[0] if started else None,
        "searched_to": finished[-1] if finished else None,
    }


def merge_entries(
    path: Path,
    provenance: dict[str, Any],
    tables: list[dict[str, Any]],
    charts: list[dict[str, Any]],
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """This run's entries plus an earlier run's other entries when both came from the same data."""
    order = [key for keys in KIND_TABLES.values() for key in keys]
    try:
        earlier = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        earlier = None
    if isinstance(earlier, dict) and earlier.get("provenance") == provenance:
        folder = path.parent
        mine = {t["key"] for t in tables}
        for old in earlier.get("tables", []):
            if old["key"] not in mine and all(
                (folder / f).is_file() for f in old["files"].values()
            ):
                tables.append(old)
        charted = {c["key"] for c in charts}
        for old in earlier.get("charts", []):
            if old["key"] not in charted and (folder / old["png"]).is_file():
                charts.append(old)
    tables.sort(key=lambda t: order.index(t["key"]) if t["key"] in order else len(order))
    chart_order = ["coverage", "hardware", "distribution", "distribution_detail", "crosstab"]
    charts.sort(
        key=lambda c: (chart_order.index(c["key"]) if c["key"] in chart_order else 99, c["key"])
    )
    return tables, charts


def table_entry(table: ReportTable, formats: tuple[str, ...]) -> dict[str, Any]:
    """One table's index entry: key, title and the file written per format."""
    files = {fmt: f"{table.key}{FORMAT_SUFFIX[fmt]}" for fmt in formats}
    return {"key": table.key, "title": table.title, "files": files}


def chart_entry(chart: Chart) -> dict[str, Any]:
    """One chart's index entry."""
    return {"key": chart.key, "title": chart.title, "png": chart.png.name, "pdf": chart.pdf.name}


def index_markdown(
    provenance: dict[str, Any], tables: list[dict[str, Any]], charts: list[dict[str, Any]]
) -> str:
    """The index as Markdown: provenance, a link per table and format, each chart shown."""
    p = provenance
    repos = p["repositories"]
    lines = [
        "# miner report",
        "",
        f"Written by miner {p['miner_version']} with codebook {p['codebook_version']}.",
        "",
        "## Data",
        "",
        f"- Store: `{p['store']}`",
        f"- Labels: {_labels_line(p)}",
        f"- Repositories: {repos['in_store']} in the store (search results), "
        f"{repos['labelled']} labelled, {repos['counted']} counted in the label tables"
        + (
            " (excluded projects included)."
            if p["include_excluded"]
            else f" ({repos['left_out']} with a non-empty `exclude` left out)."
        ),
        f"- Searched: {_when(p['search']['searched_from'])} to {_when(p['search']['searched_to'])}",
        f"- Star bands (lower bounds) of the cross-tabulations: {_join(p['star_bands'])}",
        "",
        "### Queries (from the search log)",
        "",
    ]
    queries = p["search"]["queries"]
    if queries:
        lines += [
            "| Keyword | GitHub query | Stars | Created | Pushed | Status |",
            "|---|---|---|---|---|---|",
        ]
        for q in queries:
            query = f"`{q['query']}`" if q["query"] else ""
            cells = [q["keyword"], query, q["stars"], q["created"], q["pushed"], q["status"] or ""]
            lines.append("| " + " | ".join(str(c).replace("|", "\\|") for c in cells) + " |")
    else:
        lines.append("The store's search log is empty.")
    lines += ["", "## Tables", ""]
    if tables:
        formats = [f for f in FORMAT_NAMES if any(f in t["files"] for t in tables)]
        lines.append("| Table | " + " | ".join(FORMAT_NAMES[f] for f in formats) + " |")
        lines.append("|---" * (len(formats) + 1) + "|")
        for t in tables:
            links = [
                f"[{t['files'][f]}]({t['files'][f]})" if f in t["files"] else "" for f in formats
            ]
            lines.append(f"| {t['title']} | " + " | ".join(links) + " |")
    else:
        lines.append("No tables were written.")
    if charts:
        lines += ["", "## Charts"]
        for c in charts:
            lines += [
                "",
                f"### {c['title']}",
                "",
                f"![{c['title']}]({c['png']})",
                "",
                f"[{c['png']}]({c['png']}) · [{c['pdf']}]({c['pdf']})",
            ]
    return "\n".join(lines) + "\n"


def _labels_line(p: dict[str, Any]) -> str:
    if p["labels"] == "auto":
        as_of = p.get("labels_as_of")
        suffix = f", analyzed up to {as_of}" if as_of else ""
        return f"auto (the store's latest audit of each repository{suffix})"
    return f"consensus of the human annotators, from `{p['labels_origin']}`"


def _join(values: list[Any]) -> str:
    return ", ".join(str(v) for v in values)


def _when(value: Any) -> str:
    return str(value) if value else "unknown"


def index_html(markdown: str) -> str:
    """The Markdown index as one self-contained HTML page (same links, same words)."""
    from markdown_it import MarkdownIt

    body = MarkdownIt("commonmark", {"html": False}).enable("table").render(markdown)
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n'
        f"<title>{escape('miner report')}</title>\n<style>{CSS}</style>\n</head>\n<body>\n"
        f"{body}</body>\n</html>\n"
    )


def index_json(
    provenance: dict[str, Any], tables: list[dict[str, Any]], charts: list[dict[str, Any]]
) -> str:
    """The index for machines: provenance, tables with their files, charts."""
    document = {"provenance": provenance, "tables": tables, "charts": charts}
    return json.dumps(document, indent=2, ensure_ascii=False, sort_keys=False) + "\n"
