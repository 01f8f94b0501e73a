"""Manifests for experiment tests: the shipped NumPy example made tiny, and plain commands."""

from __future__ import annotations

import sys

import pytest

from miner.select.manifest import Manifest, example_manifest, run_spec


def make_manifest(name: str, **run: object) -> Manifest:
    """A manifest whose run section is `run` (workdir defaults to the run folder)."""
    section = {"workdir": "run_dir", **run}
    return Manifest(name, run_spec(section), {"name": name, "run": section})


@pytest.fixture
def tiny_example() -> Manifest:
    """The shipped example with less data and fewer epochs (~0.3 s a run)."""
    document = example_manifest()
    document["run"]["command"] += ["--samples", "600", "--epochs", "4"]
    return Manifest(document["name"], run_spec(document["run"]), document)


@pytest.fixture
def manifest_for():  # type: ignore[no-untyped-def]
    """Build a manifest from run-section keywords."""
    return make_manifest


@pytest.fixture
def python() -> str:
    """This interpreter, for plain commands."""
    return sys.executable
