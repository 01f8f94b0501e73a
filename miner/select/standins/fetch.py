"""The optional data step of a smoke run (`--fetch-data`): before the network is cut, run the
entry point once with the network up, the hook watching the known loaders, so that they download
what they ask for; the hook ends the process a little after the last loader returns.

Downloads land where the libraries cache them, pointed at one cache shared by every candidate
(`<smoke folder>/data-cache`; Keras, Hugging Face, TensorFlow Datasets, scikit-learn, torch hub),
or, for loaders given a folder (torchvision's `root`), in the run's copy of the checkout, which the
training step then uses. The training step, offline, finds the data and needs no stand-in.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from miner.select.sandbox import Limits, run_bounded
from miner.select.standins.assists import HF_OFFLINE, HOOK_DIR

DATA_CACHE = "data-cache"
# library cache variable -> folder under the shared cache
CACHE_VARIABLES = {
    "KERAS_HOME": "keras", "HF_HOME": "huggingface", "TFDS_DATA_DIR": "tensorflow_datasets",
    "SCIKIT_LEARN_DATA": "scikit_learn_data", "TORCH_HOME": "torch",
}  # fmt: skip


def cache_env(cache: Path) -> dict[str, str]:
    """The variables that point the libraries' download caches into `cache`."""
    return {name: str(cache / folder) for name, folder in CACHE_VARIABLES.items()}


def fetch_data(
    argv: list[str],
    cwd: Path,
    env: Mapping[str, str],
    report_dir: Path,
    log: Path,
    timeout: float,
    limits: Limits,
) -> float:
    """Run the data step (network up) for at most `timeout` seconds; the seconds it took. What
    each loader fetched is in `report_dir` (read with the run's other reports)."""
    path = env.get("PYTHONPATH", "")
    hooked = [p for p in path.split(":") if p and p != str(HOOK_DIR)]
    step = {k: v for k, v in env.items() if k not in HF_OFFLINE}
    step.update({
        "PYTHONPATH": ":".join([str(HOOK_DIR), *hooked]), "MINER_STANDINS": "0",
        "MINER_STANDIN_FETCH": "1", "MINER_CPU_SHIM": env.get("MINER_CPU_SHIM", "0"),
        "MINER_STANDIN_REPORT": str(report_dir),
    })  # fmt: skip
    done = run_bounded(argv, cwd, step, log, timeout, limits)
    return done.seconds
