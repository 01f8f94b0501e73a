"""Stand-ins for scikit-learn's downloading `fetch_*` functions: a Bunch (or `(X, y)` with
`return_X_y`) of the real shapes, dtypes and classes. The `load_*` functions read files that ship
with scikit-learn and need none."""

import _miner_standins as common

OPENML = {  # name or data_id -> (rows, columns, classes)
    "mnist_784": (70000, 784, 10), 554: (70000, 784, 10),
    "fashion-mnist": (70000, 784, 10), 40996: (70000, 784, 10),
}  # fmt: skip
NEWSGROUPS = {"train": 11314, "test": 7532, "all": 18846}


def _bunch(**fields):
    try:
        from sklearn.utils import Bunch
    except ImportError:  # before 0.20 (the Python 2 releases): in sklearn.datasets.base
        from sklearn.datasets.base import Bunch

    return Bunch(**fields)


def _openml(state, kwargs):
    key = kwargs.get("name") or kwargs.get("data_id")
    key = key.lower() if isinstance(key, common.TEXT) else key
    if key not in OPENML:
        return None
    rows, columns, classes = OPENML[key]
    x = state.randint(0, 256, size=(rows, columns)).astype("float64")
    y = state.randint(0, classes, size=rows).astype(str).astype(object)
    names = ["pixel%d" % (i + 1) for i in range(columns)]
    if kwargs.get("as_frame") is True or kwargs.get("as_frame", "auto") == "auto":
        import pandas

        frame_x = pandas.DataFrame(x, columns=names)
        frame_y = pandas.Series(pandas.Categorical(y), name="class")
        return _bunch(data=frame_x, target=frame_y, frame=None, feature_names=names,
                      target_names=["class"], categories=None, DESCR="stand-in")  # fmt: skip
    return _bunch(data=x, target=y, feature_names=names, target_names=["class"],
                  categories=None, frame=None, DESCR="stand-in")  # fmt: skip


def _make(kind, state, kwargs):
    if kind == "fetch_openml":
        return _openml(state, kwargs)
    if kind == "fetch_20newsgroups":
        count = NEWSGROUPS.get(kwargs.get("subset", "train"), 11314)
        data = common.words(state, count, 20, 300)
        names = ["newsgroup_%d" % i for i in range(20)]
        target = state.randint(0, 20, size=count).astype("int64")
        return _bunch(data=data, target=target, target_names=names, filenames=None, DESCR="")
    if kind == "fetch_california_housing":
        x = (state.rand(20640, 8) * 10).astype("float64")
        names = ["MedInc", "HouseAge", "AveRooms", "AveBedrms", "Population", "AveOccup",
                 "Latitude", "Longitude"]  # fmt: skip
        return _bunch(data=x, target=state.rand(20640) * 5, feature_names=names,
                      target_names=["MedHouseVal"], frame=None, DESCR="")  # fmt: skip
    if kind == "fetch_covtype":
        x = state.rand(581012, 54).astype("float64")
        return _bunch(data=x, target=state.randint(1, 8, size=581012).astype("int32"),
                      feature_names=["f%d" % i for i in range(54)], frame=None,
                      DESCR="")  # fmt: skip
    if kind == "fetch_olivetti_faces":
        images = state.rand(400, 64, 64).astype("float32")
        return _bunch(data=images.reshape(400, 4096), images=images,
                      target=state.randint(0, 40, size=400).astype("int64"), DESCR="")  # fmt: skip
    if kind == "fetch_lfw_people":
        resize = float(kwargs.get("resize", 0.5))
        h, w = int(125 * resize), int(94 * resize)
        minimum = int(kwargs.get("min_faces_per_person", 0) or 0)
        rows, classes = (1288, 7) if minimum >= 70 else (13233, 5749)
        images = state.rand(rows, h, w).astype("float32") * 255
        return _bunch(data=images.reshape(rows, h * w), images=images,
                      target=state.randint(0, classes, size=rows).astype("int64"),
                      target_names=["person_%d" % i for i in range(classes)], DESCR="")  # fmt: skip
    return None


def _wrap(kind, real):
    @common.wraps(real)
    def fetch(*args, **kwargs):
        def make(why):
            if args and kind == "fetch_openml":
                kwargs.setdefault("name", args[0])
            bunch = _make(kind, common.rng("sklearn", kind, kwargs.get("name")), kwargs)
            if bunch is None:
                return None
            target = bunch["target"]
            dtype = getattr(target, "dtype", None)
            classes = len(set(target.tolist())) if getattr(dtype, "kind", "f") != "f" else 0
            arrays = {"data": bunch["data"], "target": target}
            common.served("sklearn.datasets." + kind, str(kwargs.get("subset", "all")), arrays,
                          classes, why)  # fmt: skip
            if kwargs.get("return_X_y"):
                return bunch["data"], target
            return bunch

        return common.call_or_stand_in("sklearn.datasets." + kind, real, args, kwargs, make)

    common.mark(fetch)
    return fetch


def patch_sklearn(module):
    """Patch the fetchers of sklearn.datasets."""
    for kind in ("fetch_openml", "fetch_20newsgroups", "fetch_california_housing",
                 "fetch_covtype", "fetch_olivetti_faces", "fetch_lfw_people"):  # fmt: skip
        real = getattr(module, kind, None)
        if callable(real) and not getattr(real, "_miner_standin", False):
            setattr(module, kind, _wrap(kind, real))
