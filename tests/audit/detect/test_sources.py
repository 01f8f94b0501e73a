"""The source index: roles and weights, vendored code and framework copies, notebooks, .m files."""

from __future__ import annotations

import json
from pathlib import Path

from detect_snippets import write

from miner.audit.detect.sources import build_index, framework_copies, in_copy, role_of
from miner.audit.files import RepoTree


def _index(root: Path, files: dict[str, str | bytes]):  # type: ignore[no-untyped-def]
    warnings: list[str] = []
    index = build_index(RepoTree(write(root, files)), warnings)
    return index, warnings


def test_roles_weigh_model_and_training_code_over_utilities_tests_and_examples() -> None:
    model, train, util = role_of("src/model.py"), role_of("train.py"), role_of("utils/io.py")
    test, example, doc = (
        role_of("tests/test_model.py"),
        role_of("examples/net.py"),
        role_of("docs/conf.py"),
    )
    assert model[0] == "model" and train[0] == "train" and util[0] == "util"
    assert model[1] > util[1] > test[1] and train[1] > example[1] > doc[1]
    # utility words win over model words: model_utils.py is a helper, not the model
    assert role_of("model_utils.py")[0] == "util"
    # a notebook named like a test is an experiment
    assert role_of("final_results_test.ipynb")[0] != "test"


def test_vendored_files_weigh_nothing_and_are_not_scanned(tmp_path: Path) -> None:
    index, _ = _index(
        tmp_path,
        {"third_party/lib/net.py": "import torch\n", "model.py": "import tensorflow as tf\n"},
    )
    by_path = {f.path: f for f in index.files}
    assert by_path["third_party/lib/net.py"].weight == 0
    assert not by_path["third_party/lib/net.py"].read
    assert [f.path for f in index.own()] == ["model.py"]


def test_a_caffe_fork_is_a_framework_copy_but_a_layer_folder_is_own_code(tmp_path: Path) -> None:
    fork = write(
        tmp_path / "fork",
        {
            "src/caffe/net.cpp": '#include "caffe/net.hpp"\n',
            "include/caffe/net.hpp": "#pragma once\n",
            "src/caffe/layers/my_layer.cpp": '#include "caffe/layer.hpp"\n',
            "python/caffe/pycaffe.py": "import caffe\n",
            "examples/mnist/train_lenet.sh": "./build/tools/caffe train --solver=s.prototxt\n",
            "examples/mynet/train.py": "import caffe\nsolver = caffe.SGDSolver('s.prototxt')\n",
        },
    )
    copies = framework_copies(RepoTree(fork))
    assert copies == ("",)
    assert in_copy("python/caffe/pycaffe.py", copies) and in_copy("examples/mnist/x.sh", copies)
    assert not in_copy("examples/mynet/train.py", copies)
    layers = write(
        tmp_path / "layers",
        {"caffe/src/caffe/layers/octree_layer.cpp": '#include "caffe/layer.hpp"\n',
         "caffe/include/caffe/layers/octree_layer.hpp": "#pragma once\n"},
    )  # fmt: skip
    assert framework_copies(RepoTree(layers)) == ()


def test_notebooks_count_by_their_code_cells_only(tmp_path: Path) -> None:
    notebook = {
        "cells": [
            {"cell_type": "markdown", "source": ["# uses keras? no: import keras\n"]},
            {"cell_type": "code", "source": ["import torch\n", "x = torch.zeros(3)\n"],
             "outputs": [{"data": {"text/html": "<div>" + "x" * 5000 + "</div>"}}]},
        ],
        "metadata": {"kernelspec": {"language": "python"}},
    }  # fmt: skip
    index, warnings = _index(tmp_path, {"nb.ipynb": json.dumps(notebook, indent=1)})
    nb = index.files[0]
    assert nb.notebook and nb.lang == "python" and nb.size < 100
    assert [i.module for i in nb.imports] == ["torch"]
    # evidence lines point into the notebook file itself
    line, text = index.where("nb.ipynb", "import torch")
    assert line > 1 and "import torch" in text
    assert not warnings


def test_a_malformed_notebook_warns_and_the_scan_goes_on(tmp_path: Path) -> None:
    index, warnings = _index(
        tmp_path, {"broken.ipynb": '{"cells": [', "train.py": "import torch\nloss.backward()\n"}
    )
    assert any("broken.ipynb" in w and "malformed notebook" in w for w in warnings)
    assert {f.path for f in index.own()} == {"train.py"}


def test_nbformat3_notebooks_and_r_kernels(tmp_path: Path) -> None:
    nb3 = {"worksheets": [{"cells": [{"cell_type": "code", "input": "import theano\n"}]}],
           "metadata": {}}  # fmt: skip
    r_nb = {"cells": [{"cell_type": "code", "source": "library(keras)\n"}],
            "metadata": {"kernelspec": {"language": "R"}}}  # fmt: skip
    index, _ = _index(tmp_path, {"a.ipynb": json.dumps(nb3), "b.ipynb": json.dumps(r_nb)})
    by_path = {f.path: f for f in index.files}
    assert [i.module for i in by_path["a.ipynb"].imports] == ["theano"]
    assert by_path["b.ipynb"].lang == "r"


def test_objective_c_m_files_are_not_matlab(tmp_path: Path) -> None:
    index, _ = _index(
        tmp_path,
        {
            "ios/ViewController.m": "#import <UIKit/UIKit.h>\n@implementation VC\n@end\n",
            "matlab/demo.m": "function out = demo(x)\n% the net\nout = vl_simplenn(net, x);\nend\n",
        },
    )
    langs = {f.path: f.lang for f in index.files}
    assert langs == {"ios/ViewController.m": "objc", "matlab/demo.m": "matlab"}


def test_model_files_are_found_by_content(tmp_path: Path) -> None:
    body = "import torch.nn as nn\nclass Encoder(nn.Module):\n    pass\n"
    index, _ = _index(tmp_path, {"lib/parts.py": body, "lib/other.py": "x = 1\n"})
    weights = {f.path: f.weight for f in index.files}
    assert weights["lib/parts.py"] > weights["lib/other.py"]


def test_prototxt_solver_and_darknet_cfg_artifacts(tmp_path: Path) -> None:
    index, _ = _index(
        tmp_path,
        {
            "models/net.prototxt": 'layer {\n  name: "c1"\n  type: "Convolution"\n}\n',
            "models/solver.prototxt": 'net: "net.prototxt"\nbase_lr: 0.01\nmax_iter: 100\n',
            "cfg/yolo.cfg": "[net]\nbatch=64\n[convolutional]\nfilters=32\n[yolo]\n",
            "setup.cfg": "[metadata]\nname = x\n",
            "train.sh": "./darknet detector train cfg/voc.data cfg/yolo.cfg\n",
        },
    )
    kinds = {a.path: a for a in index.artifacts}
    assert kinds["models/net.prototxt"].layer_types["Convolution"] == 1
    assert kinds["models/solver.prototxt"].solver
    assert kinds["cfg/yolo.cfg"].layer_types["convolutional"] == 1
    assert "setup.cfg" not in kinds
    assert "darknet.cli_train" in kinds["train.sh"].hits
