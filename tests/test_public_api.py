"""The public Python API: `miner` names each stage's entry points and nothing else."""

from __future__ import annotations

import importlib
import inspect
import subprocess
import sys

import pytest

import miner

STAGES = ("search", "clone", "audit", "annotate", "report", "select", "experiment")
BASE = ("config", "errors", "store")  # settings, the error base and the store every stage uses
ENTRY_POINTS = [name for name in miner.__all__ if name != "__version__"]


def test_dir_shows_only_the_entry_points() -> None:
    assert dir(miner) == sorted(miner.__all__)
    assert "__version__" in dir(miner)
    for leaked in ("Any", "import_module", "importlib", "annotations", "TYPE_CHECKING"):
        assert leaked not in dir(miner)


@pytest.mark.parametrize("name", ENTRY_POINTS)
def test_each_name_is_an_entry_point_of_a_stage(name: str) -> None:
    # With every stage package imported, as after any real use: importing `miner.x` sets the
    # attribute `x` of `miner`, so no entry point may share its name with a stage package.
    for stage in STAGES:
        importlib.import_module(f"miner.{stage}")
    value = getattr(miner, name)
    assert inspect.isfunction(value) or inspect.isclass(value), name
    package = value.__module__.split(".")[1]
    assert value.__module__.startswith("miner.") and package in (*STAGES, *BASE), value.__module__
    assert inspect.getdoc(value), f"{name} has no docstring"


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="no attribute 'Any'"):
        miner.Any  # noqa: B018


def test_a_fresh_import_defines_nothing_public_and_loads_no_stage() -> None:
    code = (
        "import sys, miner; "
        "print(sorted(n for n in vars(miner) if not n.startswith('_'))); "
        f"print(sorted(m for m in sys.modules if m.split('.')[:2] in "
        f"[['miner', s] for s in {STAGES!r}]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True
    ).stdout.splitlines()
    assert out == ["[]", "[]"]
