"""`miner clone` through the command line: lines, summary, one-line errors, export."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from clone_repos import Upstream, add_repo
from typer.testing import CliRunner

import miner.cli.clone as clone_cli
from miner.cli import app
from miner.store import Store


def run(*args: str) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, list(args))
    return result.exit_code, result.stdout, result.stderr


def test_clone_prints_one_line_per_repository_and_a_summary(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "acme/deep", upstreams["deep"].url)
    add_repo(store, 2, "acme/gone", (tmp_path / "nowhere").as_uri())
    code, out, err = run("clone", "--study", str(tmp_path), "--workers", "2")
    assert code == 0, err
    lines = out.splitlines()
    deep = next(line for line in lines if "acme/deep" in line)
    assert deep.startswith("cloned") and upstreams["deep"].commits[-1][:10] in deep
    assert "2021-03-01" in deep and "received" in deep
    assert next(line for line in lines if "acme/gone" in line).startswith("failed")
    assert lines[-1].startswith("cloned 1, skipped 0, failed 1 (gone 1); received ")

    code, out, _ = run("clone", "--study", str(tmp_path), "--only", "acme/deep")
    assert out.splitlines()[0].startswith("skipped  acme/deep")
    assert out.splitlines()[-1].startswith("cloned 0, skipped 1, failed 0;")

    code, out, _ = run("export", "clones", "--study", str(tmp_path), "--format", "json")
    rows = {r["full_name"]: r for r in json.loads(out)}
    assert rows["acme/deep"]["commit_sha"] == upstreams["deep"].commits[-1]
    assert rows["acme/gone"]["error_class"] == "gone"


def test_as_of_and_max_blob_reach_the_clone(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "acme/deep", upstreams["deep"].url)
    code, out, err = run(
        "clone", "--study", str(tmp_path), "--as-of", "2020-03-01", "--max-blob", "8M"
    )
    assert code == 0, err
    row = store.query("SELECT commit_sha, as_of, max_blob, omitted_files FROM clones")[0]
    assert row["commit_sha"] == upstreams["deep"].commits[0]
    assert (row["as_of"], row["max_blob"], row["omitted_files"]) == (
        "2020-03-01T00:00:00+00:00",
        8 * 1024 * 1024,
        0,
    )


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--as-of", "2021-13-01"], "Error: --as-of: '2021-13-01' is not a date"),
        (["--as-of", "yesterday"], "Error: --as-of: 'yesterday' is not a date"),
        (["--max-blob", "12X"], "Error: --max-blob: '12X' is not a size"),
        (["--max-size", "-1"], "Error: --max-size: '-1' is not a size"),
        (["--workers", "0"], "Error: --workers must be at least 1"),
        (["--timeout", "0"], "Error: --timeout must be positive"),
        (["--only", "nobody/here,acme/deep"], "Error: --only: not in the store: nobody/here"),
        (["--only", "acme/fork"], "Error: --only: not a clone candidate: acme/fork (fork)"),
    ],
)
def test_bad_input_is_one_line_and_exit_1(
    tmp_path: Path, store: Store, args: list[str], message: str
) -> None:
    add_repo(store, 1, "acme/deep", None)
    add_repo(store, 2, "acme/fork", None, fork=1)
    code, _, err = run("clone", "--study", str(tmp_path), *args)
    assert code == 1
    assert err.startswith(message) and err.count("\n") == 1


def test_a_missing_store_is_one_line(tmp_path: Path) -> None:
    code, _, err = run("clone", "--study", str(tmp_path / "empty"))
    assert code == 1 and err.startswith("Error: no store at")


def test_on_a_terminal_a_progress_bar_shows_each_repository(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(clone_cli, "is_tty", lambda: True)
    add_repo(store, 1, "acme/deep", upstreams["deep"].url)
    add_repo(store, 2, "acme/gone", (tmp_path / "nowhere").as_uri())
    code, out, err = run("clone", "--study", str(tmp_path))
    assert code == 0, err
    assert "cloned   acme/deep" in out and "failed   acme/gone  gone:" in out
    assert out.rstrip().splitlines()[-1].startswith("cloned 1, skipped 0, failed 1 (gone 1)")


def test_the_token_comes_from_github_token_and_is_never_printed(
    tmp_path: Path, store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "ghp_cliSECRET")
    add_repo(store, 1, "acme/private", "https://127.0.0.1:9/acme/private.git")  # refused port
    code, out, err = run("clone", "--study", str(tmp_path), "--timeout", "20")
    assert code == 0
    assert "ghp_cliSECRET" not in out + err
    assert store.query("SELECT status FROM clones")[0]["status"] == "failed"
