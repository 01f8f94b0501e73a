"""`review`: scripted answers, saved one by one; stop and resume; safe reading of checkouts."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest
from annotate_study import Study

from miner.annotate.dialog import Dialog
from miner.annotate.layout import Layout
from miner.annotate.passages import field_passages, list_files, read_text
from miner.annotate.prepare import prepare_sheets
from miner.annotate.review import review
from miner.annotate.sheets import INPUT_FIELDS, read_sheet


class Script:
    """Answers prompts from a list and records every prompt and every line shown."""

    def __init__(self, answers: list[str]) -> None:
        self.answers: Iterator[str] = iter(answers)
        self.prompts: list[str] = []
        self.said: list[str] = []

    def ask(self, prompt: str) -> str:
        self.prompts.append(prompt)
        return next(self.answers, "q")

    @property
    def dialog(self) -> Dialog:
        return Dialog(ask=self.ask, say=lambda text: self.said.append(str(text)))


def sheet_rows(study: Study, who: str = "alice") -> dict[str, dict[str, str]]:
    raw = read_sheet(Layout(study.annotations).sheet("main", who))
    return {c["full_name"]: c for _, c in raw.rows}


@pytest.fixture
def prepared(study: Study) -> Study:
    with study.store() as store:
        prepare_sheets(store, study.annotations, ["alice"])
        prepare_sheets(store, study.annotations, ["pat"], prefill=True)
    return study


def run(
    study: Study,
    script: Script,
    who: str = "alice",
    fields: tuple[str, ...] = ("hw_gpu", "frameworks"),
):  # noqa: ANN201
    with study.store() as store:
        return review(study.annotations, who, script.dialog, store=store, fields=fields)


def test_answers_are_saved_as_given_and_the_review_resumes(prepared: Study) -> None:
    first = Script(
        ["yes", "README.md:10 GTX 1080 Ti", "pytorch;TensorFlow", "", "one GPU", "maybe", "no", "q"]
    )
    result = run(prepared, first)
    assert result.stopped and result.answered == 3 and result.repos_complete == 1
    rows = sheet_rows(prepared)
    seg = rows["alpha/seg-net"]
    assert (seg["hw_gpu"], seg["hw_gpu__evidence"]) == ("yes", "README.md:10 GTX 1080 Ti")
    assert seg["frameworks"] == "pytorch;tensorflow" and seg["note"] == "one GPU"
    assert rows["beta/Text-RNN"]["hw_gpu"] == "no"  # saved before `q`
    assert any("'maybe' is not yes/no/unclear/n/a" in s for s in first.said)
    assert any(
        s.startswith("   > README.md:10: We trained on one NVIDIA GTX 1080 Ti") for s in first.said
    )
    assert any(
        "docs and manifests: README.md, requirements.txt\n"
        "  top level (3 files): README.md, requirements.txt, train.py" in s
        for s in first.said
    )
    second = Script(["none", "", "s", "s", "s", "s"])  # beta's frameworks and note; skip the rest
    result = run(prepared, second)
    assert second.prompts[0].startswith("frameworks (")
    assert sheet_rows(prepared)["beta/Text-RNN"]["frameworks"] == "none"
    assert result.answered == 1 and not result.stopped
    assert sum(p.startswith("hw_gpu") for p in second.prompts) == 4  # gamma..zeta, then skipped
    assert sum(p.startswith("frameworks") for p in second.prompts) == 1


def test_an_answer_followed_by_q_at_the_evidence_prompt_is_saved(prepared: Study) -> None:
    script = Script(["yes", "q"])  # hw_gpu = yes, then quit instead of giving evidence
    result = run(prepared, script)
    assert script.prompts[-1].startswith("evidence")
    assert result.stopped and result.answered == 1
    assert sheet_rows(prepared)["alpha/seg-net"]["hw_gpu"] == "yes"
    again = Script(["q"])
    run(prepared, again)
    assert again.prompts[0].startswith("frameworks (")  # hw_gpu is not asked again


def test_help_and_every_input_field(prepared: Study) -> None:
    script = Script(["?"] + ["unclear"] * len(INPUT_FIELDS) + ["", "q"])
    result = run(prepared, script, fields=INPUT_FIELDS)
    assert result.answered == len(INPUT_FIELDS) and result.repos_complete == 1
    assert any("hardware" not in s and "the main content builds" in s for s in script.said)
    seg = sheet_rows(prepared)["alpha/seg-net"]
    assert all(seg[f] == "unclear" for f in INPUT_FIELDS)


def test_prefilled_sheets_ask_to_confirm_each_value(prepared: Study) -> None:
    script = Script(["", "", "", "", "", "q"])  # keep each value and its evidence, no note
    run(prepared, script, who="pat")
    assert script.prompts[0].startswith("hw_gpu [yes]")
    assert any("machine evidence" in s for s in script.said)
    rows = sheet_rows(prepared, "pat")
    assert rows["alpha/seg-net"]["hw_gpu"] == "yes"
    assert "GTX 1080 Ti" in rows["alpha/seg-net"]["hw_gpu__evidence"]
    assert rows["alpha/seg-net"]["frameworks"] == "pytorch"
    assert script.prompts[-1].startswith("hw_gpu [no]")  # beta's, answered with q
    again = Script(["q"])
    run(prepared, again, who="pat")
    assert again.prompts[0].startswith("hw_gpu [no]")  # alpha is confirmed: beta comes next


def test_checkouts_are_read_without_leaving_them(tmp_path: Path) -> None:
    outside = tmp_path / "secret.md"
    outside.write_text("GPU password 1234 GB\n")
    root = tmp_path / "repo"
    (root / "docs").mkdir(parents=True)
    (root / "README.md").symlink_to(outside)
    (root / "docs" / "install.md").write_text("Needs a Tesla V100 (32 GB).\n")
    (root / "linked").symlink_to(tmp_path, target_is_directory=True)
    files = list_files(root)
    assert "docs/install.md" in files and not any(f.startswith("linked/") for f in files)
    assert read_text(root, "README.md") is None
    assert read_text(root, "../secret.md") is None
    shown = field_passages(root, files, "hw_gpu")
    assert [p.path for p in shown] == ["docs/install.md"]
    assert os.path.islink(root / "README.md")
