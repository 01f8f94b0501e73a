"""Stand-ins for `keras.datasets` (Keras 2 and 3, tf.keras, tensorflow.python.keras): each
module's `load_data` (and `get_word_index`) returns NumPy arrays of the real shapes, dtypes and
splits when the real one cannot reach its file."""

import _miner_standins as common

IMDB_WORDS = 88584
REUTERS_WORDS = 30979


def _images(kind, train, test, shape, classes, label_shape):
    state = common.rng("keras", kind)

    def split(count):
        x = state.randint(0, 256, size=(count,) + shape).astype("uint8")
        y = state.randint(0, classes, size=(count,) + label_shape).astype("uint8")
        return x, y

    return split(train), split(test)


def _sequences(state, count, classes, num_words, maxlen, skip_top, start_char, index_from,
               total, mean):  # fmt: skip
    import numpy

    index_from, skip_top = index_from or 0, skip_top or 0
    top = int(num_words or total + index_from)
    lowest = max(index_from, skip_top + index_from if skip_top else index_from)
    lengths = numpy.clip(state.poisson(mean, size=count), 5, None)
    if maxlen:
        lengths = numpy.minimum(lengths, int(maxlen))
    x = numpy.empty(count, dtype=object)
    for i, n in enumerate(lengths):
        body = state.randint(lowest, max(lowest + 1, top), size=int(n) - 1).tolist()
        x[i] = ([start_char] if start_char is not None else []) + body
    y = state.randint(0, classes, size=count).astype("int64")
    return x, y


def _text(kind, kwargs):
    state = common.rng("keras", kind)
    args = {
        "num_words": kwargs.get("num_words"), "maxlen": kwargs.get("maxlen"),
        "skip_top": kwargs.get("skip_top", 0), "start_char": kwargs.get("start_char", 1),
        "index_from": kwargs.get("index_from", 3),
    }  # fmt: skip
    if kind == "imdb":
        train = _sequences(state, 25000, 2, total=IMDB_WORDS, mean=230, **args)
        test = _sequences(state, 25000, 2, total=IMDB_WORDS, mean=230, **args)
        return (train, test), 2
    share = float(kwargs.get("test_split", 0.2))
    total = 11228
    test_count = int(total * share)
    train = _sequences(state, total - test_count, 46, total=REUTERS_WORDS, mean=145, **args)
    test = _sequences(state, test_count, 46, total=REUTERS_WORDS, mean=145, **args)
    return (train, test), 46


def _housing(kind, kwargs):
    state = common.rng("keras", kind)
    rows, columns = (506, 13) if kind == "boston_housing" else (20640, 8)
    if kind == "california_housing" and kwargs.get("version", "large") == "small":
        rows = 600
    test = int(rows * float(kwargs.get("test_split", 0.2)))
    dtype = "float64" if kind == "boston_housing" else "float32"
    x = (state.rand(rows, columns) * 100).astype(dtype)
    y = (state.rand(rows) * 50).astype(dtype)
    return ((x[: rows - test], y[: rows - test]), (x[rows - test :], y[rows - test :])), 0


def _make(kind, kwargs):
    if kind in ("mnist", "fashion_mnist"):
        return _images(kind, 60000, 10000, (28, 28), 10, ()), 10
    if kind == "cifar10":
        return _images(kind, 50000, 10000, (32, 32, 3), 10, (1,)), 10
    if kind == "cifar100":
        classes = 20 if kwargs.get("label_mode") == "coarse" else 100
        return _images(kind, 50000, 10000, (32, 32, 3), classes, (1,)), classes
    if kind in ("imdb", "reuters"):
        return _text(kind, kwargs)
    return _housing(kind, kwargs)


def _load_data(kind, real):
    loader = "keras.datasets.%s.load_data" % kind

    @common.wraps(real)
    def load_data(*args, **kwargs):
        def make(why):
            (train, test), classes = _make(kind, kwargs)
            arrays = {"x_train": train[0], "y_train": train[1], "x_test": test[0],
                      "y_test": test[1]}  # fmt: skip
            common.served(loader, "train+test", arrays, classes, why)
            return train, test

        return common.call_or_stand_in(loader, real, args, kwargs, make)

    common.mark(load_data)
    return load_data


def _word_index(kind, real):
    loader = "keras.datasets.%s.get_word_index" % kind

    @common.wraps(real)
    def get_word_index(*args, **kwargs):
        def make(why):
            count = IMDB_WORDS if kind == "imdb" else REUTERS_WORDS
            index = {"w%d" % i: i for i in range(1, count + 1)}
            common.served(loader, "index", {"word_index": list(index)}, 0, why)
            return index

        return common.call_or_stand_in(loader, real, args, kwargs, make)

    common.mark(get_word_index)
    return get_word_index


def patch_keras_module(module):
    """Patch one `...datasets.<name>` module of Keras."""
    kind = module.__name__.rsplit(".", 1)[-1]
    for name, wrap in (("load_data", _load_data), ("get_word_index", _word_index)):
        real = module.__dict__.get(name)
        if callable(real) and not getattr(real, "_miner_standin", False):
            setattr(module, name, wrap(kind, real))
