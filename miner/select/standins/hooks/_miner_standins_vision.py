"""Stand-ins for torchvision and torchaudio data sets.

The in-memory ones (MNIST and its kin, CIFAR, SVHN, STL10) set the attributes the real class
reads (`data`, `targets`, and the `train_data`-style names of old releases) and keep its
`__getitem__`, so transforms, loaders and samplers run the project's own path. Folder data sets
(ImageFolder, ImageNet, Speech Commands) get files in the real layout under the stand-in folder,
and the real class reads those.
"""

import inspect
import os
import sys

import _miner_standins as common

CAP = 120000  # most images a split gets; the real count is recorded when it is larger
MNIST_SIZES = {True: 60000, False: 10000}
EMNIST = {  # split -> (train, test, classes)
    "byclass": (697932, 116323, 62), "bymerge": (697932, 116323, 47),
    "balanced": (112800, 18800, 47), "letters": (124800, 20800, 27),
    "digits": (240000, 40000, 10), "mnist": (60000, 10000, 10),
}  # fmt: skip
CIFAR10_NAMES = ["airplane", "automobile", "bird", "cat", "deer", "dog", "frog", "horse", "ship",
                 "truck"]  # fmt: skip
SVHN = {"train": 73257, "test": 26032, "extra": 531131}
STL10 = {"train": 5000, "test": 8000, "unlabeled": 100000, "train+unlabeled": 105000}
SPEECH_WORDS = (
    "backward bed bird cat dog down eight five follow forward four go happy house learn left "
    "marvin nine no off on one right seven sheila six stop three tree two up visual wow yes zero"
).split()


def _arguments(original, self, args, kwargs):
    """The real `__init__`'s arguments by name, defaults filled in (Python 2 has no
    inspect.signature; getcallargs reads the same)."""
    try:
        if hasattr(inspect, "signature"):
            bound = inspect.signature(original).bind(self, *args, **kwargs)
            bound.apply_defaults()
            values = dict(bound.arguments)
        else:
            values = inspect.getcallargs(original, self, *args, **kwargs)
    except TypeError:
        return None
    values.update(values.pop("kwargs", {}) or {})
    return values


def _base(self, values):
    """What VisionDataset.__init__ sets (or, before it existed, the attributes by hand)."""
    root = values.get("root")
    if isinstance(root, common.TEXT):
        root = os.path.expanduser(root)
    vision = getattr(sys.modules.get("torchvision.datasets.vision"), "VisionDataset", None)
    transform, target = values.get("transform"), values.get("target_transform")
    if vision is not None and isinstance(self, vision):
        vision.__init__(self, root, transform=transform, target_transform=target)
    else:
        self.root, self.transform, self.target_transform = root, transform, target


def _set_old(self, train, data, targets):
    """The attribute names of torchvision before 0.3 (read-only properties later: skipped)."""
    prefix = "train" if train else "test"
    for name, value in ((prefix + "_data", data), (prefix + "_labels", targets)):
        try:
            setattr(self, name, value)
        except AttributeError:
            pass


def _kind(self, names):
    for klass in type(self).__mro__:
        if klass.__name__ in names:
            return klass.__name__
    return type(self).__name__


def _mnist(self, values, why):
    import torch

    kind = _kind(self, ("EMNIST", "FashionMNIST", "KMNIST", "QMNIST", "MNIST"))
    train = bool(values.get("train", True))
    if kind == "QMNIST":
        return False
    if kind == "EMNIST":
        split = getattr(self, "split", "mnist")
        sizes = EMNIST.get(split, EMNIST["mnist"])
        real, classes = sizes[0] if train else sizes[1], sizes[2]
    else:
        real, classes = MNIST_SIZES[train], 10
    count = min(real, CAP)
    _base(self, values)
    self.train = train
    state = common.rng(kind, train)
    self.data = torch.from_numpy(state.randint(0, 256, size=(count, 28, 28)).astype("uint8"))
    low = 1 if kind == "EMNIST" and getattr(self, "split", "") == "letters" else 0
    self.targets = torch.from_numpy(state.randint(low, classes, size=count).astype("int64"))
    _set_old(self, train, self.data, self.targets)
    note = "" if count == real else "%d of %d images" % (count, real)
    arrays = {"data": self.data, "targets": self.targets}
    common.served("torchvision.datasets." + kind, "train" if train else "test", arrays,
                  classes - low, why, note)  # fmt: skip
    return True


def _cifar(self, values, why):
    kind = _kind(self, ("CIFAR100", "CIFAR10"))
    train = bool(values.get("train", True))
    classes = 100 if kind == "CIFAR100" else 10
    count = 50000 if train else 10000
    _base(self, values)
    self.train = train
    state = common.rng(kind, train)
    self.data = state.randint(0, 256, size=(count, 32, 32, 3)).astype("uint8")
    self.targets = [int(t) for t in state.randint(0, classes, size=count)]
    names = CIFAR10_NAMES if classes == 10 else ["class_%d" % i for i in range(classes)]
    self.classes = names
    self.class_to_idx = {name: i for i, name in enumerate(names)}
    _set_old(self, train, self.data, self.targets)
    arrays = {"data": self.data, "targets": self.targets}
    common.served("torchvision.datasets." + kind, "train" if train else "test", arrays, classes,
                  why)  # fmt: skip
    return True


def _svhn_stl(self, values, why):
    import numpy

    kind = _kind(self, ("SVHN", "STL10"))
    split = str(values.get("split") or "train")
    sizes, side = (SVHN, 32) if kind == "SVHN" else (STL10, 96)
    real = sizes.get(split, sizes["train"])
    count = min(real, CAP if kind == "SVHN" else 20000)
    _base(self, values)
    self.split = split
    state = common.rng(kind, split)
    self.data = state.randint(0, 256, size=(count, 3, side, side)).astype("uint8")
    labels = state.randint(0, 10, size=count).astype("int64")
    if kind == "STL10" and "unlabeled" in split:
        labels = numpy.full(count, -1, dtype="int64") if split == "unlabeled" else labels
        self.classes = list(CIFAR10_NAMES)
    self.labels = labels
    note = "" if count == real else "%d of %d images" % (count, real)
    common.served("torchvision.datasets." + kind, split, {"data": self.data, "labels": labels},
                  10, why, note)  # fmt: skip
    return True


def _image_tree(kind, classes, per_class, size, extension):
    """A folder of class folders of small images, made once per run."""
    from PIL import Image

    root = common.files_dir(kind, "%d-classes" % classes)
    done = os.path.join(root, ".complete")
    if os.path.exists(done):
        return root
    state = common.rng(kind, classes)
    for c in range(classes):
        folder = os.path.join(root, ("n%08d" if classes == 1000 else "class_%03d") % c)
        common.makedirs(folder)
        for i in range(per_class):
            pixels = state.randint(0, 256, size=(size[0], size[1], 3)).astype("uint8")
            Image.fromarray(pixels).save(os.path.join(folder, "img_%04d%s" % (i, extension)))
    open(done, "w").close()
    return root


def _folder_classes(root):
    text = str(root or "").lower()
    return 1000 if "imagenet" in text or "ilsvrc" in text else 10


def _patch_init(klass, make):
    """Replace klass.__init__ by: the real one, or `make(self, values, why)` when it fails for
    want of data (a `make` that returns False declines)."""
    original = klass.__dict__["__init__"]
    if getattr(original, "_miner_standin", False):
        return

    @common.wraps(original)
    def __init__(self, *args, **kwargs):
        if common.FETCH:
            common.fetch_begin()
        try:
            original(self, *args, **kwargs)
        except Exception as exc:
            if common.FETCH:
                common.fetched(None)
            if common.FETCH or not common.missing_data(exc):
                raise
            why = common.reason(exc)
            values = _arguments(original, self, args, kwargs)
            failed = False
            try:
                made = values is not None and make(self, values, why, original, args, kwargs)
            except Exception as error:  # the stand-in's own fault: record it, raise the real one
                common.note_error("torchvision.datasets." + type(self).__name__, error)
                failed = True
            if failed:
                raise exc  # outside the inner handler: no chain to the stand-in's error
            if not made:
                common.declined("torchvision.datasets." + type(self).__name__, why)
                raise
        else:
            if common.FETCH:
                common.fetched("torchvision.datasets." + type(self).__name__)

    common.mark(__init__)
    klass.__init__ = __init__


def _plain(function):
    def make(self, values, why, original, args, kwargs):
        return function(self, values, why)

    return make


def _image_folder(self, values, why, original, args, kwargs):
    classes = _folder_classes(values.get("root"))
    per_class = 2 if classes == 1000 else 20
    extension = ".JPEG" if classes == 1000 else ".png"
    tree = _image_tree("ImageFolder", classes, per_class, (80, 96), extension)
    values = dict(values)
    given = values.pop("root", None)
    values.pop("self", None)
    original(self, tree, **values)
    self.root = given if isinstance(given, common.TEXT) else tree
    samples = getattr(self, "samples", None) or self.imgs  # `imgs` alone before 0.2.1
    arrays = {"image": _Shape([80, 96, 3], "uint8"), "samples": samples}
    common.served(
        "torchvision.datasets." + type(self).__name__,
        str(given),
        arrays,
        len(self.classes),
        why,
        "%d images per class, files under %s" % (per_class, tree),
    )
    return True


def _imagenet(self, values, why, original, args, kwargs):
    folder = sys.modules["torchvision.datasets"].ImageFolder
    split = str(values.get("split") or "train")
    tree = _image_tree("ImageNet", 1000, 2, (80, 96), ".JPEG")
    extra = {k: values[k] for k in ("transform", "target_transform", "loader") if k in values}
    folder.__init__(self, tree, **extra)
    self.root, self.split = values.get("root"), split
    self.wnids = list(self.classes)
    self.wnid_to_idx = dict(self.class_to_idx)
    arrays = {"image": _Shape([80, 96, 3], "uint8"), "samples": self.samples}
    common.served("torchvision.datasets.ImageNet", split, arrays, 1000, why,
                  "2 images per class, files under %s" % tree)  # fmt: skip
    return True


class _Shape(object):
    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype


def patch_torchvision(module):
    """Patch the data set classes of torchvision.datasets."""
    table = (
        ("MNIST", _plain(_mnist)), ("CIFAR10", _plain(_cifar)), ("SVHN", _plain(_svhn_stl)),
        ("STL10", _plain(_svhn_stl)), ("ImageFolder", _image_folder), ("ImageNet", _imagenet),
    )  # fmt: skip
    for name, make in table:
        klass = getattr(module, name, None)
        if isinstance(klass, type) and "__init__" in klass.__dict__:
            _patch_init(klass, make)


def _speech_commands(self, values, why, original, args, kwargs):
    """Speech Commands v0.02 in its layout: 35 words, one-second 16 kHz clips, split lists."""
    import wave

    root = common.files_dir("SpeechCommands-root")
    folder = os.path.join(root, str(values.get("folder_in_archive") or "SpeechCommands"))
    url = str(values.get("url") or "speech_commands_v0.02")
    base = os.path.join(folder, os.path.basename(url).replace(".tar.gz", ""))
    state = common.rng("SPEECHCOMMANDS")
    if not os.path.exists(os.path.join(base, ".complete")):
        listed = {"validation_list.txt": [], "testing_list.txt": []}  # type: dict
        for word in SPEECH_WORDS:
            common.makedirs(os.path.join(base, word))
            for i in range(12):
                name = "%08x_nohash_0.wav" % (i * 7919 + len(word))
                samples = state.randint(-3000, 3000, size=16000).astype("<i2")
                clip = wave.open(os.path.join(base, word, name), "wb")  # no `with` on Python 2
                try:
                    clip.setnchannels(1)
                    clip.setsampwidth(2)
                    clip.setframerate(16000)
                    clip.writeframes(samples.tobytes())
                finally:
                    clip.close()
                if i in (10, 11):
                    key = "validation_list.txt" if i == 10 else "testing_list.txt"
                    listed[key].append(word + "/" + name)
        for key, lines in listed.items():
            with open(os.path.join(base, key), "w") as out:
                out.write("\n".join(lines) + "\n")
        open(os.path.join(base, ".complete"), "w").close()
    values = dict(values)
    values.pop("self", None)
    values["root"], values["download"] = root, False
    original(self, **values)
    arrays = {"waveform": _Shape([1, 16000], "float32"), "clips": list(range(len(self)))}
    common.served(
        "torchaudio.datasets.SPEECHCOMMANDS",
        str(values.get("subset")),
        arrays,
        len(SPEECH_WORDS),
        why,
        "12 clips per word, files under %s" % base,
    )
    return True


def patch_torchaudio(module):
    """Patch the data set classes of torchaudio.datasets."""
    klass = getattr(module, "SPEECHCOMMANDS", None)
    if isinstance(klass, type) and "__init__" in klass.__dict__:
        _patch_init(klass, _speech_commands)
