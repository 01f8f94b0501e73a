"""A module imported in another case than its file is named is linked in the smoke copy."""

from __future__ import annotations

from pathlib import Path

from smoke_projects import train
from test_repair import _options, _project, _target

from miner.select.case_aliases import case_aliases
from miner.select.smoke import smoke


def _write(root: Path, files: dict[str, str]) -> None:
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text, encoding="utf-8")


def test_links_are_made_where_the_import_looks_and_never_for_the_standard_library(tmp_path):
    _write(tmp_path, {
        "Dataset.py": "class Thing: pass\n",
        "Queue.py": "x = 1\n",
        "train.py": "import queue\nfrom dataset import Thing\nimport Models.net\n",
        "Models/__init__.py": "",
        "Models/net.py": "",
        "tools/run.py": "import Helpers\nfrom dataset import Thing\n",
        "tools/helpers.py": "",
    })  # fmt: skip
    notes = case_aliases(tmp_path)
    assert (tmp_path / "dataset.py").is_symlink()
    assert (tmp_path / "dataset.py").resolve() == (tmp_path / "Dataset.py").resolve()
    assert (tmp_path / "tools" / "Helpers.py").is_symlink()  # beside its importer
    assert not (tmp_path / "queue.py").exists()  # the standard library's name
    assert not (tmp_path / "models").exists()  # imported as named
    assert len(notes) == 2 and "Dataset.py" in notes[0]


def test_a_smoke_run_finds_a_module_its_authors_named_in_another_case(tmp_path: Path) -> None:
    from repair_index import build_index

    index = build_index(tmp_path / "index")
    script = "from dataset import Thing\nassert Thing.size == 3\n" + train()
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1"], script)
    (checkout / "Dataset.py").write_text("class Thing:\n    size = 3\n", encoding="utf-8")
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", result.evidence
    assert not (checkout / "dataset.py").exists()  # the checkout itself is untouched
