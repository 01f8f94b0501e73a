"""`score`: any labels against any truth, matched by full name; the dev corpus's TSV format."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from annotate_study import Study

from miner.annotate.labelsfile import read_labels
from miner.annotate.score import load_source, score
from miner.annotate.score_render import render_misses, render_score
from miner.errors import SheetError
from miner.export import export_table

DEV_CORPUS = Path(__file__).resolve().parents[3] / "shared" / "corpus" / "dev.tsv"

TRUTH_TSV = """\
repo\tstars_2021\tsoftware_req\thw_gpu\tframeworks\tpaper_network\thardware_evidence\tadjudication_notes
Alpha/Seg-Net\t10\tyes\tyes\tpytorch\tCNN\tOne GTX 1080 Ti.\t
beta/text-rnn\t20\tyes\tyes\tkeras;tensorflow\tRNN\tTrained on a Titan X.\thw_gpu: README l.40
gamma/gan-faces\t30\tno\tno\tpytorch\tGAN\t\t
delta/tf-detect\t40\tyes\tno\ttensorflow\tCNN\t\t
eps/rl-agent\t50\tyes\tno\tpytorch;tensorflow\tOthers\t\t
only/in-truth\t60\tyes\tno\tcaffe\tCNN\t\t
"""
LABELS_CSV = """\
repo_id,full_name,commit_sha,software_req,hw_gpu,frameworks,network_types,paper_network
1,alpha/seg-net,a,yes,yes,pytorch,cnn,
2,beta/Text-RNN,b,yes,no,keras;tensorflow,rnn,
3,gamma/gan-faces,c,yes,yes,pytorch,gan;cnn,
4,delta/tf-detect,d,yes,no,tensorflow,cnn,CNN
5,eps/rl-agent,e,unclear,no,pytorch,mlp,
7,only/in-labels,g,yes,no,,,
"""


@pytest.fixture
def files(tmp_path: Path) -> tuple[Path, Path]:
    truth = tmp_path / "truth.tsv"
    truth.write_text(TRUTH_TSV, encoding="utf-8")
    labels = tmp_path / "labels.csv"
    labels.write_text(LABELS_CSV, encoding="utf-8")
    return truth, labels


def test_scores_match_hand_computed_values(files: tuple[Path, Path]) -> None:
    report = score(read_labels(files[0]), read_labels(files[1]))
    assert report.matched == 5
    assert report.only_truth == ("only/in-truth",) and report.only_labels == ("only/in-labels",)
    fields = {f.field: f for f in report.fields}
    assert list(fields) == ["frameworks", "paper_network", "software_req", "hw_gpu"]
    gpu = fields["hw_gpu"]  # truth y y n n n, labels y n y n n: TP 1, FN 1, FP 1, TN 2
    assert (gpu.n, gpu.accuracy, gpu.precision, gpu.recall, gpu.f1) == (5, 0.6, 0.5, 0.5, 0.5)
    assert gpu.kappa == pytest.approx((0.6 - 0.52) / (1 - 0.52))
    assert gpu.confusion == ((1, 1), (1, 2)) and gpu.categories == ("yes", "no")
    soft = fields["software_req"]  # eps is unclear in the labels: left out
    assert (soft.n, soft.missing, soft.accuracy, soft.precision, soft.recall) == (
        4,
        1,
        0.75,
        0.75,
        1.0,
    )
    frameworks = fields["frameworks"]  # eps: truth pytorch;tensorflow, labels pytorch
    assert frameworks.accuracy == 0.8 and frameworks.recall == pytest.approx(6 / 7)
    assert frameworks.precision == 1.0
    tf = next(v for v in frameworks.per_value if v.value == "tensorflow")
    assert (tf.tp, tf.fp, tf.fn, tf.tn) == (2, 0, 1, 2)
    network = fields["paper_network"]  # blanks derived from network_types by the codebook rule
    assert network.n == 5 and network.accuracy == 1.0


def test_misses_are_listed_with_evidence(files: tuple[Path, Path]) -> None:
    report = score(read_labels(files[0]), read_labels(files[1]), ["hw_gpu"])
    misses = report.fields[0].misses
    assert [(m.full_name, m.truth, m.labels) for m in misses] == [
        ("beta/text-rnn", "yes", "no"),
        ("gamma/gan-faces", "no", "yes"),
    ]
    assert misses[0].truth_evidence == "Trained on a Titan X. | hw_gpu: README l.40"
    text = render_misses(misses, "text")
    assert "2 misses in hw_gpu" in text and "Titan X" in text
    assert json.loads(render_misses(misses, "json"))[1]["full_name"] == "gamma/gan-faces"
    assert render_misses(misses, "csv").splitlines()[0].startswith("full_name,field,truth,labels")


def test_every_format_renders(files: tuple[Path, Path]) -> None:
    report = score(read_labels(files[0]), read_labels(files[1]))
    csv_lines = render_score(report, "csv").splitlines()
    assert csv_lines[0] == "field,n,excluded,accuracy,precision,recall,f1,average,kappa,misses"
    assert csv_lines[4].startswith("hw_gpu,5,0,0.6000,0.5000,0.5000,0.5000,binary (yes),0.1667,2")
    data = json.loads(render_score(report, "json"))
    assert data["fields"][3]["confusion"] == [[1, 1], [1, 2]]
    assert "| hw_gpu | 5 | 0 | 0.600 |" in render_score(report, "markdown")
    text = render_score(report, "text")
    assert "only in the truth (1): only/in-truth" in text and "truth \\ labels" in text


def test_bad_values_and_unshared_fields_are_errors(
    files: tuple[Path, Path], tmp_path: Path
) -> None:
    bad = tmp_path / "bad.csv"
    bad.write_text("full_name,hw_gpu,frameworks\na/b,maybe,pytorch|keras\na/b,yes,\n")
    with pytest.raises(SheetError) as info:
        read_labels(bad)
    assert "row 2, column hw_gpu (B): 'maybe' is not yes/no" in str(info.value)
    assert "row 2, column frameworks (C)" in str(info.value)
    assert "row 3: a/b repeats row 2" in str(info.value)
    with pytest.raises(SheetError, match="not in both sources: language"):
        score(read_labels(files[0]), read_labels(files[1]), ["language"])


def test_store_labels_score_against_their_own_export(study: Study, tmp_path: Path) -> None:
    exported = tmp_path / "labels.csv"
    with study.store() as store:
        export_table(store, "labels", "csv", exported)
    report = score(
        read_labels(exported), load_source("auto", study.annotations, study.store), ["hw_gpu"]
    )
    assert report.matched == 6 and report.fields[0].accuracy == 1.0
    truth = tmp_path / "truth.tsv"
    truth.write_text("repo\thw_gpu\nALPHA/seg-net\tno\n")
    wrong = score(read_labels(truth), load_source("auto", study.annotations, study.store))
    miss = wrong.fields[0].misses[0]
    assert miss.labels == "yes" and "README.md:10 one NVIDIA GTX 1080 Ti" in miss.labels_evidence


def test_missing_consensus_names_the_commands(study: Study) -> None:
    with pytest.raises(SheetError, match="no consensus at .*resolve"):
        load_source("consensus", study.annotations)


@pytest.mark.skipif(not DEV_CORPUS.exists(), reason="the shared dev corpus is not beside the repo")
def test_the_dev_corpus_reads_as_a_truth() -> None:
    table = read_labels(DEV_CORPUS)
    assert len(table.rows) == 80
    assert {"software_req", "hw_gpu", "frameworks", "paper_network"} <= set(table.fields)
    report = score(table, table)
    assert all(f.accuracy == 1.0 for f in report.fields)


def test_structured_notes_are_cut_to_the_field() -> None:
    from miner.annotate.labelsfile import field_note

    note = "dependency_file=yes: setup.py lists torch | hardware_req=yes: README names a V100"
    assert field_note(note, "dependency_file") == "dependency_file=yes: setup.py lists torch"
    assert field_note(note, "hw_gpu") == "hardware_req=yes: README names a V100"
    assert field_note(note, "language") == ""
    assert field_note("free text, no keys", "language") == "free text, no keys"


def test_exclude_stays_when_every_consensus_row_is_kept(study: Study) -> None:
    from annotate_study import fill_sheet

    from miner.annotate.conflicts import write_conflicts
    from miner.annotate.layers import import_layer
    from miner.annotate.layout import Layout
    from miner.annotate.prepare import prepare_sheets

    root = study.annotations
    with study.store() as store:
        prepare_sheets(store, root, ["alice", "bob"], "main", fields=["is_dl", "exclude"])
        layout = Layout(root)
        for who in ("alice", "bob"):
            kept = fill_sheet(
                layout.sheet("main", who), lambda n, f: "none" if f == "exclude" else ""
            )
            import_layer(root, who, kept, "main")
        write_conflicts(root, "alice", "bob", "main", store)
        consensus = load_source("consensus", root)
        machine = load_source("auto", root, lambda: store)
        layer = load_source("alice@main", root)
        assert "exclude" in consensus.fields and "exclude" in layer.fields
        report = score(consensus, machine)
        only = score(consensus, machine, ["exclude"])
    exclude = next(f for f in report.fields if f.field == "exclude")
    # every repository kept by both annotators; the machine's `deprecated` is a real miss
    assert (exclude.n, exclude.missing, len(exclude.misses)) == (6, 0, 1)
    assert exclude.misses[0].full_name == "zeta/old-caffe"
    assert exclude.misses[0].labels == "deprecated" and exclude.misses[0].truth == "none"
    assert [f.field for f in only.fields] == ["exclude"]
