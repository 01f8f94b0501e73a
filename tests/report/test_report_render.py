"""The renderers: LaTeX that typesets, CSV that pandas and Excel read, JSON and Markdown."""

from __future__ import annotations

import csv
import io
import json
import re
import shutil
import subprocess
from pathlib import Path

import pandas as pd
import pytest

from miner.export import table_frame
from miner.latex import latex_escape
from miner.report import KIND_TABLES, ReportOptions, ReportTable, build_tables, load_labels, render
from miner.report.render import BOM
from miner.report.tables import make_frame
from miner.store import Store

NASTY = "c++ & 100% of _tf_ #1 $x {y} ~z^ \\path <a>"


@pytest.fixture
def tables(store: Store) -> list[ReportTable]:
    """Every table of the test study (auto labels)."""
    frames = {name: table_frame(store, name) for name in ("repos", "searches", "clones")}
    kinds = tuple(k for k in KIND_TABLES if k != "trend")  # the study has no snapshots
    return build_tables(kinds, store, frames, load_labels(store, "auto"), ReportOptions())


def nasty_table() -> ReportTable:
    """A table whose cells and notes hold every character LaTeX treats specially."""
    frame = make_frame(
        [
            {"keyword": NASTY, "fetched": 3, "percent": 12.5},
            {"keyword": NASTY, "fetched": None, "percent": None},
            {"keyword": "plain", "fetched": 0, "percent": 0.0},
        ],
        ["keyword", "fetched", "percent"],
    )
    return ReportTable(
        "nasty", f"Title with {NASTY}", frame, (f"a note with `{NASTY}`",), "keyword"
    )


def _column_count(spec: str) -> int:
    return len(re.findall(r"p\{[^}]*\}|[lcr]", spec))


def check_latex(text: str) -> None:
    """Fail unless `text` is a balanced booktabs table whose rows fit its tabular spec."""
    stack: list[str] = []
    for kind, name in re.findall(r"\\(begin|end)\{([^}]*)\}", text):
        if kind == "begin":
            stack.append(name)
        else:
            assert stack and stack.pop() == name, f"\\end{{{name}}} does not close its begin"
    assert not stack, f"unclosed environments {stack}"
    unescaped = re.sub(r"\\[{}]", "", text)
    depth = 0
    for char in unescaped:
        depth += {"{": 1, "}": -1}.get(char, 0)
        assert depth >= 0, "a } closes nothing"
    assert depth == 0, "unbalanced braces"

    match = re.search(r"\\begin\{tabular\}\{(.*)\}\n(.*?)\\end\{tabular\}", text, re.S)
    assert match, "no tabular"
    columns = _column_count(match.group(1))
    body = match.group(2).splitlines()
    rules = [line.strip() for line in body if line.strip().startswith("\\") and "rule" in line]
    assert rules[0] == r"\toprule" and rules[-1] == r"\bottomrule" and r"\midrule" in rules
    rows = [line.strip() for line in body if line.strip() and not line.strip().endswith("rule")]
    assert rows, "a tabular without rows"
    for row in rows:
        assert row.endswith(r"\\"), f"row does not end with \\\\: {row}"
        separators = len(re.findall(r"(?<!\\)&", row))
        assert separators == columns - 1, f"{separators + 1} cells for {columns} columns: {row}"
    for line in text.splitlines()[1:]:  # the first line is a % comment
        # \label{} keys may hold underscores; everything else must be escaped
        bare = re.sub(r"\\label\{[^}]*\}|\\[a-zA-Z]+(\{\})?|\\[&%$#_{}]|\\\\", "", line)
        bare = bare.removesuffix("%")  # a deliberate end-of-line comment
        specials = "[%$#_^~]" if line.strip() in rows else "[%$#_^~&]"
        assert not re.search(specials, bare), f"unescaped special character in {line}"


def test_every_latex_table_is_a_valid_booktabs_tabular(tables: list[ReportTable]) -> None:
    for table in tables:
        text = render(table, "latex")
        check_latex(text)
        assert rf"\label{{tab:{table.key}}}" in text


def test_latex_escapes_every_special_character() -> None:
    text = render(nasty_table(), "latex")
    check_latex(text)
    assert r"c++ \& 100\% of \_tf\_ \#1 \$x \{y\} \textasciitilde{}z\textasciicircum{}" in text
    assert r"\textbackslash{}path \textless{}a\textgreater{}" in text
    assert r"\texttt{c++ \&" in text  # `code` in notes
    assert latex_escape("a_b") == r"a\_b"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (r"\_tf", "_tf"),  # an unescaped underscore
        (r"c++ \& 100", "c++ & 100"),  # an unescaped ampersand: one cell too many
        (r" & 3 & ", " 3 & "),  # a cell too few
        ("\\end{table}", ""),  # an unclosed environment
    ],
)
def test_the_latex_check_catches_broken_tables(old: str, new: str) -> None:
    good = render(nasty_table(), "latex")
    assert old in good
    with pytest.raises(AssertionError):
        check_latex(good.replace(old, new, 1))


def test_latex_blanks_repeated_groups_and_rules_between_them() -> None:
    text = render(nasty_table(), "latex")
    lines = [line.strip() for line in text.splitlines()]
    first = next(i for i, line in enumerate(lines) if line.startswith("c++"))
    assert lines[first + 1].startswith("&")  # the repeated group value is blank
    assert lines[first + 2] == r"\midrule" and lines[first + 3].startswith("plain")


@pytest.mark.skipif(shutil.which("pdflatex") is None, reason="pdflatex is not installed")
def test_latex_compiles(tables: list[ReportTable], tmp_path: Path) -> None:
    body = "\n".join(render(t, "latex") for t in [*tables, nasty_table()])
    document = (
        "\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{booktabs,graphicx}\n"
        f"\\begin{{document}}\n{body}\\end{{document}}\n"
    )
    (tmp_path / "t.tex").write_text(document, encoding="utf-8")
    done = subprocess.run(
        ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "t.tex"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stdout[-2000:]
    log = (tmp_path / "t.log").read_text(encoding="latin-1")
    assert "Overfull \\hbox" not in log  # wide tables are scaled to the line width


def test_csv_has_a_bom_and_reads_back_in_pandas_and_csv(tables: list[ReportTable]) -> None:
    for table in tables:
        text = render(table, "csv")
        assert text.startswith(BOM) and not text.startswith(BOM * 2)
        data = text.encode("utf-8")
        frame = pd.read_csv(io.BytesIO(data), encoding="utf-8-sig", keep_default_na=False)
        assert list(frame.columns) == list(table.frame.columns)
        assert len(frame) == len(table.frame)
        records = list(csv.reader(io.StringIO(data.decode("utf-8-sig"))))
        assert records[0] == list(table.frame.columns)


def test_csv_keeps_commas_quotes_and_empty_cells() -> None:
    frame = make_frame([{"keyword": 'a, "b"', "fetched": None}], ["keyword", "fetched"])
    text = render(ReportTable("t", "T", frame), "csv")
    back = pd.read_csv(io.StringIO(text.removeprefix(BOM)), keep_default_na=False)
    assert back.loc[0, "keyword"] == 'a, "b"' and back.loc[0, "fetched"] == ""


def test_json_has_rows_notes_and_typed_values(tables: list[ReportTable]) -> None:
    for table in tables:
        document = json.loads(render(table, "json"))
        assert document["key"] == table.key and document["columns"] == list(table.frame.columns)
        assert len(document["rows"]) == len(table.frame)
        assert document["notes"] == list(table.notes)
    coverage = json.loads(render(next(t for t in tables if t.key == "coverage"), "json"))
    first = coverage["rows"][0]
    assert first == {"field": "software_req", "value": "yes", "projects": 5, "percent": 83.3}
    tests = json.loads(render(next(t for t in tables if t.key == "crosstab_tests"), "json"))
    assert tests["rows"][0]["statistic"] is None  # not tested: null, not NaN


def test_markdown_is_a_pipe_table_with_aligned_numbers() -> None:
    text = render(nasty_table(), "markdown")
    lines = text.splitlines()
    assert lines[0].startswith("## Title with")
    assert lines[2] == "| Keyword | Fetched | % |"
    assert lines[3] == "|---|---:|---:|"
    assert lines[5] == "|  |  |  |"  # repeated group blanked, empty cells empty
    assert all(line.count("|") == 4 for line in lines[2:7])
    assert lines[-1] == f"a note with `{NASTY}`"


def test_markdown_escapes_pipes() -> None:
    frame = make_frame([{"keyword": "a|b"}], ["keyword"])
    assert "| a\\|b |" in render(ReportTable("t", "T", frame), "markdown")
