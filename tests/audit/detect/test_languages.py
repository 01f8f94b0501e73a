"""language: the language the main model is built and trained in (codebook rule)."""

from __future__ import annotations

import json

from detect_snippets import TF_LOW, TORCH_MODEL, TORCH_TRAIN, value

PROTOTXT = 'name: "net"\nlayer {\n  name: "conv1"\n  type: "Convolution"\n}\n'
SOLVER = 'net: "train_val.prototxt"\nbase_lr: 0.001\nmax_iter: 10000\n'
CAFFE_TOOL = "$CAFFE_ROOT/build/tools/caffe train --solver=solver.prototxt\n"
PY_INFER = "import caffe\nnet = caffe.Net('deploy.prototxt', 'w.caffemodel', caffe.TEST)\n"


def test_python_project_with_vendored_cpp_is_python(audit) -> None:  # type: ignore[no-untyped-def]
    big_cpp = '#include "tensorflow/core/framework/op.h"\n' + "int f() { return 1; }\n" * 3000
    labels, ctx = audit(
        {"model.py": TORCH_MODEL, "train.py": TORCH_TRAIN, "third_party/kernels/op.cc": big_cpp}
    )
    assert value(labels, "language") == "python"
    assert "cpp" not in ctx.details["language_shares"]
    assert labels["language"].evidence[0].rule == "language.framework_code"


def test_lua_torch_project_is_lua_even_with_python_helpers(audit) -> None:  # type: ignore[no-untyped-def]
    lua = "require 'nn'\nlocal m = nn.Sequential()\nm:add(nn.SpatialConvolution(1, 8, 3, 3))\n"
    labels, _ = audit(
        {"train.lua": lua, "tools/convert.py": "import numpy as np\n" + "x = 1\n" * 400}
    )
    assert value(labels, "language") == "lua"


def test_caffe_with_own_cpp_layers_and_the_caffe_tool_is_cpp(audit) -> None:  # type: ignore[no-untyped-def]
    layer = '#include "caffe/layer.hpp"\nnamespace caffe {\nclass DwLayer {};\n}\n'
    labels, _ = audit(
        {
            "caffe_need/conv_dw_layer.cpp": layer,
            "train/solver.prototxt": SOLVER,
            "train/train_val.prototxt": PROTOTXT,
            "train/train.sh": CAFFE_TOOL,
            "prep/crop_faces.py": "import cv2\nimport numpy as np\n" + "x = 1\n" * 300,
            "infer/inference.py": PY_INFER,
        }
    )
    assert value(labels, "primary_framework") == "caffe"
    assert value(labels, "language") == "cpp"


def test_caffe_trained_with_pycaffe_is_python(audit) -> None:  # type: ignore[no-untyped-def]
    train = "import caffe\nsolver = caffe.SGDSolver('solver.prototxt')\nsolver.step(100)\n"
    labels, _ = audit({"train.py": train, "solver.prototxt": SOLVER, "net.prototxt": PROTOTXT})
    assert value(labels, "language") == "python"
    assert labels["language"].evidence[0].rule == "language.pycaffe"


def test_caffe_net_defined_with_netspec_in_a_fork_is_python(audit) -> None:  # type: ignore[no-untyped-def]
    netspec = (
        "import caffe\nfrom caffe import layers as L\n"
        "n = caffe.NetSpec()\nn.conv1 = L.Convolution(n.data, num_output=64, kernel_size=3)\n"
    )
    labels, _ = audit(
        {
            "src/caffe/net.cpp": '#include "caffe/net.hpp"\n' * 50,
            "include/caffe/net.hpp": "#pragma once\n",
            "examples/mydet/VGG16_VOC_320.py": netspec,
        }
    )
    assert value(labels, "language") == "python"


def test_a_caffe_fork_training_with_the_tool_is_cpp(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit(
        {
            "src/caffe/net.cpp": '#include "caffe/net.hpp"\n',
            "include/caffe/net.hpp": "#pragma once\n",
            "src/caffe/layers/latent_layer.cpp": '#include "caffe/layer.hpp"\n',
            "examples/mine/train.sh": CAFFE_TOOL,
            "analysis/eval.m": "function r = eval(x)\nr = x;\nend\n" * 20,
        }
    )
    assert value(labels, "language") == "cpp"


def test_python_driving_the_caffe_tool_without_own_cpp_is_python(audit) -> None:  # type: ignore[no-untyped-def]
    driver = (
        "import subprocess\nimport caffe\n"
        "subprocess.Popen([caffe_home + '/build/tools/caffe', 'train', '--solver', s])\n"
    )
    labels, _ = audit({"src/train.py": driver, "solver.prototxt": SOLVER})
    assert value(labels, "language") == "python"


def test_matlab_project_with_matcaffe(audit) -> None:  # type: ignore[no-untyped-def]
    demo = "function b = detect(img)\ncaffe.set_mode_gpu();\nnet = caffe.Net(m, w, 'test');\nend\n"
    nms = "function y = nms(x)\ny = x;\nend\n"
    labels, _ = audit({"code/detect_face.m": demo, "code/nms.m": nms})
    assert value(labels, "primary_framework") == "caffe"
    assert value(labels, "language") == "matlab"


def test_equal_python_and_matlab_demos_follow_the_readme(audit) -> None:  # type: ignore[no-untyped-def]
    m_demo = "net = caffe.Net(model_def, weights, 'test');\nout = net.forward({im});\n"
    files = {"matlab-scripts/demo.m": m_demo, "python-scripts/demo.py": PY_INFER}
    files["README.md"] = "# Seg\n\nSee matlab-scripts/ first.\n\n### Python\n\nRun.\n\n### MATLAB\n"
    labels, _ = audit(files)
    assert value(labels, "language") == "python"


def test_objective_c_is_not_matlab(audit) -> None:  # type: ignore[no-untyped-def]
    objc = "#import <Foundation/Foundation.h>\n@interface A : NSObject\n@end\n" * 50
    labels, _ = audit({"app/A.m": objc, "app/B.m": objc, "model/train.py": TORCH_TRAIN})
    assert value(labels, "language") == "python"


def test_python_training_with_a_javascript_inference_port_is_python(audit) -> None:  # type: ignore[no-untyped-def]
    js = "const regl = require('regl')()\n" + "function conv(a, b) { return a * b; }\n" * 500
    labels, _ = audit({"scripts/create_cnn.py": TF_LOW, "index.js": js, "gpu.js": js})
    assert value(labels, "language") == "python"


def test_notebook_only_project_is_python(audit) -> None:  # type: ignore[no-untyped-def]
    nb = {"cells": [{"cell_type": "code", "source": TF_LOW.splitlines(keepends=True)}],
          "metadata": {}}  # fmt: skip
    unity = "using UnityEngine;\npublic class Car : MonoBehaviour { }\n" * 200
    labels, _ = audit({"RL/DQN.ipynb": json.dumps(nb), "Unity/Car.cs": unity})
    assert value(labels, "language") == "python"


def test_without_a_framework_the_largest_share_of_own_code_decides(audit) -> None:  # type: ignore[no-untyped-def]
    labels, _ = audit({"main.go": "package main\nfunc main() {}\n" * 50, "tool.py": "x = 1\n"})
    assert value(labels, "language") == "go"
    assert labels["language"].evidence[0].rule == "language.code_share"
    labels, _ = audit({"README.md": "# Empty\n"})
    assert value(labels, "language") == "other"
