"""`agreement`: per-field statistics from two layers, warnings, rounds and the renderers."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path

import pytest
from annotate_study import Study, fill_sheet
from sklearn.metrics import cohen_kappa_score

from miner.annotate.agreement import (
    AgreementReport,
    agreement,
    agreement_from_rows,
    field_agreement,
)
from miner.annotate.layers import import_layer
from miner.annotate.layout import Layout
from miner.annotate.prepare import prepare_sheets
from miner.annotate.render import render_agreement
from miner.errors import SheetError


def rows(field: str, values: list[str]) -> list[dict[str, str]]:
    return [{"repo_id": str(i), field: v} for i, v in enumerate(values)]


def test_skewed_field_warns_about_the_kappa_paradox() -> None:
    a = ["yes"] * 118 + ["yes"] * 5 + ["no"] * 2
    b = ["yes"] * 118 + ["no"] * 5 + ["yes"] * 2
    result = field_agreement("software_req", a, b)
    assert result.n == 125 and result.prevalence == pytest.approx(243 / 250)
    assert result.stats.kappa == pytest.approx(cohen_kappa_score(a, b))
    warnings = " ".join(result.warnings)
    assert "skewed: 97% of ratings are 'yes'" in warnings
    assert "kappa paradox: p_o = 0.94 but kappa = -0.02" in warnings
    assert "rare" not in warnings  # 7 `no` ratings in all
    assert "few items" not in warnings


def test_rare_values_are_flagged() -> None:
    a = ["no"] * 38 + ["yes"] * 2
    b = ["no"] * 38 + ["no", "yes"]
    warnings = " ".join(field_agreement("hw_cpu", a, b).warnings)
    assert "rare value (< 5 ratings): 'yes' x3" in warnings


def test_unclear_and_na_are_left_out_and_counted() -> None:
    a = ["yes", "no", "unclear", "yes", "n/a"]
    b = ["yes", "no", "yes", "unclear", "n/a"]
    result = field_agreement("hw_gpu", a, b)
    assert (result.n, result.missing) == (2, 3)
    assert any("3 item(s) with `unclear` or `n/a`" in w for w in result.warnings)
    assert any("few items (n = 2 < 30)" in w for w in result.warnings)


def test_set_fields_get_per_value_kappa_and_alpha() -> None:
    a = ["cnn", "cnn;rnn", "rnn", "", "gan;cnn", "cnn"]
    b = ["cnn", "cnn", "rnn", "", "gan;cnn", "rnn"]
    result = field_agreement("network_types", a, b)
    assert result.alpha_masi is not None and 0 < result.alpha_masi < 1
    per = {v.value: v for v in result.per_value}
    assert set(per) == {"cnn", "gan", "rnn"}
    cnn_a = ["yes" if "cnn" in x.split(";") else "no" for x in a]
    cnn_b = ["yes" if "cnn" in x.split(";") else "no" for x in b]
    assert per["cnn"].stats.kappa == pytest.approx(cohen_kappa_score(cnn_a, cnn_b))
    assert (per["cnn"].positives_a, per["cnn"].positives_b) == (4, 3)
    assert per["gan"].rare and not per["cnn"].rare
    assert result.stats.observed == pytest.approx(4 / 6)  # whole sets compared
    assert "none" in result.stats.categories  # the empty set is a category


def test_layers_must_cover_the_same_repositories() -> None:
    with pytest.raises(SheetError, match="same repositories"):
        agreement_from_rows(rows("hw_gpu", ["yes", "no"]), rows("hw_gpu", ["yes"]), ["hw_gpu"])


def imported_pair(study: Study, round_name: str, change: str = "no") -> None:
    with study.store() as store:
        prepare_sheets(store, study.annotations, ["alice", "bob"], round_name=round_name)
    layout = Layout(study.annotations)
    fill_sheet(layout.sheet(round_name, "alice"))
    fill_sheet(
        layout.sheet(round_name, "bob"),
        lambda name, field: change if (name, field) == ("alpha/seg-net", "hw_gpu") else "",
    )
    for who in ("alice", "bob"):
        import_layer(study.annotations, who, layout.sheet(round_name, who), round_name)


def test_agreement_per_round_in_every_format(study: Study) -> None:
    imported_pair(study, "calibration", change="no")
    imported_pair(study, "main", change="yes")
    reports = agreement(study.annotations, "alice", "bob", fields=["hw_gpu", "exclude"])
    assert [r.round for r in reports] == ["calibration", "main"]
    assert reports[0].fields[0].stats.observed == pytest.approx(5 / 6)
    assert reports[1].fields[0].stats.observed == 1.0
    data = json.loads(render_agreement(reports, "json"))
    assert data["rounds"][0]["fields"][0]["field"] == "hw_gpu"
    assert data["rounds"][0]["fields"][0]["stats"]["kappa"] == pytest.approx(0.0)
    text = render_agreement(reports, "text")
    assert "Agreement of alice and bob, round calibration (6 repositories)" in text
    assert "PABAK" in text and "AC1" in text and "kappa paradox" in text
    markdown = render_agreement(reports, "markdown")
    assert "| hw_gpu | 6 | 0 | 0.833 | 0.000 |" in markdown
    latex = render_agreement(reports, "latex")
    assert r"\toprule" in latex and r"hw\_gpu" in latex and r"$\alpha_{\mathrm{MASI}}$" in latex
    only = agreement(study.annotations, "alice", "bob", "main", ["hw_gpu"])
    assert len(only) == 1 and only[0].round == "main"


def test_prefilled_sheets_are_flagged(study: Study) -> None:
    with study.store() as store:
        prepare_sheets(store, study.annotations, ["alice"])
        prepare_sheets(store, study.annotations, ["bob"], prefill=True)
    layout = Layout(study.annotations)
    for who in ("alice", "bob"):
        import_layer(study.annotations, who, fill_sheet(layout.sheet("main", who)))
    report = agreement(study.annotations, "alice", "bob", "main", ["is_dl"])[0]
    assert report.notes == ("bob's sheet was pre-filled with the machine labels (not blind)",)


def test_missing_layer_names_the_command(study: Study, tmp_path: Path) -> None:
    with pytest.raises(SheetError, match="no round has imported layers of both"):
        agreement(study.annotations, "alice", "bob")
    with pytest.raises(SheetError, match="round 'main' has not been prepared"):
        agreement(study.annotations, "alice", "bob", "main")
    with study.store() as store:
        prepare_sheets(store, study.annotations, ["alice", "bob"])
    with pytest.raises(SheetError, match="miner annotate import alice FILE --round main"):
        agreement(study.annotations, "alice", "bob", "main")


def test_an_interval_that_cannot_be_estimated_says_so() -> None:
    f = field_agreement("hw_gpu", ["yes"] * 5, ["yes", "yes", "yes", "yes", "no"])
    report = AgreementReport("main", "alice", "bob", 5, (f,), ())
    text = render_agreement([report], "text")
    assert "[0.00, 0.00]" not in text
    assert "n/e" in text and "kappa's 95% CI not estimable (n/e)" in text
    assert "| hw_gpu | 5 | 0 | 0.800 | 0.000 | n/e |" in render_agreement([report], "markdown")


def test_agreement_as_csv_has_every_number() -> None:
    f = field_agreement("hw_gpu", ["yes", "no", "no", "yes"], ["yes", "no", "yes", "yes"])
    g = field_agreement("hw_cpu", ["yes"] * 5, ["yes", "yes", "yes", "yes", "no"])
    report = AgreementReport("main", "alice", "bob", 4, (f, g), ())
    rows = list(csv.DictReader(io.StringIO(render_agreement([report], "csv"))))
    assert [r["field"] for r in rows] == ["hw_gpu", "hw_cpu"]
    assert rows[0]["p_o"] == "0.7500" and rows[0]["kappa"] == f"{f.stats.kappa:.4f}"
    assert rows[0]["ci_estimable"] == "yes" and rows[0]["kappa_low"] != ""
    assert rows[1]["ci_estimable"] == "no" and rows[1]["kappa_low"] == ""
