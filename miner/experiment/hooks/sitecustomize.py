"""Run by Python at start-up in every process of an experiment run (this folder is first on
PYTHONPATH): apply deterministic kernels right after the project imports its framework, without
editing the project, and report what was applied as the framework itself reads it back.

Standard library only, and nothing is imported up front: the hook waits on `sys.meta_path` for
the first `import torch` / `import tensorflow` and acts after that module has finished loading.
MINER_DETERMINISTIC=1 asks for deterministic kernels; the report goes to
MINER_DETERMINISM_REPORT/<pid>.json. A sitecustomize further down sys.path still runs.
"""

from __future__ import annotations

import atexit
import importlib.abc
import importlib.machinery
import importlib.util
import json
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_WANT = os.environ.get("MINER_DETERMINISTIC") == "1"
_REPORT_DIR = os.environ.get("MINER_DETERMINISM_REPORT", "")
_ENV_KNOBS = (
    "CUBLAS_WORKSPACE_CONFIG", "TF_DETERMINISTIC_OPS", "TF_CUDNN_DETERMINISTIC", "XLA_FLAGS",
    "PYTHONHASHSEED", "OMP_NUM_THREADS", "CUDA_VISIBLE_DEVICES",
)  # fmt: skip
_REPORT: dict = {
    "pid": os.getpid(),
    "argv": list(getattr(sys, "argv", ())),  # not set yet while site runs on Python < 3.8
    "requested": _WANT,
    "env": {k: os.environ.get(k) for k in _ENV_KNOBS},
    "frameworks": {},
}


def _version(module) -> tuple:
    text = str(getattr(module, "__version__", "0")).split("+")[0]
    parts = []
    for piece in text.split(".")[:3]:
        digits = "".join(c for c in piece if c.isdigit())
        parts.append(int(digits or 0))
    return tuple(parts)


def _torch(torch) -> dict:
    applied = []
    if _WANT:
        if hasattr(torch, "use_deterministic_algorithms"):
            torch.use_deterministic_algorithms(True)
            applied.append("torch.use_deterministic_algorithms(True)")
        elif hasattr(torch, "set_deterministic"):
            torch.set_deterministic(True)
            applied.append("torch.set_deterministic(True)")
        torch.backends.cudnn.deterministic = True
        torch.backends.cudnn.benchmark = False
        applied += [
            "torch.backends.cudnn.deterministic=True",
            "torch.backends.cudnn.benchmark=False",
        ]
    names = ("are_deterministic_algorithms_enabled", "is_deterministic")
    checks = [getattr(torch, n) for n in names if callable(getattr(torch, n, None))]
    algorithms = bool(checks[0]()) if checks else False
    return {
        "version": str(torch.__version__),
        "applied": applied,
        "deterministic": algorithms and bool(torch.backends.cudnn.deterministic),
        "deterministic_algorithms": algorithms,
        "cudnn_deterministic": bool(torch.backends.cudnn.deterministic),
        "cudnn_benchmark": bool(torch.backends.cudnn.benchmark),
        "num_threads": int(torch.get_num_threads()),
        "cuda_version": getattr(torch.version, "cuda", None),
    }


def _tensorflow(tf) -> dict:
    applied = []
    enable = getattr(
        getattr(getattr(tf, "config", None), "experimental", None), "enable_op_determinism", None
    )
    if _WANT and enable is not None:
        enable()
        applied.append("tf.config.experimental.enable_op_determinism()")
    env_on = os.environ.get("TF_DETERMINISTIC_OPS") in ("1", "true") or os.environ.get(
        "TF_CUDNN_DETERMINISTIC"
    ) in ("1", "true")
    if _WANT and env_on and enable is None:
        applied.append("TF_DETERMINISTIC_OPS/TF_CUDNN_DETERMINISTIC (this version has no call)")
    probe = getattr(
        getattr(getattr(tf, "config", None), "experimental", None),
        "is_op_determinism_enabled",
        None,
    )
    on = bool(probe()) if probe is not None else env_on
    return {"version": str(getattr(tf, "__version__", "")), "applied": applied, "deterministic": on}


def _jax(jax) -> dict:
    flags = os.environ.get("XLA_FLAGS", "")
    on = (
        "--xla_gpu_deterministic_ops=true" in flags or "--xla_gpu_deterministic_reductions" in flags
    )
    return {
        "version": str(getattr(jax, "__version__", "")),
        "applied": ["XLA_FLAGS=" + flags] if _WANT and on else [],
        "deterministic": on,
    }


_HANDLERS = {"torch": _torch, "tensorflow": _tensorflow, "jax": _jax}


def _write() -> None:
    if not _REPORT_DIR:
        return
    try:
        os.makedirs(_REPORT_DIR, exist_ok=True)
        path = os.path.join(_REPORT_DIR, f"{os.getpid()}.json")
        with open(path + ".tmp", "w", encoding="utf-8") as fh:
            json.dump(_REPORT, fh, indent=2, default=str)
        os.replace(path + ".tmp", path)
    except OSError:
        pass


class _After(importlib.abc.Loader):
    """Wraps a framework's loader: load it as usual, then apply and record the knobs."""

    def __init__(self, name: str, loader) -> None:
        self.name, self.loader = name, loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module) -> None:
        self.loader.exec_module(module)
        try:
            _REPORT["frameworks"][self.name] = _HANDLERS[self.name](module)
        except Exception as exc:  # report, never break the project's import
            _REPORT["frameworks"][self.name] = {
                "error": f"{type(exc).__name__}: {exc}",
                "deterministic": False,
            }
            if _WANT:
                raise
        _REPORT["pid"] = os.getpid()  # a forked child reports under its own pid
        _write()


class _Finder(importlib.abc.MetaPathFinder):
    def find_spec(self, name, path, target=None):
        if name not in _HANDLERS or name in _REPORT["frameworks"]:
            return None
        for finder in sys.meta_path:
            if finder is self or not hasattr(finder, "find_spec"):
                continue
            spec = finder.find_spec(name, path, target)
            if spec is not None:
                if spec.loader is None:
                    return None
                spec.loader = _After(name, spec.loader)
                return spec
        return None


def _chain() -> None:
    """Run the sitecustomize this one shadows, if any."""
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


if _REPORT_DIR:
    sys.meta_path.insert(0, _Finder())
    atexit.register(_write)
    _chain()
