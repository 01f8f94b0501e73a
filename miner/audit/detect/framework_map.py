"""Which codebook framework an import, include, require or API signal stands for."""

from __future__ import annotations

import re

# Dotted Python module prefixes; the longest matching prefix wins.
PY_MODULES: dict[str, str] = {
    "tensorflow": "tensorflow", "tensorflow_core": "tensorflow", "tf_slim": "tensorflow",
    "tflearn": "tensorflow", "sonnet": "tensorflow", "tensorlayer": "tensorflow",
    "tensorpack": "tensorflow", "tensorflow_hub": "tensorflow", "tensorflow_addons": "tensorflow",
    "tensorflow_probability": "tensorflow", "tensorflow.keras": "keras",
    # TensorFlow Probability on JAX or NumPy needs no TensorFlow: the substrate named decides
    # (`from tensorflow_probability.substrates import jax as tfp`); "" is no framework.
    "tensorflow_probability.substrates": "", "tensorflow_probability.substrates.jax": "jax",
    "tensorflow.python.keras": "keras", "tensorflow_core.python.keras": "keras",
    "tensorflow.contrib.keras": "keras", "tensorflow.compat.v1.keras": "keras", "keras": "keras",
    "keras_contrib": "keras", "keras_applications": "keras", "tensorflowjs": "tensorflowjs",
    "torch": "pytorch", "torchvision": "pytorch", "torchaudio": "pytorch", "torchtext": "pytorch",
    "pytorch_lightning": "pytorch", "lightning": "pytorch", "lightning_fabric": "pytorch",
    "accelerate": "pytorch", "deepspeed": "pytorch", "diffusers": "pytorch", "peft": "pytorch",
    "trl": "pytorch", "xformers": "pytorch", "flash_attn": "pytorch", "fastai": "pytorch",
    "ignite": "pytorch",
    "torch_geometric": "pytorch", "allennlp": "pytorch", "fairseq": "pytorch",
    "detectron2": "pytorch", "mmcv": "pytorch", "mmdet": "pytorch", "timm": "pytorch",
    "mmengine": "pytorch", "mmseg": "pytorch", "mmpose": "pytorch", "mmdet3d": "pytorch",
    "mmocr": "pytorch", "mmaction": "pytorch", "mmcls": "pytorch", "mmpretrain": "pytorch",
    "pytorch_pretrained_bert": "pytorch", "caffe": "caffe", "caffe2": "caffe2",
    "detectron": "caffe2", "theano": "theano", "lasagne": "theano", "pylearn2": "theano",
    "nolearn": "theano", "mxnet": "mxnet", "gluoncv": "mxnet", "gluonnlp": "mxnet",
    "cntk": "cntk", "jax": "jax", "jaxlib": "jax", "flax": "jax", "haiku": "jax", "trax": "jax",
    "optax": "jax", "equinox": "jax", "objax": "jax", "jraph": "jax", "ninjax": "jax",
    "keras_core": "keras", "keras_cv": "keras", "keras_nlp": "keras", "keras_hub": "keras",
    "chainer": "chainer", "chainercv": "chainer", "chainerrl": "chainer", "paddle": "paddlepaddle",
    "paddlehub": "paddlepaddle", "dynet": "dynet", "_dynet": "dynet", "onnx": "onnx",
    "onnxruntime": "onnx", "darknet": "darknet", "pydarknet": "darknet", "neon": "other:neon",
    "mindspore": "other:mindspore", "oneflow": "other:oneflow", "nnabla": "other:nnabla",
    "pybrain": "other:pybrain", "sklearn.neural_network": "other:scikit-learn",
}  # fmt: skip
LUA_MODULES = frozenset({"torch", "nn", "cunn", "cutorch", "nngraph", "cudnn", "optim", "rnn",
                         "dpnn", "dp", "cunnx", "fbcunn"})  # fmt: skip
C_INCLUDES: tuple[tuple[str, str], ...] = (
    ("caffe2/", "caffe2"), ("caffe/", "caffe"), ("torch/", "pytorch"), ("ATen/", "pytorch"),
    ("tensorflow/", "tensorflow"), ("mxnet", "mxnet"), ("darknet.h", "darknet"),
    ("dynet/", "dynet"), ("onnxruntime", "onnx"), ("luaT.h", "torch7"),
    ("tiny_dnn/", "other:tiny-dnn"), ("dlib/dnn", "other:dlib"), ("ggml", "other:ggml"),
)  # fmt: skip
JS_MODULES: tuple[tuple[str, str], ...] = (
    ("@tensorflow/tfjs", "tensorflowjs"), ("ml5", "tensorflowjs"), ("onnxruntime", "onnx"),
    ("onnxjs", "onnx"), ("brain.js", "other:brain.js"), ("synaptic", "other:synaptic"),
    ("convnetjs", "other:convnetjs"), ("keras-js", "other:keras-js"),
)  # fmt: skip
JAVA_MODULES: tuple[tuple[str, str], ...] = (
    ("org.deeplearning4j", "other:deeplearning4j"), ("org.tensorflow", "tensorflow"),
    ("ai.djl", "other:djl"), ("org.pytorch", "pytorch"),
)  # fmt: skip
JULIA_MODULES = {"Flux": "other:flux", "Knet": "other:knet", "TensorFlow": "tensorflow"}
R_MODULES = {"keras": "keras", "tensorflow": "tensorflow", "mxnet": "mxnet"}
# API signals counted for a framework present in the same file (by import or by language).
API_SIGNALS: dict[str, tuple[str, ...]] = {
    "pytorch": ("fw.torch",),
    "jax": ("fw.jax",),
    "tensorflow": ("fw.tf_low",),
    "keras": ("fw.tf_keras", "fw.keras_layer", "fw.keras_model", "keras.functional",
              "keras.layer_class", "keras.layer_class", "keras.layer_class"),
    "theano": ("fw.theano",),
    "mxnet": ("fw.mxnet",),
    "chainer": ("fw.chainer",),
    "caffe": ("fw.caffe", "fw.caffe_pytrain", "fw.caffe_netspec"),
    "caffe2": ("fw.caffe2",),
    "torch7": ("fw.torch7", "lua.backward"),
    "darknet": ("fw.darknet",),
    "tensorflowjs": ("fw.tfjs",),
    "other:matconvnet": ("fw.matconvnet",),
    "other:matlab-deep-learning": ("fw.matlab_dl",),
}  # fmt: skip
# Frameworks that run or convert models rather than build and train them.
RUNTIME_ONLY = frozenset({"onnx", "tensorflowjs"})
README_NAMES: tuple[tuple[str, str], ...] = (
    (r"tensorflow\.?js|tfjs", "tensorflowjs"), (r"tf\.keras|keras", "keras"),
    (r"tensorflow", "tensorflow"), (r"pytorch", "pytorch"), (r"caffe2", "caffe2"),
    (r"caffe", "caffe"), (r"theano|lasagne", "theano"), (r"mxnet|gluon", "mxnet"),
    (r"chainer", "chainer"), (r"cntk", "cntk"), (r"paddle\s*paddle", "paddlepaddle"),
    (r"\bjax\b", "jax"), (r"dynet", "dynet"), (r"darknet", "darknet"),
    (r"\btorch7\b|\blua\s*torch\b|\btorch\b(?!\s*vision)", "torch7"),
)  # fmt: skip


def python_framework(module: str) -> str | None:
    """The framework a dotted Python module belongs to (longest known prefix), if any."""
    parts = module.lstrip(".").split(".")
    if module.startswith("."):
        return None
    for n in range(len(parts), 0, -1):
        fw = PY_MODULES.get(".".join(parts[:n]))
        if fw is not None:
            return fw or None
    return None


def prefixed(table: tuple[tuple[str, str], ...], name: str) -> str | None:
    """The framework of the first table prefix that `name` starts with, if any."""
    for prefix, fw in table:
        if name.startswith(prefix):
            return fw
    return None


# Hugging Face libraries name their ports' classes by prefix (`FlaxAutoencoderKL`, `TFBertModel`).
HF_LIBRARIES = frozenset({"transformers", "diffusers"})
HF_PORTS = (("Flax", "jax"), ("TF", "tensorflow"))


def hf_port(imported: list[str]) -> str | None:
    """The framework of a Hugging Face port when every name of `from diffusers import ...` is
    one of its classes (`FlaxAutoencoderKL` is JAX code); None otherwise."""
    for prefix, framework in HF_PORTS:
        if imported and all(re.match(prefix + "[A-Z]", name) for name in imported):
            return framework
    return None


def module_framework(lang: str, module: str) -> str | None:
    """The framework an import of `module` in a file of language `lang` stands for."""
    if lang == "python":
        return python_framework(module)
    if lang == "lua":
        return "torch7" if module.split(".")[0] in LUA_MODULES else None
    if lang in ("c", "cpp", "objc"):
        return prefixed(C_INCLUDES, module)
    if lang in ("javascript", "typescript"):
        return prefixed(JS_MODULES, module)
    if lang == "java":
        return prefixed(JAVA_MODULES, module)
    if lang == "julia":
        return JULIA_MODULES.get(module.split(".")[0])
    if lang == "r":
        return R_MODULES.get(module)
    return None
