"""`miner report` end to end: files, charts, the index and its links, determinism, the CLI."""

from __future__ import annotations

import json
import re
from html.parser import HTMLParser
from pathlib import Path

import pytest
from report_study import build_store
from typer.testing import CliRunner

from miner import __version__
from miner.cli import app
from miner.codebook import CODEBOOK_VERSION
from miner.errors import ConfigError, MinerError
from miner.report import KIND_TABLES, ReportOptions, ReportResult, write_report
from miner.store import Store

PNG = b"\x89PNG\r\n\x1a\n"
CHARTS = ("coverage", "hardware", "distribution", "distribution_detail", "crosstab")


def run(study: Path, folder: str, **options: object) -> ReportResult:
    """write_report on the test study's store into study/<folder>."""
    with Store(study / "data" / "miner.db") as store:
        return write_report(
            store,  # type: ignore[arg-type]
            ReportOptions(output_dir=study / folder, **options),  # type: ignore[arg-type]
        )


@pytest.fixture(scope="module")
def twice(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, ReportResult, ReportResult]:
    """The full report with charts, written twice from the same store into two folders."""
    study = tmp_path_factory.mktemp("study")
    build_store(study / "data" / "miner.db").close()
    return study, run(study, "first"), run(study, "second")


def files_of(folder: Path) -> dict[str, bytes]:
    """Every file under `folder` by relative path."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in sorted(folder.rglob("*"))}


def test_the_same_store_gives_byte_identical_files(
    twice: tuple[Path, ReportResult, ReportResult],
) -> None:
    study, _, _ = twice
    first, second = files_of(study / "first"), files_of(study / "second")
    assert sorted(first) == sorted(second)
    different = [name for name in first if first[name] != second[name]]
    assert different == []
    assert not [name for name in first if name.endswith(".partial")]


def test_every_table_is_written_in_every_format(
    twice: tuple[Path, ReportResult, ReportResult],
) -> None:
    study, result, _ = twice
    # a study without snapshots has no trend tables (tests/report/test_report_trend.py has them)
    kinds = {kind: keys for kind, keys in KIND_TABLES.items() if kind != "trend"}
    for keys in kinds.values():
        for key in keys:
            for suffix in (".md", ".csv", ".tex", ".json"):
                assert (study / "first" / f"{key}{suffix}").stat().st_size > 0
    assert len(result.tables) == sum(len(keys) for keys in kinds.values())
    assert not (study / "first" / "trend.md").exists()


def test_charts_are_real_png_and_pdf_files(twice: tuple[Path, ReportResult, ReportResult]) -> None:
    study, result, _ = twice
    assert sorted(c.key for c in result.charts) == sorted(CHARTS)
    for chart in result.charts:
        png, pdf = chart.png.read_bytes(), chart.pdf.read_bytes()
        assert png.startswith(PNG) and len(png) > 10_000
        assert pdf.startswith(b"%PDF-") and pdf.rstrip().endswith(b"%%EOF") and len(pdf) > 5_000
        assert b"CreationDate" not in pdf  # no timestamp: reproducible


class _Links(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.targets: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        for name, value in attrs:
            if name in ("href", "src") and value:
                self.targets.append(value)


def test_index_links_resolve_and_cover_every_file(
    twice: tuple[Path, ReportResult, ReportResult],
) -> None:
    study, result, _ = twice
    folder = study / "first"
    markdown = result.index_md.read_text(encoding="utf-8")
    md_links = re.findall(r"\]\(([^)]+)\)", markdown)
    parser = _Links()
    parser.feed(result.index_html.read_text(encoding="utf-8"))
    assert md_links and sorted(set(md_links)) == sorted(set(parser.targets))
    for link in md_links:
        assert (folder / link).is_file(), link
    written = {p.name for p in result.files} - {"index.md", "index.html", "index.json"}
    assert written == set(md_links)


def test_index_states_where_the_data_came_from(
    twice: tuple[Path, ReportResult, ReportResult],
) -> None:
    study, result, _ = twice
    text = result.index_md.read_text(encoding="utf-8")
    assert f"`{study / 'data' / 'miner.db'}`" in text
    assert f"miner {__version__}" in text and f"codebook {CODEBOOK_VERSION}" in text
    assert "Labels: auto" in text and "analyzed up to 2021-03-05T10:00:00+00:00" in text
    assert "16 in the store (search results), 8 labelled, 6 counted" in text
    assert (
        "| deep learning | `deep learning stars:>=200` | 200..* | 2015-01-01..2021-03-01 |" in text
    )
    assert "Searched: 2021-03-01T08:00:00+00:00 to 2021-03-02T09:00:00+00:00" in text
    facts = json.loads((study / "first" / "index.json").read_text(encoding="utf-8"))["provenance"]
    assert facts["repositories"] == {"in_store": 16, "labelled": 8, "counted": 6, "left_out": 2}
    html = result.index_html.read_text(encoding="utf-8")
    assert html.startswith("<!DOCTYPE html>") and '<meta charset="utf-8">' in html


def test_a_later_run_of_one_kind_keeps_the_other_entries(study: Path) -> None:
    run(study, "r", kind="coverage", charts=False)
    run(study, "r", kind="search", charts=False, formats=("csv",))
    index = json.loads((study / "r" / "index.json").read_text(encoding="utf-8"))
    assert [t["key"] for t in index["tables"]] == ["search", "coverage", "coverage_detail"]
    assert index["tables"][0]["files"] == {"csv": "search.csv"}
    text = (study / "r" / "index.md").read_text(encoding="utf-8")
    assert "[coverage.tex](coverage.tex)" in text and "[search.csv](search.csv)" in text


def test_entries_from_other_data_are_dropped(study: Path) -> None:
    run(study, "r", kind="coverage", charts=False)
    consensus = study / "annotations" / "consensus.csv"
    run(study, "r", kind="hardware", charts=False, labels="consensus", consensus_path=consensus)
    index = json.loads((study / "r" / "index.json").read_text(encoding="utf-8"))
    assert [t["key"] for t in index["tables"]] == ["hardware"]
    assert index["provenance"]["labels"] == "consensus"


def test_no_labels_skips_label_tables_for_all_and_fails_for_one_kind(tmp_path: Path) -> None:
    with build_store(tmp_path / "m.db") as store:
        store.conn.execute("DELETE FROM audits")
        result = write_report(store, ReportOptions(output_dir=tmp_path / "out"))  # type: ignore[arg-type]
        keys = [t.key for t in result.tables]
        assert keys == ["search", "exclusions", "smoke_ladder", "smoke_outcomes", "smoke"]
        assert "label tables skipped" in result.warnings[0]
        with pytest.raises(MinerError, match="no audited repositories"):
            write_report(store, ReportOptions(kind="coverage", output_dir=tmp_path / "o"))  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"kind": "tables"}, "unknown report"),
        ({"formats": ("docx",)}, "unknown format docx"),
        ({"labels": "mine"}, "unknown labels"),
        ({"star_bands": (100, 50)}, "star bands"),
    ],
)
def test_bad_options_are_config_errors(
    store: Store, tmp_path: Path, options: dict[str, object], message: str
) -> None:
    with pytest.raises(ConfigError, match=message):
        write_report(store, ReportOptions(output_dir=tmp_path, **options))  # type: ignore[arg-type]


def test_cli_prints_the_table_and_writes_the_files(study: Path) -> None:
    result = CliRunner().invoke(
        app,
        ["report", "coverage", "--study", str(study), "-f", "markdown", "-f", "csv", "--no-charts"],
    )
    assert result.exit_code == 0, result.output
    assert "| software_req | yes | 5 | 83.3 |" in result.stdout
    assert "wrote 2 tables in 2 formats and 0 charts" in result.stderr
    written = sorted(p.name for p in (study / "reports").iterdir())
    assert written == [
        "coverage.csv", "coverage.md", "coverage_detail.csv", "coverage_detail.md",
        "index.html", "index.json", "index.md",
    ]  # fmt: skip


def test_cli_consensus_and_options(study: Path) -> None:
    out = study / "elsewhere"
    result = CliRunner().invoke(
        app,
        [
            "report", "crosstab", "--study", str(study), "--labels", "consensus",
            "--star-bands", "0,1000", "--output-dir", str(out), "-q", "--include-excluded",
        ],
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    assert result.stdout == ""  # --quiet
    tests = json.loads((out / "crosstab_tests.json").read_text(encoding="utf-8"))
    assert {r["by"] for r in tests["rows"]} == {"primary_framework", "star_band", "push_year"}
    assert "excluded projects included" in tests["notes"][0]
    assert (out / "crosstab.png").is_file()


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--labels", "consensus", "--consensus", "nope.csv"], "Error: no consensus at"),
        (["--star-bands", "0,a"], "Error: --star-bands"),
        (["--db", "missing.db"], "Error: no store at"),
    ],
)
def test_cli_errors_are_one_line(study: Path, args: list[str], message: str) -> None:
    result = CliRunner().invoke(app, ["report", "coverage", "--study", str(study), *args])
    assert result.exit_code == 1
    assert result.stderr.startswith(message) and result.stderr.strip().count("\n") == 0


def test_all_leaves_out_smoke_tables_when_nothing_was_smoke_tested(tmp_path: Path) -> None:
    with build_store(tmp_path / "m.db") as store:
        store.conn.execute("DELETE FROM smoke_runs")
        result = write_report(store, ReportOptions(output_dir=tmp_path / "out"))  # type: ignore[arg-type]
        assert not [t for t in result.tables if t.key.startswith("smoke")]
        assert not result.warnings
