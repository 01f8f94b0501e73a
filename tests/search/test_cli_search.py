"""`miner search`, `miner searches` and `miner export repos` through the CLI, on the fake API."""

from __future__ import annotations

import io
import logging
from pathlib import Path

import pandas as pd
import pytest
from conftest import TOKEN
from rich.console import Console
from search_fakes import make_population
from typer.testing import CliRunner

from miner.cli import app
from miner.cli.search import LineProgress, LiveProgress
from miner.search.crawl import PageFetched, SearchStarted, SliceFinished, SliceStarted
from miner.search.github import Waiting

DL = "deep learning"


@pytest.fixture
def api(serve):
    """A fake GitHub with 1,300 matches for "deep learning" and 700 for "neural network"."""
    return serve(make_population(2000, keywords=(DL, "neural network"), overlap=0.2, seed=21))


def _run(*args: str, env: dict[str, str] | None = None):
    return CliRunner().invoke(app, list(args), env={"GITHUB_TOKEN": TOKEN, **(env or {})})


def _search(api, db: Path, *extra: str):
    return _run("search", DL, "--min-stars", "200", "--api-url", api.url, "--db", str(db), *extra)


def test_search_prints_progress_lines_and_a_summary_per_keyword(api, tmp_path: Path) -> None:
    db = tmp_path / "miner.db"
    result = _run(
        "search", DL, "neural network", "--min-stars", "200", "--api-url", api.url, "--db", str(db)
    )
    assert result.exit_code == 0, result.output
    dl = len(api.ids(f"{DL} stars:>=200"))
    nn = len(api.ids("neural network stars:>=200"))
    union = len(api.ids(f"{DL} stars:>=200") | api.ids("neural network stars:>=200"))
    lines = result.stdout.splitlines()
    dl_row = next(line for line in lines if line.strip().startswith(DL))
    assert f"{dl:,}" in dl_row and "done" in dl_row
    nn_row = next(line for line in lines if line.strip().startswith("neural network"))
    assert f"{nn:,}" in nn_row
    assert f"{union:,} unique repositories over 2 keyword(s)" in result.stdout
    # Not a terminal: quiet, line-oriented progress on stderr.
    assert f"search {DL!r}: starting" in result.stderr
    assert "slice stars:>=200: " in result.stderr and "split in 2" in result.stderr
    assert f"done {DL!r}: {dl:,} of {dl:,} repositories" in result.stderr


def test_searches_lists_the_log(api, tmp_path: Path) -> None:
    db = tmp_path / "miner.db"
    assert _search(api, db, "--created-before", "2020-12-31").exit_code == 0
    result = _run("searches", "--db", str(db))
    assert result.exit_code == 0
    row = next(line for line in result.stdout.splitlines() if DL in line)
    found = len(api.ids(f"{DL} stars:>=200 created:<=2020-12-31"))
    assert ">=200" in row and "*..2020-12-31" in row and f"{found:,}" in row and "done" in row


def test_rerunning_resumes_or_reports_the_search_complete(api, tmp_path: Path) -> None:
    db = tmp_path / "miner.db"
    assert _search(api, db).exit_code == 0
    served = api.search_requests
    again = _search(api, db)
    assert again.exit_code == 0 and api.search_requests == served
    assert "already complete" in again.stderr


def test_a_bad_token_is_one_line_and_exit_1(serve, tmp_path: Path) -> None:
    api = serve(make_population(20), token="the-right-token")
    result = _search(api, tmp_path / "miner.db")
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and result.stderr.startswith("Error: GitHub rejected")
    assert "HTTP 401" in result.stderr and TOKEN not in result.output + result.stderr


def test_a_bad_query_is_one_line_and_exit_1(api, tmp_path: Path) -> None:
    result = _run("search", "x" * 300, "--api-url", api.url, "--db", str(tmp_path / "m.db"))
    assert result.exit_code == 1
    assert result.stderr.count("\n") == 1 and "HTTP 422" in result.stderr
    assert "Traceback" not in result.output


@pytest.mark.parametrize(
    ("option", "value", "message"),
    [
        ("--created-before", "19.01.2021", "not a date"),
        ("--in", "name,code", "unknown field"),
    ],
)
def test_bad_options_are_one_line_and_exit_1(tmp_path: Path, option, value, message) -> None:
    result = _run("search", DL, option, value, "--db", str(tmp_path / "m.db"))
    assert result.exit_code == 1 and result.stderr.count("\n") == 1 and message in result.stderr


def test_the_token_never_reaches_output_logs_or_the_store(
    api, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    db = tmp_path / "miner.db"
    caplog.set_level(logging.DEBUG)  # PyGithub logs every request at DEBUG
    by_env = _search(api, db)
    by_option = _run(
        "search", "neural network", "--token", TOKEN, "--api-url", api.url, "--db", str(db)
    )
    listing = _run("searches", "--db", str(db))
    exported = _run("export", "searches", "--format", "json", "--db", str(db))
    assert all(r.exit_code == 0 for r in (by_env, by_option, listing, exported))
    assert all(s.authenticated for s in api.served)  # the token was used...
    texts = [r.stdout + r.stderr for r in (by_env, by_option, listing, exported)]
    assert caplog.records and all(TOKEN not in t for t in [*texts, caplog.text])  # ...not shown
    stored = b"".join(p.read_bytes() for p in tmp_path.glob("miner.db*"))
    assert len(stored) > 100_000 and TOKEN.encode() not in stored


@pytest.mark.parametrize("fmt", ["csv", "json", "parquet"])
def test_export_repos_round_trips_in_pandas(api, tmp_path: Path, fmt: str) -> None:
    db = tmp_path / "miner.db"
    assert _search(api, db).exit_code == 0
    out = tmp_path / f"repos.{fmt}"
    result = _run("export", "repos", "--format", fmt, "--output", str(out), "--db", str(db))
    assert result.exit_code == 0, result.output
    read = {"csv": pd.read_csv, "json": pd.read_json, "parquet": pd.read_parquet}[fmt]
    frame = read(out)
    expected = api.ids(f"{DL} stars:>=200")
    assert len(frame) == len(expected) and set(frame["id"]) == expected
    for column in ("id", "full_name", "html_url", "clone_url", "default_branch", "stars"):
        assert column in frame.columns
    for column in ("fork", "archived", "disabled", "created_at", "pushed_at", "topics"):
        assert column in frame.columns
    assert frame["stars"].min() >= 200 and frame["full_name"].is_unique


def test_line_progress_prints_waits_once_not_every_tick() -> None:
    lines = [
        LineProgress.line(Waiting("HTTP 403 rate limit", left, 3.0, 1)) for left in (3.0, 2.0, 1.0)
    ]
    assert lines == ["  waiting 3 s: HTTP 403 rate limit", None, None]
    assert LineProgress.line(PageFetched(DL, "stars:>=200", 1, 9, 9, 9, 9, 9, 29)) is None


def test_live_progress_renders_slices_pages_and_the_countdown() -> None:
    buffer = io.StringIO()
    console = Console(file=buffer, force_terminal=True, width=150)
    with LiveProgress(console) as live:
        live(SearchStarted(DL, 1, f"{DL} stars:>=200", False, False, 0))
        live(SliceStarted(DL, "stars:>=200", "root"))
        live(PageFetched(DL, "stars:>=200", 1, 2500, 100, 100, 100, 2500, 29))
        live(Waiting("search rate limit used up, resets at 12:03:00 UTC", 42.0, 60.0))
        live.progress.refresh()
        during_wait = buffer.getvalue()
        live(SliceFinished(DL, "stars:>=200", "split", 2500, 1000, 0, 2))
    assert "deep learning" in during_wait and "100/2500" in during_wait
    assert "waiting: search rate limit used up" in during_wait and "42 s left" in during_wait
    assert "29 left" in during_wait
