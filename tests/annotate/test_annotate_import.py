"""`import`: strict validation citing row and column, immutable layers, the audit log."""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest
from annotate_study import Study, fill_sheet

from miner.annotate.auditlog import read_log, verify_log
from miner.annotate.layers import import_layer, load_layer
from miner.annotate.layout import Layout
from miner.annotate.prepare import prepare_sheets
from miner.annotate.sheets import read_sheet, write_csv
from miner.annotate.validate import column_letter, normalise_cell
from miner.errors import SheetError


@pytest.fixture
def sheet(study: Study) -> Path:
    with study.store() as store:
        prepare_sheets(store, study.annotations, ["alice", "bob"])
    return Layout(study.annotations).sheet("main", "alice")


def edit(path: Path, row: int, **cells: str) -> None:
    """Change cells of spreadsheet row `row` (header = 1)."""
    raw = read_sheet(path)
    rows = [c for _, c in raw.rows]
    rows[row - 2].update(cells)
    write_csv(path, rows, raw.columns)


def test_a_filled_sheet_becomes_a_read_only_layer(study: Study, sheet: Path) -> None:
    fill_sheet(sheet)
    result = import_layer(study.annotations, "alice", sheet)
    assert result.rows == 6 and not result.already
    assert not result.path.stat().st_mode & stat.S_IWUSR
    rows = load_layer(study.annotations, "alice")
    by_name = {r["full_name"]: r for r in rows}
    assert by_name["alpha/seg-net"]["hardware_req"] == "yes"  # derived from hw_gpu
    assert by_name["alpha/seg-net"]["exclude"] == ""  # `none` is the empty set
    assert by_name["gamma/gan-faces"]["paper_network"] == "GAN"
    events = read_log(Layout(study.annotations).audit_log)
    assert [e["event"] for e in events] == ["codebook", "prepare", "import"]
    assert events[-1]["sha256"] == result.sha256 and events[-1]["source_sha256"]
    assert verify_log(Layout(study.annotations).audit_log) == 3


def test_layers_are_immutable(study: Study, sheet: Path) -> None:
    fill_sheet(sheet)
    first = import_layer(study.annotations, "alice", sheet)
    again = import_layer(study.annotations, "alice", sheet)
    assert again.already and again.sha256 == first.sha256
    edit(sheet, 2, note="changed my mind")
    with pytest.raises(SheetError, match="already imported .* immutable"):
        import_layer(study.annotations, "alice", sheet)
    first.path.chmod(0o644)
    first.path.write_text(first.path.read_text(encoding="utf-8").replace("vision", "nlp"))
    with pytest.raises(SheetError, match="changed after it was imported"):
        load_layer(study.annotations, "alice")


def test_a_new_round_takes_a_corrected_sheet(study: Study, sheet: Path) -> None:
    fill_sheet(sheet)
    import_layer(study.annotations, "alice", sheet)
    with study.store() as store:
        prepare_sheets(store, study.annotations, ["alice"], round_name="main-2", repos_from="main")
    second = Layout(study.annotations).sheet("main-2", "alice")
    fill_sheet(second)
    result = import_layer(study.annotations, "alice", second, "main-2")
    assert result.layer == "alice@main-2" and result.path.name == "alice@main-2.csv"


def test_every_problem_is_reported_with_row_and_column(study: Study, sheet: Path) -> None:
    fill_sheet(sheet)
    edit(sheet, 2, frameworks="pytorch, tensorflow", hw_gpu="maybe", domain="")
    edit(sheet, 3, network_types="cnn|rnn", primary_framework="Pytorch", language="pyton")
    edit(sheet, 4, codebook_version="2020.1", commit_sha="abc", hardware_req="yes")
    with pytest.raises(SheetError) as info:
        import_layer(study.annotations, "alice", sheet)
    message = str(info.value)
    col = {
        name: column_letter(read_sheet(sheet).columns.index(name))
        for name in ("frameworks", "hw_gpu", "domain", "network_types", "language", "hardware_req")
    }
    assert (
        f"row 2, column frameworks ({col['frameworks']}): 'pytorch, tensorflow':"
        " separate values with ';', not ','" in message
    )
    assert f"row 2, column hw_gpu ({col['hw_gpu']}): 'maybe' is not yes/no/unclear/n/a" in message
    assert f"row 2, column domain ({col['domain']}): blank" in message
    assert "row 3, column network_types" in message and "not '|'" in message
    assert "row 3, column language" in message and "did you mean 'python'?" in message
    assert "row 3, column primary_framework" not in message  # case is normalised
    assert "row 4, column codebook_version" in message and "codebook 2021.1" in message
    assert "row 4, column commit_sha" in message
    assert f"row 4, column hardware_req ({col['hardware_req']}): 'yes' contradicts" in message
    assert ": 8 problems\n" in message and message.count("\n") == 8  # one line each
    assert not Layout(study.annotations).layer("alice", "main").exists()


def test_repositories_must_match_the_round(study: Study, sheet: Path) -> None:
    fill_sheet(sheet)
    raw = read_sheet(sheet)
    rows = [c for _, c in raw.rows]
    rows[1] = dict(rows[0])  # duplicate of row 2 replaces row 3
    rows.append({**rows[2], "repo_id": "999", "full_name": "someone/else"})
    write_csv(sheet, rows, raw.columns)
    with pytest.raises(SheetError) as info:
        import_layer(study.annotations, "alice", sheet)
    message = str(info.value)
    assert "row 3: repository 101 repeats row 2" in message
    assert "row 8: repository 999 (someone/else) is not in this round" in message
    assert "1 repositories of the round are missing: beta/Text-RNN" in message


def test_unknown_and_missing_columns(study: Study, sheet: Path) -> None:
    fill_sheet(sheet)
    raw = read_sheet(sheet)
    columns = [("hw_gpus" if c == "hw_gpu" else c) for c in raw.columns]
    rows = [{("hw_gpus" if k == "hw_gpu" else k): v for k, v in c.items()} for _, c in raw.rows]
    write_csv(sheet, rows, columns)
    with pytest.raises(
        SheetError,
        match=r"(?s)'hw_gpus' is not a sheet column \(did you mean 'hw_gpu'\?\)"
        r".*missing column\(s\): hw_gpu",
    ):
        import_layer(study.annotations, "alice", sheet)


def test_xlsx_sheets_import_too(study: Study) -> None:
    with study.store() as store:
        prepare_sheets(store, study.annotations, ["alice"], xlsx=True)
    layout = Layout(study.annotations)
    filled = fill_sheet(layout.sheet("main", "alice"), out=layout.root / "alice-filled.xlsx")
    result = import_layer(study.annotations, "alice", filled)
    assert result.rows == 6
    assert layout.original("alice", "main", ".xlsx").read_bytes() == filled.read_bytes()


@pytest.mark.parametrize(
    ("field", "cell", "value"),
    [
        ("hw_gpu", " Yes ", "yes"),
        ("hw_gpu", "N/A", "n/a"),
        ("exclude", "none", ""),
        ("frameworks", "tensorflow; Keras", "keras;tensorflow"),
        ("frameworks", "other:flax;jax", "jax;other:flax"),
        ("paper_framework", "keras (tensorflow)", "Keras (TensorFlow)"),
        ("language", "unclear", "unclear"),
    ],
)
def test_cells_are_normalised(field: str, cell: str, value: str) -> None:
    assert normalise_cell(field, cell) == value


@pytest.mark.parametrize(
    ("field", "cell", "reason"),
    [
        ("hw_gpu", "true", "not yes/no"),
        ("network_types", "cnn rnn", "not spaces"),
        ("exclude", "none;library", "cannot be combined"),
        ("domain", "NA", "write `n/a`"),
        ("frameworks", "pytorch/tensorflow", "not '/'"),
    ],
)
def test_bad_cells_say_why(field: str, cell: str, reason: str) -> None:
    with pytest.raises(ValueError, match=reason):
        normalise_cell(field, cell)


def test_the_log_records_codebook_changes_and_detects_edits(study: Study, sheet: Path) -> None:
    log = Layout(study.annotations).audit_log
    lines = log.read_text().splitlines()
    first = json.loads(lines[0])
    assert first["event"] == "codebook" and first["codebook_version"] == "2021.1"
    changed = dict(first, codebook_hash="0" * 64)
    lines[0] = json.dumps(changed)
    log.write_text("\n".join(lines) + "\n")
    with pytest.raises(SheetError, match="hash chain broken"):
        verify_log(log)
    log.write_text(json.dumps({**changed, "prev": None}) + "\n")  # an older codebook
    fill_sheet(sheet)
    import_layer(study.annotations, "alice", sheet)
    events = [e["event"] for e in read_log(log)]
    assert events == ["codebook", "codebook", "import"]
