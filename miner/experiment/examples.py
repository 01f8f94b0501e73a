"""Runnable manifests for the example projects shipped with miner (`miner/examples/`)."""

from __future__ import annotations

from typing import Any

from miner.errors import ExperimentError
from miner.select.manifest import MANIFEST_VERSION, NUMBER, Manifest, RunSpec, run_spec

_EPOCH = (
    r"^epoch (?P<epoch>\d+) train_loss (?P<train_loss>\S+)(?: train_accuracy \S+)? "
    r"val_loss (?P<val_loss>\S+) val_accuracy (?P<val_accuracy>\S+) "
    r"test_accuracy (?P<test_accuracy>\S+)"
)
_KEYS = ("test_accuracy", "test_loss", "train_accuracy", "train_loss")
_OUTPUTS = (
    "--metrics", "{run_dir}/metrics.json", "--predictions", "{run_dir}/predictions.npy",
    "--labels", "{run_dir}/labels.npy",
)  # fmt: skip
_PATTERNS = {
    "test_accuracy": rf"test_accuracy:\s*{NUMBER}",
    "test_loss": rf"test_loss:\s*{NUMBER}",
}


def _numpy() -> dict[str, Any]:
    run = RunSpec(
        command=(
            "{python}",
            "{example_dir}/train_numpy.py",
            *_OUTPUTS,
            "--weights",
            "{run_dir}/weights.npy",
        ),  # fmt: skip
        workdir="run_dir",
        seed_args=("--seed", "{seed}"),
        metrics_file="{run_dir}/metrics.json",
        metrics_keys=_KEYS,
        metric_patterns=_PATTERNS,
        epoch_pattern=_EPOCH,
        predictions="{run_dir}/predictions.npy",
        labels="{run_dir}/labels.npy",
        weights=("weights.*",),
        timeout=600,
    )
    return {
        "name": "example-numpy",
        "description": "miner's shipped example: train_numpy.py, a NumPy two-layer perceptron on "
        "generated data whose gradient reduction is split across --threads workers",
        "framework": {"primary": "other:numpy"},
        "dataset": {"acquisition": "generated in the script (no download)"},
        "run": run,
    }


def _cnn(*sizing: str) -> RunSpec:
    return RunSpec(
        command=(
            "{python}",
            "{example_dir}/train_cnn.py",
            *sizing,
            "--device",
            "{device}",
            *_OUTPUTS,
            "--weights",
            "{run_dir}/weights.pt",
        ),  # fmt: skip
        workdir="run_dir",
        seed_args=("--seed", "{seed}"),
        seed_sources={
            "init": ("--init-seed", "{seed}"),
            "data": ("--data-seed", "{seed}"),
            "dropout": ("--dropout-seed", "{seed}"),
        },
        metrics_file="{run_dir}/metrics.json",
        metrics_keys=(*_KEYS, "val_accuracy", "val_loss", "train_seconds"),
        metric_patterns=_PATTERNS,
        epoch_pattern=_EPOCH,
        predictions="{run_dir}/predictions.npy",
        labels="{run_dir}/labels.npy",
        weights=("weights.*",),
        timeout=900,
    )


def _cnn_cpu() -> dict[str, Any]:
    return {
        "name": "example-cnn",
        "description": "miner's shipped example: train_cnn.py, a small PyTorch CNN on "
        "scikit-learn's bundled 8x8 digits, with separate init, data-order and dropout seeds",
        "framework": {"primary": "pytorch", "version_spec": "torch==2.13.0"},
        "dataset": {"acquisition": "sklearn.datasets.load_digits (ships with scikit-learn)"},
        "run": _cnn("--epochs", "6"),
    }


def _cnn_gpu() -> dict[str, Any]:
    return {
        "name": "example-cnn-gpu",
        "description": "miner's shipped example sized for a GPU: train_cnn.py on the digits "
        "enlarged to 32x32, four times wider, with a learned pixel-intensity embedding "
        "(index_select, whose CUDA backward is index_add), for 40 epochs at a learning rate "
        "of 0.01 (at the small model's 0.05 most runs diverged to NaN on an H100)",
        "framework": {"primary": "pytorch"},
        "dataset": {"acquisition": "sklearn.datasets.load_digits (ships with scikit-learn)"},
        "run": _cnn(
            "--epochs",
            "40",
            "--lr",
            "0.01",
            "--side",
            "32",
            "--width",
            "64",
            "--pixel-embedding",
            "16",
        ),  # fmt: skip
    }


EXAMPLES = {"numpy": _numpy, "cnn": _cnn_cpu, "cnn-gpu": _cnn_gpu}


def example_manifest(name: str = "numpy") -> dict[str, Any]:
    """The manifest document of a shipped example (`numpy`, `cnn` or `cnn-gpu`)."""
    if name not in EXAMPLES:
        raise ExperimentError(f"unknown example {name!r}; choose {', '.join(EXAMPLES)}")
    parts = EXAMPLES[name]()
    run: RunSpec = parts.pop("run")
    return {
        "manifest_version": MANIFEST_VERSION,
        **parts,
        "cpu_support": {"ok": True, "reason": "runs on CPU; --device cuda where a GPU is"},
        "metric_source": {
            "file": run.metrics_file,
            "stdout": "test_accuracy: <value>",
            "epochs": run.epoch_pattern,
            "predictions": run.predictions,
            "labels": run.labels,
            "weights": list(run.weights),
        },
        "run": run.as_dict(),
    }


def load_example(name: str) -> Manifest:
    """A shipped example as a loaded manifest."""
    document = example_manifest(name)
    return Manifest(document["name"], run_spec(document["run"]), document)
