"""What the report tables count: populations, special values, orderings, tests, the funnel."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest
from report_study import AUDITS, BASE, build_store, sheet_row, write_consensus

from miner.codebook import FIELD_NAMES
from miner.errors import SheetError
from miner.export import table_frame
from miner.models import AuditResult, Label
from miner.report import ReportOptions, build_tables, load_labels
from miner.report.crosstab import independence_test, star_band
from miner.report.funnel import exclusions_table, latest_searches, search_table, span
from miner.report.labels import LabelSet, canonical, normalise
from miner.report.tables import Population, coverage, distribution_detail, hardware
from miner.store import Store


def rows(table: pd.DataFrame, **match: object) -> list[dict[str, object]]:
    """The records of `table` whose columns equal `match`."""
    records = table.to_dict("records")
    return [r for r in records if all(r[k] == v for k, v in match.items())]


def count(table: pd.DataFrame, field: str, value: str) -> int:
    """Projects for one field/value row."""
    (row,) = rows(table, field=field, value=value)
    return int(row["projects"])  # type: ignore[call-overload]


def labels_of(*changes: dict[str, str], source: str = "consensus") -> LabelSet:
    """A LabelSet of sheet rows (BASE with `changes`), one per argument."""
    raw = [
        {"repo_id": i, "full_name": f"o/r{i}", "commit_sha": "c", **sheet_row(2), **c}
        for i, c in enumerate(changes, start=1)
    ]
    return LabelSet(source, "test", normalise(pd.DataFrame(raw), "test", SheetError))


def test_auto_coverage_counts_the_kept_projects(store: Store) -> None:
    pop = Population.of(load_labels(store, "auto"))
    # 8 audited; dave (educational) and frank (library) are excluded.
    assert len(pop.frame) == 6 and pop.left_out == 2
    table = coverage(pop).frame
    assert count(table, "software_req", "yes") == 5
    assert count(table, "software_req", "no") == 1
    assert count(table, "hardware_req", "yes") == 4
    assert rows(table, field="hardware_req", value="yes")[0]["percent"] == 66.7


def test_include_excluded_counts_everyone(store: Store) -> None:
    pop = Population.of(load_labels(store, "auto"), include_excluded=True)
    assert len(pop.frame) == len(AUDITS) and pop.left_out == 0
    assert count(coverage(pop).frame, "software_req", "no") == 2
    assert "excluded projects included" in pop.note()


def test_unclear_and_na_are_counted_apart_from_no() -> None:
    pop = Population.of(
        labels_of({"software_req": "unclear"}, {"software_req": "n/a"}, {"software_req": "no"})
    )
    table = coverage(pop).frame
    assert count(table, "software_req", "unclear") == 1
    assert count(table, "software_req", "n/a") == 1
    assert count(table, "software_req", "no") == 1
    assert count(table, "software_req", "yes") == 0
    assert [r["value"] for r in rows(table, field="software_req")] == [
        "yes",
        "no",
        "unclear",
        "n/a",
    ]


def test_unclear_exclusion_keeps_the_project() -> None:
    pop = Population.of(labels_of({"exclude": "unclear"}, {"exclude": "library"}, {}))
    assert len(pop.frame) == 2 and pop.left_out == 1


def test_consensus_cells_are_normalised(study: Path, store: Store) -> None:
    labels = load_labels(store, "consensus", study / "annotations" / "consensus.csv")
    frame = labels.frame.set_index("repo_id")
    assert frame.loc[2, "software_req"] == "yes"  # typed as "Yes"
    assert frame.loc[7, "language"] == "cpp"  # typed as "CPP"
    assert frame.loc[4, "exclude"] == "educational"  # typed as "Educational"
    assert frame.loc[2, "exclude"] == ""  # `none` is the empty set
    assert frame.loc[3, "paper_framework"] == "Keras (TensorFlow)"  # derived when blank
    assert frame.loc[3, "paper_network"] == "GAN"
    assert frame.loc[1, "hardware_req"] == "unclear"


def test_blank_derived_hardware_follows_its_parts() -> None:
    labels = labels_of(
        {"hardware_req": "", "hw_gpu": "unclear"},
        {"hardware_req": "", "hw_cpu": "yes", "hw_gpu": "unclear"},
        {"hardware_req": ""},
    )
    assert list(labels.frame["hardware_req"]) == ["unclear", "yes", "no"]


@pytest.mark.parametrize(
    ("field", "cell", "expected"),
    [
        ("frameworks", "PyTorch; tensorflow", "pytorch;tensorflow"),
        ("frameworks", "other:Flax", "other:Flax"),
        ("paper_framework", "keras (tensorflow)", "Keras (TensorFlow)"),
        ("hw_gpu", "TRUE", "yes"),
        ("software_req_sources", "None", ""),
        ("domain", " N/A ", "n/a"),
    ],
)
def test_canonical_cells(field: str, cell: str, expected: str) -> None:
    assert canonical(field, cell) == expected


def test_a_value_outside_the_codebook_names_row_and_field(tmp_path: Path) -> None:
    path = write_consensus(tmp_path / "consensus.csv")
    text = path.read_text(encoding="utf-8-sig").replace(",vision,", ",astronomy,", 1)
    path.write_text(text, encoding="utf-8")
    with build_store(tmp_path / "m.db") as store:
        with pytest.raises(SheetError, match=r"row 2 \(alice/cnn-tf\): domain"):
            load_labels(store, "consensus", path)  # type: ignore[arg-type]


def test_missing_consensus_is_one_line_error(store: Store, tmp_path: Path) -> None:
    with pytest.raises(SheetError, match="no consensus at"):
        load_labels(store, "consensus", tmp_path / "nope.csv")


def test_set_fields_count_each_member_once_per_project(store: Store) -> None:
    table = distribution_detail(Population.of(load_labels(store, "auto"))).frame
    # carol's GAN is also a CNN: cnn counts alice, carol, grace.
    assert count(table, "network_types", "cnn") == 3
    assert count(table, "frameworks", "other:flax") == 1
    # most frequent first, codebook order between ties
    values = [r["value"] for r in rows(table, field="frameworks")]
    assert values[:2] == ["tensorflow", "pytorch"] and values[-1] == "other:flax"


def test_hardware_combinations_sum_to_all_projects_with_hardware(store: Store) -> None:
    table = hardware(Population.of(load_labels(store, "auto"))).frame
    combos = rows(table, breakdown="combination")
    assert sum(int(r["projects"]) for r in combos) == 4  # type: ignore[call-overload]
    assert {r["hardware"] for r in combos} == {
        "GPU only",
        "CPU only",
        "GPU + memory",
        "GPU + other",
    }
    (gpu,) = rows(table, breakdown="device", hardware="GPU")
    assert gpu["projects"] == 3 and gpu["percent"] == 75.0 and gpu["percent_all"] == 50.0


def test_exclusion_funnel_adds_up(store: Store) -> None:
    table = exclusions_table(
        store,
        table_frame(store, "repos"),
        table_frame(store, "clones"),
        load_labels(store, "auto"),
    ).frame.to_dict("records")
    for before, after in zip(table, table[1:], strict=False):
        if after["removed"] is not None:
            assert after["remaining"] == before["remaining"] - after["removed"]
    named = {r["filter"]: r for r in table}
    assert named["analysis failed"]["removed"] == 1
    assert named["not analyzed"]["removed"] == 1
    assert named["failed: gone"]["removed"] == 1
    assert named["pretrained_only"]["matched"] == 1 and named["pretrained_only"]["removed"] == 0
    assert table[-1]["remaining"] == 6  # the projects the label tables count


def test_search_table_shows_the_newest_run_of_each_query(store: Store) -> None:
    store.upsert(
        "searches",
        [
            {
                "id": 9, "query_key": "q1", "keyword": "neural network", "query": "q",
                "api_url": "x", "params": "{}", "min_stars": 100, "max_stars": 5000,
                "total_found": 310, "fetched": 305, "shortfall": 5, "status": "done",
                "started_at": "2021-04-01T00:00:00+00:00",
            }
        ],
        key=["id"],
    )  # fmt: skip
    searches = table_frame(store, "searches")
    assert len(latest_searches(searches)) == 3
    table = search_table(store, searches)
    (nn,) = rows(table.frame, keyword="neural network")
    assert nn["total_found"] == 310
    assert "1 earlier runs" in table.notes[-1]
    # the merged count is over the shown queries: the new run has no hits stored yet, so only
    # searches 1 and 3 count (repositories 1-12)
    assert table.frame.iloc[-1]["fetched"] == 12


def test_span_uses_github_notation() -> None:
    assert span(200, None) == "200..*"
    assert span(None, "2021-03-01") == "*..2021-03-01"
    assert span(float("nan"), None) == "any"


def test_star_bands() -> None:
    bands = (0, 100, 1000)
    assert [star_band(s, bands) for s in (0, 99, 100, 999, 1000, 10**6)] == [
        "0-99", "0-99", "100-999", "100-999", "1000+", "1000+",
    ]  # fmt: skip
    assert star_band(None, bands) == "unknown"


def test_chi_square_is_reported_when_expected_counts_allow() -> None:
    result = independence_test([(30, 10), (12, 28), (20, 20)])
    assert result.test == "chi-square" and result.dof == 2 and result.n == 120
    assert result.p_value is not None and result.p_value < 0.001
    assert result.cramers_v is not None and 0.3 < result.cramers_v < 0.5


def test_small_expected_counts_are_not_tested_and_say_why() -> None:
    result = independence_test([(3, 1), (1, 2), (0, 2)])
    assert result.test == "none" and "expected counts are below 5" in result.note


def test_a_small_two_by_two_table_gets_fishers_exact_test() -> None:
    result = independence_test([(8, 1), (1, 8)])
    assert result.test == "fisher" and result.p_value is not None and result.p_value < 0.01


def test_a_constant_outcome_is_not_tested() -> None:
    assert independence_test([(5, 0), (7, 0)]).test == "none"
    assert independence_test([(5, 3)]).test == "none"


def test_crosstab_rows_and_unknown_categories(tmp_path: Path) -> None:
    with build_store(tmp_path / "m.db") as store:
        # a labelled repository the search never returned has no stars or push date
        values = {**BASE, "hardware_req": True, "hw_gpu": True}
        result = AuditResult({n: Label(n, values[n]) for n in FIELD_NAMES}, analyzed_at="t")
        store.save_audit(99, "f" * 40, "zed/outside", result)  # type: ignore[attr-defined]
        tables = build_tables(
            ("crosstab",),
            store,  # type: ignore[arg-type]
            {"repos": table_frame(store, "repos")},  # type: ignore[arg-type]
            load_labels(store, "auto"),  # type: ignore[arg-type]
            ReportOptions(star_bands=(0, 1000)),
        )
    by_key = {t.key: t for t in tables}
    stars = by_key["hardware_req_by_star_band"].frame
    assert list(stars["star_band"]) == ["0-999", "1000+", "unknown"]
    assert rows(stars, star_band="0-999")[0]["yes"] == 4
    years = by_key["software_req_by_push_year"].frame
    assert list(years["push_year"]) == ["2018", "2019", "2020", "unknown"]
    tests = by_key["crosstab_tests"].frame
    (row,) = rows(tests, outcome="hardware_req", by="star_band")
    assert row["test"] == "fisher" and row["n"] == 6  # the unknown project is not tested
