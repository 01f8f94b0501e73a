"""The codebook text and codebook.py agree: field names, kinds, values, rules and version.

The project's own text (miner/codebook.md, the same file as docs/codebook.md) is checked always;
the study's reference codebook (../shared/codebook.md) when it sits beside the project.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from miner import codebook
from miner.errors import ConfigError

ROOT = Path(__file__).resolve().parents[1]
PACKAGE_MD = ROOT / "miner" / "codebook.md"
DOCS_MD = ROOT / "docs" / "codebook.md"
REFERENCE_MD = ROOT.parent / "shared" / "codebook.md"
# Evidence rules are named `<prefix>.<rule>`; the prefixes are fields or families of fields.
RULE = re.compile(r"^([a-z_]+)\.([a-z_]+)$")
RULE_PREFIXES = {*codebook.FIELD_NAMES, "networks", "software", "hardware", "keras_backend", "api"}


def _table_rows(path: Path) -> dict[str, tuple[str, list[str]]]:
    rows = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) == 3 and cells[0].startswith("`"):
            name = cells[0].strip("`")
            rows[name] = (cells[1], re.findall(r"`([^`]+)`", cells[2]))
    return rows


def _check_table(path: Path) -> None:
    rows = _table_rows(path)
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


@pytest.mark.skipif(not REFERENCE_MD.exists(), reason="the reference codebook is not beside us")
def test_fields_match_the_reference_codebook_table() -> None:
    _check_table(REFERENCE_MD)


def test_fields_match_the_projects_codebook_table() -> None:
    _check_table(PACKAGE_MD)


def test_docs_codebook_is_the_shipped_codebook() -> None:
    shipped = PACKAGE_MD.read_text(encoding="utf-8")
    assert DOCS_MD.read_text(encoding="utf-8") == shipped, (
        "docs/codebook.md and miner/codebook.md are one text: copy the edited one over the other"
    )
    assert codebook.codebook_text() == shipped


def test_codebook_text_names_the_version() -> None:
    first = codebook.codebook_text().splitlines()[0]
    assert first.startswith("# ") and f"version {codebook.CODEBOOK_VERSION}" in first


@pytest.mark.parametrize("name", codebook.FIELD_NAMES)
def test_each_field_has_a_section_naming_every_value(name: str) -> None:
    section = codebook.codebook_text(name)
    assert section.startswith(f"### `{name}`\n")
    assert section.count("\n### ") == 0, "a section ends at the next heading"
    spec = codebook.FIELD_BY_NAME[name]
    values = ("yes", "no") if spec.kind == "bool" else spec.values
    missing = [v for v in values if f"`{v}`" not in section]
    assert not missing, f"{name}: the codebook text never names {missing}"
    if spec.open_prefix:
        assert f"`{spec.open_prefix}<name>`" in section
    if name in codebook.DERIVED_FIELDS:
        assert "derived" in section.lower()


def test_unknown_field_is_one_line_naming_the_fields() -> None:
    with pytest.raises(ConfigError) as caught:
        codebook.codebook_text("gpu")
    message = str(caught.value)
    assert "\n" not in message and "'gpu'" in message
    assert all(name in message for name in codebook.FIELD_NAMES)


def _audit_rules() -> set[str]:
    """Every evidence rule written as a string literal in the audit package."""
    rules = set()
    for path in (ROOT / "miner" / "audit").rglob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                m = RULE.match(node.value)
                if m and m.group(1) in RULE_PREFIXES:
                    rules.add(node.value)
    return rules


def test_every_evidence_rule_is_documented() -> None:
    rules = _audit_rules()
    assert len(rules) > 50, "the rule finder found too few rules to be looking in the right place"
    text = codebook.codebook_text()
    undocumented = sorted(r for r in rules if f"`{r}`" not in text)
    assert not undocumented, f"rules the codebook text never names: {undocumented}"


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
