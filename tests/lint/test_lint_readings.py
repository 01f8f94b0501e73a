"""More wordings and structures lint once misread: each fires only where it should."""

from __future__ import annotations

from pathlib import Path

from lint_projects import COMPLETE_README, TRAIN, write_project

from miner.lint import LintOptions, lint

NO_GPU_README = COMPLETE_README.replace(
    "Trained on one NVIDIA RTX 3090 (24 GB) in about ten minutes.", ""
)
CPU_TRAIN = TRAIN.replace('"cuda" if torch.cuda.is_available() else "cpu"', '"cpu"')


def codes(root: Path) -> list[str]:
    """Every code's findings, opt-in codes too."""
    return [f.code for f in lint(root, LintOptions(select=("MNR",))).findings]


def test_a_launcher_that_starts_its_workers_with_every_gpu_hidden(tmp_path: Path) -> None:
    launcher = (
        "import sys\n\n\ndef worker_command(task):\n"
        "    return ['CUDA_VISIBLE_DEVICES=', sys.executable, 'train.py', '--task', str(task)]\n"
    )
    files = {"README.md": NO_GPU_README, "train.py": CPU_TRAIN, "launch.py": launcher}
    assert "MNR101" not in codes(write_project(tmp_path / "p", files))
    chosen = launcher.replace("'CUDA_VISIBLE_DEVICES=', ", "'CUDA_VISIBLE_DEVICES=' + gpu, ")
    chosen = chosen.replace("(task)", "(task, gpu)")
    assert "MNR101" in codes(write_project(tmp_path / "q", {**files, "launch.py": chosen}))


def test_data_a_framework_loader_downloads_in_a_helper_module(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace(
        "Download MNIST with `python prepare_data.py`, which fetches it from\n"
        "http://yann.lecun.com/exdb/mnist/ into data/.\n",
        "We train a GAN on Cifar-10.\n",
    )
    helper = (
        "import chainer\n\n\nclass Cifar10Dataset(chainer.dataset.DatasetMixin):\n"
        "    def __init__(self):\n"
        "        self.ims, _ = chainer.datasets.get_cifar10(ndim=3, withlabel=False)\n"
    )
    train = "from common.dataset import Cifar10Dataset\n" + TRAIN
    files = {"README.md": readme, "prepare_data.py": None, "train.py": train}
    own = "import numpy\n\n\nclass Cifar10Dataset:\n    def __init__(self):\n        pass\n"
    assert "MNR301" in codes(write_project(tmp_path / "p", {**files, "common/dataset.py": own}))
    fetched = {**files, "common/dataset.py": helper}
    assert "MNR301" not in codes(write_project(tmp_path / "q", fetched))


def test_a_python_version_in_the_package_folder_a_linked_step_writes_to(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "").replace(
        "## Training\n", "## Training\n\nThen follow the commands in scenarios/README.md.\n\n"
    )
    step = "```Shell\ncp maps/*.wad ../venv/lib/python2.7/site-packages/doom_py/scenarios/\n```\n"
    files = {"README.md": readme, "scenarios/README.md": "# Scenarios\n\n" + step}
    assert "MNR204" not in codes(write_project(tmp_path / "p", files))
    log = '```\n  File "/venv/lib/python2.7/site-packages/doom_py/__init__.py", line 3\n```\n'
    quoted = {**files, "scenarios/README.md": "# Scenarios\n\nIf you see\n\n" + log}
    assert "MNR204" in codes(write_project(tmp_path / "q", quoted))


LUA_TRAIN = (
    "require 'torch'\nrequire 'nn'\nrequire 'optim'\n\n"
    "local model = nn.Sequential():add(nn.Linear(10, 2))\n"
    "local criterion = nn.ClassNLLCriterion()\nlocal params, grads = model:getParameters()\n"
    "local function feval(x)\n  grads:zero()\n  local loss = criterion:forward(model:forward(x), 1)"
    "\n  model:backward(x, criterion:backward(model.output, 1))\n  return loss, grads\nend\n"
    "for i = 1, 10 do\n  optim.sgd(feval, params, {learningRate = 0.1})\nend\n"
)


def test_the_unpackaged_framework_named_in_the_docs_is_said_to_lack_a_version(
    tmp_path: Path,
) -> None:
    readme = (
        "# s2s\n\n{intro} of a sequence-to-sequence model.\n\n## Training\n\n    th train.lua\n"
    )
    files = {
        "train.py": None, "prepare_data.py": None, "requirements.txt": None,
        "train.lua": LUA_TRAIN, "README.md": readme.format(intro="[Torch](http://torch.ch) code"),
    }  # fmt: skip
    found = [f for f in lint(write_project(tmp_path / "p", files)).findings if f.code == "MNR207"]
    assert [(f.path, f.line) for f in found] == [("README.md", 3)]
    assert "named without a version" in found[0].message
    unnamed = {**files, "README.md": readme.format(intro="A PyTorch-free implementation")}
    found = [f for f in lint(write_project(tmp_path / "q", unnamed)).findings if f.code == "MNR207"]
    assert len(found) == 1 and "no dependency file or document names it" in found[0].message


def test_a_python_version_in_a_sub_projects_readme_the_root_does_not_link(
    tmp_path: Path,
) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "")
    files = {"README.md": readme, "vision/README.md": "# Vision\n\nSee the sub-folders.\n"}
    assert "MNR204" in codes(write_project(tmp_path / "p", files))
    setup = "# Tools\n\n```bash\nuv venv --python 3.11\nsource .venv/bin/activate\n```\n"
    stated = {**files, "tools/chat/README.md": setup}
    assert "MNR204" not in codes(write_project(tmp_path / "q", stated))
    # a web demo's page speaks for the demo
    demo = {**files, "chat_gradio/README.md": "# Chat\n\n* Python>=3.8\n"}
    assert "MNR204" in codes(write_project(tmp_path / "d", demo))
    # a run's printed log in another page states nothing
    log = "# Tools\n\n```\nPython version: 3.11.4\n```\n"
    assert "MNR204" in codes(write_project(tmp_path / "r", {**files, "tools/chat/README.md": log}))


def test_the_gpu_a_comment_after_the_training_command_names(tmp_path: Path) -> None:
    gpu = NO_GPU_README.replace(
        "    python train.py --seed 1 --threads 4\n", "```bash\npython train.py --seed 1{}\n```\n"
    )
    files = {"README.md": gpu.format("")}
    assert "MNR101" in codes(write_project(tmp_path / "p", files))
    named = {"README.md": gpu.format("  # 4xA100 80G")}
    assert "MNR101" not in codes(write_project(tmp_path / "q", named))


def test_a_framework_only_files_under_another_holders_copyright_import(tmp_path: Path) -> None:
    model = "import jax\nimport jax.numpy as jnp\n\n\ndef forecast(x):\n    return jnp.asarray(x)\n"
    train = "from baselines.timesfm.jax_model import forecast\n" + TRAIN
    files = {
        "train.py": train, "baselines/timesfm/__init__.py": "",
        "baselines/timesfm/jax_model.py": model, "requirements.txt": "torch==2.1.0\njax\n",
    }  # fmt: skip

    def jax_unpinned(root: Path) -> bool:
        return any(f.code == "MNR202" and "jax" in f.message for f in lint(root).findings)

    assert jax_unpinned(write_project(tmp_path / "p", files))
    header = "# Copyright 2024 Other Lab LLC\n#\n# Licensed under the Apache License.\n"
    copied = {**files, "baselines/timesfm/jax_model.py": header + model}
    assert not jax_unpinned(write_project(tmp_path / "q", copied))
    # the project's own files carry the same notice: the code is its own
    own = {**copied, "train.py": header + train}
    assert jax_unpinned(write_project(tmp_path / "r", own))


LASAGNE_NET = (
    "import numpy as np\nimport theano\nimport theano.tensor as T\nimport lasagne\n\n\n"
    "class ValueNet:\n    def build_step(self):\n        x = T.matrix('x')\n"
    "        self.net = lasagne.layers.DenseLayer(lasagne.layers.InputLayer((None, 4), x), 1)\n"
    "        loss = lasagne.layers.get_output(self.net).mean()\n"
    "        params = lasagne.layers.get_all_params(self.net)\n"
    "        updates = lasagne.updates.adam(loss, params)\n"
    "        self.train = theano.function([x], loss, updates=updates)\n"
)


def test_the_seed_fix_names_the_framework_training_runs_on(tmp_path: Path) -> None:
    files = {
        "train.py": None, "prepare_data.py": None, "requirements.txt": None,
        "train.lua": LUA_TRAIN, "README.md": "# s2s\n\nTorch7 code.\n\n    th train.lua\n",
    }  # fmt: skip
    (lua,) = [f for f in lint(write_project(tmp_path / "p", files)).findings if f.code == "MNR401"]
    assert "torch.manualSeed(seed)" in lua.fix and "numpy" not in lua.fix
    # training runs the Lasagne network (a TensorFlow one sits beside it)
    tf_net = "import tensorflow as tf\n\n\nclass ValueNet:\n    pass\n"
    trainer = "from value_net import ValueNet\n\nif __name__ == '__main__':\n"
    trainer += "    ValueNet().build_step()\n"
    readme = "# Go\n\nA TensorFlow and Theano agent.\n\n    python train.py\n"
    files = {
        "train.py": trainer, "prepare_data.py": None, "value_net.py": LASAGNE_NET,
        "value_net_tensorflow.py": tf_net, "README.md": readme,
        "requirements.txt": "theano==1.0.4\nlasagne==0.1\ntensorflow==1.15\n",
    }  # fmt: skip
    (theano,) = [
        f for f in lint(write_project(tmp_path / "q", files)).findings if f.code == "MNR401"
    ]
    assert theano.path == "value_net.py"
    assert "numpy.random.seed(seed)" in theano.fix and "RandomStreams" in theano.fix
    assert "tf." not in theano.fix


MATCONVNET_TRAIN = (
    "function net = train(imdb)\n"
    "net = vl_simplenn_tidy(init_net());\n"
    "[net, info] = cnn_train(net, imdb, @getBatch, 'numEpochs', 50);\n"
    "res = vl_simplenn(net, imdb.images.data(:,:,:,1));\n"
)


def test_a_version_in_parentheses_after_a_linked_framework_name_is_stated(tmp_path: Path) -> None:
    readme = (
        "# Tracker\n\nA fully-convolutional Siamese tracker trained end to end.\n\n"
        "## Training\n\n1. Prerequisites: Matlab, [MatConvNet](http://www.vlfeat.org/matconvnet/"
        "install/){said}.\n2. Run `train.m`.\n"
    )
    files = {
        "train.py": None, "prepare_data.py": None, "requirements.txt": None,
        "train.m": MATCONVNET_TRAIN, "README.md": readme.format(said=""),
    }  # fmt: skip
    found = [f for f in lint(write_project(tmp_path / "p", files)).findings if f.code == "MNR207"]
    assert [(f.path, f.line) for f in found] == [("README.md", 7)]
    for said in (" (we used `v1.0-beta20`)", " (tested with 1.0-beta25)", " (version 1.0)"):
        stated = {**files, "README.md": readme.format(said=said)}
        found = [f for f in lint(write_project(tmp_path / "q", stated)).findings
                 if f.code == "MNR207"]  # fmt: skip
        assert found == [], said


def test_caffe2_code_states_its_build_with_the_torch_release_that_carries_it(
    tmp_path: Path,
) -> None:
    caffe2 = "from caffe2.python import core, workspace\n\nworkspace.RunNetOnce(core.Net('t'))\n"
    readme = "# DLRM\n\nPython 3.7. Implementations in PyTorch and in Caffe2.\n"
    files = {
        "train.py": None, "prepare_data.py": None, "README.md": readme,
        "dlrm_caffe2.py": caffe2, "requirements.txt": "torch\nnumpy==1.18\n",
    }  # fmt: skip

    def caffe2_findings(name: str, found: dict[str, str | None]) -> list[str]:
        return [f.message for f in lint(write_project(tmp_path / name, found)).findings
                if f.code == "MNR207"]  # fmt: skip

    assert caffe2_findings("p", files) == ["Caffe2 is named without a version or commit"]
    assert caffe2_findings("q", {**files, "requirements.txt": "torch==1.3.1\nnumpy==1.18\n"}) == []
