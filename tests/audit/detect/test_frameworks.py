"""frameworks, primary_framework and paper_framework: the codebook rules on tiny repositories."""

from __future__ import annotations

import json

from detect_snippets import KERAS, TF_KERAS, TF_LOW, TORCH_MODEL, TORCH_TRAIN, value


def test_pytorch_project(audit) -> None:  # type: ignore[no-untyped-def]
    labels, ctx = audit(
        {"model.py": TORCH_MODEL, "train.py": TORCH_TRAIN, "requirements.txt": "torch==1.4.0\n"}
    )
    assert value(labels, "frameworks") == ["pytorch"]
    assert value(labels, "primary_framework") == "pytorch"
    assert value(labels, "paper_framework") == "PyTorch"
    evidence = labels["primary_framework"].evidence[0]
    assert evidence.path in ("model.py", "train.py") and evidence.line > 0
    assert "torch" in evidence.text
    versions = ctx.details["framework_versions"]
    assert versions["pytorch"] == {"spec": "==1.4.0", "source": "requirements.txt:1"}


def test_low_level_tensorflow_is_tensorflow(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"model.py": TF_LOW})
    assert value(labels, "primary_framework") == "tensorflow"
    assert value(labels, "paper_framework") == "TensorFlow"


def test_tf_keras_model_is_keras_on_tensorflow(audit) -> None:  # type: ignore[no-untyped-def]
    labels, ctx = audit({"train.py": TF_KERAS})
    assert value(labels, "primary_framework") == "keras"
    assert value(labels, "paper_framework") == "Keras (TensorFlow)"
    assert {"keras", "tensorflow"} <= set(value(labels, "frameworks"))  # type: ignore[arg-type]
    assert ctx.details["keras_backend"] == "tensorflow"
    rules = [e.rule for e in labels["paper_framework"].evidence]
    assert "keras_backend.tf_keras" in rules


def test_tf_keras_subclassed_model_with_tf_ops_is_still_keras(audit) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import tensorflow as tf\n\n"
        "class RegModel(tf.keras.Model):\n"
        "    def __init__(self):\n"
        "        super().__init__()\n"
        "        self.c = tf.keras.layers.Conv3D(8, 3)\n"
        "        self.d = tf.keras.layers.Dense(1)\n"
        "    def call(self, x):\n"
        "        return tf.nn.relu(self.d(self.c(x)))\n\n"
        "model = RegModel()\nmodel.compile(optimizer='adam')\nmodel.fit(x, y)\n"
    )
    labels, _ = audit({"model.py": code})
    assert value(labels, "primary_framework") == "keras"


def test_tensorflow_imported_only_for_session_setup_leaves_keras_primary(audit) -> None:  # type: ignore[no-untyped-def]
    session = "import tensorflow as tf\nimport keras.backend as K\nK.set_session(tf.Session())\n"
    labels, _ = audit({"train.py": KERAS, "gpu.py": session})
    assert value(labels, "primary_framework") == "keras"


def test_standalone_keras_defaults_to_tensorflow_backend(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"train.py": KERAS})
    assert value(labels, "paper_framework") == "Keras (TensorFlow)"


def test_keras_backend_from_keras_json(audit) -> None:  # type: ignore[no-untyped-def]
    config = json.dumps({"backend": "theano", "floatx": "float32"}, indent=2)
    labels, _ = audit({"train.py": KERAS, ".keras/keras.json": config})
    assert value(labels, "paper_framework") == "Others"
    assert any(e.rule == "keras_backend.config" for e in labels["paper_framework"].evidence)


def test_keras_backend_from_environment_setting(audit) -> None:  # type: ignore[no-untyped-def]
    script = "import os\nos.environ['KERAS_BACKEND'] = 'cntk'\n" + KERAS
    labels, ctx = audit({"train.py": script})
    assert ctx.details["keras_backend"] == "cntk"
    assert value(labels, "paper_framework") == "Others"


def test_keras_backend_from_a_readme_sentence(audit) -> None:  # type: ignore[no-untyped-def]
    readme = (
        "# Sentence CNN\n\n## Requirements\n\n* Keras and the most recent Theano backend should "
        "be installed.\nNot tested with TensorFlow, but should work.\n"
    )
    labels, _ = audit({"train.py": KERAS, "README.md": readme})
    assert value(labels, "paper_framework") == "Others"
    # a README naming two backends decides nothing: the default stays
    both = "# X\n\nWorks with the Theano or the TensorFlow backend.\n"
    labels, _ = audit({"train.py": KERAS, "README.md": both})
    assert value(labels, "paper_framework") == "Keras (TensorFlow)"


def test_keras_backend_from_theano_imported_beside_keras(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"train.py": "import theano\n" + KERAS})
    assert value(labels, "paper_framework") == "Others"


def test_model_code_outweighs_utilities_tests_and_vendored_code(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit(
        {
            "model.py": TORCH_MODEL,
            "train.py": TORCH_TRAIN,
            "utils/tb_logger.py": "import tensorflow as tf\nw = tf.summary.FileWriter('x')\n",
            "tests/test_tf.py": TF_LOW,
            "third_party/tfmodels/net.py": TF_LOW * 5,
        }
    )
    assert value(labels, "primary_framework") == "pytorch"
    assert "tensorflow" in value(labels, "frameworks")  # type: ignore[operator]


def test_separate_full_implementations_follow_the_readme_order(audit) -> None:  # type: ignore[no-untyped-def]
    files = {
        "pytorch/model.py": TORCH_MODEL * 3,
        "pytorch/train.py": TORCH_TRAIN,
        "tensorflow/model.py": TF_LOW,
        "tensorflow/train.py": TF_LOW,
        "README.md": "# Net\n\nOur TensorFlow code reproduces the paper; a PyTorch port follows.\n",
    }
    labels, _ = audit(files)
    assert value(labels, "primary_framework") == "tensorflow"
    assert labels["primary_framework"].evidence[0].rule == "frameworks.readme_first"
    # a framework named only in a link target is not presented by the README
    files["README.md"] = "# Net\n\nSee [the port](docs/tensorflow.md) and our PyTorch code.\n"
    labels, _ = audit(files)
    assert value(labels, "primary_framework") == "pytorch"


def test_lua_torch_project(audit) -> None:  # type: ignore[no-untyped-def]
    lua = (
        "require 'nn'\nrequire 'cunn'\nrequire 'optim'\n"
        "local net = nn.Sequential()\nnet:add(nn.SpatialConvolution(3, 16, 5, 5))\n"
        "local g = criterion:backward(out, y)\nnet:backward(x, g)\n"
    )
    labels, _ = audit({"train.lua": lua})
    assert value(labels, "primary_framework") == "torch7"
    assert value(labels, "paper_framework") == "Others"
    assert labels["primary_framework"].evidence[0].rule == "frameworks.model_code"


def test_caffe_prototxt_and_caffe_train_script(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit(
        {
            "models/train_val.prototxt": 'layer {\n  type: "Convolution"\n}\n',
            "models/solver.prototxt": 'net: "train_val.prototxt"\nbase_lr: 0.01\n',
            "train.sh": "$CAFFE_ROOT/build/tools/caffe train --solver=models/solver.prototxt\n",
            "prep/make_lmdb.py": "import numpy as np\nimport lmdb\n",
        }
    )
    assert value(labels, "primary_framework") == "caffe"
    assert value(labels, "paper_framework") == "Caffe"


def test_caffe2_and_chainer_and_mxnet_are_their_own_values(audit) -> None:  # type: ignore[no-untyped-def]
    caffe2 = "from caffe2.python import brew, workspace\nbrew.conv(model, 'x', 'y', 3, 8, 3)\n"
    chainer = "import chainer\nimport chainer.links as L\nclass N(chainer.Chain):\n    pass\n"
    mxnet = "import mxnet as mx\nnet = mx.sym.Convolution(data, num_filter=8, kernel=(3, 3))\n"
    for code, fw in ((caffe2, "caffe2"), (chainer, "chainer"), (mxnet, "mxnet")):
        labels, _ = audit({"model.py": code})
        assert value(labels, "primary_framework") == fw
        assert value(labels, "paper_framework") == "Others"


def test_python2_project_is_still_read(audit) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import theano\nimport theano.tensor as T\nimport lasagne\n"
        "print 'building'\n"
        "l = lasagne.layers.DenseLayer(l_in, num_units=10)\n"
        "updates = lasagne.updates.adam(loss, params)\n"
        "train = theano.function([x], loss, updates=updates)\n"
    )
    labels, _ = audit({"train.py": code})
    assert value(labels, "primary_framework") == "theano"
    assert value(labels, "paper_framework") == "Theano"


def test_notebook_imports_count_with_lines_in_the_notebook(audit) -> None:  # type: ignore[no-untyped-def]
    nb = {
        "cells": [
            {"cell_type": "markdown", "source": ["Uses PyTorch? no.\n"]},
            {"cell_type": "code", "source": ["import tensorflow as tf\n", "from tensorflow.keras"
                                             " import layers\n", "m = tf.keras.Sequential()\n"]},
        ],
        "metadata": {},
    }  # fmt: skip
    labels, _ = audit({"train.ipynb": json.dumps(nb, indent=1)})
    assert value(labels, "primary_framework") == "keras"
    evidence = labels["primary_framework"].evidence[0]
    assert evidence.path == "train.ipynb" and evidence.line > 3


def test_readme_statement_when_the_repository_has_no_model_code(audit) -> None:  # type: ignore[no-untyped-def]
    readme = "# Prices\n\n- [x] Training is done on NVIDIA DIGITS and with the Caffe framework.\n"
    labels, _ = audit({"README.md": readme, "prepare.py": "import pandas as pd\n"})
    assert value(labels, "primary_framework") == "caffe"
    assert labels["primary_framework"].evidence[0].rule == "frameworks.readme_statement"


def test_no_framework_is_none_and_every_field_is_still_there(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"README.md": "# Notes\n\nNothing here.\n", "a.py": "print(1)\n"})
    assert value(labels, "frameworks") == []
    assert value(labels, "primary_framework") == "none"
    assert value(labels, "paper_framework") == "Others"
    assert labels["primary_framework"].evidence == ()


def test_javascript_inference_port_counts_tfjs_but_not_as_primary(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit(
        {
            "web/index.js": "import * as tf from '@tensorflow/tfjs';\nconst m = tf.sequential();\n",
            "scripts/create_cnn.py": TF_LOW,
        }
    )
    assert "tensorflowjs" in value(labels, "frameworks")  # type: ignore[operator]
    assert value(labels, "primary_framework") == "tensorflow"


def test_hostile_files_give_warnings_and_every_label(audit) -> None:  # type: ignore[no-untyped-def]
    labels, ctx = audit(
        {
            "model.py": TORCH_MODEL,
            "binary.py": b"\x00\x01import torch\x00" * 100,
            "list.ipynb": "[1, 2, 3]",
            "types.ipynb": json.dumps(
                {
                    "cells": [{"cell_type": "code", "source": [1, None]}],
                    "metadata": {"kernelspec": "python"},
                }
            ),  # fmt: skip
            "setup.py": "setup(install_requires=" + "(" * 5000 + "'torch'" + ")" * 5000 + ")\n",
            "latin1.py": "# caf\xe9\nimport keras\n".encode("latin-1"),
            "weird.prototxt": "layer { type: \x00 }",
            "keras.json": "{not json",
            "package.json": "[]",
        }
    )
    assert value(labels, "primary_framework") == "pytorch"
    assert any("list.ipynb" in w for w in ctx.warnings)
    assert any("types.ipynb" in w for w in ctx.warnings)
    assert any("setup.py" in w for w in ctx.warnings)
    for name in ("frameworks", "primary_framework", "paper_framework", "language",
                 "network_types", "paper_network", "is_dl", "exclude", "domain",
                 "training_code", "data_available"):  # fmt: skip
        assert name in labels


def test_matconvnet_project_is_an_other_framework_in_matlab(audit) -> None:  # type: ignore[no-untyped-def]
    m = (
        "function net = cnn_init()\n% a small CNN\nnet.layers = {};\n"
        "res = vl_simplenn(net, im);\n[net, info] = cnn_train(net, imdb, @getBatch);\nend\n"
    )
    labels, _ = audit({"cnn_mnist.m": m, "setup.m": "run matconvnet/matlab/vl_setupnn\n"})
    assert value(labels, "primary_framework") == "other:matconvnet"
    assert value(labels, "paper_framework") == "Others"
    assert value(labels, "language") == "matlab"


def test_a_model_trained_in_the_browser_is_tensorflowjs(audit) -> None:  # type: ignore[no-untyped-def]
    js = (
        "import * as tf from '@tensorflow/tfjs';\n"
        "const model = tf.sequential();\n"
        "model.add(tf.layers.conv2d({filters: 8, kernelSize: 3}));\n"
        "await model.fit(xs, ys, {epochs: 10});\n"
    )
    labels, _ = audit(
        {"src/train.js": js, "package.json": '{"dependencies": {"@tensorflow/tfjs": "2"}}'}
    )
    assert value(labels, "primary_framework") == "tensorflowjs"
    assert value(labels, "language") == "javascript"
    assert value(labels, "network_types") == ["cnn"]


FLAX_MODEL = """import flax.linen as nn
import jax.numpy as jnp


class CNN(nn.Module):
    @nn.compact
    def __call__(self, x):
        x = nn.Conv(features=32, kernel_size=(3, 3))(x)
        x = nn.relu(x)
        x = x.reshape((x.shape[0], -1))
        return nn.Dense(features=10)(x)
"""
FLAX_TRAIN = """import jax
import optax
from models import CNN

tx = optax.adam(1e-3)
grad_fn = jax.value_and_grad(loss_fn)
state = state.apply_gradients(grads=grads)
"""
TORCH_DATA = """import torch
from torch.utils.data import DataLoader
from torchvision import datasets

loader = DataLoader(datasets.MNIST("data", download=True), batch_size=128)
"""


def test_flax_model_trained_with_optax_is_jax_even_with_a_torch_data_loader(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit(
        {"models.py": FLAX_MODEL, "train.py": FLAX_TRAIN, "input_pipeline.py": TORCH_DATA}
    )
    assert value(labels, "primary_framework") == "jax"
    assert {"jax", "pytorch"} <= set(value(labels, "frameworks"))  # type: ignore[arg-type]
    assert value(labels, "network_types") == ["cnn"]


def test_lightning_and_hugging_face_training_libraries_are_pytorch(audit) -> None:  # type: ignore[no-untyped-def]
    fabric = "import lightning as L\n\nfabric = L.Fabric(devices=8)\nfabric.launch()\n"
    labels, _ = audit({"pretrain.py": fabric})
    assert value(labels, "frameworks") == ["pytorch"]
    peft = "from peft import LoraConfig, get_peft_model\n\nmodel = get_peft_model(model, cfg)\n"
    labels, _ = audit({"finetune.py": peft})
    assert value(labels, "primary_framework") == "pytorch"


def test_keras_model_in_a_helpers_file_beats_tf_logging_in_the_training_script(audit) -> None:  # type: ignore[no-untyped-def]
    helpers = (
        "import tensorflow as tf\n\n"
        "def init_model(D=8, W=256):\n"
        "    dense = lambda w: tf.keras.layers.Dense(w, activation='relu')\n"
        "    inputs = tf.keras.Input(shape=(63,))\n"
        "    outputs = dense(W)(dense(W)(inputs))\n"
        "    return tf.keras.Model(inputs=inputs, outputs=outputs)\n"
    )
    run = (
        "import tensorflow as tf\nfrom run_helpers import init_model\n\n"
        "tf.compat.v1.enable_eager_execution()\n"
        "model = init_model()\n"
        "optimizer = tf.keras.optimizers.Adam(5e-4)\n"
        "with tf.GradientTape() as tape:\n"
        "    loss = tf.reduce_mean(tf.square(model(x) - y))\n"
        "optimizer.apply_gradients(zip(tape.gradient(loss, model.trainable_variables), v))\n"
        "with tf.contrib.summary.record_summaries_every_n_global_steps(100):\n"
        "    tf.contrib.summary.scalar('loss', loss)\n"
        "    tf.contrib.summary.scalar('psnr', psnr)\n"
        "    tf.contrib.summary.image('rgb', rgb)\n"
    )
    labels, _ = audit({"run_helpers.py": helpers, "run.py": run})
    assert value(labels, "primary_framework") == "keras"


def test_hugging_face_trainer_is_pytorch_and_its_tf_port_is_tensorflow(audit) -> None:  # type: ignore[no-untyped-def]
    trainer = (
        "from transformers import AutoModelForCausalLM, Trainer, TrainingArguments\n\n"
        "model = AutoModelForCausalLM.from_pretrained(args.model_name_or_path)\n"
        "trainer = Trainer(model=model, args=TrainingArguments(output_dir='out'))\n"
        "trainer.train()\n"
    )
    labels, _ = audit({"train.py": trainer})
    assert value(labels, "primary_framework") == "pytorch"
    keras_port = (
        "from transformers import TFAutoModelForSequenceClassification\n\n"
        "model = TFAutoModelForSequenceClassification.from_pretrained('bert-base-cased')\n"
        "model.compile(optimizer='adam')\nmodel.fit(train_set, epochs=3)\n"
    )
    labels, _ = audit({"train.py": keras_port})
    assert value(labels, "primary_framework") == "tensorflow"


GGML_MAIN = """#include "ggml.h"
#include "utils.h"

int main(int argc, char ** argv) {
    struct ggml_init_params params = { .mem_size = 512*1024*1024 };
    struct ggml_context * ctx = ggml_init(params);
    struct ggml_tensor * cur = ggml_mul_mat(ctx, model.wq, inp);
    cur = ggml_soft_max(ctx, cur);
    return 0;
}
"""
TORCH_CONVERTER = """import sys
import torch

model = torch.load(sys.argv[1], map_location="cpu")
for name, tensor in model.items():
    write(name, tensor.numpy())
"""


def test_a_ggml_inference_engine_with_a_weight_converter_is_ggml_in_cpp(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"main.cpp": GGML_MAIN, "convert-pth-to-ggml.py": TORCH_CONVERTER})
    assert value(labels, "primary_framework") == "other:ggml"
    assert value(labels, "frameworks") == ["other:ggml", "pytorch"]
    assert value(labels, "language") == "cpp"
    assert value(labels, "paper_framework") == "Others"


def test_tensorflow_probability_on_jax_is_no_tensorflow(audit) -> None:  # type: ignore[no-untyped-def]
    code = (
        "import jax\nimport flax.linen as nn\n"
        "from tensorflow_probability.substrates import jax as tfp\n\n"
        "class Policy(nn.Module):\n    @nn.compact\n    def __call__(self, x):\n"
        "        return tfp.distributions.Normal(nn.Dense(2)(x), 1.0)\n"
    )
    labels, _ = audit({"policy.py": code})
    assert value(labels, "frameworks") == ["jax"]
    labels, _ = audit({"policy.py": "import tensorflow_probability as tfp\n" + code})
    assert "tensorflow" in value(labels, "frameworks")
    # the substrate reached as an attribute of the bare import
    attribute = code.replace("from tensorflow_probability.substrates import jax as tfp",
                             "import tensorflow_probability\n\ntfp = tensorflow_probability."
                             "substrates.jax")  # fmt: skip
    labels, _ = audit({"policy.py": attribute})
    assert value(labels, "frameworks") == ["jax"]
