"""`conflicts`, `resolve` and the consensus layer."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import pytest
from annotate_study import Study, fill_sheet

from miner.annotate.conflicts import write_conflicts
from miner.annotate.dialog import Dialog
from miner.annotate.layers import import_layer
from miner.annotate.layout import Layout
from miner.annotate.prepare import prepare_sheets
from miner.annotate.reconcile import (
    build_consensus,
    load_consensus,
    resolve_from_file,
    resolve_interactive,
)
from miner.annotate.sheets import read_sheet, write_csv
from miner.codebook import FIELD_NAMES
from miner.errors import SheetError

BOB = {
    ("alpha/seg-net", "hw_gpu"): "no",
    ("eps/rl-agent", "network_types"): "mlp",
    ("zeta/old-caffe", "exclude"): "none",
    ("beta/Text-RNN", "domain"): "unclear",
    ("beta/Text-RNN", "paper_framework"): "Others",  # Keras on Theano, says bob
    ("gamma/gan-faces", "hw_cpu"): "n/a",
}
ALICE = {("gamma/gan-faces", "hw_cpu"): "n/a", ("delta/tf-detect", "language"): "unclear"}
BOB_TOO = {("delta/tf-detect", "language"): "unclear"}


@pytest.fixture
def listed(study: Study) -> Study:
    with study.store() as store:
        prepare_sheets(store, study.annotations, ["alice", "bob"])
    layout = Layout(study.annotations)
    fill_sheet(layout.sheet("main", "alice"), lambda n, f: ALICE.get((n, f), ""))
    fill_sheet(layout.sheet("main", "bob"), lambda n, f: {**BOB, **BOB_TOO}.get((n, f), ""))
    for who in ("alice", "bob"):
        import_layer(study.annotations, who, layout.sheet("main", who))
    with study.store() as store:
        write_conflicts(study.annotations, "alice", "bob", "main", store)
    return study


def conflict_rows(study: Study) -> dict[str, dict[str, str]]:
    raw = read_sheet(Layout(study.annotations).conflicts("main"))
    return {c["conflict_id"]: c for _, c in raw.rows}


def test_conflicts_list_disagreements_with_the_machine_label(listed: Study) -> None:
    rows = conflict_rows(listed)
    assert set(rows) == {
        "101:hw_gpu",
        "105:network_types",
        "106:exclude",
        "102:domain",
        "102:paper_framework",
        "104:language",
    }
    gpu = rows["101:hw_gpu"]
    assert (gpu["value_a"], gpu["value_b"], gpu["machine_value"]) == ("yes", "no", "yes")
    assert gpu["evidence_a"] == "README.md:10" and "GTX 1080 Ti" in gpu["machine_evidence"]
    assert rows["106:exclude"]["value_b"] == "none"  # an empty set, shown as people write it
    assert rows["104:language"]["value_a"] == rows["104:language"]["value_b"] == "unclear"
    assert "103:hw_cpu" not in rows  # both n/a: an agreement
    consensus = load_consensus(listed.annotations)
    assert list(consensus.columns) == ["full_name", "repo_id", "commit_sha", *FIELD_NAMES]
    seg = consensus.set_index("full_name").loc["alpha/seg-net"]
    assert seg["hw_gpu"] == "unclear" and seg["hardware_req"] == "unclear"  # unresolved yet
    assert seg["frameworks"] == "pytorch"  # agreed, so accepted


def edited(study: Study, decisions: dict[str, dict[str, str]], tmp_path: Path) -> Path:
    rows = list(conflict_rows(study).values())
    for row in rows:
        row.update(decisions.get(row["conflict_id"], {}))
    path = tmp_path / "conflicts-edited.csv"
    with path.open("w", encoding="utf-8", newline="") as handle:
        writer = csv.DictWriter(handle, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def test_resolve_from_an_edited_file_builds_the_consensus(listed: Study, tmp_path: Path) -> None:
    bad = edited(
        listed,
        {
            "101:hw_gpu": {"consensus_value": "yess", "rationale": "x"},
            "106:exclude": {"consensus_value": "deprecated", "method": "vote"},
        },
        tmp_path,
    )
    with pytest.raises(SheetError) as info:
        resolve_from_file(listed.annotations, "main", bad, by="carol")
    message = str(info.value)
    assert "row 2, column consensus_value: 'yess' is not yes/no/unclear/n/a" in message
    assert "column method: 'vote' is not discussion/tiebreaker" in message
    assert "column rationale: blank" in message
    decisions = {
        "101:hw_gpu": {"consensus_value": "yes", "rationale": "GTX 1080 Ti in README"},
        "105:network_types": {
            "consensus_value": "drl;mlp",
            "method": "tiebreaker",
            "resolved_by": "dave",
            "rationale": "DQN agent",
        },
        "106:exclude": {"consensus_value": "none", "rationale": "still maintained"},
        "102:domain": {"consensus_value": "nlp", "rationale": "text classification"},
        "102:paper_framework": {"consensus_value": "Keras (TensorFlow)", "rationale": "tf"},
        "104:language": {"consensus_value": "python", "rationale": "train.py"},
    }
    good = edited(listed, decisions, tmp_path)
    assert resolve_from_file(listed.annotations, "main", good, by="carol") == 6
    assert resolve_from_file(listed.annotations, "main", good, by="carol") == 0  # idempotent
    result = build_consensus(listed.annotations)
    assert (result.rows, result.resolved, result.unresolved) == (6, 6, 0)
    consensus = load_consensus(listed.annotations).set_index("full_name")
    assert consensus.loc["alpha/seg-net", "hardware_req"] == "yes"
    assert consensus.loc["eps/rl-agent", "paper_network"] == "Others"
    assert consensus.loc["zeta/old-caffe", "exclude"] == ""
    assert consensus.loc["gamma/gan-faces", "hw_cpu"] == "n/a"
    assert consensus.loc["beta/Text-RNN", "paper_framework"] == "Keras (TensorFlow)"
    records = [
        json.loads(x)
        for x in Layout(listed.annotations).resolutions("main").read_text().splitlines()
    ]
    tie = next(r for r in records if r["conflict_id"] == "105:network_types")
    assert (tie["by"], tie["method"], tie["value"]) == ("dave", "tiebreaker", "drl;mlp")
    assert tie["time"] and tie["rationale"] == "DQN agent"
    sheet = read_sheet(Layout(listed.annotations).consensus)
    row = next(c for _, c in sheet.rows if c["full_name"] == "eps/rl-agent")
    assert row["network_types__evidence"] == "tiebreaker (dave): DQN agent"
    assert row["note"] == "round main; resolved: network_types"


def scripted(answers: list[str]) -> tuple[Dialog, list[str]]:
    said: list[str] = []
    queue = iter(answers)
    return Dialog(
        ask=lambda prompt: next(queue, "q"), say=lambda text: said.append(str(text))
    ), said


def test_interactive_resolution_can_stop_and_resume(listed: Study) -> None:
    dialog, said = scripted(["b", "bob is right", "maybe", "m", "machine found the GPU", "q"])
    with listed.store() as store:
        count = resolve_interactive(
            listed.annotations, "main", "carol", "discussion", dialog, store
        )
    assert count == 2
    assert any("'maybe' is not a codebook value" in s for s in said)
    assert any("m) machine: yes   evidence: README.md:10 one NVIDIA GTX 1080 Ti" in s for s in said)
    dialog, said = scripted(["a", "alice read it right", "s", "none", "agreed"] + ["q"])
    more = resolve_interactive(listed.annotations, "main", "carol", "discussion", dialog)
    assert more == 2 and said[0] == "4 undecided conflict(s) of 6 in round main"
    decided = [
        json.loads(x)["conflict_id"]
        for x in Layout(listed.annotations).resolutions("main").read_text().splitlines()
    ]
    assert len(decided) == 4 and len(set(decided)) == 4


def test_a_revised_decision_replaces_the_old_one(listed: Study, tmp_path: Path) -> None:
    first = edited(listed, {"101:hw_gpu": {"consensus_value": "no", "rationale": "r1"}}, tmp_path)
    resolve_from_file(listed.annotations, "main", first, by="carol")
    second = edited(listed, {"101:hw_gpu": {"consensus_value": "yes", "rationale": "r2"}}, tmp_path)
    resolve_from_file(listed.annotations, "main", second, by="carol")
    build_consensus(listed.annotations)
    assert (
        load_consensus(listed.annotations).set_index("full_name").loc["alpha/seg-net", "hw_gpu"]
        == "yes"
    )
    assert len(Layout(listed.annotations).resolutions("main").read_text().splitlines()) == 2


def test_relisting_refuses_to_drop_unrecorded_edits(listed: Study) -> None:
    path = Layout(listed.annotations).conflicts("main")
    rows = list(conflict_rows(listed).values())
    rows[0].update(consensus_value="yes", rationale="r")
    write_csv(path, rows, list(rows[0]))
    with pytest.raises(SheetError, match="not recorded yet"):
        write_conflicts(listed.annotations, "alice", "bob", "main")


def test_load_consensus_accepts_settings_folder_or_file(listed: Study) -> None:
    layout = Layout(listed.annotations)
    for source in (listed.settings, listed.annotations, layout.consensus, str(layout.consensus)):
        assert len(load_consensus(source)) == 6
    with pytest.raises(SheetError, match="no consensus at"):
        load_consensus(layout.root / "nowhere")


def test_a_round_can_ask_for_some_fields_only(study: Study, tmp_path: Path) -> None:
    from miner.annotate.agreement import agreement
    from miner.annotate.labelsfile import read_labels
    from miner.annotate.score import load_source, score

    hardware = ["hw_gpu", "hw_cpu", "hw_memory", "hw_other"]
    with study.store() as store:
        prepare_sheets(
            store, study.annotations, ["alice", "bob"], fields=["software_req", *hardware]
        )
    layout = Layout(study.annotations)
    columns = read_sheet(layout.sheet("main", "alice")).columns
    assert (
        "hardware_req" in columns and "frameworks" not in columns and "paper_network" not in columns
    )
    fill_sheet(layout.sheet("main", "alice"))
    fill_sheet(layout.sheet("main", "bob"), lambda n, f: BOB.get((n, f), ""))
    for who in ("alice", "bob"):
        import_layer(study.annotations, who, layout.sheet("main", who))
    report = agreement(study.annotations, "alice", "bob", "main")[0]
    assert [f.field for f in report.fields] == ["software_req", "hardware_req", *hardware]
    result = write_conflicts(study.annotations, "alice", "bob", "main")
    assert [c.conflict_id for c in result.conflicts] == ["101:hw_gpu", "103:hw_cpu"]
    consensus = load_consensus(study.annotations).set_index("full_name")
    assert consensus.loc["eps/rl-agent", "hardware_req"] == "yes"
    assert consensus.loc["eps/rl-agent", "network_types"] == ""  # not asked
    table = read_labels(layout.consensus)
    assert table.fields == ("software_req", "hardware_req", *hardware)
    scored = score(table, load_source("auto", study.annotations, study.store))
    assert [f.field for f in scored.fields] == [
        "software_req",
        *hardware,
    ]  # auto has no hardware_req
