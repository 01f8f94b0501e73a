"""training_code: training loops written the JAX way, with toolboxes, in test-named scripts; not
the optimisation of an input or a classical estimator's fit."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.audit.classify.exclusions import classify_project
from miner.audit.detect import AuditContext
from miner.audit.detect.frameworks import detect_frameworks
from miner.audit.docs import Documents
from miner.audit.files import RepoTree
from miner.models import Label

NET = "import torch\nimport torch.nn as nn\n\nclass Net(nn.Module):\n    pass\n"


def _training(tmp_path: Path, files: dict[str, str]) -> Label:
    root = tmp_path / "repo"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    tree = RepoTree(root)
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    labels: dict[str, Label] = {}
    for detector in (detect_frameworks, classify_project):
        for label in detector(ctx, labels):
            labels[label.field] = label
    return labels["training_code"]


@pytest.mark.parametrize(
    "code",
    [
        "import jax\nimport optax\nloss, grads = jax.value_and_grad(loss_fn)(params, batch)\n"
        "updates, state = tx.update(grads, state)\n",
        "import jax\nimport optax\nupdates, new_state = self.opt.update(grads, state, params)\n",
        "import torch\noptimizer.zero_grad()\nloss_scaler(loss, optimizer, clip_grad=1.0)\n",
        "import torch\nfrom seg.apis import train_segmentor\n"
        "train_segmentor(\n    model, datasets)\n",
    ],
)
def test_training_loops_without_a_backward_call(tmp_path: Path, code: str) -> None:
    label = _training(tmp_path, {"model.py": NET, "engine.py": code})
    assert label.value is True and label.evidence[0].rule == "training_code.loop"


def test_a_definition_of_a_train_function_is_not_a_call(tmp_path: Path) -> None:
    code = "import torch\ndef train_segmentor(model, data):\n    return model\n"
    assert _training(tmp_path, {"model.py": NET, "apis.py": code}).value is False


def test_a_script_named_like_a_test_that_trains_counts(tmp_path: Path) -> None:
    script = "import torch\nloss = model(x).sum()\nloss.backward()\noptimizer.step()\n"
    assert _training(tmp_path / "a", {"model.py": NET, "copymem_test.py": script}).value is True
    unit = "import pytest\nimport torch\n\ndef test_step():\n    loss.backward()\n"
    assert _training(tmp_path / "b", {"model.py": NET, "step_test.py": unit}).value is False


def test_optimising_an_image_or_a_latent_is_not_training(tmp_path: Path) -> None:
    latent = (
        "import torch\nfrom torch import optim\nz = torch.randn(1, 256)\n"
        "opt = optim.Adam([z], lr=0.1)\nloss = clip_loss(decode(z))\nloss.backward()\nopt.step()\n"
    )
    assert _training(tmp_path / "a", {"generate.py": latent}).value is False
    model = latent.replace("[z]", "[z] + list(net.parameters())")
    assert _training(tmp_path / "b", {"generate.py": model}).value is True


STYLE_TF2 = (
    "import tensorflow as tf\nimage = tf.Variable(content)\nopt = tf.optimizers.Adam(0.02)\n"
    "for i in range(100):\n    with tf.GradientTape() as tape:\n"
    "        loss = style_loss(vgg(image))\n    grad = tape.gradient(loss, image)\n"
    "    opt.apply_gradients([(grad, image)])\n"
)
STYLE_KERAS = (
    "from keras import backend as K\nfrom scipy.optimize import fmin_l_bfgs_b\n"
    "grads = K.gradients(loss, combination_image)\n"
    "x, min_val, info = fmin_l_bfgs_b(evaluator.loss, x.flatten(), fprime=evaluator.grads)\n"
)
STYLE_TF1 = (
    "import tensorflow as tf\nimage = tf.Variable(initial)\nloss = content_loss + style_loss\n"
    "train_step = tf.train.AdamOptimizer(1e1).minimize(loss)\n"
)


STYLE_NET_INPUT = (
    "import tensorflow as tf\nnet = {}\nnet['input'] = tf.Variable(np.zeros((1, h, w, d)))\n"
    "optimizer = tf.contrib.opt.ScipyOptimizerInterface(loss, method='L-BFGS-B')\n"
    "optimizer.minimize(sess)\n"
)


STYLE_CHAINER = (
    "import chainer\nfrom chainer import optimizers\n"
    "img_gen = chainer.links.Parameter(img_gen)\noptimizer = optimizers.Adam(alpha=lr)\n"
    "optimizer.setup(img_gen)\nL.backward()\noptimizer.update()\n"
)
STYLE_CHAINER_PAIR = (
    "import chainer\nfrom chainer import optimizers\noptimizer = optimizers.Adam(alpha=lr)\n"
    "optimizer.setup((img_gen,xg))\nL.backward()\noptimizer.update()\n"
)


@pytest.mark.parametrize(
    "code", [STYLE_TF2, STYLE_KERAS, STYLE_TF1, STYLE_NET_INPUT, STYLE_CHAINER, STYLE_CHAINER_PAIR]
)
def test_style_transfer_by_optimising_the_image_is_not_training(tmp_path: Path, code: str) -> None:
    assert _training(tmp_path, {"stylize.py": code}).value is False


def test_the_same_updates_beside_a_models_weights_train_it(tmp_path: Path) -> None:
    tf2 = STYLE_TF2.replace("[(grad, image)]", "zip(grads, model.trainable_variables)")
    assert _training(tmp_path / "a", {"train.py": tf2}).value is True
    gan = STYLE_KERAS + "d_loss = discriminator.train_on_batch(x, y)\n"
    assert _training(tmp_path / "b", {"train.py": gan}).value is True
    tf1 = STYLE_TF1 + "w = tf.Variable(tf.zeros([784, 10]))\n"
    assert _training(tmp_path / "c", {"train.py": tf1}).value is True


def test_an_optimizer_class_defined_for_users_trains_nothing(tmp_path: Path) -> None:
    defined = (
        "import chainer\n\n\nclass Adam(chainer.optimizers.adam.Adam):\n"
        "    def create_update_rule(self):\n        return AdamRule(self.hyperparam)\n"
    )
    assert _training(tmp_path / "a", {"renderer/optimizers.py": defined}).value is False
    built = "import chainer\noptimizer = chainer.optimizers.Adam()\noptimizer.setup(model)\n"
    assert _training(tmp_path / "b", {"train.py": built}).value is True


def test_a_grid_search_fit_beside_a_network_is_not_training(tmp_path: Path) -> None:
    code = (
        "import torch\nfrom sklearn.model_selection import GridSearchCV\n"
        "emb = model(x)\ngrid = GridSearchCV(est, params)\ngrid.fit(emb, y)\n"
    )
    assert _training(tmp_path / "a", {"probe.py": code}).value is False
    keras = "from tensorflow import keras\nfrom sklearn.model_selection import train_test_split\n"
    keras += "model = keras.Sequential([keras.layers.Dense(1)])\nmodel.fit(x, y)\n"
    assert _training(tmp_path / "b", {"train.py": keras}).value is True


CUDA_TRAINER = """#include <tiny-cuda-nn/trainer.h>

void Testbed::train_nerf(cudaStream_t stream) {
    auto ctx = m_trainer->training_step(stream, m_input, m_target);
}
"""


def test_a_trainer_step_in_cuda_code_trains(tmp_path: Path) -> None:
    files = {"model.py": NET, "src/testbed.cu": CUDA_TRAINER}
    label = _training(tmp_path / "a", files)
    assert label.value is True and label.evidence[0].path == "src/testbed.cu"
    infer = CUDA_TRAINER.replace("m_trainer->training_step", "m_network->inference")
    assert _training(tmp_path / "b", {"model.py": NET, "src/testbed.cu": infer}).value is False


def test_a_training_loop_in_a_borrowed_component_trains_another_s_model(tmp_path: Path) -> None:
    loop = NET + "optimizer.zero_grad()\nloss.backward()\noptimizer.step()\n"
    readme = (
        "# Sound Gen\n\nRuns our released model.\n\n## Reference\n\n"
        "Part of the code is borrowed from [Encoder](https://github.com/lab/Encoder).\n"
    )
    files = {"README.md": readme, "soundgen/pipeline.py": NET, "soundgen/encoder/train.py": loop}
    assert not _training(tmp_path / "a", files).value
    own = {**files, "README.md": "# Sound Gen\n\nOur model and its encoder.\n"}
    assert _training(tmp_path / "b", own).value


def test_gradients_routed_by_hand_are_not_training(tmp_path: Path) -> None:
    helper = NET + (
        "class Checkpointed(torch.autograd.Function):\n"
        "    @staticmethod\n"
        "    def backward(ctx, *grads):\n"
        "        res = ctx.function(*ctx.saved_tensors)\n"
        "        torch.autograd.backward(res, grads)\n"
    )
    assert _training(tmp_path / "a", {"utils/compile.py": helper}).value is False
    loss = helper + "\nloss = criterion(model(x), y)\nloss.backward()\n"
    assert _training(tmp_path / "b", {"utils/compile.py": loss}).value is True


def test_a_lightning_hook_trains_only_where_a_trainer_runs_it(tmp_path: Path) -> None:
    module = NET + (
        "import pytorch_lightning as pl\n\nclass AutoEncoder(pl.LightningModule):\n"
        "    def training_step(self, batch, batch_idx):\n"
        "        return self._training_step(batch, batch_idx=batch_idx)\n"
        "    def configure_optimizers(self):\n"
        "        return torch.optim.Adam(self.parameters(), lr=1e-4)\n"
    )
    copied = {"models/autoencoder.py": module, "sample.py": "import torch\nvae.decode(z)\n"}
    assert _training(tmp_path / "a", copied).value is False
    trained = {**copied, "train.py": "import pytorch_lightning as pl\npl.Trainer().fit(model)\n"}
    assert _training(tmp_path / "b", trained).value is True


def test_configurations_for_an_external_trainer_with_the_command_are_training_code(
    tmp_path: Path,
) -> None:
    readme = (
        "# Suite\n\nWe trained these models with GPT-NeoX.\n\n```bash\ncd gpt-neox\n"
        "python deepy.py train.py pythia-160m-deduped.yml 2>&1 | tee output.txt\n```\n"
    )
    files = {
        "README.md": readme, "models/160M/pythia-160m-deduped.yml": '{"num-layers": 12}\n',
        "utils/load.py": "import torch\nmodel = torch.load('ckpt.pt')\nmodel.eval()\n",
    }  # fmt: skip
    label = _training(tmp_path / "a", files)
    assert label.value is True
    assert [(e.path, e.line, e.rule) for e in label.evidence] == [
        ("README.md", 7, "training_code.external_config")
    ]
    unshipped = {k: v for k, v in files.items() if not k.endswith(".yml")}
    assert _training(tmp_path / "b", unshipped).value is False  # the config is not shipped
    own = {**files, "train.py": "import sys\nprint(sys.argv)\n"}
    assert _training(tmp_path / "c", own).value is False  # its own train.py trains nothing
    # the configuration on a line of its own, under a command written over several lines
    for name, joined in (("d", " \\\n"), ("e", "\n")):
        command = f"torchrun --nproc_per_node=16 train.py{joined}--deepspeed configs/ds.json\n"
        readme = f"# Tuned\n\nSet up Alpaca, then:\n\n```bash\n{command}```\n"
        tuned = {
            "README.md": readme,
            "config/ds.json": "{}\n",
            "utils/load.py": files["utils/load.py"],
        }
        label = _training(tmp_path / name, tuned)
        assert label.value is True and label.evidence[0].line == 6, name


KERAS_PREDICT = (
    "import keras\nfrom keras.layers import Dense\n\ndef build():\n"
    "    model = keras.models.Sequential([Dense(10)])\n"
    "    model.compile(optimizer=keras.optimizers.Adam(lr=5e-3), loss='binary_crossentropy')\n"
    "    model.load_weights('weights.h5')\n    return model\n\n"
    "print(build().predict(x))\n"
)


def test_a_keras_model_compiled_only_to_predict_is_not_training(tmp_path: Path) -> None:
    assert _training(tmp_path / "a", {"models.py": KERAS_PREDICT}).value is False
    fitted = {
        "models.py": KERAS_PREDICT,
        "main.py": "from models import build\nbuild().fit(x, y)\n",
    }
    assert _training(tmp_path / "b", fitted).value is True
    estimator = "import tensorflow as tf\nfrom models import build\n" + (
        "tf.keras.estimator.model_to_estimator(keras_model=build()).train(input_fn=f, steps=9)\n"
    )
    assert _training(tmp_path / "c", {**fitted, "main.py": estimator}).value is True


TRAINER = """import torch as th


class MixedPrecisionTrainer:
    def __init__(self, model):
        self.model = model

    def backward(self, loss):
        (loss * 2.0).backward()
        self.opt.step()
"""


def test_a_training_step_in_a_class_nothing_builds_is_not_training(tmp_path: Path) -> None:
    # a posterior-sampling project that copied a diffusion package's mixed-precision trainer
    sampler = "import torch\nfrom fp16_util import convert\nmodel = Net()\nx = model.sample()\n"
    files = {"model.py": NET, "fp16_util.py": TRAINER + "\ndef convert(m):\n    return m\n",
             "sample.py": sampler}  # fmt: skip
    assert _training(tmp_path / "a", files).value is False
    built = "import torch\nfrom fp16_util import MixedPrecisionTrainer\n"
    built += "trainer = MixedPrecisionTrainer(Net())\ntrainer.backward(loss)\n"
    assert _training(tmp_path / "b", {**files, "train.py": built}).value is True
    hydra = "trainer:\n  _target_: fp16_util.MixedPrecisionTrainer\n"
    assert _training(tmp_path / "c", {**files, "configs/train.yaml": hydra}).value is True


MODEL_BY_NAME = """import importlib


def create_model(opt):
    lib = importlib.import_module("models." + opt.model + "_model")
    for name, cls in lib.__dict__.items():
        if name.lower() == opt.model.replace("_", "") + "model":
            return cls(opt)
"""


def test_a_class_found_by_name_or_registered_is_built(tmp_path: Path) -> None:
    # the CycleGAN layout: `create_model` imports `models/<name>_model.py` by a computed name
    model = TRAINER.replace("MixedPrecisionTrainer", "BicycleGANModel")
    script = "from models import create_model\nmodel = create_model(opt)\n"
    files = {"model.py": NET, "models/bicycle_gan_model.py": model,
             "models/__init__.py": MODEL_BY_NAME, "train.py": script}  # fmt: skip
    assert _training(tmp_path / "a", files).value is True
    decorator = "@TRAINERS.register_module()\nclass MixedPrecisionTrainer:"
    registered = TRAINER.replace("class MixedPrecisionTrainer:", decorator)
    assert _training(tmp_path / "b", {"model.py": NET, "trainer.py": registered}).value is True


@pytest.mark.parametrize("name", ["i3d_pt_profiling.py", "i3d_tf_to_pt.py", "convert_weights.py",
                                  "speed_test.py"])  # fmt: skip
def test_a_backward_pass_in_a_profiler_or_a_converter_trains_nothing(
    tmp_path: Path, name: str
) -> None:
    script = "import torch\nloss = criterion(model(x), y)\nloss.backward()\noptimizer.step()\n"
    assert _training(tmp_path, {"model.py": NET, name: script}).value is False
    assert _training(tmp_path / "t", {"model.py": NET, "train.py": script}).value is True


def test_the_updates_a_theano_scan_returns_are_its_loops_not_an_optimisers(tmp_path: Path) -> None:
    encoder = (
        "import theano\nimport theano.tensor as tensor\n"
        "def encode(x, W):\n"
        "    rval, updates = theano.scan(_step, sequences=[x], non_sequences=[W])\n"
        "    return rval\n"
    )
    assert _training(tmp_path / "a", {"skipthoughts.py": encoder}).value is False
    trained = encoder + (
        "cost = tensor.nnet.categorical_crossentropy(p, y).mean()\n"
        "grads = tensor.grad(cost, params)\n"
        "updates = [(p, p - 0.01 * g) for p, g in zip(params, grads)]\n"
        "train = theano.function([x, y], cost, updates=updates)\n"
    )
    assert _training(tmp_path / "b", {"train.py": trained}).value is True
