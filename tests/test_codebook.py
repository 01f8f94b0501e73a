"""codebook.py must match the codebook's own tables: field names, kinds and values."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from miner import codebook

CODEBOOK_MD = Path(__file__).resolve().parents[2] / "shared" / "codebook.md"


def _table_rows() -> dict[str, tuple[str, list[str]]]:
    rows = {}
    for line in CODEBOOK_MD.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            name = cells[0].strip("`")
            rows[name] = (cells[1], re.findall(r"`([^`]+)`", cells[2]))
    return rows


@pytest.mark.skipif(not CODEBOOK_MD.exists(), reason="shared/codebook.md is not beside us")
def test_fields_match_the_codebook_table() -> None:
    rows = _table_rows()
    assert list(rows) == list(codebook.FIELD_NAMES)
    for name, (kind, values) in rows.items():
        spec = codebook.FIELD_BY_NAME[name]
        assert spec.kind == kind, name
        if kind != "bool":
            declared = [v for v in values if not v.endswith("<name>")]
            # primary_framework's row names its values by reference; `none` is its own value
            if name == "primary_framework":
                assert set(spec.values) == set(codebook.FRAMEWORKS) | {"none"}
            else:
                assert list(spec.values) == declared, name


def test_paper_framework_rule() -> None:
    assert codebook.paper_framework("keras", "tensorflow") == "Keras (TensorFlow)"
    assert codebook.paper_framework("keras", "theano") == "Others"
    assert codebook.paper_framework("pytorch") == "PyTorch"
    assert codebook.paper_framework("torch7") == "Others"


@pytest.mark.parametrize(
    ("types", "expected"),
    [
        ({"cnn"}, "CNN"),
        ({"rnn"}, "RNN"),
        ({"cnn", "rnn"}, "CNN/RNN"),
        ({"gan", "cnn"}, "GAN"),
        ({"cnn", "transformer"}, "Others"),
        (set(), "Others"),
    ],
)
def test_paper_network_rule(types: set[str], expected: str) -> None:
    assert codebook.paper_network(types) == expected


def test_values_round_trip_through_sheet_cells() -> None:
    assert codebook.parse_value("frameworks", "pytorch;other:flux") == {"pytorch", "other:flux"}
    assert codebook.format_value(frozenset({"rnn", "cnn"})) == "cnn;rnn"
    assert codebook.parse_value("hw_gpu", "yes") is True
    with pytest.raises(ValueError, match="unknown value"):
        codebook.parse_value("network_types", "cnn;lstm")
    with pytest.raises(ValueError, match="not a codebook value"):
        codebook.parse_value("language", "Python 3")
