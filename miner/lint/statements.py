"""What a project states: a Python version, a CPU-only claim, training on CPUs, the data being
the user's own, and the framework versions its dependency files allow, with the release each
API needs."""

from __future__ import annotations

import re
from dataclasses import dataclass

from miner.audit.files import RepoTree
from miner.codebook import Evidence

# Where a Python version is stated outside prose, by file name (any depth up to two folders).
PYTHON_IN_FILES = (
    # `python_requires=`, or a classifier naming the Python it supports
    (
        re.compile(r"(^|/)setup\.(?:py|cfg)$"),
        re.compile(r"\bpython_requires\s*=|Programming Language :: Python :: 3"),
    ),
    (re.compile(r"(^|/)setup\.cfg$"), re.compile(r"^\s*python_requires\s*=")),
    (re.compile(r"(^|/)pyproject\.toml$"), re.compile(r"^\s*(?:requires-python|python)\s*=")),
    (re.compile(r"(^|/)[^/]*environment[^/]*\.ya?ml$"), re.compile(r"^\s*-\s*python\s*[=<>~]")),
    # `FROM python:3.10`, an image tagged with its Python (`tensorflow:1.12.0-gpu-py3`), or
    # the Python the image installs (`ARG PYTHON_VERSION=3.8`, `conda install python=3.8`,
    # `apt install -y python3.10`)
    (
        re.compile(r"(?i)(^|/)(?:Dockerfile[^/]*|[^/]+\.dockerfile)$"),
        re.compile(
            r"^\s*FROM\s+(?:\S*/)?python:\d|^\s*FROM\s+\S+[-:_]py(?:thon)?3\d*(?:\s|$)"
            # the base image as an argument's default (`ARG FROM_IMAGE_NAME=...:22.08-py3`)
            r"|^\s*ARG\s+\w*(?:IMAGE|BASE|FROM)\w*\s*=\s*(?:(?:\S*/)?python:\d"
            r"|\S+[-:_]py(?:thon)?3\d*(?:\s|$))"
            r"|^\s*(?:ARG|ENV)\s+PYTHON_VERSION[= ]\s*3|\binstall\b.*\bpython==?3\.\d"
            r"|^\s*(?:RUN|ENTRYPOINT|CMD)\b.*\bpython3\.\d{1,2}\b"
            # ... or on a line of its own that continues a RUN's package list (`  python3.6 \`)
            r"|^\s+python3\.\d{1,2}(?:-\w+)?\s*(?:\\|$)"
            # ... or builds it from python.org's source (`wget .../Python-3.10.12.tgz`)
            r"|\bPython-3\.\d{1,2}(?:\.\d+)?\.t(?:ar\.)?[gx]z\b"
        ),
    ),
    (re.compile(r"(^|/)(\.python-version|runtime\.txt)$"), re.compile(r"\d\.\d")),
    # a launcher that runs the training with a versioned interpreter (`/usr/bin/python2.7
    # script/train.py`); a bare `python3` names no version
    (
        re.compile(r"(^|/)[^/]+\.sh$"),
        re.compile(r"^[^#]*(?:^|[\s/])python[23]\.\d{1,2}\s+(?:-\S+\s+)*[\w./-]+\.py\b"),
    ),
    # Pipenv's `[requires] python_version = "3.7"`
    (re.compile(r"(^|/)Pipfile$"), re.compile(r"^\s*python_(?:full_)?version\s*=\s*['\"]?[23]\.")),
    # A conda package list under any name (`conda create --file conda_packagelist.txt`): the
    # export's `python=3.6.5=hc3d631a_2`, or the explicit list's URL of the Python package
    (
        re.compile(r"\.txt$"),
        re.compile(
            r"^python=[23]\.\d+(?:\.\d+)?=|/python-[23]\.\d+\.\d+-\w+\.(?:tar\.bz2|conda)\s*$"
        ),
    ),
    # Replicate's Cog: `python_version: "3.11"`
    (re.compile(r"(^|/)cog\.ya?ml$"), re.compile(r"^\s*python_version\s*:\s*['\"]?3")),
    (re.compile(r"(^|/)(tox\.ini|\.travis\.yml|noxfile\.py)$"), re.compile(r"\bpy(?:thon)?3\d")),
    # CircleCI's image for the project's jobs (`- image: circleci/python:3.9`)
    (re.compile(r"^\.circleci/config\.ya?ml$"), re.compile(r"\bimage:\s*\S*python:[23]\.\d")),
    # The Pythons the tests run on: Travis's `python:` list, a workflow's matrix of them
    # (`python: [2.7, 3.6]`; a single `python-version:` is as often the Python of a formatter
    # or a docs build, and is not read)
    (
        re.compile(r"(^|/)\.travis\.yml$"),
        re.compile(r"^\s*python\s*:\s*['\"]?[23]\.\d|^\s*-\s*['\"]?[23]\.\d+['\"]?\s*$"),
    ),
    (
        re.compile(r"^\.github/workflows/[^/]+\.ya?ml$"),
        re.compile(r"^\s*python(?:[-_]versions?)?\s*:\s*\[\s*['\"]?[23]\.\d+['\"]?\s*,"),
    ),
    # A set-up script's environment (`conda create -n env python=3.8`) or the instructions in
    # its comments ("# ... use a new Anaconda environment with Python 3.10.8").
    (
        re.compile(r"(^|/)[^/]+\.sh$"),
        re.compile(
            r"\bconda\s+(?:create|install)\b.*\bpython\s*=+\s*3\.\d"
            r"|\bvirtualenv\b.*\b-p\s*python3\.\d|^\s*#.*\bpython\s*3\.\d+\b",
            re.I,
        ),
    ),
)
CPU_CLAIM = re.compile(
    r"(?i)\bCPU[- ]only\b|\bno GPU (?:is )?(?:required|needed)\b|\bwithout (?:a |any )?GPUs?\b"
    r"|\bdoes(?:n't| not) (?:need|require) (?:a |any )?GPUs?\b"
    r"|\b(?:runs?|train(?:s|ed)?|works?) (?:fine |well |fast )?on (?:a |any |your |the )?CPUs?\b"
)
# Sentences that mention reproducing results without claiming this code does: negations
# ("could not reproduce"), redirects ("to reproduce the paper, see the original repository"),
# requests and news items.
NOT_A_CLAIM = re.compile(
    r"(?i)\b(?:not|n't|unable|fail(?:s|ed)?|cannot|difficult|hard|issues?|problems?|trouble)\b"
    r"[^.\n]{0,40}\breproduc|\breproduc\w*\b[^.\n]{0,80}\b(?:please (?:use|refer|see|check)"
    r"|refer to|(?:see|use|check(?: out)?) (?:the |our )?(?:original|official|old|older|other|"
    r"previous|\[)|branch|repo(?:sitory)?\b|version \d|older versions?)"
    r"|^\W*(?:\*\*)?\[?\d{4}[-/.]\d{1,2}|^\W*(?:news|update)"
    # a link to another repository in the same sentence: the claim is about that code
    r"|\breproduc\w*\b[^.\n]{0,120}https?://(?:www\.)?github\.com/"
    r"|https?://(?:www\.)?github\.com/[^.\n]{0,120}\breproduc"
)
# The docs say the data are the user's own: a tool to train on your data states its data source.
OWN_DATA = re.compile(
    r"(?i)\b(?:your|their)\s+(?:own\s+)?(?:\w+\s+)?(?:data(?:\s*sets?)?|images|corpus|videos|"
    r"audio|recordings|texts?|annotations)\b(?!\s*(?:folder|directory|dir|path|root|/))"
    r"|\bcustom\s+data(?:\s*sets?)?\b|\btraining\s+data\s*set\s+has\s+been\s+prepared\b"
)
# Where the docs say training or the reported numbers ran on CPUs.
# "Training takes a day on a V100; inference runs on CPU" says nothing of training on CPUs,
# nor does "run pre-trained models on CPU" or "trained models run on CPU" (an adjective).
CPU_TRAINED = re.compile(
    r"(?i)(?<![-\w])(?:trained|training|train)\b(?!\s+(?:models?|weights|checkpoints?|networks?)\b)"
    r"(?:(?!inferen|test|evaluat|predict|deploy|GPU|TPU)[^.;,\n]){0,60}"
    r"\bon (?:a |an |the |one |\d+ |our |a single )?(?:\w+ ){0,2}CPUs?\b"
    r"|\bCPU[- ]only\b[^.\n]{0,60}\btrain"
)
# "This option is provided if you want to train the model on the CPU (NOT advised)": a choice
# the reader may make, not where the reported numbers were trained.
CPU_OPTION = re.compile(
    r"(?i)\b(?:if|can|could|may|want|option|possible|able to)\b[^.\n]{0,60}\bCPUs?\b"
    r"|\bCPUs?\b[^.\n]{0,30}\bnot (?:advised|recommended|supported)\b"
)

# Framework -> the package names its dependency files list it under.
FRAMEWORK_PACKAGES = {
    "pytorch": ("torch", "pytorch", "torch-gpu", "torch-cpu"),
    "tensorflow": ("tensorflow", "tensorflow-gpu", "tensorflow-cpu", "tf-nightly"),
    "keras": ("keras", "tensorflow", "tensorflow-gpu"),
    "jax": ("jax", "jaxlib"),
    "mxnet": ("mxnet", "mxnet-mkl", "mxnet-cu101", "mxnet-cu110", "mxnet-cu112"),
    "theano": ("theano",),
    "chainer": ("chainer",),
    "paddlepaddle": ("paddlepaddle", "paddlepaddle-gpu"),
}
# Frameworks without a pip package whose versions lint knows: how manifests and docs name them.
# A project on one of these still has to say which build it needs (MNR207).
OTHER_FRAMEWORK_NAMES = {
    "caffe": ("caffe", "pycaffe", "bvlc-caffe"),
    "caffe2": ("caffe2",),
    "torch7": ("torch7", "torch", "lua-torch", "luatorch"),
    "darknet": ("darknet",),
    "dynet": ("dynet",),
    "cntk": ("cntk", "cntk-gpu"),
    "tensorflowjs": ("@tensorflow/tfjs", "@tensorflow/tfjs-node", "tensorflowjs", "tfjs"),
    "onnx": ("onnx", "onnxruntime", "onnxruntime-gpu"),
}
FRAMEWORK_TITLES = {
    "pytorch": "PyTorch", "tensorflow": "TensorFlow", "keras": "Keras", "jax": "JAX",
    "mxnet": "MXNet", "theano": "Theano", "chainer": "Chainer", "paddlepaddle": "PaddlePaddle",
    "caffe": "Caffe", "caffe2": "Caffe2", "torch7": "Lua Torch (Torch7)", "darknet": "Darknet",
    "dynet": "DyNet", "cntk": "CNTK", "tensorflowjs": "TensorFlow.js", "onnx": "ONNX",
}  # fmt: skip
RELEASES = {
    "torch": ["0.4.0", "0.4.1"]
    + [f"1.{m}.0" for m in range(0, 14)]
    + [f"2.{m}.0" for m in range(10)],
    "tensorflow": [f"1.{m}.0" for m in range(16)] + [f"2.{m}.0" for m in range(21)],
}
PACKAGE_FAMILY = {"torch": "torch", "pytorch": "torch", "torch-gpu": "torch", "torch-cpu": "torch",
                  "tensorflow": "tensorflow", "tensorflow-gpu": "tensorflow",
                  "tensorflow-cpu": "tensorflow", "tf-nightly": "tensorflow",
                  "pandas": "pandas"}  # fmt: skip


@dataclass(frozen=True)
class ApiVersion:
    """An API that exists only from (`since`) or only before (`until`) a framework release."""

    family: str
    pattern: re.Pattern[str]
    since: str | None = None
    until: str | None = None
    # a method name other libraries share (scipy's `Rotation.as_matrix`): the file must import
    # this module for the call to be the family's
    imported: str = ""


API_VERSIONS = (
    ApiVersion("torch", re.compile(r"\btorch\.compile\("), since="2.0"),
    ApiVersion("torch", re.compile(r"\btorch\.func\.|scaled_dot_product_attention\("), since="2.0"),
    ApiVersion("torch", re.compile(r"\btorch\.inference_mode\("), since="1.9"),
    ApiVersion("torch", re.compile(r"\btorch\.autocast\("), since="1.10"),
    ApiVersion("torch", re.compile(r"\btorch\.cuda\.amp\."), since="1.6"),
    ApiVersion("torch", re.compile(r"\btorch\.use_deterministic_algorithms\("), since="1.8"),
    ApiVersion("torch", re.compile(r"\btorch\.backends\.mps\b"), since="1.12"),
    ApiVersion("tensorflow", re.compile(r"\benable_op_determinism\("), since="2.8"),
    ApiVersion("tensorflow", re.compile(r"\bmixed_precision\.set_global_policy\("), since="2.4"),
    ApiVersion("tensorflow", re.compile(r"\btf\.config\.list_physical_devices\("), since="2.1"),
    ApiVersion("tensorflow", re.compile(r"\btf\.random\.set_seed\("), since="2.0"),
    # TensorFlow 2 removed these from the top-level namespace (tf.compat.v1 keeps them).
    ApiVersion(
        "tensorflow",
        re.compile(
            r"\btf\.(?:Session|placeholder|get_variable|"
            r"variable_scope)\(|\btf\.contrib\."
        ),
        until="2.0",
    ),
    # pandas 1.0 removed `DataFrame.as_matrix` and the `.ix` indexer (lint knows no pandas
    # releases, so only the smoke runs' API bounds read these).
    ApiVersion("pandas", re.compile(r"\.as_matrix\(|\.ix\["), until="1.0", imported="pandas"),
)
COMPAT_V1 = re.compile(r"tensorflow\.compat\.v1\s+as\s+tf|tf\.disable_v2_behavior\(")


# A README badge: `img.shields.io/badge/python-3.6%2B-blue`, `?label=python&message=3.6|3.7`.
PYTHON_BADGE = re.compile(r"(?i)shields\.io/\S*?python\S*?(?:-|message=|%20|\s)3(?:\.\d+)?\b")


def python_version_stated(tree: RepoTree, audit_details: dict[str, object]) -> Evidence | None:
    """Where the project states its Python version: the audit's reading of its dependency
    files and docs ("Python 3.8+", "python3.7", `python=3.9` in any environment file), then the
    files the audit does not read as dependency files (tox.ini, .python-version, Dockerfile)."""
    found = audit_details.get("python_versions")
    if isinstance(found, list) and found and isinstance(found[0], dict):
        path, _, line = str(found[0].get("source", "")).rpartition(":")
        text = str(found[0].get("text") or f"python{found[0].get('spec', '')}")
        return Evidence(path, int(line) if line.isdigit() else 0, text, "lint.stated")
    if tree.readme and (badge := _first_line(tree, tree.readme, PYTHON_BADGE)):
        return badge
    for f in tree.files:
        if f.depth > 2:
            continue
        for name, pattern in PYTHON_IN_FILES:
            if name.search(f.path):
                hit = _first_line(tree, f.path, pattern)
                if hit:
                    return hit
    return None


DATA_FOLDER_README = re.compile(r"^(?:[\w-]+/)?(?:data|datasets?|data_prep\w*)/readme[^/]*$", re.I)
DATA_STEP = re.compile(r"https?://|\b(?:download|wget|curl|gsutil|huggingface-cli)\b", re.I)


def data_folder_statement(tree: RepoTree) -> Evidence | None:
    """A download link or step in the README of a data folder (`datasets/README.md`): the
    docs of that folder say where its data come from, linked from the root README or not."""
    for f in tree.files:
        if DATA_FOLDER_README.match(f.path):
            hit = _first_line(tree, f.path, DATA_STEP)
            if hit:
                return hit
    return None


# The docs send the reader to the code for the data's address: "Each model's dataset is
# publicly available; the download URL is in the file", "the dataset links are given at the
# top of each script".
DATA_IN_CODE = re.compile(
    r"(?i)\b(?:download|data(?:\s*set)?)\s+(?:urls?|links?|locations?|instructions?)\b"
    r"[^.\n]{0,40}?\b(?:is|are)\s+(?:given\s+|written\s+|listed\s+)?(?:in|at the top of)\s+"
    r"(?:the|each|every|that|this|its)\s+(?:files?|scripts?|sources?|code)\b"
)
# A comment there that says where to download the data (`# Download 64x64 ImageNet at http://`).
COMMENT_DOWNLOAD = re.compile(
    r"^\s*#.*\b(?:download|available)\b.*https?://(?![^\s]*\.(?:pth?|ckpt|h5|bin)\b)", re.I
)


def data_in_code(
    tree: RepoTree, docs: tuple[str, ...], code_lines: dict[str, list[str]]
) -> Evidence | None:
    """A data download link in a comment of the project's code, where the docs say the link is
    given in the code: the comment is the documentation the docs point to."""
    if stated(tree, docs, DATA_IN_CODE) is None:
        return None
    for path, lines in code_lines.items():
        for number, line in enumerate(lines, 1):
            if "http" in line and COMMENT_DOWNLOAD.search(line):
                return Evidence(path, number, " ".join(line.split())[:160], "lint.stated")
    return None


GPU_WORD = re.compile(r"(?i)\bGPUs?\b|\b[VAHTLP]\d{2,3}\b|\bRTX\b|\bTesla\b|\bTITAN\b")
MAX_OTHER_DOCS = 60
# Pages outside the docs speak of training hardware only in so many words: a serving guide's
# "decoding on a single L20" or a copied baseline's results table is not the training GPU; "our
# experiments run on 8 V100s" and a "Hardware:" line are the project's own runs.
TRAINING_WORD = re.compile(r"(?i)\btrain|\bexperiments?\b|^\W*hardware\b")


def gpu_in_pages(tree: RepoTree, pages: list[str]) -> Evidence | None:
    """A GPU model or GPU memory stated for training in one of `pages` (Markdown the codebook
    does not read, such as a config folder's README with its training speed on A100s), found
    by the audit's own hardware reader."""
    from miner.audit.classify.hardware import find_hardware
    from miner.audit.docs import parse_markdown

    for path in pages[:MAX_OTHER_DOCS]:
        text = tree.read_text(path) or ""
        if not GPU_WORD.search(text):
            continue
        for hit in find_hardware(parse_markdown(path, text)):
            if hit.field == "hw_gpu" and TRAINING_WORD.search(hit.evidence.text):
                return hit.evidence
    return None


def claims(
    tree: RepoTree,
    docs: tuple[str, ...],
    pattern: re.Pattern[str],
    unless: re.Pattern[str] | None = None,
) -> Evidence | None:
    """The first docs line matching `pattern` that is not a negation, redirect or news item
    (nor matches `unless`)."""
    for doc in docs:
        text = tree.read_text(doc) or ""
        for number, line in enumerate(text.splitlines(), 1):
            if not pattern.search(line) or (unless is not None and unless.search(line)):
                continue
            if not NOT_A_CLAIM.search(line):
                return Evidence(doc, number, " ".join(line.split())[:160], "lint.stated")
    return None


def stated(tree: RepoTree, docs: tuple[str, ...], pattern: re.Pattern[str]) -> Evidence | None:
    """The first docs line matching `pattern`."""
    for doc in docs:
        hit = _first_line(tree, doc, pattern)
        if hit:
            return hit
    return None


def _first_line(tree: RepoTree, path: str, pattern: re.Pattern[str]) -> Evidence | None:
    text = tree.read_text(path)
    if not text:
        return None
    for number, line in enumerate(text.splitlines(), 1):
        if pattern.search(line):
            return Evidence(path, number, " ".join(line.split())[:160], "lint.stated")
    return None


def specifier(spec: str) -> object | None:
    """A packaging SpecifierSet for a requirement's version text, or None when it has none."""
    from packaging.specifiers import InvalidSpecifier, SpecifierSet

    text = spec.strip().replace(" ", "")
    if not text:
        return None
    build = re.fullmatch(r"=?=?(\d[\w.]*)=[\w.*]+", text)  # conda's `pkg=1.12.1=py3.8_cuda11`
    if build:
        text = "==" + build.group(1)
    if re.fullmatch(r"=\d[\w.*]*", text):  # conda's `pkg=1.7` means 1.7.*
        text = "=" + text + ("" if text.endswith("*") else ".*")
    elif re.fullmatch(r"\d[\w.*]*", text):
        text = "==" + text + ("" if text.endswith("*") else ".*")
    try:
        return SpecifierSet(text)
    except InvalidSpecifier:
        return None


def contradicts(family: str, spec: object, api: ApiVersion) -> bool:
    """True when no release the spec allows has the API (too old, or already removed)."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    assert isinstance(spec, SpecifierSet)
    allowed = [Version(v) for v in RELEASES.get(family, []) if spec.contains(v, prereleases=True)]
    if not allowed:
        return False
    if api.since is not None:
        return all(v < Version(api.since) for v in allowed)
    if api.until is not None:
        return all(v >= Version(api.until) for v in allowed)
    return False


def admits_without(family: str, spec: object, api: ApiVersion) -> str | None:
    """A release of another major version that the spec allows and that lacks the API, when
    releases it allows have it (the newest such one for an API added later, the first for one
    removed)."""
    from packaging.specifiers import SpecifierSet
    from packaging.version import Version

    assert isinstance(spec, SpecifierSet)
    allowed = [Version(v) for v in RELEASES.get(family, []) if spec.contains(v, prereleases=True)]
    if api.since is not None:  # an older major release only: `torch>=1.8` under torch.compile
        lacking = [v for v in allowed if v.major < Version(api.since).major]
    elif api.until is not None:
        lacking = [v for v in allowed if v >= Version(api.until)]
    else:
        return None
    if not lacking or len(lacking) == len(allowed):
        return None
    return f"{family} {lacking[0] if api.until else lacking[-1]}"
