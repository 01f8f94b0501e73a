"""A stand-in for TensorFlow 1's tutorial MNIST loader, `input_data.read_data_sets(train_dir,
one_hot=...)` (`tensorflow.examples.tutorials.mnist` and the contrib module it re-exports), which
most TensorFlow 1 projects of 2016 to 2019 train on: when the download fails, the three splits
(55,000 training, 5,000 validation by default, 10,000 test images of 28 x 28, ten classes) come
back as the module's own `DataSet` objects, so `next_batch`, `images`, `labels` and
`num_examples` behave as they do on the real files."""

import collections

import _miner_standins as common

TRAIN, TEST, SIDE, CLASSES = 60000, 10000, 28, 10


def _arrays(state, count):
    images = state.randint(0, 256, size=(count, SIDE, SIDE, 1)).astype("uint8")
    labels = state.randint(0, CLASSES, size=count).astype("uint8")
    return images, labels


def _one_hot(labels):
    import numpy

    out = numpy.zeros((len(labels), CLASSES), dtype="float64")
    out[numpy.arange(len(labels)), labels] = 1
    return out


class _DataSet(object):
    """The tutorial `DataSet`'s interface, where the module has none of its own."""

    def __init__(self, images, labels, reshape=True, **_):
        import numpy

        if reshape:
            images = images.reshape(images.shape[0], SIDE * SIDE)
        self._images = numpy.multiply(images.astype("float32"), 1.0 / 255.0)
        self._labels = labels
        self._num_examples = images.shape[0]
        self._epochs_completed = 0
        self._index_in_epoch = 0

    images = property(lambda self: self._images)
    labels = property(lambda self: self._labels)
    num_examples = property(lambda self: self._num_examples)
    epochs_completed = property(lambda self: self._epochs_completed)

    def next_batch(self, batch_size, fake_data=False, shuffle=True):
        start = self._index_in_epoch
        if start + batch_size > self._num_examples:
            self._epochs_completed += 1
            start = 0
        self._index_in_epoch = start + batch_size
        end = self._index_in_epoch
        return self._images[start:end], self._labels[start:end]


def _datasets(module):
    """The module's `Datasets` triple (in `base`, or its own), else a namedtuple of the same."""
    for owner in (module, getattr(module, "base", None)):
        found = getattr(owner, "Datasets", None) if owner is not None else None
        if found is not None:
            return found
    return collections.namedtuple("Datasets", ["train", "validation", "test"])


def _read_data_sets(module, real):
    @common.wraps(real)
    def read_data_sets(*args, **kwargs):
        def make(why):
            one_hot = kwargs.get("one_hot", args[2] if len(args) > 2 else False)
            reshape = kwargs.get("reshape", args[4] if len(args) > 4 else True)
            validation = int(kwargs.get("validation_size", args[5] if len(args) > 5 else 5000))
            state = common.rng("tensorflow", "mnist")
            train_images, train_labels = _arrays(state, TRAIN)
            test_images, test_labels = _arrays(state, TEST)
            if one_hot:
                train_labels, test_labels = _one_hot(train_labels), _one_hot(test_labels)
            data_set = getattr(module, "DataSet", None) or _DataSet
            options = {"reshape": reshape}
            if "dtype" in kwargs:
                options["dtype"] = kwargs["dtype"]
            train = data_set(train_images[validation:], train_labels[validation:], **options)
            held = data_set(train_images[:validation], train_labels[:validation], **options)
            test = data_set(test_images, test_labels, **options)
            common.served(
                "tensorflow.examples.tutorials.mnist.input_data.read_data_sets",
                "train+validation+test",
                {"train_images": train.images, "train_labels": train.labels,
                 "validation_images": held.images, "test_images": test.images},
                CLASSES, why,
            )  # fmt: skip
            return _datasets(module)(train=train, validation=held, test=test)

        return common.call_or_stand_in(
            "tensorflow.examples.tutorials.mnist.input_data.read_data_sets",
            real, args, kwargs, make,
        )  # fmt: skip

    common.mark(read_data_sets)
    return read_data_sets


def patch_tf_mnist(module):
    """Patch `read_data_sets` of the tutorial module, or of the contrib module it imports."""
    real = module.__dict__.get("read_data_sets")
    if callable(real) and not getattr(real, "_miner_standin", False):
        module.read_data_sets = _read_data_sets(module, real)
