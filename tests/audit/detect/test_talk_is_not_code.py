"""Code that only talks about deep learning (docstrings, comments, strings, tests) is not deep-
learning code, while real code beside it still counts, with evidence on the right line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from conftest import Audit, run_detectors
from detect_snippets import value

import miner
from miner.models import Label

TALK = '''"""Baselines for the paper.

A CNN here would use tf.nn.conv2d or nn.Conv2d(3, 64, 3); the LSTM variant builds
nn.LSTM(128, 256) and trains with loss.backward() and optimizer.step().
"""
import numpy as np
# import torch
# import tensorflow as tf
# self.rnn = nn.LSTM(128, 256, bidirectional=True)

HELP = "model: 'cnn' uses nn.Conv2d(3, 64, 3), 'rnn' uses nn.GRU(64, 64)"
SNIPPET = """import torch.nn as nn
class Net(nn.Module):
    def __init__(self):
        self.conv1 = nn.Conv2d(1, 20, 5)
        self.lstm = nn.LSTM(20, 50)
"""


def fit(x, y):
    """Least squares, unlike `model.fit(x, y)` of keras.layers.Dense(10)."""
    return np.linalg.lstsq(x, y, rcond=None)[0]  # not loss.backward()
'''


def _line(text: str, needle: str) -> int:
    return next(n for n, line in enumerate(text.splitlines(), 1) if needle in line)


def _paths(labels: dict[str, Label], field: str) -> set[str]:
    return {e.path for e in labels[field].evidence}


def test_docstrings_comments_and_strings_about_dl_are_not_dl_code(audit: Audit) -> None:
    labels, _ = audit({"model.py": TALK, "train.py": "from model import fit\nfit(x, y)\n"})
    assert value(labels, "frameworks") == []
    assert value(labels, "primary_framework") == "none"
    assert value(labels, "network_types") == []
    assert value(labels, "is_dl") is False
    assert value(labels, "exclude") == ["not_dl"]
    assert value(labels, "training_code") is False


def test_real_code_beside_the_talk_still_counts_with_evidence_on_its_line(audit: Audit) -> None:
    code = (
        TALK.replace("import numpy as np\n", "import numpy as np\nimport tensorflow as tf\n")
        + "\n\ndef inference(images, kernel):\n"
        + "    # an LSTM would go here\n"
        + "    conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding='SAME')  # nn.LSTM\n"
        + "    return tf.nn.relu(conv)\n"
    )
    labels, _ = audit({"model.py": code})
    assert value(labels, "frameworks") == ["tensorflow"]
    assert value(labels, "network_types") == ["cnn"]
    assert value(labels, "is_dl") is True
    framework = labels["frameworks"].evidence[0]
    assert (framework.path, framework.line) == ("model.py", _line(code, "import tensorflow"))
    cnn = labels["network_types"].evidence[0]
    # the docstring names tf.nn.conv2d first, the evidence is the call, quoted as written
    assert cnn.line == _line(code, "conv = tf.nn.conv2d(") > _line(code, "tf.nn.conv2d or")
    assert (
        cnn.text == "conv = tf.nn.conv2d(images, kernel, [1, 1, 1, 1], padding='SAME')  # nn.LSTM"
    )


def test_data_strings_still_carry_commands_backends_and_checkpoint_paths(audit: Audit) -> None:
    train = (
        '"""Trains with `caffe train`; KERAS_BACKEND=cntk in the docs is not a setting."""\n'
        "import os\nimport subprocess\n"
        "os.environ['KERAS_BACKEND'] = 'theano'\n"
        "from keras.models import Sequential\nfrom keras.layers import Dense\n"
        "model = Sequential([Dense(10)])\nmodel.compile('sgd', 'mse')\n"
        "model.load_weights('weights/model.h5')\n"
    )
    labels, ctx = audit({"train.py": train})
    assert value(labels, "primary_framework") == "keras"
    assert ctx.details["keras_backend"] == "theano"
    assert value(labels, "paper_framework") == "Others"
    assert labels["paper_framework"].evidence[-1].line == 4
    caffe = (
        "# caffe train is run below\n"
        "import subprocess\n"
        "subprocess.call(['caffe', 'train', '--solver', 'models/solver.prototxt'])\n"
    )
    labels, _ = audit({"train.py": caffe, "models/net.prototxt": 'layer { type: "Convolution" }\n'})
    assert value(labels, "training_code") is True
    evidence = labels["training_code"].evidence[0]
    assert (evidence.path, evidence.line) == ("train.py", 3)


def test_python_2_sources_are_read_through_their_code(audit: Audit) -> None:
    model = (
        "# import torch  (a later port)\n"
        "import theano\nimport theano.tensor as T\nimport lasagne\n"
        "print 'building the LSTM baseline'\n"
        "def build(input_var):\n"
        "    l_in = lasagne.layers.InputLayer((None, 1, 28, 28), input_var)\n"
        "    l_conv = lasagne.layers.Conv2DLayer(l_in, 32, 5)\n"
        "    return lasagne.layers.DenseLayer(l_conv, 10)\n"
        "try:\n    import cPickle as pickle\nexcept ImportError, e:\n    print >>sys.stderr, e\n"
        "updates = lasagne.updates.nesterov_momentum(loss, params, learning_rate=0.01)\n"
        "train_fn = theano.function([x, y], loss, updates=updates)\n"
    )
    labels, _ = audit({"model.py": model})
    assert value(labels, "frameworks") == ["theano"]
    assert value(labels, "network_types") == ["cnn"]
    assert value(labels, "training_code") is True
    assert labels["frameworks"].evidence[0].line == 2


def test_tests_and_docs_confirm_but_never_decide(audit: Audit) -> None:
    interop = (
        "import torch\nimport torch.nn as nn\n\n"
        "def test_accepts_tensors():\n"
        "    net = nn.Sequential(nn.Conv2d(1, 4, 3), nn.LSTM(4, 4))\n"
        "    assert plot(net(torch.zeros(1, 1, 8, 8)))\n"
    )
    tool = "import numpy as np\n\ndef plot(x):\n    return np.asarray(x)\n"
    labels, _ = audit({"plot.py": tool, "tests/test_interop.py": interop, "docs/conf.py": interop})
    assert value(labels, "frameworks") == []
    assert value(labels, "network_types") == []
    assert value(labels, "is_dl") is False
    model = (
        "import torch.nn as nn\n\nclass Net(nn.Module):\n    def __init__(self):\n"
        "        super().__init__()\n        self.conv = nn.Conv2d(1, 8, 3)\n"
        "        self.conv2 = nn.Conv2d(8, 8, 3)\n"
    )
    labels, _ = audit({"model.py": model, "tests/test_interop.py": interop})
    assert value(labels, "frameworks") == ["pytorch"]
    assert value(labels, "network_types") == ["cnn"]  # the test's LSTM is no type of its own
    assert "tests/test_interop.py" in _paths(labels, "network_types")  # ... but confirms cnn


def test_notebook_evidence_is_the_code_cell_line_not_the_markdown(audit: Audit) -> None:
    cells = [
        {"cell_type": "markdown", "source": ["We train `nn.Conv2d(1, 8, 3)` layers.\n"]},
        {"cell_type": "code", "source": ["# nn.Conv2d(1, 8, 3) below\n", "import torch.nn as nn\n",
                                         "layer = nn.Conv2d(1, 8, 3)\n"]},
    ]  # fmt: skip
    notebook = json.dumps({"cells": cells, "metadata": {}}, indent=1)
    labels, _ = audit({"explore.ipynb": notebook})
    cnn = labels["network_types"].evidence[0]
    assert cnn.text == "layer = nn.Conv2d(1, 8, 3)"
    assert cnn.line == _line(notebook, '"layer = nn.Conv2d(1, 8, 3)')


def test_miners_own_detectors_example_and_snippets_are_not_a_dl_project(tmp_path: Path) -> None:
    """miner's sources talk about every framework and layer; the NumPy example classifier is
    no framework project either."""
    package = Path(miner.__file__).parent
    tests = Path(__file__).parent
    root = tmp_path / "miner"
    shutil.copytree(package / "audit" / "detect", root / "miner" / "detect")
    shutil.copytree(package / "audit" / "classify", root / "miner" / "classify")
    (root / "miner" / "examples").mkdir()
    shutil.copy(package / "examples" / "train_numpy.py", root / "miner" / "examples")
    # outside a tests folder, so only the blanking of strings keeps these snippets out
    shutil.copy(tests / "detect_snippets.py", root / "snippets.py")
    labels, _ = run_detectors(root)
    assert value(labels, "frameworks") == []
    assert value(labels, "primary_framework") == "none"
    assert value(labels, "network_types") == []
    assert value(labels, "is_dl") is False
    assert value(labels, "training_code") is False


def test_readme_quotes_and_lists_of_frameworks_are_not_a_statement(audit: Audit) -> None:
    tool = "import numpy as np\n\ndef parse(x):\n    return np.asarray(x)\n"
    readme = (
        '# checker\n\nFinds sentences such as "implemented in PyTorch" in READMEs.\n\n'
        "It writes a seed snippet for the framework (PyTorch, TensorFlow, Keras, JAX).\n"
    )
    labels, _ = audit({"README.md": readme, "parse.py": tool})
    assert value(labels, "frameworks") == []
    stated = readme + "\nThe model was trained with the Caffe framework on DIGITS.\n"
    labels, _ = audit({"README.md": stated, "parse.py": tool})
    assert value(labels, "frameworks") == ["caffe"]
    assert labels["frameworks"].evidence[0].line == 7


def test_a_readme_naming_its_gan_confirms_adversarial_code(audit: Audit) -> None:
    train = (
        "import tensorflow as tf\n\n"
        "def main(G, D, reals, latents):\n"
        "    G_loss = -tf.reduce_mean(D(G(latents)))\n"
        "    D_loss = tf.reduce_mean(D(G(latents))) - tf.reduce_mean(D(reals))\n"
        "    G_opt, D_opt = tf.train.AdamOptimizer(1e-3), tf.train.AdamOptimizer(1e-3)\n"
        "    return G_opt.minimize(G_loss), D_opt.minimize(D_loss)\n"
    )
    layers = "import tensorflow as tf\n" + "".join(
        f"x{n} = tf.layers.conv2d(x, 64, 3)\n" for n in range(12)
    )
    files = {"train.py": train, "networks.py": layers, "model.py": layers}
    labels, _ = audit(files)
    assert value(labels, "network_types") == ["cnn"]  # adversarial code, but far less of it
    labels, _ = audit({**files, "README.md": "# StyleGAN: official TensorFlow implementation\n"})
    assert value(labels, "network_types") == ["cnn", "gan"]
