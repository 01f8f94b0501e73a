"""Code views: comments and string literals blanked with the layout kept, data strings apart from
docstrings, import views that keep the strings naming modules; Python 2 and broken sources."""

from __future__ import annotations

import io
import tokenize

import pytest

from miner.audit.detect.code_views import code_views
from miner.audit.detect.imports import c_includes, js_imports, lua_requires, python_imports

PY = '''"""Docstring naming tf.nn.conv2d and nn.LSTM."""
import numpy as np  # import torch
x = "import torch"; y = 'nn.Conv2d(3, 8, 3)'
# model = nn.LSTM(10, 20)
s = "a # not a comment"  # but this one is
def f(a=r'\\d+', b=u"it's", c=f"{np.pi:.2f}"):
    r"""Raw docstring: keras.layers.Dense."""
    return conv2d(a, "x")
'''


def _views(lang: str, text: str):  # type: ignore[no-untyped-def]
    views = code_views(lang, text)
    assert views is not None
    return views


def test_code_view_blanks_comments_and_strings_and_keeps_layout() -> None:
    views = _views("python", PY)
    assert len(views.code) == len(PY)
    assert [len(line) for line in views.code.split("\n")] == [len(line) for line in PY.split("\n")]
    for talk in ("tf.nn", "torch", "Conv2d", "LSTM", "Dense", "not a comment", "this one"):
        assert talk not in views.code, talk
    for code in ("import numpy as np", "x =", "y =", "s =", "def f(a=r", "return conv2d(a,"):
        assert code in views.code, code


def test_code_view_equals_the_tokenize_view_of_the_same_source() -> None:
    """The regular expression lexer agrees with the stdlib tokenizer on valid Python 3."""
    expected = list(PY)
    offsets = [0]
    for line in PY.split("\n"):
        offsets.append(offsets[-1] + len(line) + 1)
    for tok in tokenize.generate_tokens(io.StringIO(PY).readline):
        if tok.type in (tokenize.STRING, tokenize.COMMENT):
            start = offsets[tok.start[0] - 1] + tok.start[1]
            end = offsets[tok.end[0] - 1] + tok.end[1]
            while PY[start] not in "#'\"":  # a string's prefix letters stay code
                start += 1
            expected[start:end] = [" " if ch != "\n" else "\n" for ch in PY[start:end]]
    assert _views("python", PY).code == "".join(expected)


def test_strings_view_keeps_data_strings_but_not_docstrings() -> None:
    strings = _views("python", PY).strings.split("\n")
    assert strings[0].strip() == ""  # module docstring
    assert "'nn.Conv2d(3, 8, 3)'" in strings[2] and '"import torch"' in strings[2]
    assert strings[3].strip() == ""  # comment
    assert strings[6].strip() == ""  # raw docstring of f
    assert '"x"' in strings[7]
    # a string standing alone inside brackets is data, not a docstring
    call = 'run(\n    "caffe train --solver s.prototxt"\n)\n'
    assert "caffe train" in _views("python", call).strings


def test_python_imports_come_only_from_import_statements() -> None:
    text = (
        '"""Usage:\n\nimport torch\nfrom keras.layers import Dense\n"""\n'
        "# import tensorflow as tf\n"
        "SNIPPET = '''\nimport theano\n'''\n"
        "import numpy as np  # import mxnet\n"
        "if True:\n    from chainer import links  # real, nested\n"
    )
    found = [(i.module, i.line, i.text) for i in python_imports(text)]
    assert found == [
        ("numpy", 10, "import numpy as np  # import mxnet"),
        ("chainer", 12, "from chainer import links  # real, nested"),
        ("chainer.links", 12, "from chainer import links  # real, nested"),
    ]


def test_python_2_sources_are_read() -> None:
    text = (
        "# -*- coding: utf-8 -*-\n"
        "import caffe\n"
        "print 'import torch  # in a Python 2 print'\n"
        "try:\n"
        "    net = caffe.Net(ur'deploy.prototxt', caffe.TEST)\n"
        "except IOError, e:\n"
        '    print >>sys.stderr, "can\'t load", `e`\n'
        "\tfrom theano import tensor  # tab-indented, inconsistent with the above\n"
        "print 0777L\n"
    )
    with pytest.raises((SyntaxError, tokenize.TokenError)):
        compile(text, "py2.py", "exec")
    views = _views("python", text)
    assert "import torch" not in views.code and "can't load" not in views.code
    assert "caffe.Net(" in views.code and "`e`" in views.code
    assert [(i.module, i.line) for i in python_imports(text)] == [
        ("caffe", 2),
        ("theano", 8),
        ("theano.tensor", 8),
    ]


def test_broken_sources_fail_softly() -> None:
    # an unterminated one-line string blanks nothing; an unterminated docstring runs to the end
    views = _views("python", "x = 'it\nimport torch\ny = 1\n")
    assert "import torch" in views.code
    views = _views("python", 'import keras\n"""never closed\nimport torch\n')
    assert "import keras" in views.code and "torch" not in views.code


def test_lua_views_blank_comments_and_long_brackets_but_imports_keep_strings() -> None:
    text = (
        "require 'nn'\n"
        "-- require 'rnn'\n"
        "--[[ local model = nn.LSTM(10, 20)\nrequire 'cudnn' ]]\n"
        "--[==[ a level-2 comment ]] still comment ]==]\n"
        "local s = [[ nn.SpatialConvolution(3, 8, 3, 3) ]]\n"
        "local net = nn.Sequential()  -- nn.GRU\n"
    )
    views = _views("lua", text)
    assert "LSTM" not in views.code and "GRU" not in views.code
    assert "SpatialConvolution" not in views.code and "still comment" not in views.code
    assert "nn.Sequential()" in views.code
    assert [(i.module, i.line) for i in lua_requires(text)] == [("nn", 1)]


def test_c_and_javascript_comments_are_not_imports() -> None:
    c = (
        '#include "caffe/net.hpp"\n'
        "// #include <torch/torch.h>\n"
        "/* #include <tensorflow/core/public/session.h>\n */\n"
        'const char* s = "// not a comment";\n'
        "#include <cudnn.h>\n"
    )
    assert [(i.module, i.line) for i in c_includes(c)] == [("caffe/net.hpp", 1), ("cudnn.h", 6)]
    assert "not a comment" not in _views("cpp", c).code
    js = (
        "import * as tf from '@tensorflow/tfjs';\n"
        "// const torch = require('onnxruntime-web');\n"
        "/* import brain from 'brain.js' */\n"
        "const note = `// a template, not a comment`; const regl = require('regl');\n"
    )
    assert [(i.module, i.line) for i in js_imports(js)] == [("@tensorflow/tfjs", 1), ("regl", 4)]


def test_languages_without_a_lexer_are_read_whole() -> None:
    assert code_views("matlab", "% net = vl_simplenn(net, x)\n") is None
    assert code_views("r", "library(keras)  # library(torch)\n") is None
