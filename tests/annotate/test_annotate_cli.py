"""The `miner annotate` commands end to end: two annotators from prepare to score."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from annotate_study import Study, fill_sheet
from typer.testing import CliRunner

from miner.annotate.layout import Layout
from miner.annotate.sheets import read_sheet
from miner.cli import app

BOB = {("alpha/seg-net", "hw_gpu"): "no", ("eps/rl-agent", "network_types"): "mlp"}


def miner(study: Study, *args: str, input: str | None = None) -> tuple[int, str, str]:  # noqa: A002
    result = CliRunner().invoke(
        app, ["annotate", *args, "--study", str(study.settings.study_dir)], input=input
    )
    return result.exit_code, result.stdout, result.stderr


def test_two_annotators_from_prepare_to_score(study: Study, tmp_path: Path) -> None:
    code, out, _ = miner(study, "prepare", "-a", "alice", "-a", "bob", "--xlsx")
    assert code == 0 and "round main (new round): 6 of 6 repositories" in out
    layout = Layout(study.annotations)
    alice = fill_sheet(layout.sheet("main", "alice"), out=tmp_path / "alice.csv")
    bob = fill_sheet(
        layout.sheet("main", "bob"), lambda n, f: BOB.get((n, f), ""), out=tmp_path / "bob.xlsx"
    )
    for who, path in (("alice", alice), ("bob", bob)):
        code, out, _ = miner(study, "import", who, str(path))
        assert code == 0 and f"imported {who}@main: 6 repositories" in out
    code, out, _ = miner(study, "agreement", "alice", "bob", "--format", "json")
    fields = {f["field"]: f for f in json.loads(out)["rounds"][0]["fields"]}
    assert fields["hw_gpu"]["stats"]["observed"] == 5 / 6 and fields["network_types"]["alpha_masi"]
    code, out, _ = miner(
        study,
        "agreement",
        "alice",
        "bob",
        "--format",
        "latex",
        "-o",
        str(tmp_path / "agreement.tex"),
    )
    assert code == 0 and r"\begin{tabular}" in (tmp_path / "agreement.tex").read_text()
    code, out, _ = miner(study, "agreement", "alice", "bob", "--format", "csv", "-f", "hw_gpu")
    rows = list(csv.DictReader(out.splitlines()))
    assert code == 0 and [r["field"] for r in rows] == ["hw_gpu"] and rows[0]["p_o"] == "0.8333"
    code, out, _ = miner(study, "conflicts", "alice", "bob")
    assert code == 0 and "2 conflicts in 103 values of 6 repositories (101 agreed" in out
    assert "the 103 count 1 derived values: paper_framework where both chose keras" in out
    assert "consensus: 6 repositories, 2 values unresolved" in out
    conflicts = layout.conflicts("main")
    rows = list(csv.DictReader(conflicts.open(encoding="utf-8-sig")))
    for row in rows:
        row.update(consensus_value=row["value_a"], rationale="alice quoted the README")
    with conflicts.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    code, out, _ = miner(study, "resolve", "--from", str(conflicts), "--by", "carol")
    assert code == 0 and "recorded 2 decision(s)" in out and "2 resolved, 0 unresolved" in out
    code, out, _ = miner(study, "score", "--format", "csv")
    assert code == 0 and "hw_gpu,6,0,1.0000" in out
    code, out, _ = miner(study, "score", "--labels", "bob@main", "--misses", "hw_gpu")
    assert code == 0 and "1 misses in hw_gpu" in out and "alpha/seg-net" in out
    code, out, _ = miner(study, "status")
    assert "conflicts: 2 listed, 2 decided" in out and "hash chain intact" in out


def test_bad_sheet_is_an_error_without_traceback(study: Study, tmp_path: Path) -> None:
    miner(study, "prepare", "-a", "alice")
    code, _, err = miner(
        study, "import", "alice", str(Layout(study.annotations).sheet("main", "alice"))
    )
    assert code == 1 and err.startswith("Error: ") and "row 2, column is_dl (F): blank" in err
    assert "Traceback" not in err
    code, _, err = miner(study, "import", "alice", str(tmp_path / "missing.csv"))
    assert code == 1 and "no such file" in err


def test_review_runs_in_the_terminal_and_resolve_asks_who(study: Study) -> None:
    miner(study, "prepare", "-a", "alice")
    code, out, _ = miner(study, "review", "-a", "alice", input="yes\nREADME.md:3\nq\n")
    assert code == 0 and "stopped: 1 answers saved" in out and "[1/6] alpha/seg-net" in out
    code, _, err = miner(study, "resolve")
    assert code == 1 and "--by NAME" in err


def test_ctrl_c_in_the_review_keeps_every_answer_and_exits_130(
    study: Study, monkeypatch: pytest.MonkeyPatch
) -> None:
    from rich.console import Console

    miner(study, "prepare", "-a", "alice")
    typed = iter(["yes"])
    prompts: list[str] = []

    def typing(self: Console, prompt: str = "") -> str:
        prompts.append(prompt)
        answer = next(typed, None)
        if answer is None:
            raise KeyboardInterrupt  # Ctrl-C at the evidence prompt
        return answer

    monkeypatch.setattr(Console, "input", typing)
    code, out, _ = miner(study, "review", "-a", "alice")
    assert code == 130 and "interrupted: 1 answers saved" in out
    raw = read_sheet(Layout(study.annotations).sheet("main", "alice"))
    rows = {cells["full_name"]: cells for _, cells in raw.rows}
    field = prompts[0].split()[0].removeprefix("[bold]")  # the first field asked
    assert "evidence" in prompts[1] and rows["alpha/seg-net"][field] == "yes"


def test_serve_on_port_0_prints_the_port_it_listens_on(
    study: Study, monkeypatch: pytest.MonkeyPatch
) -> None:
    import miner.annotate.web.listen as listen

    bound: list[int] = []

    def serve(app: object, sock: Any) -> None:
        bound.append(sock.getsockname()[1])
        sock.close()

    monkeypatch.setattr(listen, "serve", serve)
    miner(study, "prepare", "-a", "alice", "-a", "bob")
    code, out, _ = miner(study, "serve", "--port", "0")
    assert code == 0 and bound and bound[0] != 0
    urls = [line.split(": ", 1)[1] for line in out.splitlines() if "http://" in line]
    assert len(urls) == 4 and all(u.startswith(f"http://127.0.0.1:{bound[0]}/") for u in urls)
