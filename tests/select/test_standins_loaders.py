"""Each known loader's stand-in, in a real child process with the hook and no network: the
shapes, dtypes, classes and splits the real loader gives, and the report that says so.

A library that is not installed here is skipped with its reason. MINER_TEST_VISION_PYTHON names
an interpreter with torchvision (its wheel must match the installed torch build) to run the
torchvision test on."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from standin_runner import need, run_hooked

VISION_PYTHON = os.environ.get("MINER_TEST_VISION_PYTHON") or sys.executable

TORCHVISION = """
import json, torch
from torchvision import datasets, transforms
tr = datasets.MNIST("./data", train=True, download=True, transform=transforms.ToTensor())
te = datasets.FashionMNIST("./data", train=False)
c10 = datasets.CIFAR10(root="./data", train=True, download=True, transform=transforms.ToTensor())
c100 = datasets.CIFAR100(root="./data", train=False, download=True)
svhn = datasets.SVHN("./data", split="test", download=True)
folder = datasets.ImageFolder("./data/tiny-imagenet/train", transform=transforms.Compose(
    [transforms.RandomResizedCrop(32), transforms.ToTensor()]))
x, y = tr[0]
batch, labels = next(iter(torch.utils.data.DataLoader(tr, batch_size=8)))
print("RESULT " + json.dumps({
    "mnist": [len(tr), list(x.shape), str(x.dtype), int(y)], "batch": list(batch.shape),
    "labels": str(labels.dtype), "fashion": [len(te), list(te.data.shape), str(te.data.dtype)],
    "cifar10": [len(c10), list(c10[0][0].shape), list(c10.data.shape), str(c10.data.dtype),
                len(c10.classes)],
    "cifar100": [len(c100), max(c100.targets)], "svhn": [len(svhn), list(svhn.data.shape)],
    "folder": [len(folder.classes), list(folder[0][0].shape)],
}))
"""


def test_torchvision_data_sets(tmp_path):
    need("torchvision", VISION_PYTHON)
    result, assists, output = run_hooked(TORCHVISION, tmp_path, python=VISION_PYTHON)
    assert result["_exit"] == 0, output
    assert result["mnist"][:3] == [60000, [1, 28, 28], "torch.float32"]
    assert 0 <= result["mnist"][3] < 10
    assert result["batch"] == [8, 1, 28, 28] and result["labels"] == "torch.int64"
    assert result["fashion"] == [10000, [10000, 28, 28], "torch.uint8"]
    assert result["cifar10"] == [50000, [3, 32, 32], [50000, 32, 32, 3], "uint8", 10]
    assert result["cifar100"][0] == 10000 and result["cifar100"][1] < 100
    assert result["svhn"] == [26032, [26032, 3, 32, 32]]
    assert result["folder"] == [1000, [3, 32, 32]]  # an ImageNet-style path: 1000 classes
    served = {s.loader: s for s in assists.served}
    assert set(served) == {
        f"torchvision.datasets.{n}"
        for n in ("MNIST", "FashionMNIST", "CIFAR10", "CIFAR100", "SVHN", "ImageFolder")
    }
    mnist = served["torchvision.datasets.MNIST"]
    assert mnist.split == "train" and mnist.classes == 10
    assert ("data", (60000, 28, 28), "torch.uint8") in mnist.arrays
    assert "Dataset not found" in served["torchvision.datasets.FashionMNIST"].reason
    assert assists.labels == ("stand-in data",)


KERAS = """
import json
from keras.datasets import mnist, cifar10, cifar100, imdb, reuters, boston_housing
(x, y), (xt, yt) = mnist.load_data()
(cx, cy), (cxt, cyt) = cifar10.load_data()
(px, py), _ = cifar100.load_data(label_mode="coarse")
(ix, iy), (ixt, iyt) = imdb.load_data(num_words=5000, maxlen=100)
(sx, sy), _ = imdb.load_data(num_words=5000, start_char=None, oov_char=None, index_from=None)
(rx, ry), (rxt, ryt) = reuters.load_data(num_words=1000, test_split=0.2)
(bx, by), (bxt, byt) = boston_housing.load_data()
words = imdb.get_word_index()
print("RESULT " + json.dumps({
    "mnist": [list(x.shape), str(x.dtype), list(y.shape), str(y.dtype), list(xt.shape),
              int(y.max())],
    "cifar10": [list(cx.shape), list(cy.shape), list(cxt.shape)],
    "cifar100_coarse": int(py.max()),
    "imdb": [len(ix), len(ixt), max(len(s) for s in ix), max(max(s) for s in ix), ix[0][0],
             sorted(set(int(v) for v in iy))],
    "imdb_no_start": min(min(s) for s in sx) >= 0,
    "reuters": [len(rx) + len(rxt), len(rxt), int(ry.max())],
    "boston": [list(bx.shape), str(bx.dtype), list(bxt.shape)],
    "words": len(words),
}))
"""


def test_keras_data_sets(tmp_path):
    need("keras")
    result, assists, output = run_hooked(KERAS, tmp_path)
    assert result["_exit"] == 0, output
    assert result["mnist"] == [[60000, 28, 28], "uint8", [60000], "uint8", [10000, 28, 28], 9]
    assert result["cifar10"] == [[50000, 32, 32, 3], [50000, 1], [10000, 32, 32, 3]]
    assert result["cifar100_coarse"] == 19
    imdb = result["imdb"]
    assert imdb[:2] == [25000, 25000] and imdb[2] <= 100 and imdb[3] < 5000
    assert imdb[4] == 1 and imdb[5] == [0, 1]  # start_char 1; two classes
    assert result["imdb_no_start"]
    assert result["reuters"] == [11228, 2245, 45]
    assert result["boston"] == [[405, 13], "float64", [101, 13]]
    assert result["words"] == 88584
    loaders = {s.loader for s in assists.served}
    assert "keras.datasets.mnist.load_data" in loaders
    assert "keras.datasets.imdb.get_word_index" in loaders
    assert all("URL fetch failure" in s.reason or "Error" in s.reason for s in assists.served)


SKLEARN = """
import json
from sklearn.datasets import fetch_openml, fetch_20newsgroups, fetch_california_housing, load_iris
X, y = fetch_openml("mnist_784", version=1, return_X_y=True, as_frame=False)
news = fetch_20newsgroups(subset="test", data_home="./sk")
housing = fetch_california_housing(data_home="./sk")
try:
    fetch_openml("no-such-set-anywhere", version=1)
    unknown = "served"
except Exception as exc:
    unknown = type(exc).__name__
try:
    fetch_20newsgroups(subset="train", no_such_argument=1)
    wrong = "served"
except TypeError:
    wrong = "TypeError"
print("RESULT " + json.dumps({
    "openml": [list(X.shape), str(X.dtype), len(set(y.tolist()))],
    "news": [len(news.data), len(news.target_names), isinstance(news.data[0], str)],
    "housing": [list(housing.data.shape), list(housing.target.shape), housing.feature_names[0]],
    "iris": list(load_iris().data.shape), "unknown": unknown, "wrong": wrong,
}))
"""


def test_scikit_learn_fetchers(tmp_path):
    need("sklearn")
    result, assists, output = run_hooked(SKLEARN, tmp_path)
    assert result["_exit"] == 0, output
    assert result["openml"] == [[70000, 784], "float64", 10]
    assert result["news"] == [7532, 20, True]
    assert result["housing"] == [[20640, 8], [20640], "MedInc"]
    assert result["iris"] == [150, 4]  # shipped with scikit-learn: never stood in for
    assert result["unknown"] != "served"  # a data set the table does not know is declined
    assert result["wrong"] == "TypeError"  # the project's own mistake is not covered up
    loaders = [s.loader for s in assists.served]
    assert loaders == [
        "sklearn.datasets.fetch_openml", "sklearn.datasets.fetch_20newsgroups",
        "sklearn.datasets.fetch_california_housing",
    ]  # fmt: skip
    assert any("fetch_openml" in d for d in assists.declined)


HUB = """
import json
import datasets
glue = datasets.load_dataset("glue", "mrpc")
imdb = datasets.load_dataset("imdb", split="train[:10%]")
cifar = datasets.load_dataset("cifar10", split="test")
try:
    datasets.load_dataset("someone/not-a-known-set")
    unknown = "served"
except Exception as exc:
    unknown = type(exc).__name__
print("RESULT " + json.dumps({
    "glue": [sorted(glue), glue["train"].column_names, glue["train"].features["label"].names],
    "imdb": [imdb.num_rows, imdb.features["label"].names, isinstance(imdb[0]["text"], str)],
    "cifar": [list(cifar[0]["img"].size), cifar[0]["img"].mode,
              cifar.features["label"].num_classes],
    "unknown": unknown,
}))
"""


def test_hugging_face_load_dataset(tmp_path):
    need("datasets")
    result, assists, output = run_hooked(HUB, tmp_path)
    assert result["_exit"] == 0, output
    assert result["glue"][0] == ["test", "train", "validation"]
    assert result["glue"][1] == ["sentence1", "sentence2", "label", "idx"]
    assert result["glue"][2] == ["0", "1"] or len(result["glue"][2]) == 2
    assert result["imdb"] == [2000, ["neg", "pos"], True]
    assert result["cifar"] == [[32, 32], "RGB", 10]
    assert result["unknown"] != "served"
    assert any("not-a-known-set" in d for d in assists.declined)
    assert {s.split for s in assists.served if "glue" in s.loader} == {
        "train",
        "validation",
        "test",
    }


TFDS = """
import json
import tensorflow_datasets as tfds
train, info = tfds.load("mnist", split="train", as_supervised=True, with_info=True)
image, label = next(iter(train))
print("RESULT " + json.dumps({"image": list(image.shape), "dtype": image.dtype.name,
                              "classes": info.features["label"].num_classes}))
"""


def test_tensorflow_datasets_load(tmp_path):
    need("tensorflow_datasets")
    result, assists, output = run_hooked(TFDS, tmp_path)
    assert result["_exit"] == 0, output
    assert result == {"image": [28, 28, 1], "dtype": "uint8", "classes": 10, "_exit": 0}
    assert [s.loader for s in assists.served] == ["tensorflow_datasets.load('mnist')"]


def test_without_the_hook_the_loader_fails_as_it_would(tmp_path):
    need("sklearn")
    script = "from sklearn.datasets import fetch_20newsgroups\nfetch_20newsgroups(data_home='.')\n"
    result, assists, output = run_hooked(script, tmp_path, stand_ins=False)
    assert result["_exit"] != 0
    assert assists.served == () and "stand-in" not in output


# Old interpreters run the hook too (sys.argv is not set yet while site runs on 3.6 and 3.7).
OLD_PYTHONS = sorted(str(p) for p in Path.home().glob(".pyenv/versions/3.[67].*/bin/python"))


@pytest.mark.parametrize("python", sorted({sys.executable, VISION_PYTHON, *OLD_PYTHONS}))
def test_the_hook_alone_imports_nothing_heavy(tmp_path, python):
    script = "import sys, json\nprint('RESULT ' + json.dumps({'heavy': sorted(m for m in "
    script += "sys.modules if m in ('numpy', 'torch', 'keras', 'sklearn', 'datasets'))}))\n"
    result, assists, output = run_hooked(script, tmp_path, cpu_shim=True, python=python)
    assert result["_exit"] == 0, output
    assert result["heavy"] == [] and "Error in sitecustomize" not in output


# The tutorial loader as projects of 2016 copied it beside their code (TensorFlow's
# `tensorflow/examples/tutorials/mnist/input_data.py`, its download and `DataSet` kept).
TF_INPUT_DATA = """
import gzip, os, urllib.request
import numpy
SOURCE_URL = "https://storage.googleapis.com/cvdf-datasets/mnist/"


def maybe_download(filename, work_directory):
    if not os.path.exists(work_directory):
        os.mkdir(work_directory)
    filepath = os.path.join(work_directory, filename)
    if not os.path.exists(filepath):
        filepath, _ = urllib.request.urlretrieve(SOURCE_URL + filename, filepath)
    return filepath


class DataSet(object):
    def __init__(self, images, labels, fake_data=False, one_hot=False, dtype="float32",
                 reshape=True):
        assert images.shape[0] == labels.shape[0]
        self._num_examples = images.shape[0]
        if reshape:
            images = images.reshape(images.shape[0], images.shape[1] * images.shape[2])
        images = numpy.multiply(images.astype(numpy.float32), 1.0 / 255.0)
        self._images, self._labels = images, labels
        self._epochs_completed, self._index_in_epoch = 0, 0

    @property
    def images(self):
        return self._images

    @property
    def labels(self):
        return self._labels

    @property
    def num_examples(self):
        return self._num_examples

    def next_batch(self, batch_size):
        start = self._index_in_epoch
        self._index_in_epoch += batch_size
        return self._images[start:self._index_in_epoch], self._labels[start:self._index_in_epoch]


def read_data_sets(train_dir, fake_data=False, one_hot=False, dtype="float32", reshape=True,
                   validation_size=5000):
    local_file = maybe_download("train-images-idx3-ubyte.gz", train_dir)
    raise RuntimeError("unreachable in this test: " + local_file)
"""
TF_MNIST = """
import json
import input_data
mnist = input_data.read_data_sets("MNIST_data/", one_hot=True)
x, y = mnist.train.next_batch(100)
dense = input_data.read_data_sets("MNIST_data/", validation_size=0, reshape=False)
print("RESULT " + json.dumps({
    "train": [mnist.train.num_examples, list(mnist.train.images.shape), str(x.dtype)],
    "batch": [list(x.shape), list(y.shape), float(y.sum())],
    "validation": mnist.validation.num_examples, "test": list(mnist.test.images.shape),
    "dense": [dense.train.num_examples, list(dense.train.images.shape),
              dense.validation.num_examples, int(dense.train.labels.max())],
    "type": type(mnist.train).__module__,
}))
"""


def test_tensorflow_tutorial_mnist_copied_beside_the_code(tmp_path):
    need("numpy")
    (tmp_path / "work").mkdir()
    (tmp_path / "work" / "input_data.py").write_text(TF_INPUT_DATA, encoding="utf-8")
    result, assists, output = run_hooked(TF_MNIST, tmp_path)
    assert result["_exit"] == 0, output
    assert result["train"] == [55000, [55000, 784], "float32"]
    assert result["batch"] == [[100, 784], [100, 10], 100.0]  # one-hot rows
    assert result["validation"] == 5000 and result["test"] == [10000, 784]
    assert result["dense"] == [60000, [60000, 28, 28, 1], 0, 9]
    assert result["type"] == "input_data"  # the project's own DataSet class
    (served,) = {s.loader: s for s in assists.served}.values()
    assert served.loader.endswith("input_data.read_data_sets") and served.classes == 10
    assert "URLError" in served.reason or "Connection" in served.reason
