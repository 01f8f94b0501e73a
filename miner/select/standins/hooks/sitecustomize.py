# mypy: ignore-errors
"""Run by Python at start-up in a smoke run's process (this folder is first on PYTHONPATH): stand
in for data sets and pretrained weights the network cannot bring, and, when asked, keep
hard-coded CUDA on the CPU, without editing the project.

Nothing heavy is imported up front: a finder on `sys.meta_path` waits for the modules that hold
the loaders (`torchvision.datasets`, `keras.datasets.mnist`, `sklearn.datasets`, ...) and patches
their entry points right after they load. A patched loader first calls the real one; only when
that fails for want of data (a missing file, a blocked download) does it serve a synthetic data set
with the loader's shapes, dtypes, classes and splits. Every stand-in served, and every use of the
CPU shim, is written to MINER_STANDIN_REPORT/<pid>.json.

MINER_STANDINS=1 serves stand-ins, MINER_CPU_SHIM=1 loads the shim; MINER_STANDIN_FETCH=1 (a data
step before the network is cut) lets the loaders download and ends the process once they are
done. The code runs on the project's own interpreter, so it keeps to Python 3.6, and to Python
2.7 as well (the loaders patched there through Python 2's import protocol). A sitecustomize
further down sys.path still runs.
"""

import importlib
import os
import re
import sys
import threading

if sys.version_info[0] >= 3:
    import importlib.abc
    import importlib.machinery
    import importlib.util

_HERE = os.path.dirname(os.path.abspath(__file__))
# In a data step (MINER_STANDIN_FETCH=1, network up) the loaders are watched, not stood in for.
_STANDINS = "1" in (os.environ.get("MINER_STANDINS"), os.environ.get("MINER_STANDIN_FETCH"))
_SHIM = os.environ.get("MINER_CPU_SHIM") == "1"

# module -> (adapter module in this folder, its patch function)
_TARGETS = {}
if _STANDINS:
    _TARGETS.update({
        "torchvision.datasets": ("_miner_standins_vision", "patch_torchvision"),
        "torchaudio.datasets": ("_miner_standins_vision", "patch_torchaudio"),
        "sklearn.datasets": ("_miner_standins_sklearn", "patch_sklearn"),
        "datasets": ("_miner_standins_hub", "patch_hf_datasets"),
        "tensorflow_datasets": ("_miner_standins_hub", "patch_tfds"),
        "torch.hub": ("_miner_standins_weights", "patch_torch_hub"),
        "torch.utils.model_zoo": ("_miner_standins_weights", "patch_torch_hub"),
        "torch.nn.modules.module": ("_miner_standins_weights", "patch_torch_module"),
    })  # fmt: skip
if _SHIM:
    _TARGETS.update({
        "torch": ("_miner_cpu_shim", "patch_torch"),
        "tensorflow": ("_miner_cpu_shim", "patch_tensorflow"),
    })  # fmt: skip
# keras.datasets.mnist, tensorflow.python.keras.datasets.mnist, keras.src.datasets.mnist, ...
_KERAS = re.compile(
    r"^(?:keras|tf_keras|tensorflow)(?:\.[\w.]*)?\.datasets\."
    r"(?:mnist|fashion_mnist|cifar10|cifar100|imdb|reuters|boston_housing|california_housing)$"
)
# keras.applications.mobilenet_v2, tensorflow.python.keras.applications.resnet,
# keras_applications.vgg16
_APPLICATIONS = re.compile(
    r"^(?:(?:keras|tf_keras|tensorflow)(?:\.[\w.]*)?\.applications|keras_applications)\.[a-z]\w*$"
)
# TensorFlow 1's tutorial MNIST: `tensorflow.examples.tutorials.mnist.input_data`, the contrib
# module it re-exports, and the copies of `input_data.py` projects ship beside their code.
_TF_MNIST = re.compile(
    r"^(?:tensorflow\.contrib\.learn\.python\.learn\.datasets\.mnist|(?:[\w.]*\.)?input_data)$"
)
_BUSY = threading.local()


def _target(name):
    if name in _TARGETS:
        return _TARGETS[name]
    if _STANDINS and _KERAS.match(name):
        return ("_miner_standins_keras", "patch_keras_module")
    if _STANDINS and _APPLICATIONS.match(name):
        return ("_miner_standins_weights", "patch_keras_applications")
    if _STANDINS and _TF_MNIST.match(name):
        return ("_miner_standins_tf_mnist", "patch_tf_mnist")
    return None


def _patch(name, module):
    where, function = _target(name)
    try:
        adapter = importlib.import_module(where)
        getattr(adapter, function)(module)
    except Exception as exc:  # a broken patch must never break the project's import
        import _miner_standins

        _miner_standins.note_error(name, exc)


_LOADER_BASE = importlib.abc.Loader if sys.version_info[0] >= 3 else object
_FINDER_BASE = importlib.abc.MetaPathFinder if sys.version_info[0] >= 3 else object


def _busy():
    """The modules this thread is importing through a finder of this hook (not served twice)."""
    names = getattr(_BUSY, "names", None)
    if names is None:
        names = _BUSY.names = set()
    return names


class _After(_LOADER_BASE):
    """Wraps a loader: load the module as usual, then patch its entry points."""

    def __init__(self, name, loader):
        self.name, self.loader = name, loader

    def create_module(self, spec):
        return self.loader.create_module(spec)

    def exec_module(self, module):
        self.loader.exec_module(module)
        _patch(self.name, module)


class _Finder(_FINDER_BASE):
    def find_spec(self, name, path, target=None):
        if _target(name) is None:
            return None
        busy = _busy()
        if name in busy:
            return None
        busy.add(name)
        try:
            for finder in sys.meta_path:
                if finder is self or not hasattr(finder, "find_spec"):
                    continue
                spec = finder.find_spec(name, path, target)
                if spec is None:
                    continue
                if spec.loader is None or not hasattr(spec.loader, "exec_module"):
                    return None
                spec.loader = _After(name, spec.loader)
                return spec
            return None
        finally:
            busy.discard(name)


class _Python2Finder(object):
    """Python 2's import protocol (`find_module`/`load_module`): the module imported as usual,
    then patched."""

    def find_module(self, name, path=None):
        if _target(name) is None or name in _busy() or name in sys.modules:  # a reload: as is
            return None
        return self if _findable(name, path) else None

    def load_module(self, name):
        _busy().add(name)
        try:
            module = importlib.import_module(name)
        finally:
            _busy().discard(name)
        _patch(name, module)
        return module


def _findable(name, path):
    """Whether Python 2's own import finds `name` in `path` (None: sys.path). An implicit
    relative import (`import input_data` in a package) tries `package.input_data` first and
    falls back to the top level only when no finder takes the name: a loader that then fails
    would end the import."""
    import pkgutil

    for item in sys.path if path is None else path:
        importer = pkgutil.get_importer(item)
        if importer is not None and importer.find_module(name) is not None:
            return True
    return False


def _chain():
    """Run the sitecustomize this one shadows, if any."""
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    if sys.version_info[0] < 3:
        import imp

        try:
            found = imp.find_module("sitecustomize", rest)
        except ImportError:
            return
        try:
            imp.load_module("_miner_chained_sitecustomize", *found)
        finally:
            if found[0] is not None:
                found[0].close()
        return
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)


if os.environ.get("MINER_STANDIN_REPORT"):
    _chain()  # first, so that this finder is outermost and wraps whatever the other one returns
    if _TARGETS or _STANDINS:
        import _miner_standins

        _miner_standins.start()
        sys.meta_path.insert(0, _Finder() if sys.version_info[0] >= 3 else _Python2Finder())
    if _STANDINS and os.environ.get("MINER_STANDIN_FETCH") != "1":
        import _miner_standins

        _miner_standins.profile_builtin()
