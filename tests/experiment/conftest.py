"""Manifests for experiment tests: the shipped examples made tiny, and plain commands."""

from __future__ import annotations

import sys

import pytest

from miner.experiment.examples import example_manifest
from miner.select.manifest import Manifest, run_spec

NO_TORCH = "PyTorch is not installed (pip install -e '.[dev]' installs torch 2.13.0 CPU)"


@pytest.fixture
def torch_installed() -> None:
    """Skip the test, saying why, where PyTorch is not installed."""
    pytest.importorskip("torch", reason=NO_TORCH)


def make_manifest(name: str, **run: object) -> Manifest:
    """A manifest whose run section is `run` (workdir defaults to the run folder)."""
    section = {"workdir": "run_dir", **run}
    return Manifest(name, run_spec(section), {"name": name, "run": section})


def shrunk(name: str, *extra: str) -> Manifest:
    """A shipped example with extra command-line options (fewer samples or epochs)."""
    document = example_manifest(name)
    document["run"]["command"] += list(extra)
    return Manifest(document["name"], run_spec(document["run"]), document)


@pytest.fixture
def tiny_example() -> Manifest:
    """The NumPy example with less data and fewer epochs (~0.3 s a run)."""
    return shrunk("numpy", "--samples", "600", "--epochs", "4")


@pytest.fixture
def tiny_cnn() -> Manifest:
    """The PyTorch CNN example at two epochs (~2 s a run, most of it importing torch)."""
    return shrunk("cnn", "--epochs", "2")


@pytest.fixture
def small_cnn_gpu() -> Manifest:
    """The GPU-sized CNN example at a CPU's size: the options after the manifest's win."""
    return shrunk("cnn-gpu", "--epochs", "1", "--side", "16", "--width", "8")


@pytest.fixture
def manifest_for():  # type: ignore[no-untyped-def]
    """Build a manifest from run-section keywords."""
    return make_manifest


@pytest.fixture
def python() -> str:
    """This interpreter, for plain commands."""
    return sys.executable
