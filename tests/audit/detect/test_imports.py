"""Import scanning: Python 3 and Python 2 sources, Lua, C/C++, JavaScript."""

from __future__ import annotations

from miner.audit.detect.imports import (
    c_includes,
    imports_for,
    js_imports,
    lua_requires,
    python_imports,
)


def _modules(text: str) -> list[str]:
    return [i.module for i in python_imports(text)]


def test_python_imports_with_aliases_from_and_relative_forms() -> None:
    text = (
        "import os, sys\n"
        "import tensorflow as tf\n"
        "from keras.layers import Dense, Conv2D as C\n"
        "from . import utils\n"
        "from .model import Net\n"
        "import numpy as np; import torch.nn as nn  # two statements\n"
    )
    mods = _modules(text)
    assert mods[:3] == ["os", "sys", "tensorflow"]
    assert "keras.layers" in mods and "keras.layers.Dense" in mods and "keras.layers.Conv2D" in mods
    assert ".model" in mods and "torch.nn" in mods and "numpy" in mods
    first = python_imports(text)[2]
    assert (first.line, first.text) == (2, "import tensorflow as tf")


def test_python_imports_span_brackets_and_backslashes_and_keep_their_line() -> None:
    text = "x = 1\nfrom torch.nn import (\n    Conv2d,\n    Linear,\n)\nimport a.b, \\\n    c\n"
    imps = python_imports(text)
    assert [i.module for i in imps] == [
        "torch.nn", "torch.nn.Conv2d", "torch.nn.Linear", "a.b", "c",
    ]  # fmt: skip
    assert imps[0].line == 2 and imps[-1].line == 6


def test_python2_sources_still_give_their_imports() -> None:
    # ast cannot parse this file; statement-level parsing still reads every import
    text = (
        "import cPickle\n"
        "print 'loading'\n"
        "try:\n    import theano\nexcept ImportError, e:\n    raise\n"
        "exec 'x = 1'\n"
        "from lasagne.layers import *\n"
    )
    assert _modules(text) == ["cPickle", "theano", "lasagne.layers"]


def test_nested_imports_count_and_non_imports_do_not() -> None:
    text = 'def f():\n    import caffe\n    return caffe\nimportant = "from x import y"\n'
    assert _modules(text) == ["caffe"]


def test_lua_requires() -> None:
    text = "require 'nn'\nrequire('cunn')\nlocal image = require \"image\"\n"
    assert [i.module for i in lua_requires(text)] == ["nn", "cunn", "image"]


def test_c_includes_and_objective_c_imports() -> None:
    text = '#include "caffe/caffe.hpp"\n#  include <torch/torch.h>\n#import <UIKit/UIKit.h>\n'
    assert [i.module for i in c_includes(text)] == [
        "caffe/caffe.hpp", "torch/torch.h", "UIKit/UIKit.h",
    ]  # fmt: skip


def test_javascript_imports_and_requires() -> None:
    text = (
        "import * as tf from '@tensorflow/tfjs';\n"
        "const regl = require('regl')\n"
        "import('onnxruntime-web')\n"
    )
    assert [i.module for i in js_imports(text)] == ["@tensorflow/tfjs", "regl", "onnxruntime-web"]


def test_imports_for_dispatches_on_language() -> None:
    assert [i.module for i in imports_for("julia", "using Flux, Statistics\n")] == [
        "Flux", "Statistics",
    ]  # fmt: skip
    assert [i.module for i in imports_for("r", "library(keras)\n")] == ["keras"]
    assert [i.module for i in imports_for("java", "import org.deeplearning4j.nn.Model;\n")] == [
        "org.deeplearning4j.nn.Model"
    ]
    assert imports_for("go", 'import "fmt"') == []
