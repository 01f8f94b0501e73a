"""Stand-in weights: a pretrained checkpoint the network cannot bring leaves the model at its
random initialisation, so the training code itself is still tested.

PyTorch: `torch.hub.load_state_dict_from_url` (which `torch.utils.model_zoo.load_url`, every
torchvision model's `pretrained=True`/`weights=` and most projects' own downloads go through)
returns an empty state dict marked as a stand-in, and `torch.hub.download_url_to_file` of a
checkpoint writes one where the file was to go; `Module.load_state_dict` given that one loads
nothing. Keras: an application (`MobileNetV2(weights="imagenet")`, any Keras or tf.keras
version) whose weights file cannot be fetched is built again with `weights=None`. Only a failed
download is stood in for; a weights file the project names on disk stays `needs_weights`.
"""

import inspect
import sys
import threading

import _miner_standins as common

_LOADING = threading.local()  # set while load_state_dict_from_url runs its own download


class StandInWeights(dict):
    """The empty state dict served for a checkpoint that could not be downloaded."""


def _served(loader, what, why):
    common.REPORT.setdefault("weights", []).append(
        {"loader": loader, "weights": str(what)[:200], "reason": why}
    )
    common.write()
    sys.stderr.write("miner: stand-in weights (random initialisation) for %s: %s\n" % (what, why))


def _load_state_dict(real):
    @common.wraps(real)
    def load_state_dict(self, state_dict, *args, **kwargs):
        if isinstance(state_dict, StandInWeights):
            return real(self, {}, strict=False)  # nothing to load: the initialisation stays
        return real(self, state_dict, *args, **kwargs)

    return common.mark(load_state_dict)


def patch_torch_module(module):
    """Patch `torch.nn.modules.module`: `Module.load_state_dict` loads nothing from a stand-in
    (patched when PyTorch loads: `model.load_state_dict` is looked up before its argument is
    downloaded)."""
    owner = module.Module
    if not getattr(owner.load_state_dict, "_miner_standin", False):
        owner.load_state_dict = _load_state_dict(owner.load_state_dict)


def _from_url(loader, real):
    @common.wraps(real)
    def load_state_dict_from_url(*args, **kwargs):
        url = kwargs.get("url", args[0] if args else "")

        def make(why):
            _served(loader, url, why)
            return StandInWeights()

        _LOADING.url = True
        try:
            return common.call_or_stand_in(loader, real, args, kwargs, make)
        finally:
            _LOADING.url = False

    return common.mark(load_state_dict_from_url)


CHECKPOINT_SUFFIXES = (".pth", ".pt", ".ckpt", ".pkl", ".bin", ".tar")


def _to_file(loader, real):
    """`download_url_to_file(url, dst)` of a checkpoint (the helper detection toolboxes cache
    their backbones with before `torch.load`): a stand-in checkpoint at `dst` that loads as an
    empty state dict marked as a stand-in."""

    @common.wraps(real)
    def download_url_to_file(*args, **kwargs):
        url = str(kwargs.get("url", args[0] if args else ""))
        dst = kwargs.get("dst", args[1] if len(args) > 1 else None)
        checkpoint = url.split("?")[0].endswith(CHECKPOINT_SUFFIXES)
        if dst is None or not checkpoint or getattr(_LOADING, "url", False):
            return real(*args, **kwargs)  # not a checkpoint, or load_state_dict_from_url's own

        def make(why):
            import torch

            torch.save(StandInWeights(), dst)
            allow = getattr(getattr(torch, "serialization", None), "add_safe_globals", None)
            if allow is not None:  # torch.load's weights_only default (2.6 and later) reads it
                allow([StandInWeights])
            _served(loader, url, why)
            return dst  # not None: None would decline

        common.call_or_stand_in(loader, real, args, kwargs, make)

    return common.mark(download_url_to_file)


def patch_torch_hub(module):
    """Patch `torch.hub` (and `torch.utils.model_zoo`, which re-exports its loader)."""
    for name in ("load_state_dict_from_url", "load_url"):
        real = module.__dict__.get(name)
        if callable(real) and not getattr(real, "_miner_standin", False):
            setattr(module, name, _from_url(module.__name__ + "." + name, real))
    real = module.__dict__.get("download_url_to_file")
    if callable(real) and not getattr(real, "_miner_standin", False):
        module.download_url_to_file = _to_file(module.__name__ + ".download_url_to_file", real)


def _weights_position(real):
    """The index of the `weights` parameter (`MobileNetV2` has it third, `ResNet50` second);
    None for a builder that takes `*args, **kwargs` (Python 2: getargspec, no signature)."""
    try:
        if hasattr(inspect, "signature"):
            names = list(inspect.signature(real).parameters)
        else:
            names = inspect.getargspec(real).args  # type: ignore[attr-defined]
    except (TypeError, ValueError):
        return None
    return names.index("weights") if "weights" in names else None


def _application(loader, real):
    position = _weights_position(real)

    @common.wraps(real)
    def build(*args, **kwargs):
        positional = position is not None and len(args) > position
        if "weights" in kwargs:
            asked = kwargs["weights"]
        elif positional:
            asked = args[position]
        else:
            asked = "imagenet" if position is not None or len(args) <= 1 else None

        def make(why):
            if asked != "imagenet":  # a path of the project's own, or unknown: not a download
                return None
            _served(loader, "%s(weights='imagenet')" % loader, why)
            if positional:
                return real(*(args[:position] + (None,) + args[position + 1 :]), **kwargs)
            return real(*args, **dict(kwargs, weights=None))

        return common.call_or_stand_in(loader, real, args, kwargs, make)

    return common.mark(build)


NOT_BUILDERS = ("Input", "Model", "Sequential", "Functional")


def patch_keras_applications(module):
    """Patch one `...applications.<family>` module: its model builders (capitalised functions)."""
    for name, real in list(module.__dict__.items()):
        if not name[:1].isupper() or name in NOT_BUILDERS or inspect.isclass(real):
            continue
        if callable(real) and not getattr(real, "_miner_standin", False):
            setattr(module, name, _application(module.__name__ + "." + name, real))
