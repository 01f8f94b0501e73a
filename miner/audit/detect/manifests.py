"""Frameworks declared in dependency files, with their version specifiers and the line.

Reads what the codebook lists as dependency files (requirements, conda environments, setup.py
parsed with `ast` and never executed, setup.cfg, pyproject/Pipfile, lock files, Dockerfiles and
install scripts, rockspecs, package.json, CMake `find_package`, R DESCRIPTION). A malformed file
adds a warning and is skipped.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from miner.audit.files import RepoTree, is_vendored

PACKAGES: dict[str, str] = {
    "tensorflow": "tensorflow", "tensorflow-gpu": "tensorflow", "tensorflow-cpu": "tensorflow",
    "tf-nightly": "tensorflow", "tf-nightly-gpu": "tensorflow", "tensorflow-macos": "tensorflow",
    "tflearn": "tensorflow", "dm-sonnet": "tensorflow", "tensorlayer": "tensorflow",
    "tensorpack": "tensorflow", "tf-slim": "tensorflow", "keras": "keras", "torch": "pytorch",
    "pytorch": "pytorch", "torchvision": "pytorch", "torchaudio": "pytorch",
    "torchtext": "pytorch", "pytorch-lightning": "pytorch", "fastai": "pytorch",
    "theano": "theano", "lasagne": "theano", "mxnet": "mxnet", "gluoncv": "mxnet",
    "gluonnlp": "mxnet", "cntk": "cntk", "cntk-gpu": "cntk", "jax": "jax", "jaxlib": "jax",
    "flax": "jax", "dm-haiku": "jax", "chainer": "chainer", "chainercv": "chainer",
    "paddlepaddle": "paddlepaddle", "paddlepaddle-gpu": "paddlepaddle", "dynet": "dynet",
    "onnx": "onnx", "onnxruntime": "onnx", "onnxruntime-gpu": "onnx",
    "tensorflowjs": "tensorflowjs", "caffe": "caffe", "caffe2": "caffe2", "pycaffe": "caffe",
    "@tensorflow/tfjs": "tensorflowjs", "@tensorflow/tfjs-node": "tensorflowjs",
    "@tensorflow/tfjs-node-gpu": "tensorflowjs", "@tensorflow/tfjs-core": "tensorflowjs",
    "@tensorflow/tfjs-layers": "tensorflowjs", "@tensorflow/tfjs-converter": "tensorflowjs",
    "ml5": "tensorflowjs", "onnxruntime-web": "onnx", "onnxjs": "onnx",
    "brain.js": "other:brain.js", "synaptic": "other:synaptic", "mindspore": "other:mindspore",
    "neon": "other:neon", "nnabla": "other:nnabla",
}  # fmt: skip
# Lua rocks (rockspecs, `luarocks install`): Torch7's packages.
ROCKS = frozenset({"torch", "nn", "cunn", "cutorch", "nngraph", "cudnn", "optim", "rnn", "dpnn"})
MXNET_CUDA = re.compile(r"^mxnet-(?:cu\d+|mkl)\w*$")
CMAKE_PACKAGES = {"caffe": "caffe", "torch": "pytorch", "tensorflow": "tensorflow",
                  "mxnet": "mxnet", "darknet": "darknet", "caffe2": "caffe2"}  # fmt: skip
DOCKER_IMAGES = (
    (re.compile(r"\btensorflow/tensorflow(?::([\w.\-]+))?"), "tensorflow"),
    (re.compile(r"\bpytorch/pytorch(?::([\w.\-]+))?"), "pytorch"),
    (re.compile(r"\bbvlc/caffe(?::([\w.\-]+))?"), "caffe"),
    (re.compile(r"\b\w+/cuda-torch(?::([\w.\-]+))?"), "torch7"),
    (re.compile(r"\bmxnet/python(?::([\w.\-]+))?"), "mxnet"),
)
REQ_LINE = re.compile(
    r"^\s*([A-Za-z0-9@][A-Za-z0-9._\-/]*)\s*(?:\[[^\]]*\])?\s*"
    r"((?:[<>=!~]=?=?\s*[\w.*+\-]+\s*,?\s*)+)?"
)
EGG = re.compile(r"#egg=([A-Za-z0-9._\-]+)")
INSTALL_CMD = re.compile(r"\b(?:pip3?|conda|pipenv|luarocks)\s+install\s+([^\n&|;]+)")
CMAKE_FIND = re.compile(r"find_package\s*\(\s*(\w+)", re.I)
QUOTED_REQ = re.compile(
    r"""["']([A-Za-z0-9][A-Za-z0-9._\-]*)\s*(?:\[[^\]]*\])?\s*([<>=!~][^"';]*)?"""
)


@dataclass(frozen=True)
class Declared:
    """One framework package named by a dependency file."""

    framework: str
    package: str
    spec: str  # version specifier as written ("==1.4.0", ">=1.7"); "" when unpinned
    path: str
    line: int
    text: str


def framework_of_package(name: str, lua: bool = False) -> str | None:
    """The codebook framework a package name stands for, if any (`lua`: a Lua rock)."""
    key = name.strip().lower().replace("_", "-")
    if lua:
        return "torch7" if key in ROCKS else None
    if MXNET_CUDA.match(key):
        return "mxnet"
    return PACKAGES.get(key)


def _line_items(
    path: str, text: str, parse: Callable[[str], list[tuple[str, str]]], lua: bool = False
) -> list[Declared]:
    out = []
    for n, raw in enumerate(text.splitlines(), 1):
        rocks = lua or "luarocks" in raw
        for package, spec in parse(raw):
            fw = framework_of_package(package, rocks)
            if fw:
                out.append(Declared(fw, package, spec, path, n, raw.strip()[:200]))
    return out


def _requirement(raw: str) -> list[tuple[str, str]]:
    line = raw.split(" #", 1)[0].strip()
    if not line or line.startswith(("#", "-r", "-c", "--", "-f", "-e ")) and "#egg=" not in line:
        return []
    egg = EGG.search(line)
    if egg:
        return [(egg.group(1), "")]
    m = REQ_LINE.match(line)
    return [(m.group(1), _spec(m.group(2)))] if m else []


def _spec(raw: str | None) -> str:
    return re.sub(r"\s+", "", raw or "").rstrip(",")


def _install_commands(raw: str) -> list[tuple[str, str]]:
    out = []
    for m in INSTALL_CMD.finditer(raw):
        skip = False
        for word in m.group(1).split():
            if skip or word.startswith("-"):
                # flags such as `-c pytorch` or `-r file` take a value that is no package
                skip = word in ("-c", "--channel", "-f", "-i", "--index-url", "-r",
                                "--extra-index-url", "--find-links", "-e")  # fmt: skip
                continue
            word = word.strip("'\"")
            r = REQ_LINE.match(word)
            if r:
                spec = _spec(r.group(2))
                if not spec and "=" in word:  # conda: pytorch=1.4
                    spec = "=" + word.split("=", 1)[1].lstrip("=")
                out.append((r.group(1), spec))
    return out


def _conda(raw: str) -> list[tuple[str, str]]:
    m = re.match(r"^\s*-\s*([A-Za-z0-9][\w.\-]*)\s*((?:[<>=!~]=?)[^\s#]*)?", raw)
    if not m or raw.strip().startswith("- pip:"):
        return []
    return [(m.group(1), m.group(2) or "")]


def _quoted(raw: str) -> list[tuple[str, str]]:
    return [(m.group(1), _spec(m.group(2))) for m in QUOTED_REQ.finditer(raw)]


def _toml_pair(raw: str) -> list[tuple[str, str]]:
    m = re.match(r"^\s*\"?([A-Za-z0-9][\w.\-]*)\"?\s*=\s*(.*)$", raw)
    if not m:
        return _quoted(raw)
    value = m.group(2).strip()
    spec = re.search(r"[<>=!~^]=?\s*[\d*][\w.*]*", value)
    return [(m.group(1), spec.group(0).replace(" ", "") if spec else "")]


def _setup_py(path: str, text: str, warnings: list[str]) -> list[Declared]:
    """install_requires of a setup.py, read with `ast` (never executed)."""
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError, RecursionError, MemoryError) as exc:
        warnings.append(f"{path}: setup.py does not parse ({type(exc).__name__}), read as text")
        return _line_items(path, text, _quoted)
    lists: dict[str, ast.AST] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            if isinstance(target, ast.Name):
                lists[target.id] = node.value
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Call):
            continue
        for kw in node.keywords:
            if kw.arg not in ("install_requires", "requires", "extras_require", "setup_requires"):
                continue
            value = lists.get(kw.value.id, kw.value) if isinstance(kw.value, ast.Name) else kw.value
            for const in ast.walk(value):
                if isinstance(const, ast.Constant) and isinstance(const.value, str):
                    for package, spec in _requirement(const.value):
                        fw = framework_of_package(package)
                        if fw:
                            line = getattr(const, "lineno", 0)
                            out.append(Declared(fw, package, spec, path, line, const.value))
    return out


def _package_json(path: str, text: str, warnings: list[str]) -> list[Declared]:
    try:
        data = json.loads(text)
    except ValueError:
        warnings.append(f"{path}: malformed package.json, not read")
        return []
    if not isinstance(data, dict):
        return []
    out = []
    lines = text.splitlines()
    for section in ("dependencies", "devDependencies", "peerDependencies"):
        deps = data.get(section)
        if not isinstance(deps, dict):
            continue
        for name, spec in deps.items():
            fw = framework_of_package(name)
            if fw:
                n = next((i for i, t in enumerate(lines, 1) if f'"{name}"' in t), 0)
                out.append(Declared(fw, name, str(spec), path, n, f'"{name}": "{spec}"'))
    return out


def _docker(path: str, text: str) -> list[Declared]:
    out = _line_items(path, text, _install_commands)
    for n, raw in enumerate(text.splitlines(), 1):
        if not raw.lstrip().upper().startswith("FROM"):
            continue
        for pattern, fw in DOCKER_IMAGES:
            m = pattern.search(raw)
            if m:
                tag = m.group(1) or ""
                version = re.match(r"\d+(?:\.\d+)*", tag)
                spec = f"=={version.group(0)}" if version else ""
                out.append(Declared(fw, m.group(0).split(":")[0], spec, path, n, raw.strip()))
    return out


def declared_frameworks(tree: RepoTree, warnings: list[str]) -> list[Declared]:
    """Every framework named by the checkout's dependency files (vendored folders excluded)."""
    out: list[Declared] = []
    for path, kind in tree.dependency_files:
        if is_vendored(path):
            continue
        text = tree.read_text(path)
        if not text:
            continue
        name = path.rsplit("/", 1)[-1].lower()
        if kind == "requirements_file":
            out.extend(_line_items(path, text, _requirement))
        elif kind == "conda_env" or name.startswith("docker-compose"):
            out.extend(_line_items(path, text, _conda))
            out.extend(_line_items(path, text, _install_commands))
        elif name == "setup.py":
            out.extend(_setup_py(path, text, warnings))
        elif name == "setup.cfg":
            out.extend(_line_items(path, text, lambda r: _requirement(r.strip())))
        elif name in ("pyproject.toml", "pipfile", "poetry.lock", "project.toml"):
            out.extend(_line_items(path, text, _toml_pair))
        elif name == "pipfile.lock":
            out.extend(_line_items(path, text, _quoted))
        elif kind == "dockerfile":
            out.extend(_docker(path, text))
        elif name == "package.json":
            out.extend(_package_json(path, text, warnings))
        elif name == "cmakelists.txt":
            for n, raw in enumerate(text.splitlines(), 1):
                m = CMAKE_FIND.search(raw)
                fw = CMAKE_PACKAGES.get(m.group(1).lower()) if m else None
                if m and fw:
                    out.append(Declared(fw, m.group(1), "", path, n, raw.strip()[:200]))
        elif name.endswith(".rockspec"):
            out.extend(_line_items(path, text, _quoted, lua=True))
        elif name == "description":
            out.extend(_line_items(path, text, lambda r: [(w, "") for w in re.findall(r"\w+", r)]))
        else:  # install scripts
            out.extend(_line_items(path, text, _install_commands))
    return out
