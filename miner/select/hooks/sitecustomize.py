# mypy: ignore-errors
"""Run by Python at start-up in every process of a smoke run (this folder is first on
PYTHONPATH): mark the stages the project reaches, without editing it.

Each mark is one line `STAGE SECONDS DETAIL` appended to $MINER_SMOKE_MARKS: `args` when an
argument parser (argparse, absl flags) returned, `data` when data arrived: a first batch from a
PyTorch DataLoader, a Keras `fit`/`train_on_batch` call, a TensorFlow 1 `Session.run` with a
feed dict, or a data file of the checkout opened for reading (Python 3.8+ audit events).
Another component may append its own lines (a data stand-in marks `data` too). Written for every
interpreter a smoke run may use (Python 2.7 included): standard library only, nothing imported up
front, and a failure here never reaches the project. A sitecustomize further down sys.path
still runs.
"""

import os
import sys
import time

_MARKS = os.environ.get("MINER_SMOKE_MARKS", "")
_HERE = os.path.dirname(os.path.abspath(__file__))
_ROOT = os.path.abspath(os.getcwd())
_DONE = set()
_NOT_DATA = (
    ".py",
    ".pyc",
    ".pyo",
    ".so",
    ".pyd",
    ".cfg",
    ".ini",
    ".toml",
    ".md",
    ".rst",
    ".yaml",
    ".yml",
    ".sh",
    ".json",
    ".pth",
    ".pt",
    ".ckpt",
    ".caffemodel",
    ".weights",
    ".prototxt",
)


def _mark(stage, detail=""):
    if stage in _DONE or not _MARKS:
        return
    _DONE.add(stage)
    try:
        with open(_MARKS, "a") as fh:
            fh.write("%s %.3f %s\n" % (stage, time.time(), str(detail).replace("\n", " ")[:300]))
    except Exception:
        pass


def _wrap(owner, name, stage, when=None):
    original = getattr(owner, name, None)
    if original is None or getattr(original, "_miner_smoke", False):
        return

    def wrapper(*args, **kwargs):
        result = original(*args, **kwargs)
        if when is None or when(args, kwargs, result):
            _mark(stage, "%s.%s" % (getattr(owner, "__name__", "?"), name))
        return result

    wrapper._miner_smoke = True
    try:
        setattr(owner, name, wrapper)
    except Exception:
        pass


def _wrap_before(owner, name, stage):
    original = getattr(owner, name, None)
    if original is None or getattr(original, "_miner_smoke", False):
        return

    def wrapper(*args, **kwargs):
        _mark(stage, "%s.%s" % (getattr(owner, "__name__", "?"), name))
        return original(*args, **kwargs)

    wrapper._miner_smoke = True
    try:
        setattr(owner, name, wrapper)
    except Exception:
        pass


def _fed(args, kwargs, result):
    feed = kwargs.get("feed_dict")
    if feed is None and len(args) > 2:
        feed = args[2]
    return bool(feed)


def _after_import(name, module):
    if name == "argparse":
        _wrap(module.ArgumentParser, "parse_known_args", "args")
    elif name == "absl.flags._flagvalues":
        _wrap(module.FlagValues, "__call__", "args")
    elif name == "torch.utils.data.dataloader":
        for cls in ("_BaseDataLoaderIter", "_DataLoaderIter", "DataLoaderIter"):
            if hasattr(module, cls):
                _wrap(getattr(module, cls), "__next__", "data")
                _wrap(getattr(module, cls), "next", "data")
    elif name.endswith("engine.training") and hasattr(module, "Model"):
        for method in ("fit", "fit_generator", "train_on_batch"):
            _wrap_before(module.Model, method, "data")
    elif name == "tensorflow.python.client.session":
        _wrap(module.BaseSession, "run", "data", _fed)


_WATCHED = (
    "argparse",
    "absl.flags._flagvalues",
    "torch.utils.data.dataloader",
    "tensorflow.python.client.session",
)


class _Finder:
    """Waits on sys.meta_path for the watched modules and patches them once loaded."""

    def __init__(self):
        self.busy = set()

    def _watched(self, fullname):
        return fullname in _WATCHED or fullname.endswith("engine.training")

    def find_spec(self, fullname, path=None, target=None):
        if not self._watched(fullname) or fullname in self.busy:
            return None
        import importlib.util

        self.busy.add(fullname)
        try:
            spec = importlib.util.find_spec(fullname)
        except Exception:
            spec = None
        finally:
            self.busy.discard(fullname)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return None
        loader = spec.loader
        original = loader.exec_module

        def exec_module(module):
            original(module)
            try:
                _after_import(fullname, module)
            except Exception:
                pass

        try:
            loader.exec_module = exec_module
        except Exception:
            return None
        return spec

    # Python 2: imports go through find_module; patch after the fact instead.
    def find_module(self, fullname, path=None):
        return None


def _audit(event, args):
    if event != "open" or "data" in _DONE:
        return
    try:
        path, mode = args[0], args[1]
        if not isinstance(path, str) or (mode and any(c in str(mode) for c in "wax+")):
            return
        full = os.path.abspath(path)
        if not full.startswith(_ROOT + os.sep) or full.endswith(_NOT_DATA):
            return
        if not os.path.isfile(full) or os.sep + "." in full[len(_ROOT) :]:
            return
        _mark("data", os.path.relpath(full, _ROOT))
    except Exception:
        pass


def _install():
    if not _MARKS:
        return
    if "argparse" in sys.modules:
        _after_import("argparse", sys.modules["argparse"])
    if sys.version_info[0] >= 3:
        sys.meta_path.insert(0, _Finder())
        if hasattr(sys, "addaudithook"):
            sys.addaudithook(_audit)
    else:
        import argparse

        _after_import("argparse", argparse)


try:
    _install()
except Exception:
    pass

try:
    _rest = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]
    if sys.version_info[0] >= 3:
        import importlib.machinery

        _spec = importlib.machinery.PathFinder.find_spec("sitecustomize", _rest)
        if _spec is not None and _spec.origin and os.path.dirname(_spec.origin) != _HERE:
            _spec.loader.exec_module(type(sys)("sitecustomize"))
except Exception:
    pass
