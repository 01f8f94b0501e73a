# mypy: ignore-errors
"""Run by Python at start-up in every process of a smoke run (this folder is first on
PYTHONPATH): mark the stages the project reaches, without editing it.

Each mark is one line `STAGE SECONDS DETAIL` appended to $MINER_SMOKE_MARKS: `args` when an
argument parser (argparse, absl flags) returned, `data` when data arrived: a first batch from a
PyTorch DataLoader, a Keras `fit`/`train_on_batch` call, a TensorFlow 1 `Session.run` with a
feed dict, or a data file of the checkout opened for reading (Python 3.8+ audit events); `step`
when an optimisation step returned: a PyTorch optimizer's `step` (any subclass, the project's
own too), a Keras batch end in training or a `train_on_batch`, a TensorFlow 1 `Session.run`
that fetched an `apply_gradients` op, an eager Keras `apply_gradients`, Chainer's `update`, or
MXNet Gluon's `Trainer.step`. Many projects print their loss every hundred steps, so the mark
shows the first step where the log would not.
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
    """Mark `stage` when `owner.name` returns (`when` allowing)."""
    _wrap_around(owner, name, None, stage, when)


def _wrap_before(owner, name, stage):
    """Mark `stage` when `owner.name` is called."""
    _wrap_around(owner, name, stage, None)


def _wrap_around(owner, name, before, after, when=None):
    """Mark `before` when `owner.name` is called and `after` when it returns (`when` allowing)."""
    original = getattr(owner, name, None)
    if original is None or getattr(original, "_miner_smoke", False):
        return
    label = "%s.%s" % (getattr(owner, "__name__", "?"), name)

    def wrapper(*args, **kwargs):
        if before:
            _mark(before, label)
        result = original(*args, **kwargs)
        if after and (when is None or when(args, kwargs, result)):
            _mark(after, label)
        return result

    wrapper._miner_smoke = True
    try:
        setattr(owner, name, wrapper)
    except Exception:
        pass


def _torch_optimizer(module):
    """Every optimizer class gets its `step` wrapped when its first instance is made: subclasses
    (Adam, the project's own) override `step`, so the base class's alone is not enough."""
    base = module.Optimizer
    init = base.__init__
    if getattr(init, "_miner_smoke", False):
        return

    def __init__(self, *args, **kwargs):
        init(self, *args, **kwargs)
        try:
            _wrap_around(type(self), "step", None, "step")
        except Exception:
            pass

    __init__._miner_smoke = True
    base.__init__ = __init__


_TRAIN_OPS = set()


def _remember_op(args, kwargs, result):
    try:
        _TRAIN_OPS.add(result.name)
    except Exception:
        pass
    return _eager()


def _eager():
    context = sys.modules.get("tensorflow.python.eager.context")
    try:
        return bool(context is not None and context.executing_eagerly())
    except Exception:
        return False


def _flat(value, depth=0):
    if depth > 4:
        return
    if isinstance(value, (list, tuple)):
        for item in value:
            for leaf in _flat(item, depth + 1):
                yield leaf
    elif isinstance(value, dict):
        for item in value.values():
            for leaf in _flat(item, depth + 1):
                yield leaf
    else:
        yield value


def _ran_train_op(args, kwargs, result):
    if not _TRAIN_OPS:
        return False
    fetches = kwargs.get("fetches", args[1] if len(args) > 1 else None)
    for leaf in _flat(fetches):
        name = getattr(leaf, "name", leaf)
        if isinstance(name, str) and name in _TRAIN_OPS:
            return True
    return False


def _training_batch_end(args, kwargs, result):
    mode = kwargs.get("mode", args[1] if len(args) > 1 else None)
    hook = kwargs.get("hook", args[2] if len(args) > 2 else None)
    return mode == "train" and hook == "end"


def _session_ran(args, kwargs, result):
    """`data` when the run was fed; `step` marked here when it fetched an optimizer's op."""
    if _ran_train_op(args, kwargs, result):
        _mark("step", "Session.run of an apply_gradients op")
    return _fed(args, kwargs, result)


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
        for method in ("fit", "fit_generator"):
            _wrap_before(module.Model, method, "data")
        _wrap_around(module.Model, "train_on_batch", "data", "step")
    elif name == "tensorflow.python.client.session":
        _wrap(module.BaseSession, "run", "data", _session_ran)
    elif name == "torch.optim.optimizer":
        _torch_optimizer(module)
    elif name.endswith("callbacks") or name.endswith("callback_list"):
        if hasattr(module, "CallbackList"):
            for method in ("on_batch_end", "on_train_batch_end"):
                _wrap(module.CallbackList, method, "step")
            _wrap(module.CallbackList, "_call_batch_hook", "step", _training_batch_end)
    elif name == "tensorflow.python.training.optimizer":
        _wrap(module.Optimizer, "apply_gradients", "step", _remember_op)
    elif name.endswith("optimizer_v2") or name.endswith("base_optimizer"):
        for cls in ("OptimizerV2", "BaseOptimizer"):
            if hasattr(module, cls):
                _wrap(getattr(module, cls), "apply_gradients", "step", lambda *a: _eager())
    elif name == "chainer.optimizer":
        for cls in ("Optimizer", "GradientMethod"):
            if hasattr(module, cls):
                _wrap(getattr(module, cls), "update", "step")
    elif name == "mxnet.gluon.trainer":
        _wrap(module.Trainer, "step", "step")


_WATCHED = (
    "argparse",
    "absl.flags._flagvalues",
    "torch.utils.data.dataloader",
    "tensorflow.python.client.session",
    "torch.optim.optimizer",
    "tensorflow.python.training.optimizer",
    "chainer.optimizer",
    "mxnet.gluon.trainer",
)
_WATCHED_ENDINGS = (
    "engine.training",
    "callbacks",
    "callback_list",
    "optimizer_v2",
    "base_optimizer",
)


class _Finder:
    """Waits on sys.meta_path for the watched modules and patches them once loaded."""

    def __init__(self):
        self.busy = set()

    def _watched(self, fullname):
        return fullname in _WATCHED or fullname.endswith(_WATCHED_ENDINGS)

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
