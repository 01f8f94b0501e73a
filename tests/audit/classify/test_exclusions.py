"""Project classifier: is_dl, exclude, domain, training_code and data_available."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.audit.classify.exclusions import classify_project
from miner.audit.detect import AuditContext
from miner.audit.detect.frameworks import detect_frameworks
from miner.audit.detect.languages import detect_language
from miner.audit.detect.networks import detect_networks
from miner.audit.docs import Documents
from miner.audit.files import RepoTree
from miner.models import Label

TORCH_TRAIN = """import torch
import torch.nn as nn


class Net(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv = nn.Conv2d(3, 8, 3)


net = Net()
optimizer = torch.optim.SGD(net.parameters(), lr=0.1)
loss = criterion(net(x), y)
loss.backward()
optimizer.step()
"""
TORCH_INFER = """import torch
from model import Net

net = Net()
net.load_state_dict(torch.load("weights/net.pth"))
print(net(image).argmax())
"""


def _project(tmp_path: Path, files: dict[str, str], name: str = "repo") -> dict[str, Label]:
    root = tmp_path / name
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    tree = RepoTree(root)
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    labels: dict[str, Label] = {}
    for detector in (detect_frameworks, detect_language, detect_networks, classify_project):
        for label in detector(ctx, labels):
            labels[label.field] = label
    return labels


def _exclude(labels: dict[str, Label]) -> set[str]:
    value = labels["exclude"].value
    assert isinstance(value, frozenset)
    return set(value)


def test_every_field_is_emitted_even_for_an_empty_folder(tmp_path: Path) -> None:
    labels = _project(tmp_path, {})
    for name in ("is_dl", "exclude", "domain", "training_code", "data_available"):
        assert name in labels
    assert labels["is_dl"].value is False and labels["training_code"].value is False
    assert _exclude(labels) == {"not_dl"} and labels["domain"].value == "other"


def test_training_code_from_optimizer_steps(tmp_path: Path) -> None:
    labels = _project(tmp_path, {"train.py": TORCH_TRAIN})
    assert labels["is_dl"].value is True and labels["training_code"].value is True
    evidence = labels["training_code"].evidence[0]
    assert evidence.path == "train.py" and evidence.rule == "training_code.code"
    assert "backward" in evidence.text or "step" in evidence.text
    assert _exclude(labels) == set()


def test_training_scripts_that_import_the_model_from_the_project_count(tmp_path: Path) -> None:
    model = "import torch.nn as nn\nclass Net(nn.Module):\n    pass\n"
    train = "from model import Net\nhistory = Net().fit(x, y, epochs=3)\n"
    labels = _project(tmp_path, {"model.py": model, "train.py": train})
    assert labels["training_code"].value is True


def test_scikit_learn_fit_is_not_training_a_network(tmp_path: Path) -> None:
    model = "import torch\nnet = torch.load('net.pth')\n"
    svm = "from sklearn.svm import SVC\nclf = SVC()\nclf.fit(features, labels)\n"
    labels = _project(tmp_path, {"infer.py": model, "svm.py": svm})
    assert labels["training_code"].value is False


def test_caffe_solver_lua_and_theano_training(tmp_path: Path) -> None:
    caffe = {"train.sh": "./build/tools/caffe train --solver=solver.prototxt\n",
             "solver.prototxt": "base_lr: 0.01\nmax_iter: 1000\n"}  # fmt: skip
    assert _project(tmp_path, caffe, "caffe")["training_code"].value is True
    lua = {"train.lua": "require 'nn'\nrequire 'optim'\noptim.adadelta(feval, params, cfg)\n"}
    assert _project(tmp_path, lua, "lua")["training_code"].value is True
    theano = {"train.py": "import theano\nf = theano.function([x], c, updates=updates)\n"}
    assert _project(tmp_path, theano, "theano")["training_code"].value is True


def test_an_optimizer_built_in_network_code_is_training(tmp_path: Path) -> None:
    code = (
        "import tensorflow as tf\ntrain_step = tf.train.AdamOptimizer(lr).\\\n    minimize(loss)\n"
    )
    labels = _project(tmp_path, {"agent.py": code})
    assert labels["training_code"].value is True
    assert labels["training_code"].evidence[0].rule == "training_code.optimizer"


def test_pretrained_only_loads_weights_and_trains_nothing(tmp_path: Path) -> None:
    labels = _project(tmp_path, {"demo.py": TORCH_INFER})
    assert labels["training_code"].value is False
    assert _exclude(labels) == {"pretrained_only"}
    assert labels["exclude"].evidence[0].rule == "exclude.pretrained_load"


HAIKU_RUNNER = """import pickle
import haiku as hk
import jax


class Decoder(hk.Module):
    def __call__(self, x):
        return hk.Linear(64)(jax.nn.gelu(hk.Linear(256)(x)))


def restore(path):
    with open(path, "rb") as f:
        return pickle.load(f)
"""


def test_a_model_run_from_weights_read_its_own_way_is_pretrained_only(tmp_path: Path) -> None:
    readme = "# Big model\n\nExample code for sampling from the model.\n"
    labels = _project(tmp_path, {"model.py": HAIKU_RUNNER, "README.md": readme})
    assert labels["is_dl"].value is True and labels["training_code"].value is False
    assert _exclude(labels) == {"pretrained_only"}
    assert labels["exclude"].evidence[0].rule == "exclude.pretrained_runs"


def test_a_library_that_runs_networks_it_trains_none_of_is_no_pretrained_only(
    tmp_path: Path,
) -> None:
    readme = ("# Sim\n\nA simulator for agents.\n\n```bash\npip install sim\n```\n\n"
              "```python\nfrom sim import make_env\nenv = make_env()\n```\n")  # fmt: skip
    files = {"sim/__init__.py": "", "sim/model.py": HAIKU_RUNNER,
             "setup.py": "from setuptools import setup\nsetup(name='sim')\n"}  # fmt: skip
    labels = _project(tmp_path / "lib", {**files, "README.md": readme})
    assert _exclude(labels) == {"library"}
    # the same library documenting pre-trained weights is pretrained-only too
    weights = readme + "\nDownload the pre-trained policy from the releases page.\n"
    labels = _project(tmp_path / "docs", {**files, "README.md": weights})
    assert _exclude(labels) == {"library", "pretrained_only"}


@pytest.mark.parametrize(
    "intro",
    [
        "[**Documentation**](https://example.org/docs)\n| [**Tutorials**](https://example.org/t)\n",
        "**Tutorial:** [tutorial-v1.6(audio)](./tutorial/a.md),[tutorial-v1.5 (Text)](./t/b.md)\n",
        "This repo provides official code for [Timer](https://arxiv.org/abs/2402.02368). "
        "[[Slides]](https://example.org/s) and our works [[Tutorial (CN)]](https://example.org/c).\n",
        "Released v1.1.7. To quantize your own models, use `nbits=8` as per the tutorial below.\n",
        "Training is covered in the tutorial section.\n",
    ],
)
def test_links_to_a_project_s_own_tutorials_are_not_educational(tmp_path: Path, intro: str) -> None:
    labels = _project(tmp_path, {"train.py": TORCH_TRAIN, "README.md": f"# Net\n\n{intro}"})
    assert "educational" not in _exclude(labels)
    # a tutorial said in words is one still
    said = "This repository is a tutorial on [PyTorch](https://pytorch.org) for beginners.\n"
    labels = _project(tmp_path / "said", {"train.py": TORCH_TRAIN, "README.md": f"# Net\n\n{said}"})
    assert "educational" in _exclude(labels)


def test_not_dl(tmp_path: Path) -> None:
    code = "import pandas as pd\nfrom sklearn.linear_model import LogisticRegression\n"
    labels = _project(tmp_path, {"analysis.py": code, "README.md": "# Stats\n"})
    assert labels["is_dl"].value is False and _exclude(labels) == {"not_dl"}


def test_data_in_the_repository_loaders_scripts_and_links(tmp_path: Path) -> None:
    data = {f"data/train/{i}.png": "x" for i in range(25)}
    labels = _project(tmp_path, {"train.py": TORCH_TRAIN, **data}, "in_repo")
    assert labels["data_available"].value is True
    assert labels["data_available"].evidence[0].rule == "data_available.in_repository"
    loader = TORCH_TRAIN + "ds = torchvision.datasets.CIFAR10('.', download=True)\n"
    labels = _project(tmp_path, {"train.py": loader}, "loader")
    assert labels["data_available"].evidence[0].rule == "data_available.loader"
    labels = _project(tmp_path, {"train.py": TORCH_TRAIN, "download_data.sh": "wget x\n"}, "sh")
    assert labels["data_available"].evidence[0].rule == "data_available.download_script"
    readme = "# Net\n\n## Dataset\n\nDownload the dataset from http://example.org/faces.zip\n"
    labels = _project(tmp_path, {"train.py": TORCH_TRAIN, "README.md": readme}, "link")
    assert labels["data_available"].evidence[0].rule == "data_available.link"


def test_files_of_a_project_that_trains_nothing_are_no_training_data(tmp_path: Path) -> None:
    data = {f"data/bench/{i}.jsonl": '{"q": "x"}' for i in range(25)}
    labels = _project(tmp_path, {"demo.py": TORCH_INFER, **data}, "infer")
    assert labels["data_available"].value is False
    readme = "# Net\n\n## Dataset\n\nDownload the dataset from http://example.org/faces.zip\n"
    files = {"demo.py": TORCH_INFER, "README.md": readme, **data}
    assert _project(tmp_path, files, "linked")["data_available"].value is True


def test_no_data_when_only_figures_and_unrelated_links(tmp_path: Path) -> None:
    figures = {f"images/fig{i}.png": "x" for i in range(30)}
    readme = "# Net\n\nSee the paper at https://arxiv.org/abs/1234.5678\n"
    labels = _project(tmp_path, {"train.py": TORCH_TRAIN, "README.md": readme, **figures})
    assert labels["data_available"].value is False


def test_educational_repositories(tmp_path: Path) -> None:
    tutorial = {"README.md": "# PyTorch Tutorial\n\nLearn deep learning step by step.\n",
                "train.py": TORCH_TRAIN}  # fmt: skip
    assert "educational" in _exclude(_project(tmp_path, tutorial, "t1"))
    course = {f"week{i}/train.py": TORCH_TRAIN for i in range(1, 5)}
    assert "educational" in _exclude(_project(tmp_path, course, "t2"))
    awesome = {"README.md": "# Awesome Deep Learning\n\n- [a](http://a)\n"}
    assert "educational" in _exclude(_project(tmp_path, awesome, "t3"))


@pytest.mark.parametrize(
    "intro",
    [
        "This is the code for my blog post on variational autoencoders.",
        "Code accompanying my post about adversarial examples.",
        "This repo contains the code for the article on Medium.",
        "The code for my YouTube video series on transformers.",
        "A step-by-step walkthrough of training a small transformer.",
        "Minimal code for byte pair encoding, written for teaching.",
        "Below you can find two explanation videos for the theory and the implementation.",
        "A collection of Jupyter notebooks on attention.",
        "[この記事](http://musyoku.github.io/2016/09/18/wavenet/)で実装したコードです。",
        "这是我的博客中的代码实现。",
        "블로그 포스팅의 코드입니다.",
    ],
)
def test_tutorial_companions_are_educational(tmp_path: Path, intro: str) -> None:
    labels = _project(tmp_path, {"README.md": f"# Net\n\n{intro}\n", "train.py": TORCH_TRAIN})
    assert _exclude(labels) == {"educational"}


@pytest.mark.parametrize(
    "intro",
    [
        "This repository contains the code for our ICLR paper. See also our blog post.",
        "Code for the Nature article on protein folding.",
        "Code for the post-processing of masks, and for our post training quantization.",
        "Code for the video diffusion model of our paper.",
        "本文的代码实现，论文见 [arXiv](https://arxiv.org/abs/1)。",
        "論文の実装コードです。",
    ],
)
def test_a_paper_s_code_with_a_post_or_a_video_model_is_kept(tmp_path: Path, intro: str) -> None:
    labels = _project(tmp_path, {"README.md": f"# Net\n\n{intro}\n", "train.py": TORCH_TRAIN})
    assert _exclude(labels) == set()


@pytest.mark.parametrize(
    "intro",
    [
        "This repository is intended to be educational: one file, no switches.",
        "PyTorch implementations of 30 papers with side-by-side notes.",
        "A hands-on guide to fine-tuning language models.",
    ],
)
def test_a_teaching_project_or_a_numbered_collection(tmp_path: Path, intro: str) -> None:
    labels = _project(tmp_path, {"README.md": f"# Net\n\n{intro}\n", "train.py": TORCH_TRAIN})
    assert _exclude(labels) == {"educational"}


@pytest.mark.parametrize(
    "intro",
    [
        "Official implementations of 2 papers on detection.",
        "The model is designed to be a learning system for robots.",
        "This code is intended to be run on one GPU.",
        "CortexBench is a collection of 17 different EAI tasks spanning locomotion and navigation.",
        "We release a collection of 4,000 hours of egocentric videos.",
    ],
)
def test_a_paper_pair_or_a_learning_system_is_kept(tmp_path: Path, intro: str) -> None:
    labels = _project(tmp_path, {"README.md": f"# Net\n\n{intro}\n", "train.py": TORCH_TRAIN})
    assert _exclude(labels) == set()


def test_papers_workshops_and_booking_words_are_not_educational(tmp_path: Path) -> None:
    readme = (
        "# FacePoseNet\n\nF. Chang et al., in IEEE International Workshop on Faces, 2017.\n\n"
        "Users book travel tickets on the site, and of course we train a CNN.\n"
    )
    labels = _project(tmp_path, {"README.md": readme, "train.py": TORCH_TRAIN})
    assert "educational" not in _exclude(labels)


def test_library_published_for_reuse(tmp_path: Path) -> None:
    readme = (
        "# nagisa\n\nnagisa is a python module for Japanese word segmentation.\n\n"
        "## Install\n\n```\npip install nagisa\n```\n"
    )
    setup = "from setuptools import setup\nsetup(name='nagisa', packages=['nagisa'])\n"
    files = {"README.md": readme, "setup.py": setup, "nagisa/train.py": TORCH_TRAIN}
    labels = _project(tmp_path, files, "nagisa")
    assert "library" in _exclude(labels)
    assert labels["exclude"].evidence[0].rule == "exclude.library_install"


def test_installing_requirements_is_no_library(tmp_path: Path) -> None:
    readme = "# Net\n\nA framework for segmentation.\n\n```\npip install -r requirements.txt\n```\n"
    labels = _project(tmp_path, {"README.md": readme, "train.py": TORCH_TRAIN})
    assert "library" not in _exclude(labels)


def test_deprecated_only_when_said_of_this_repository(tmp_path: Path) -> None:
    readme = "# Net\n\n**This repository is deprecated.** Please use the new one.\n"
    labels = _project(tmp_path, {"README.md": readme, "train.py": TORCH_TRAIN}, "old")
    assert "deprecated" in _exclude(labels)
    moved = "# Net\n\nThis project has moved to https://github.com/org/new.\n"
    assert "deprecated" in _exclude(
        _project(tmp_path, {"README.md": moved, "train.py": TORCH_TRAIN}, "moved")
    )
    included = (
        "# :triangular_flag_on_post: The complete code and scripts of Timer have been included"
        " in [Large-Time-Series-Model](https://github.com/org/new).\n"
    )
    assert "deprecated" in _exclude(
        _project(tmp_path, {"README.md": included, "train.py": TORCH_TRAIN}, "included")
    )
    news = "# Net\n\nA detector.\n\nFast.\n\nGood.\n\nThe full code has been included in MMDet.\n"
    labels = _project(tmp_path, {"README.md": news, "train.py": TORCH_TRAIN}, "later")
    assert "deprecated" not in _exclude(labels)  # past the introduction: not a banner
    other = "# Net\n\nWe use Apex, which was merged into PyTorch and is no longer maintained.\n"
    labels = _project(tmp_path, {"README.md": other, "train.py": TORCH_TRAIN}, "fine")
    assert "deprecated" not in _exclude(labels)


def test_domains(tmp_path: Path) -> None:
    cases = {
        "vision": "# Face Detection\n\nDetect faces in images with a CNN.\n",
        "nlp": "# Sentence Classification\n\nSentiment analysis of text.\n",
        "speech": "# Deep Voice\n\nText-to-speech synthesis.\n",
        "medical": "# MRI Reconstruction\n\nReconstruct MR images of patients.\n",
    }
    for domain, readme in cases.items():
        labels = _project(tmp_path, {"README.md": readme, "train.py": TORCH_TRAIN}, domain)
        assert labels["domain"].value == domain, domain
    labels = _project(tmp_path, {"train.py": TORCH_TRAIN}, "plain")
    assert labels["domain"].value == "other"


def test_scripts_fetching_model_weights_are_not_data(tmp_path: Path) -> None:
    files = {"train.py": TORCH_TRAIN, "download_model.sh": "wget http://x.org/net.caffemodel\n"}
    assert _project(tmp_path, files, "weights")["data_available"].value is False
    files = {"train.py": TORCH_TRAIN, "download.sh": "wget http://x.org/faces.tar\n"}
    assert _project(tmp_path, files, "data")["data_available"].value is True


def test_a_buildable_project_calling_itself_a_framework_is_a_library(tmp_path: Path) -> None:
    readme = "# Darknet\n\nDarknet is an open source neural network framework written in C.\n"
    files = {"README.md": readme, "Makefile": "all:\n\tcc -o darknet src/*.c\n",
             "src/train.py": TORCH_TRAIN}  # fmt: skip
    labels = _project(tmp_path, files, "fw")
    assert "library" in _exclude(labels)
    assert labels["exclude"].evidence[0].rule == "exclude.library_self"
    method = "# VPG\n\nVPG is a method for training robotic agents to push and grasp.\n"
    files = {"README.md": method, "setup.py": "setup(name='vpg')\n", "train.py": TORCH_TRAIN}
    assert "library" not in _exclude(_project(tmp_path, files, "method"))


@pytest.mark.parametrize(
    "readme",
    [
        "# Net\n\n**Important:** **this repository is not maintained anymore**. See the fork.\n",
        "# Net\n\nThis project has been superseded by [Net2](https://example.org/net2).\n",
        "# Net\n\n> **Note** No longer maintained. Please use the new release.\n",
        "# Net\n\nThis repository is semi-archived: we only fix critical bugs.\n",
        "# Net\n\nThis repository is old, see [Net2](https://example.org/net2) instead.\n",
        "# Net\n\nDevelopment has moved to [the new home](https://example.org/net).\n",
        "# Net\n\n**Status:** Archive (code is provided as-is, no updates expected)\n",
        "# Net\n\nProject status: deprecated.\n",
        "# net.cpp\n\nRun it.\n\n## Consider using llama.cpp instead\n\nMore below.\n",
        "# net.cpp\n\nRun it.\n\nThe changes from net.cpp have since been upstreamed in X.\n",
        "# Net\n\nNote: this project is no longer under active development.\n",
        "# Net\n\nThis repository will not be updated anymore; see Net2.\n",
        "# Net\n\nThis codebase has reached end-of-life.\n",
        "# Net\n\nI am no longer maintaining this repository, sorry.\n",
        "# Net\n\nSee [Net2](https://example.org/net2), which supersedes this repository.\n",
        "# Net moved\n\nOpen any issues there. `lab/net-core` is no longer in use.\n",
        "# attention:\n\n## This package has stopped updating, please see our new repository\n",
        "# Net\n\nWe have stopped maintaining this repository.\n",
    ],
)
def test_deprecation_said_today_s_way(tmp_path: Path, readme: str) -> None:
    labels = _project(tmp_path, {"README.md": readme, "train.py": TORCH_TRAIN})
    assert _exclude(labels) == {"deprecated"}


@pytest.mark.parametrize(
    "sentence",
    [
        "This project will not be updated until the paper is accepted.",
        "This repository will be updated with the training code soon.",
        "We are maintaining this repository actively.",
        "Apex is no longer under active development, so we pin its version.",
        "The training stopped updating the encoder after 10 epochs.",
    ],
)
def test_plans_and_other_tools_status_are_no_deprecation(tmp_path: Path, sentence: str) -> None:
    labels = _project(tmp_path, {"README.md": f"# Net\n\n{sentence}\n", "train.py": TORCH_TRAIN})
    assert "deprecated" not in _exclude(labels)


def test_a_conditional_suggestion_of_another_tool_is_no_deprecation(tmp_path: Path) -> None:
    readme = "# Net\n\nFor multi-node runs, consider using DeepSpeed instead.\n"
    labels = _project(tmp_path, {"README.md": readme, "train.py": TORCH_TRAIN})
    assert "deprecated" not in _exclude(labels)


def test_deprecation_in_an_rst_warning(tmp_path: Path) -> None:
    readme = "Net\n===\n\n.. warning::\n\n    This project is discontinued in favour of Net2.\n"
    labels = _project(tmp_path, {"README.rst": readme, "train.py": TORCH_TRAIN})
    assert _exclude(labels) == {"deprecated"}


@pytest.mark.parametrize(
    "line",
    [
        "**Status:** Maintenance (expect bug fixes and minor updates)",
        "Status: active development, updates expected weekly.",
    ],
)
def test_a_status_line_of_a_live_project_is_not_deprecation(tmp_path: Path, line: str) -> None:
    labels = _project(tmp_path, {"README.md": f"# Net\n\n{line}\n", "train.py": TORCH_TRAIN})
    assert _exclude(labels) == set()


def test_an_inactive_project_still_maintained_is_not_deprecated(tmp_path: Path) -> None:
    line = (
        "Project Status: Inactive - The project has reached a stable, usable state but is no "
        "longer being actively developed; support/maintenance will be provided as time allows."
    )
    labels = _project(tmp_path, {"README.md": f"# Net\n\n{line}\n", "train.py": TORCH_TRAIN})
    assert _exclude(labels) == set()


def test_deprecation_said_by_the_project_s_name_or_in_a_heading_further_down(
    tmp_path: Path,
) -> None:
    intro = "# Net\n\n" + "We train nets.\n\n" * 8
    said = (
        intro + "Important Notice:\n\n- AutoQuant is officially deprecated and will no longer be "
        "maintained.\n"
    )
    labels = _project(tmp_path, {"README.md": said, "train.py": TORCH_TRAIN}, "org__AutoQuant")
    assert _exclude(labels) == {"deprecated"}
    other = said.replace("AutoQuant is", "OtherTool is")  # another project's state
    labels = _project(tmp_path, {"README.md": other, "train.py": TORCH_TRAIN}, "org__Net")
    assert _exclude(labels) == set()
    heading = intro + "## No Longer Maintained\n\n### Reasons\n\nNo time.\n"
    labels = _project(tmp_path, {"README.md": heading, "train.py": TORCH_TRAIN}, "h")
    assert _exclude(labels) == {"deprecated"}
    options = intro + "## Deprecated options\n\n- `--fp16`: use `--precision`.\n"
    labels = _project(tmp_path, {"README.md": options, "train.py": TORCH_TRAIN}, "o")
    assert _exclude(labels) == set()


def test_an_archived_branch_or_a_deprecated_api_is_not_deprecation(tmp_path: Path) -> None:
    readme = (
        "# Net\n\nWe train nets.\n\nThe first version was fine.\n\nIt is fast.\n\n"
        "(The initial release of this repo has been archived in the branch `snapshot-2021`)\n\n"
        "The `--fp16` flag is deprecated; use `--precision`.\n"
    )
    labels = _project(tmp_path, {"README.md": readme, "train.py": TORCH_TRAIN})
    assert _exclude(labels) == set()


def test_a_root_document_named_archived_says_so(tmp_path: Path) -> None:
    note = "# Archived\n\nThis project is `Archived` and is no longer actively maintained.\n"
    files = {"README.md": "# Net\n", "CONTRIBUTING-ARCHIVED.md": note, "train.py": TORCH_TRAIN}
    assert _exclude(_project(tmp_path, files)) == {"deprecated"}


def test_a_repository_meant_for_education(tmp_path: Path) -> None:
    readme = "# gen\n\nOne hackable file, mostly intended for educational purposes.\n"
    labels = _project(tmp_path, {"README.md": readme, "train.py": TORCH_TRAIN})
    assert _exclude(labels) == {"educational"}
    purpose = "# gen\n\nWe train nets for many purposes, education among them.\n"
    labels = _project(tmp_path, {"README.md": purpose, "train.py": TORCH_TRAIN}, "kept")
    assert _exclude(labels) == set()


def test_a_collection_of_implementations_is_educational(tmp_path: Path) -> None:
    readme = "# GANs\n\nPyTorch implementations of various generative adversarial networks.\n"
    labels = _project(tmp_path, {"README.md": readme, "train.py": TORCH_TRAIN})
    assert _exclude(labels) == {"educational"}
    one = "# Net\n\nThe implementation of our network, an old-school CNN.\n"
    assert _exclude(_project(tmp_path, {"README.md": one, "train.py": TORCH_TRAIN}, "one")) == set()


@pytest.mark.parametrize(
    "title",
    ["# Llama Cookbook: The Official Guide to building with Llama Models", "# A Guide to GANs"],
)
def test_cookbooks_and_guides_are_educational(tmp_path: Path, title: str) -> None:
    labels = _project(tmp_path, {"README.md": f"{title}\n\nStart here.\n", "train.py": TORCH_TRAIN})
    assert "educational" in _exclude(labels)


@pytest.mark.parametrize(
    "title",
    ["# The Alignment Handbook", "# Net\n\nSee the [install guide](INSTALL.md) for details."],
)
def test_handbooks_of_recipes_and_install_guides_are_not(tmp_path: Path, title: str) -> None:
    labels = _project(tmp_path, {"README.md": f"{title}\n\nRecipes to train.\n",
                                 "train.py": TORCH_TRAIN})  # fmt: skip
    assert "educational" not in _exclude(labels)
