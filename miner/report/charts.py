"""Charts of the report tables, as PNG and PDF, reproducible byte for byte.

Figures are drawn with matplotlib's object API on the Agg canvas (no pyplot, no global backend
switch), and the files carry no creation dates or version strings, so the same tables give the
same files.
"""

from __future__ import annotations

import os
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miner.report.records import Chart, ReportTable
from miner.report.render import cell

if TYPE_CHECKING:
    from matplotlib.axes import Axes
    from matplotlib.figure import Figure

SEGMENTS = (  # value, legend, colour (Okabe-Ito, readable in greyscale and by colour-blind readers)
    ("yes", "yes", "#0072B2"),
    ("no", "no", "#E69F00"),
    ("unclear", "unclear", "#999999"),
    ("n/a", "n/a", "#CCCCCC"),
    ("(missing)", "missing", "#F0F0F0"),
)
BAR = "#0072B2"
STYLE: dict[str, Any] = {
    "svg.hashsalt": "miner",  # fixed ids in SVG output
    "font.size": 9,
    "axes.spines.top": False,
    "axes.spines.right": False,
}


def _figure(width: float, height: float) -> Figure:
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    from matplotlib.figure import Figure

    figure = Figure(figsize=(width, height), dpi=150, layout="constrained")
    FigureCanvasAgg(figure)
    return figure


def save(figure: Figure, folder: Path, key: str, title: str) -> Chart:
    """Write `figure` as KEY.png and KEY.pdf without timestamps or version strings."""
    folder.mkdir(parents=True, exist_ok=True)
    png, pdf = folder / f"{key}.png", folder / f"{key}.pdf"
    with _replacing(png) as partial:
        figure.savefig(partial, format="png", metadata={"Software": None})
    # The layout found for the PNG holds for the PDF too; solving it again costs a second.
    figure.set_layout_engine("none")
    with _replacing(pdf) as partial:
        figure.savefig(
            partial,
            format="pdf",
            metadata={"Creator": "miner", "Producer": None, "CreationDate": None},
        )
    return Chart(key=key, title=title, png=png, pdf=pdf)


@contextmanager
def _replacing(path: Path) -> Iterator[Path]:
    # Write beside the target and rename, so a crash never leaves half a chart.
    partial = path.with_name(f".{path.name}.partial")
    yield partial
    os.replace(partial, path)


def _groups(table: ReportTable, column: str = "field") -> dict[str, list[dict[str, Any]]]:
    groups: dict[str, list[dict[str, Any]]] = {}
    for record in table.frame.to_dict("records"):
        groups.setdefault(str(record[column]), []).append(record)
    return groups


def _empty(axes: Axes, message: str = "no projects") -> None:
    axes.text(0.5, 0.5, message, ha="center", va="center", transform=axes.transAxes)
    axes.set_xticks([])
    axes.set_yticks([])


def coverage_chart(coverage: ReportTable, detail: ReportTable, folder: Path) -> Chart:
    """Stacked 100% bars: yes / no / unclear / n/a / missing for every yes-no requirement field."""
    bars: list[tuple[str, dict[str, int]]] = []
    for table in (coverage, detail):
        for field, rows in _groups(table).items():
            counts = {str(r["value"]): int(r["projects"]) for r in rows}
            if set(counts) <= {v for v, _, _ in SEGMENTS}:
                among = rows[0].get("among")
                base = sum(counts.values())
                suffix = f" ({among})" if among and among != "all projects" else ""
                bars.append((f"{field}{suffix}\nN = {base}", counts))
    with _style():
        figure = _figure(7.5, 0.55 * len(bars) + 1.4)
        axes = figure.add_subplot()
        labels = [name for name, _ in reversed(bars)]
        left = [0.0] * len(bars)
        for value, legend, colour in SEGMENTS:
            widths = []
            for _, counts in reversed(bars):
                total = sum(counts.values())
                widths.append(100.0 * counts.get(value, 0) / total if total else 0.0)
            if not any(widths):
                continue
            axes.barh(labels, widths, left=left, color=colour, label=legend, edgecolor="white")
            for i, width in enumerate(widths):
                if width >= 7:
                    ink = "white" if value in ("yes",) else "black"
                    axes.text(
                        left[i] + width / 2,
                        i,
                        f"{width:.0f}%",
                        ha="center",
                        va="center",
                        color=ink,
                        fontsize=8,
                    )
            left = [a + b for a, b in zip(left, widths, strict=True)]
        axes.set_xlim(0, 100)
        axes.set_xlabel("% of projects")
        axes.legend(ncols=5, loc="lower center", bbox_to_anchor=(0.5, 1.0), frameon=False)
        return save(figure, folder, "coverage", "Requirements stated (share of projects)")


def bars_chart(table: ReportTable, folder: Path, title: str) -> Chart:
    """One bar panel per field of a distribution table: projects per value."""
    groups = _groups(table)
    with _style():
        figure = _figure(7.5, 2.4 * max(1, len(groups)))
        for i, (field, rows) in enumerate(groups.items() or [("(no data)", [])], start=1):
            axes = figure.add_subplot(max(1, len(groups)), 1, i)
            _bars(axes, [str(r["value"]) for r in rows], [int(r["projects"]) for r in rows])
            axes.set_title(field, loc="left", fontsize=9)
        return save(figure, folder, table.key, title)


def _bars(axes: Axes, names: Sequence[str], counts: Sequence[int]) -> None:
    if not names:
        _empty(axes)
        return
    positions = list(range(len(names)))
    axes.bar(positions, counts, color=BAR)
    axes.set_xticks(
        positions,
        names,
        rotation=30 if len(names) > 6 else 0,
        ha="right" if len(names) > 6 else "center",
    )
    _integer_ticks(axes)
    axes.set_ylabel("projects")
    top = max(counts) if counts else 0
    axes.set_ylim(0, max(1, top) * 1.18)
    for x, count in zip(positions, counts, strict=True):
        axes.text(x, count, str(count), ha="center", va="bottom", fontsize=8)


def hardware_chart(table: ReportTable, folder: Path) -> Chart:
    """Devices named (overlapping) and their combinations among projects with hardware needs."""
    groups = _groups(table, "breakdown")
    with _style():
        figure = _figure(7.5, 4.6)
        for i, section in enumerate(("device", "combination"), start=1):
            rows = groups.get(section, [])
            axes = figure.add_subplot(1, 2, i)
            names = [str(r["hardware"]) for r in rows]
            if not rows or not sum(int(r["projects"]) for r in rows):
                _empty(axes, "no project states hardware")
            else:
                _bars(axes, names, [int(r["projects"]) for r in rows])
                axes.tick_params(axis="x", labelrotation=30)
            axes.set_title(f"{section}s", loc="left", fontsize=9)
        return save(
            figure, folder, "hardware", "Hardware named (projects with hardware requirements)"
        )


def crosstab_chart(tables: Sequence[ReportTable], folder: Path) -> Chart:
    """Stacked counts per category for every cross-tabulation, one panel each."""
    panels = [t for t in tables if t.key != "crosstab_tests"]
    columns = 3
    rows_n = max(1, (len(panels) + columns - 1) // columns)
    with _style():
        figure = _figure(11, 3.6 * rows_n)
        for i, table in enumerate(panels, start=1):
            axes = figure.add_subplot(rows_n, columns, i)
            by = str(table.frame.columns[0])
            names = [cell(v) for v in table.frame[by]]
            if not names:
                _empty(axes)
            bottom = [0] * len(names)
            for value, legend, colour in SEGMENTS:
                if value not in table.frame.columns:
                    continue
                heights = [int(v) for v in table.frame[value]]
                axes.bar(names, heights, bottom=bottom, color=colour, label=legend)
                bottom = [a + b for a, b in zip(bottom, heights, strict=True)]
            axes.tick_params(axis="x", labelrotation=45)
            _integer_ticks(axes)
            axes.set_title(table.title, loc="left", fontsize=9)
            axes.set_ylabel("projects")
            if i == 1 and names:
                axes.legend(frameon=False, fontsize=7)
        return save(figure, folder, "crosstab", "Requirements by framework, stars and last push")


def _integer_ticks(axes: Axes) -> None:
    from matplotlib.ticker import MaxNLocator

    axes.yaxis.set_major_locator(MaxNLocator(integer=True))


def _style() -> Any:
    from matplotlib import rc_context

    return rc_context(STYLE)  # type: ignore[arg-type]
