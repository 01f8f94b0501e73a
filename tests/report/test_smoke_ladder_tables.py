"""`miner report smoke` tables read from stored rows: the ladder's shares and times, outcomes
reached with stand-in data or the CPU shim counted apart, repairs, evidence in full."""

from __future__ import annotations

import json
from dataclasses import dataclass

from miner.codebook import Evidence
from miner.report.render import to_markdown
from miner.report.smoke import ladder_table, outcome_table, project_table, smoke_tables
from miner.select.smoke_records import SmokeResult


@dataclass(frozen=True)
class Repair:
    """A repair record as the environment step makes them."""

    before: str
    after: str
    reason: str

    def as_dict(self) -> dict[str, str]:
        return {"before": self.before, "after": self.after, "reason": self.reason}


LONG = "FileNotFoundError: [Errno 2] No such file or directory: '" + "d/" * 80 + "train.csv'"


def result(name: str, outcome: str, stage: int, **extra) -> SmokeResult:
    spent = {f"S{i}": float(i + 1) for i in range(stage + 1)}
    return SmokeResult(
        full_name=name, repo_id=1, commit_sha="c" * 40, outcome=outcome,
        evidence=Evidence("train.log", 4, extra.pop("text", "loss 0.5"), f"smoke.{outcome}"),
        exit_code=None, install_seconds=2.0, train_seconds=3.0, seconds=10.0 * (stage + 2),
        timeout=90.0, network_cut=True, python="3.8", requirements=(), command="python t.py",
        log_dir="logs", environment=None, smoked_at="2026-11-26T00:00:00+00:00", stage=stage,
        stage_seconds=spent, **extra,
    )  # fmt: skip


ROWS = [
    result("a/ok", "ok", 5).as_row(),
    result("b/standin", "ok", 5, qualifier="stand-in data").as_row(),
    result("c/data", "needs_data", 3, text=LONG,
           repairs=(Repair("torch==0.4.0", "torch==0.4.1", "0.4.0 was never on the index"),)
           ).as_row(),
    result("d/install", "install", 0).as_row(),
]  # fmt: skip


def test_the_ladder_counts_each_stage_of_all_and_of_the_stage_before():
    frame = ladder_table(ROWS).frame
    assert list(frame["projects"]) == [4, 3, 3, 3, 2, 2, 0]
    assert list(frame["percent"])[:5] == [100.0, 75.0, 75.0, 75.0, 50.0]
    assert list(frame["of_previous"])[4] == round(100 * 2 / 3, 1)
    s4 = frame[frame["stage"] == "S4"].iloc[0]
    assert (s4["median_s"], s4["mean_s"]) == (5.0, 5.0)
    notes = " ".join(ladder_table(ROWS).notes)
    assert "Of those at S5, 1 with stand-in data, stand-in weights or the CPU shim." in notes


def test_outcomes_with_a_qualifier_are_counted_apart():
    frame = outcome_table(ROWS).frame
    counts = dict(zip(frame["outcome"], frame["projects"], strict=True))
    assert counts["ok"] == 1 and counts["ok (stand-in data)"] == 1
    assert list(frame["outcome"]).index("ok (stand-in data)") == 1


def test_repairs_are_listed_and_evidence_is_not_cut_short():
    tables = {t.key: t for t in smoke_tables(ROWS)}
    repairs = tables["smoke_repairs"].frame
    assert list(repairs["repository"]) == ["c/data"]
    assert repairs.iloc[0]["repair"] == (
        "before: torch==0.4.0; after: torch==0.4.1; reason: 0.4.0 was never on the index"
    )
    evidence = project_table(ROWS).frame
    row = evidence[evidence["repository"] == "c/data"].iloc[0]
    assert row["evidence"].endswith("train.csv'") and len(row["evidence"]) > 200
    assert "S3" in to_markdown(project_table(ROWS))
    assert json.loads(ROWS[2]["repairs"])[0]["after"] == "torch==0.4.1"


def test_no_repairs_no_repair_table():
    assert "smoke_repairs" not in {t.key for t in smoke_tables(ROWS[:2])}
