"""`prepare` and the sheet format: blind and pre-filled sheets, samples, XLSX, reading back."""

from __future__ import annotations

import json
from pathlib import Path

import openpyxl
import pytest
from annotate_study import REPOS, Study, sha_of

from miner.annotate.layout import Layout
from miner.annotate.prepare import allocate, prepare_sheets
from miner.annotate.sheets import (
    SHEET_COLUMNS,
    fill_derived,
    read_sheet,
    write_csv,
)
from miner.codebook import FIELD_NAMES
from miner.errors import ConfigError, SheetError


def test_blind_sheets_pin_commits_and_hide_machine_labels(study: Study) -> None:
    with study.store() as store:
        result = prepare_sheets(store, study.annotations, ["alice", "bob"])
    assert result.repos == 6 and result.new_round and len(result.sheets) == 2
    raw = read_sheet(Layout(study.annotations).sheet("main", "alice"))
    assert raw.columns == SHEET_COLUMNS
    assert raw.columns[:5] == ("full_name", "repo_id", "commit_sha", "url", "codebook_version")
    assert all(f in raw.columns and f"{f}__evidence" in raw.columns for f in FIELD_NAMES)
    first = raw.rows[0][1]
    assert first["full_name"] == "alpha/seg-net"
    assert first["commit_sha"] == sha_of(101)
    assert first["url"] == f"https://github.com/alpha/seg-net/tree/{sha_of(101)}"
    assert all(first[f] == "" for f in FIELD_NAMES)  # blind
    assert Layout(study.annotations).sheet("main", "alice").read_bytes().startswith(b"\xef\xbb\xbf")


def test_prefill_shows_machine_labels_with_none_for_empty_sets(study: Study) -> None:
    with study.store() as store:
        prepare_sheets(store, study.annotations, ["carol"], prefill=True)
    rows = {
        c["full_name"]: c
        for _, c in read_sheet(Layout(study.annotations).sheet("main", "carol")).rows
    }
    assert rows["alpha/seg-net"]["hw_gpu"] == "yes"
    assert "GTX 1080 Ti" in rows["alpha/seg-net"]["hw_gpu__evidence"]
    assert rows["alpha/seg-net"]["exclude"] == "none"
    assert rows["zeta/old-caffe"]["exclude"] == "deprecated"


def test_second_annotator_gets_the_same_sample(study: Study) -> None:
    with study.store() as store:
        first = prepare_sheets(store, study.annotations, ["alice"], sample=3, seed=7)
        second = prepare_sheets(store, study.annotations, ["bob"])
        with pytest.raises(ConfigError, match="already has its 3 repositories"):
            prepare_sheets(store, study.annotations, ["carol"], sample=4)
        with pytest.raises(ConfigError, match="exists"):
            prepare_sheets(store, study.annotations, ["alice"])
    assert first.repos == second.repos == 3 and not second.new_round
    layout = Layout(study.annotations)
    names = [
        [c["full_name"] for _, c in read_sheet(layout.sheet("main", n)).rows]
        for n in ("alice", "bob")
    ]
    assert names[0] == names[1]
    manifest = json.loads(layout.manifest("main").read_text())
    assert (
        manifest["seed"] == 7
        and manifest["sample"] == 3
        and set(manifest["sheets"]) == {"alice", "bob"}
    )


def test_samples_are_reproducible_and_stratified(tmp_path: Path, study: Study) -> None:
    with study.store() as store:
        a = prepare_sheets(
            store,
            study.annotations,
            ["a"],
            round_name="r1",
            sample=4,
            seed=3,
            stratify="primary_framework",
        )
        b = prepare_sheets(
            store,
            study.annotations,
            ["a"],
            round_name="r2",
            sample=4,
            seed=3,
            stratify="primary_framework",
        )
        with pytest.raises(ConfigError, match="only 6 repositories"):
            prepare_sheets(store, study.annotations, ["a"], round_name="r3", sample=60)
        rest = prepare_sheets(
            store, study.annotations, ["a"], round_name="r4", exclude_rounds=["r1"]
        )
    layout = Layout(study.annotations)
    ids = [json.loads(layout.manifest(r).read_text())["repos"] for r in ("r1", "r2")]
    assert ids[0] == ids[1]
    # four strata (pytorch x3, keras, tensorflow, caffe) and four places: one each
    assert a.strata == {"caffe": 1, "keras": 1, "pytorch": 1, "tensorflow": 1} == b.strata
    assert rest.repos == 2


def test_allocate_is_proportional_after_one_each() -> None:
    assert allocate({"yes": 90, "no": 10}, 10) == {"no": 2, "yes": 8}
    assert sum(allocate({"a": 5, "b": 3, "c": 1}, 7).values()) == 7
    assert allocate({"a": 5, "b": 3, "c": 1}, 2) == {"a": 1, "b": 1, "c": 0}


def test_xlsx_sheet_has_drop_downs_and_reads_back(study: Study) -> None:
    with study.store() as store:
        prepare_sheets(store, study.annotations, ["alice"], xlsx=True)
    path = Layout(study.annotations).sheet("main", "alice", "xlsx")
    book = openpyxl.load_workbook(path)
    sheet = book["labels"]
    assert book["vocabulary"].sheet_state == "hidden"
    lists = [dv for dv in sheet.data_validations.dataValidation if dv.type == "list"]
    column = SHEET_COLUMNS.index("hw_gpu") + 1
    letter = openpyxl.utils.get_column_letter(column)
    rule = next(dv for dv in lists if str(dv.sqref) == f"{letter}2:{letter}7")
    ref = rule.formula1.split("!")[1].replace("$", "")
    values = [cell.value for row in book["vocabulary"][ref] for cell in row]
    assert values == ["yes", "no", "unclear", "n/a"]
    sets = [dv for dv in sheet.data_validations.dataValidation if dv.type is None]
    assert any("none / unclear / n/a" in (dv.prompt or "") for dv in sets)
    raw = read_sheet(path)
    assert raw.columns == SHEET_COLUMNS and len(raw.rows) == len(REPOS)


def test_read_sheet_accepts_semicolon_delimited_excel_csv(tmp_path: Path) -> None:
    path = tmp_path / "s.csv"
    path.write_text(
        '\ufefffull_name;repo_id;frameworks\na/b;1;"keras;tensorflow"\n', encoding="utf-8"
    )
    raw = read_sheet(path)
    assert raw.rows == (
        (2, {"full_name": "a/b", "repo_id": "1", "frameworks": "keras;tensorflow"}),
    )


def test_read_sheet_rejects_non_utf8_and_ragged_rows(tmp_path: Path) -> None:
    latin = tmp_path / "latin.csv"
    latin.write_bytes("full_name,note\na/b,caf\xe9\n".encode("latin-1"))
    with pytest.raises(SheetError, match="not UTF-8"):
        read_sheet(latin)
    ragged = tmp_path / "ragged.csv"
    write_csv(ragged, [], ["full_name", "note"])
    ragged.write_text(ragged.read_text(encoding="utf-8-sig") + "a/b,x,extra\n", encoding="utf-8")
    with pytest.raises(SheetError, match="row 2 has 3 cells"):
        read_sheet(ragged)


def test_derived_fields_follow_the_codebook_rules() -> None:
    base = {
        "hw_gpu": "no",
        "hw_cpu": "no",
        "hw_memory": "yes",
        "hw_other": "no",
        "network_types": "cnn;rnn",
        "primary_framework": "keras",
    }
    out = fill_derived(base)
    assert (out["hardware_req"], out["paper_network"], out["paper_framework"]) == (
        "yes",
        "CNN/RNN",
        "Keras (TensorFlow)",
    )
    unclear = fill_derived({**base, "hw_memory": "unclear", "network_types": "n/a"})
    assert (unclear["hardware_req"], unclear["paper_network"]) == ("unclear", "n/a")
    assert fill_derived({**base, "hw_cpu": "yes", "hw_memory": "unclear"})["hardware_req"] == "yes"
    assert fill_derived({**base, "network_types": ""})["paper_network"] == "Others"
    kept = fill_derived({**base, "paper_framework": "Others"})  # Keras on Theano
    assert kept["paper_framework"] == "Others"
