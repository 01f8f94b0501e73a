"""Read what a project wrote as arrays: predicted classes, true labels and trained weights.

Predictions and labels: .npy, .npz (the `predictions`/`labels` array, else the first), .csv/.txt
(one value or one row of scores per line) or a JSON list; a 2-D array of scores becomes its argmax
per row. Weights: .npy (one or more arrays saved one after another), .npz, PyTorch checkpoints
(.pt/.pth/.ckpt/.bin, read with torch when it is installed, tensors only) and .safetensors (with
the safetensors package); they are flattened in name order into one float64 vector.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    import numpy as np

TORCH_SUFFIXES = (".pt", ".pth", ".ckpt", ".bin")


def read_classes(path: Path, key: str = "predictions") -> np.ndarray | None:
    """Class indices from a predictions or labels file; None when it cannot be read."""
    import numpy as np

    try:
        suffix = path.suffix.lower()
        if suffix == ".npy":
            array = np.load(path, allow_pickle=False)
        elif suffix == ".npz":
            with np.load(path, allow_pickle=False) as data:
                array = data[key] if key in data.files else data[data.files[0]]
        elif suffix == ".json":
            array = np.asarray(json.loads(path.read_text(encoding="utf-8")))
        else:
            array = np.loadtxt(path, delimiter="," if suffix == ".csv" else None, ndmin=1)
    except (OSError, ValueError, IndexError, KeyError):
        return None
    if array.ndim == 2 and array.shape[1] > 1:
        array = array.argmax(axis=1)
    array = array.reshape(-1)
    if array.size == 0 or not np.all(np.isfinite(array.astype(float))):
        return None
    return array.astype(np.int64)


def _npy_sequence(path: Path) -> list[np.ndarray]:
    import numpy as np

    arrays = []
    with path.open("rb") as fh:
        size = path.stat().st_size
        while fh.tell() < size:
            arrays.append(np.load(fh, allow_pickle=False))
    return arrays


def _tensors(tree: Any, prefix: str = "") -> dict[str, Any]:
    """Tensor leaves of a (nested) state dict, keyed by dotted name."""
    out: dict[str, Any] = {}
    if isinstance(tree, Mapping):
        for key, value in tree.items():
            out.update(_tensors(value, f"{prefix}{key}."))
    elif hasattr(tree, "detach") and hasattr(tree, "numpy"):
        out[prefix[:-1]] = tree.detach().cpu().float().numpy()
    return out


def read_weights(path: Path) -> np.ndarray | None:
    """One file's weights as a flat float64 vector; None for a format that cannot be read."""
    import numpy as np

    suffix = path.suffix.lower()
    try:
        if suffix == ".npy":
            parts = _npy_sequence(path)
        elif suffix == ".npz":
            with np.load(path, allow_pickle=False) as data:
                parts = [data[k] for k in sorted(data.files)]
        elif suffix in TORCH_SUFFIXES:
            import torch

            state = torch.load(path, map_location="cpu", weights_only=True)
            named = _tensors(state)
            parts = [named[k] for k in sorted(named)]
        elif suffix == ".safetensors":
            from safetensors.numpy import load_file

            named = load_file(str(path))
            parts = [named[k] for k in sorted(named)]
        else:
            return None
    except (ImportError, OSError, ValueError, RuntimeError, EOFError):
        return None
    if not parts:
        return None
    return np.concatenate([np.asarray(p, dtype=np.float64).reshape(-1) for p in parts])


def read_weight_files(paths: Iterable[Path]) -> np.ndarray | None:
    """All weight files of a run, in path order, as one vector; None if any cannot be read."""
    import numpy as np

    vectors = []
    for path in sorted(paths):
        vector = read_weights(path)
        if vector is None:
            return None
        vectors.append(vector)
    return np.concatenate(vectors) if vectors else None
