"""The project's own split standing in for a training file it does not ship."""

from __future__ import annotations

import json
from pathlib import Path

from miner.select.standins.sibling_split import sibling_split


def _checkout(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_a_shipped_test_split_stands_in_for_the_training_file(tmp_path: Path) -> None:
    work = tmp_path / "work"
    copy = _checkout(work / "src", {"data/test.csv": "quizzes,solutions\n1,2\n",
                                    "data/notes.csv": "x\n"})  # fmt: skip
    line = "FileNotFoundError: [Errno 2] No such file or directory: '../v2/data/sudoku.csv'"
    written = sibling_split(line, copy, (work,), tmp_path / "report")
    assert written is not None and written.root == (work / "v2/data/sudoku.csv").resolve()
    assert written.root.read_text(encoding="utf-8") == "quizzes,solutions\n1,2\n"
    served = json.loads((tmp_path / "report" / "benchmark-files.json").read_text(encoding="utf-8"))
    assert served["served"][0]["loader"] == "files: the project's own split"
    assert "data/test.csv" in served["served"][0]["reason"]
    # written once: a second failure on the same path writes nothing
    assert sibling_split(line, copy, (work,), tmp_path / "report") is None


def test_the_same_file_shipped_elsewhere_comes_first_and_a_training_split_is_never_a_source(
    tmp_path: Path,
) -> None:
    work = tmp_path / "work"
    copy = _checkout(work / "src", {"data/test.csv": "a\n", "corpus/data/test.csv": "b\n",
                                    "old/data/train_small.txt": "t\n"})  # fmt: skip
    moved = "No such file or directory: 'v2/data/test.csv'"
    written = sibling_split(moved, copy, (work,), tmp_path / "r1")
    assert written is not None and written.root.read_text(encoding="utf-8") in ("a\n", "b\n")
    train = "No such file or directory: 'data/train.txt'"
    assert sibling_split(train, copy, (work,), tmp_path / "r2") is None  # no split of it
    outside = "No such file or directory: '/data/sets/data/x.csv'"
    assert sibling_split(outside, copy, (work,), tmp_path / "r3") is None
    folder = "No such file or directory: 'data/train'"
    assert sibling_split(folder, copy, (work,), tmp_path / "r4") is None


def test_molecules_one_a_line_stand_in_from_a_testing_split(tmp_path: Path) -> None:
    work = tmp_path / "work"
    shipped = {"datasets/manual_testing_cleaned.smi": "CCO\nc1ccccc1\n",
               "datasets/TRPM8_inhibitors_for_fine-tune.smi": "CN\n"}  # fmt: skip
    copy = _checkout(work / "src", shipped)
    line = (
        "FileNotFoundError: [Errno 2] No such file or directory: './datasets/dataset_cleansed.smi'"
    )
    written = sibling_split(line, copy, (work,), tmp_path / "report")
    assert written is not None and written.root.read_text(encoding="utf-8") == "CCO\nc1ccccc1\n"
