"""Stand-ins for Hugging Face `datasets.load_dataset` and `tensorflow_datasets.load`: the
columns, feature types, label names and splits of the data sets the mined code names most, with
a few thousand rows each. A name not in the table is declined (recorded, the real error raised)."""

import _miner_standins as common

ROWS = 2000  # rows per split (the real count is recorded)
TEXT = ("text", "string")


def _label(names):
    return ("label", names)


GLUE = {  # config -> columns, label names, splits
    "cola": (["sentence"], 2, ("train", "validation", "test")),
    "sst2": (["sentence"], 2, ("train", "validation", "test")),
    "mrpc": (["sentence1", "sentence2"], 2, ("train", "validation", "test")),
    "qqp": (["question1", "question2"], 2, ("train", "validation", "test")),
    "stsb": (["sentence1", "sentence2"], 0, ("train", "validation", "test")),
    "mnli": (["premise", "hypothesis"], 3,
             ("train", "validation_matched", "validation_mismatched", "test_matched",
              "test_mismatched")),
    "qnli": (["question", "sentence"], 2, ("train", "validation", "test")),
    "rte": (["sentence1", "sentence2"], 2, ("train", "validation", "test")),
    "wnli": (["sentence1", "sentence2"], 2, ("train", "validation", "test")),
}  # fmt: skip
# name -> (columns [(name, kind)], splits {split: real rows}); kind: string, image:HxWxC,
# a list of label names, or int:N for N classes without names
HF = {
    "mnist": ([("image", "image:28x28x1"), ("label", "int:10")], {"train": 60000, "test": 10000}),
    "fashion_mnist": ([("image", "image:28x28x1"), ("label", "int:10")],
                      {"train": 60000, "test": 10000}),
    "cifar10": ([("img", "image:32x32x3"), ("label", "int:10")], {"train": 50000, "test": 10000}),
    "cifar100": ([("img", "image:32x32x3"), ("fine_label", "int:100"),
                  ("coarse_label", "int:20")], {"train": 50000, "test": 10000}),
    "beans": ([("image_file_path", "string"), ("image", "image:500x500x3"), ("labels", "int:3")],
              {"train": 1034, "validation": 133, "test": 128}),
    "imdb": ([TEXT, _label(["neg", "pos"])],
             {"train": 25000, "test": 25000, "unsupervised": 50000}),
    "rotten_tomatoes": ([TEXT, _label(["neg", "pos"])],
                        {"train": 8530, "validation": 1066, "test": 1066}),
    "ag_news": ([TEXT, _label(["World", "Sports", "Business", "Sci/Tech"])],
                {"train": 120000, "test": 7600}),
    "yelp_polarity": ([TEXT, _label(["1", "2"])], {"train": 560000, "test": 38000}),
    "emotion": ([TEXT, _label(["sadness", "joy", "love", "anger", "fear", "surprise"])],
                {"train": 16000, "validation": 2000, "test": 2000}),
    "wikitext": ([TEXT], {"train": 36718, "validation": 3760, "test": 4358}),
    "gsm8k": ([("question", "string"), ("answer", "string")], {"train": 7473, "test": 1319}),
    "xnli": ([("premise", "string"), ("hypothesis", "string"),
              ("label", ["entailment", "neutral", "contradiction"])],
             {"train": 392702, "validation": 2490, "test": 5010}),
    "cnn_dailymail": ([("article", "string"), ("highlights", "string"), ("id", "string")],
                      {"train": 287113, "validation": 13368, "test": 11490}),
    "tatsu-lab/alpaca": ([("instruction", "string"), ("input", "string"), ("output", "string"),
                          ("text", "string")], {"train": 52002}),
    "yahma/alpaca-cleaned": ([("output", "string"), ("input", "string"),
                              ("instruction", "string")], {"train": 51760}),
    "timdettmers/openassistant-guanaco": ([("text", "string")], {"train": 9846, "test": 518}),
    "anthropic/hh-rlhf": ([("chosen", "string"), ("rejected", "string")],
                          {"train": 160800, "test": 8552}),
    "samsum": ([("id", "string"), ("dialogue", "string"), ("summary", "string")],
               {"train": 14732, "validation": 818, "test": 819}),
}  # fmt: skip
ALIASES = {"openai/gsm8k": "gsm8k", "stanfordnlp/imdb": "imdb", "samsung/samsum": "samsum",
           "ylecun/mnist": "mnist", "uoft-cs/cifar10": "cifar10", "uoft-cs/cifar100": "cifar100",
           "zalando-datasets/fashion_mnist": "fashion_mnist", "nyu-mll/glue": "glue",
           "salesforce/wikitext": "wikitext", "fancyzhx/ag_news": "ag_news",
           "cornell-movie-review-data/rotten_tomatoes": "rotten_tomatoes",
           "dair-ai/emotion": "emotion", "fancyzhx/yelp_polarity": "yelp_polarity"}  # fmt: skip
TFDS = {  # name -> (image shape, classes, {split: rows}) or text
    "mnist": ((28, 28, 1), 10, {"train": 60000, "test": 10000}),
    "fashion_mnist": ((28, 28, 1), 10, {"train": 60000, "test": 10000}),
    "cifar10": ((32, 32, 3), 10, {"train": 50000, "test": 10000}),
    "cifar100": ((32, 32, 3), 100, {"train": 50000, "test": 10000}),
    "imdb_reviews": (None, 2, {"train": 25000, "test": 25000, "unsupervised": 50000}),
}  # fmt: skip


def _hf_table(path, name):
    key = str(path).lower()
    key = ALIASES.get(key, key)
    if key == "glue" and name in GLUE:
        columns, classes, splits = GLUE[name]
        kinds = [(c, "string") for c in columns]
        kinds.append(("label", "float" if classes == 0 else "int:%d" % classes))
        kinds.append(("idx", "int32"))
        return key + "/" + name, kinds, dict.fromkeys(splits, 5000)
    if key in HF:
        return (key,) + HF[key]
    return None


def _column(state, kind, rows):
    if kind == "string":
        return common.words(state, rows, 8, 80)
    if kind == "float":
        return (state.rand(rows) * 5).tolist()
    if kind == "int32":
        return list(range(rows))
    if isinstance(kind, list):
        return state.randint(0, len(kind), size=rows).tolist()
    if kind.startswith("int:"):
        return state.randint(0, int(kind[4:]), size=rows).tolist()
    h, w, c = (int(v) for v in kind[6:].split("x"))
    from PIL import Image

    mode = "L" if c == 1 else "RGB"
    shape = (h, w) if c == 1 else (h, w, c)
    return [Image.fromarray(state.randint(0, 256, size=shape).astype("uint8"), mode)
            for _ in range(rows)]  # fmt: skip


def _features(datasets, columns):
    out = {}
    for name, kind in columns:
        if kind == "string":
            out[name] = datasets.Value("string")
        elif kind == "float":
            out[name] = datasets.Value("float32")
        elif kind == "int32":
            out[name] = datasets.Value("int32")
        elif isinstance(kind, list):
            out[name] = datasets.ClassLabel(names=kind)
        elif kind.startswith("int:"):
            out[name] = datasets.ClassLabel(num_classes=int(kind[4:]))
        else:
            out[name] = datasets.Image()
    return datasets.Features(out)


def _hf_make(datasets, path, name, split, kwargs, why):
    table = _hf_table(path, name)
    if table is None:
        return None
    key, columns, splits = table
    wanted = None
    if split is not None:
        wanted = str(split).split("[")[0].split("+")[0]  # "train[:10%]" -> "train"
        if wanted not in splits:
            return None
    features = _features(datasets, columns)
    made = {}
    for each in [wanted] if wanted else list(splits):
        rows = min(ROWS, splits[each])
        state = common.rng("hf", key, each)
        data = {c: _column(state, kind, rows) for c, kind in columns}
        made[each] = datasets.Dataset.from_dict(data, features=features)
        classes = [f.num_classes for f in features.values() if hasattr(f, "num_classes")]
        arrays = {c: _Shape([rows], str(features[c])) for c, _ in columns}
        common.served("datasets.load_dataset(%r)" % key, each, arrays,
                      classes[0] if classes else 0, why,
                      "%d of %d rows" % (rows, splits[each]))  # fmt: skip
    result = made[wanted] if wanted else datasets.DatasetDict(made)
    if kwargs.get("streaming"):
        if wanted:
            return result.to_iterable_dataset()
        return datasets.IterableDatasetDict({k: v.to_iterable_dataset() for k, v in made.items()})
    return result


class _Shape(object):
    def __init__(self, shape, dtype):
        self.shape, self.dtype = shape, dtype


def patch_hf_datasets(module):
    """Patch `datasets.load_dataset` (only Hugging Face's package: it has DatasetDict)."""
    real = getattr(module, "load_dataset", None)
    if not callable(real) or getattr(real, "_miner_standin", False):
        return
    if not hasattr(module, "DatasetDict"):
        return

    @common.wraps(real)
    def load_dataset(*args, **kwargs):
        path = args[0] if args else kwargs.get("path")
        name = args[1] if len(args) > 1 else kwargs.get("name")
        split = args[4] if len(args) > 4 else kwargs.get("split")

        def make(why):
            return _hf_make(module, path, name, split, kwargs, why)

        label = "datasets.load_dataset(%r)" % (path,)
        return common.call_or_stand_in(label, real, args, kwargs, make)

    common.mark(load_dataset)
    module.load_dataset = load_dataset
    loader = getattr(module, "load", None)
    if loader is not None and getattr(loader, "load_dataset", None) is real:
        loader.load_dataset = load_dataset


def _tfds_split(tf, name, split, rows, shape, classes, supervised):
    state = common.rng("tfds", name, split)
    labels = state.randint(0, classes, size=rows).astype("int64")
    if shape is None:
        inputs = tf.constant(common.words(state, rows, 20, 200))
        key = "text"
    else:
        inputs = state.randint(0, 256, size=(rows,) + shape).astype("uint8")
        key = "image"
    if supervised:
        return tf.data.Dataset.from_tensor_slices((inputs, labels)), inputs, labels
    return tf.data.Dataset.from_tensor_slices({key: inputs, "label": labels}), inputs, labels


class _Info(object):
    """The parts of tfds' DatasetInfo that training scripts read."""

    def __init__(self, name, classes, splits, shape):
        self.name = name
        self.splits = {s: _SplitInfo(s, n) for s, n in splits.items()}
        self.features = {"label": _ClassInfo(classes)}  # type: dict
        if shape is not None:
            self.features["image"] = _Shape(list(shape), "uint8")
        self.supervised_keys = ("image" if shape is not None else "text", "label")


class _SplitInfo(object):
    def __init__(self, name, rows):
        self.name, self.num_examples = name, rows


class _ClassInfo(object):
    def __init__(self, classes):
        self.num_classes = classes
        self.names = [str(i) for i in range(classes)]


def patch_tfds(module):
    """Patch `tensorflow_datasets.load`."""
    real = getattr(module, "load", None)
    if not callable(real) or getattr(real, "_miner_standin", False):
        return

    @common.wraps(real)
    def load(*args, **kwargs):
        name = str(args[0] if args else kwargs.get("name", "")).split(":")[0]
        label = "tensorflow_datasets.load(%r)" % name

        def make(why):
            if name not in TFDS:
                return None
            import tensorflow as tf

            shape, classes, splits = TFDS[name]
            split = kwargs.get("split")
            wanted = split if isinstance(split, (list, tuple)) else [split or None]
            out = []
            for each in wanted:
                base = str(each).split("[")[0] if each else None
                if base is not None and base not in splits:
                    return None
                names = [base] if base else list(splits)
                made = {}
                for s in names:
                    rows = min(ROWS * 5, splits[s])
                    dataset, x, y = _tfds_split(
                        tf, name, s, rows, shape, classes, kwargs.get("as_supervised", False)
                    )
                    if kwargs.get("batch_size"):
                        dataset = dataset.batch(int(kwargs["batch_size"]))
                    made[s] = dataset
                    common.served(
                        label,
                        s,
                        {"x": x, "y": y},
                        classes,
                        why,
                        "%d of %d rows" % (rows, splits[s]),
                    )
                out.append(made[base] if base else made)
            result = out if isinstance(split, (list, tuple)) else out[0]
            if kwargs.get("with_info"):
                return result, _Info(name, classes, splits, shape)
            return result

        return common.call_or_stand_in(label, real, args, kwargs, make)

    common.mark(load)
    module.load = load
