"""A requirement's own name provides its import in lower case, so a failing install of a
capitalised distribution the entry point imports is never dropped as unneeded."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.audit.closure import import_closure
from miner.select.repair.names import modules_of
from miner.select.repair.requirements import needed, provides


def test_a_capitalised_distribution_provides_its_lower_case_import() -> None:
    assert {"PyAudio", "pyaudio"} <= modules_of("PyAudio")


def test_a_capitalised_requirement_the_closure_imports_is_needed(tmp_path: Path) -> None:
    (tmp_path / "utils").mkdir()
    (tmp_path / "utils" / "__init__.py").write_text("", encoding="utf-8")
    (tmp_path / "utils" / "train.py").write_text("from . import audio\n", encoding="utf-8")
    (tmp_path / "utils" / "audio.py").write_text("import pyaudio\n", encoding="utf-8")
    closure = import_closure(tmp_path, [tmp_path / "utils" / "train.py"])
    assert closure.names == ("pyaudio",)
    assert needed("PyAudio>=0.2", closure)
    assert not needed("cherrypy>=11.0.0", closure)


def test_a_repository_named_after_its_framework_provides_the_bare_module(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("import pcen\nimport yolov5\n", encoding="utf-8")
    closure = import_closure(tmp_path, [tmp_path / "train.py"])
    assert needed("git+https://github.com/daemon/pytorch-pcen", closure)
    assert needed("git+https://github.com/lab/yolov5-pytorch.git@v1", closure)
    assert not needed("git+https://github.com/lab/pytorch-lamb", closure)
    assert not needed("pytorch-pcen", closure)  # an index name: the index says what it ships


def test_a_distribution_provides_the_modules_pigar_lists_for_it() -> None:
    from importlib.util import find_spec

    if find_spec("pigar") is None:
        pytest.skip("pigar is not installed")
    assert "cv2" in modules_of("opencv-python")  # pipreqs' mapping does not list it
    assert "cv2" in provides("opencv-python==4.2.0.32")
    assert "bs4" in modules_of("beautifulsoup4")
    assert not {"test", "typing"} & modules_of("pytest")
