"""Software requirements stated in the documentation (the codebook's README rule).

Three kinds of statement count: a Requirements/Dependencies/Prerequisites list naming packages,
an install command for a dependency (`pip install X`, `conda install X`, in prose or code), and
a sentence that requires, installs or was tested with a named package ("requires TensorFlow 1.4",
"please install PyTorch and OpenCV", "tested on PyTorch 0.4.0"). Saying the code is
"implemented in PyTorch" is not a requirement, nor is `pip install` of the project itself.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass

from miner.audit.classify.dependency import NOT_PACKAGES, Dependency
from miner.audit.classify.installs import install_commands, requirement_line
from miner.audit.classify.manifests import image_dependency
from miner.audit.docs import Block
from miner.codebook import Evidence

# Libraries and tools DL projects ask for, matched as whole words in prose. Words that are also
# common English ("boost", "ray", "gym" alone) are left out here; lists still catch them.
KNOWN_PACKAGES = (
    "tensorflow-gpu tensorflow tf-nightly tensorflow.js tensorboardx tensorboard keras pytorch "
    "torchvision torchaudio torchtext torch7 torch caffe2 caffe theano lasagne mxnet gluoncv "
    "gluonnlp chainer cupy cntk paddlepaddle jax flax dynet sonnet tflearn tensorlayer tensorpack "
    "detectron2 detectron mmcv mmdetection pytorch-lightning fastai numpy scipy pandas "
    "scikit-learn sklearn scikit-image skimage matplotlib seaborn opencv-python opencv cv2 pillow "
    "h5py tqdm nltk spacy gensim transformers librosa networkx cudatoolkit cudnn cuda nccl "
    "nvidia-docker docker visdom jupyter cython protobuf eigen3 eigen lmdb leveldb hdf5 glog "
    "gflags openblas mkl matlab octave luarocks cutorch cunn csvigo fblualib openslide ffmpeg sox "
    "imagemagick dlib mujoco openai-gym pybullet open3d trimesh xgboost lightgbm numba pyyaml "
    "sentencepiece fairseq allennlp torch-geometric pytorch-geometric torch_geometric dgl rdkit "
    "nibabel simpleitk pydicom monai albumentations imgaug timm wandb horovod onnxruntime onnx "
    "tensorrt openvino anaconda miniconda conda pyrealsense2 librealsense pygame unity ml-agents "
    "nvidia-apex apex"
).split()
PACKAGE = re.compile(
    r"(?<![A-Za-z0-9_.\-/])("
    + "|".join(re.escape(p).replace(r"\-", r"[-_ ]?") for p in KNOWN_PACKAGES)
    + r"|scikit[- ]learn|open ?cv|py ?torch|nvidia apex|openai gym)"
    # a version may be glued to the name ("pytorch1.4", "tensorflow2.3"), a word may not
    # or joined by a hyphen ("pytorch-1.0")
    r"(?![A-Za-z_/])(?!-(?!\d))(?!-?\d+[A-Za-z])(?!-?\d+(?:[-_]\w+)?\.(?:py|sh|txt|md)\b)",
    re.IGNORECASE,
)  # fmt: skip
VERSION_AFTER = re.compile(
    # "TensorFlow over ver1.0", "PyTorch above 1.4": a lower bound in words
    # "`torch` Version: 1.12.1": a name in quotes, its version after a label; "PyTorch tested on
    # 1.4.0, 1.5.0"; "Tensorflow (originally has been developed with 1.3 but should work ...)"
    # "Opencv (for tools/lane_evaluation), version 2.4.8": what it is for, then its version;
    # "torch must be v2.0 or greater"
    r"(?:\s*\([^()\n]{1,60}\)\s*,?(?=\s*(?:version|ver\.|v?\d)))?"
    r"(?:-(?=\d)|[\s,:(`'\"*]*)(?:(?:originally\s+)?(?:has\s+been\s+|was\s+)?"
    r"(?:tested|verified|developed|built)\s+(?:on|with|using|under)\s+)?"
    r"(?:(?:must|should|needs?\s+to)\s+be\s+(?:at\s+)?)?"
    r"(?:version\s*:?\s*|ver\.?\s*)?"
    r"(==|>=|<=|~=|=|>|<|≥|(?:over|above)\s+(?:version\s*|ver\.?\s*)?)?\s*[vr]?"
    r"(\d+(?:\.\d+)*[a-z]?\d*)\b"
    # "1.4+" is a lower bound; "1.12.1+cu113" is a local version (a build for CUDA 11.3)
    r"(\+(?!\w)|\s*(?:or|and)\s+(?:later|higher|newer|above|greater)\b)?",
    re.I,
)
# "Python 3.6", "python3.7", "Python (>=3.8)", "Python (version == 2.7)", "Python 3.x", "py3.9":
# the interpreter's version.
PYTHON_VERSION = re.compile(
    # not inside a word or path (`ipython-3`, `--python`); a dash opening a line is a list item
    r"(?:(?<![\w./-])|(?<=^-)|(?<=\n-))(?:python|py)\s*[(:]?\s*(?:version\s*|either\s+)?[(:]?\s*"
    r"(==|>=|<=|~=|=|>|<|≥)?\s*v?"
    r"([23](?:\.\d+|\.x)?)(?![\w-]|\.\d*[a-wyz])(\+|\s*(?:or|and)\s+(?:later|higher|newer|above|greater)\b)?",
    re.I,
)
LIST_SECTION = re.compile(
    r"requi?r[a-z]{0,3}ment|dependenc|dependanc|pre-?requis|\brequisites?\b|\bsoftware\b"
    r"|\bpackages?\b|librar|environment|\bsetup\b|set(?:ting)? ?up|instal|getting started"
    r"|before you start"
    r"|tools",
    re.IGNORECASE,
)
NOT_SOFTWARE_SECTION = re.compile(
    r"\b(?:data|dataset|datasets|test|tests|testing|hardware|gpu|format|input|file|files|label|"
    r"labels|image|images|memory)\b",
    re.IGNORECASE,
)
STRONG_LIST_SECTION = re.compile(
    r"requi?r[a-z]{0,3}ment|dependenc|dependanc|pre-?requis|\brequisites?\b|\bsoftware\b"
    r"|\bpackages?\b|librar",
    re.I,
)
LABEL_WORDS = 4  # "PyTorch 2.0", "TensorFlow 1.15 (GPU)": a label, not a sentence
# "Requirements: Python 3.6, PyTorch 1.0" opens a list the way a heading does.
INLINE_LABEL = re.compile(
    r"^\W*(requirements?|requisites?|dependenc\w*|prerequisites?|environment|software|packages"
    r"|libraries)"
    r"\s*[:：]",
    re.IGNORECASE,
)
REQUIRE = re.compile(
    r"\b(requires?|required|requirements?|needs?|needed|install(?:s|ed|ing|ation)?|"
    r"depend(?:s|ing)? on|dependenc(?:y|ies)|prerequisites?|must have|make sure|have to|"
    # "torch must be v2.0 or greater": a version the package must have
    r"must be(?=\s+(?:at\s+)?(?:version\s+)?v?\d))\b",
    re.IGNORECASE,
)
TESTED = re.compile(
    r"\b((?:tested|developed|verified|run|ran|runs|runnable|trained|works?|working|compatible|"
    r"supports?|built|implemented)"
    r"\s+(?:it\s+|only\s+)?(?:on|with|under|using|in|against|over)|(?:we|i)\s+(?:have\s+)?used|"
    r"(?:we|i)\s+use\b(?=.{0,90}?\bfor\s+(?:the\s+|our\s+|all\s+)?(?:experiments?|training)\b)|"
    # "I use Python 2.7 and Pytorch 0.3": what the authors run, with its version ("we use
    # PyTorch 1.9 to build the model" says what it is written in)
    r"(?:we|i)\s+use\b(?![^\n]{0,80}?\bto\s+(?:build|implement|write|develop|construct)\b)"
    r"(?=[^\n]{0,60}?\b[A-Za-z][\w-]*\s*v?\d+\.\d+)|"
    r"test(?:s|ed)?\s+(?:\w+\s+){0,3}?(?:under|with|using)|"
    # "simplified the code to pytorch 1.5", "ported to TensorFlow 2": the version it runs on
    r"(?:updated|upgraded|ported|migrated|adapted|simplified|rewritten|refactored)\s+"
    r"(?:\w+\s+){0,3}?to|"
    r"using)\b",
    re.IGNORECASE,
)
# "PyTorch is the only requirement", "numpy and scipy are required": the package comes first.
REQUIRED_AFTER = re.compile(
    r"\b(?:is|are)\s+(?:the\s+only\s+|also\s+|a\s+)?(?:requirements?|required|needed|necessary|"
    r"prerequisites?|dependenc(?:y|ies))\b",
    re.IGNORECASE,
)
# A sentence that introduces a list of the versions the project ran with.
LEAD_IN = re.compile(
    r"(?i)\b(?:(?:test(?:ed|ing)?|development|working|our|experiment(?:al)?|software|runtime)"
    r"\s+environments?|tested\s+(?:with|on|under)|environment\s+(?:we|used)"
    # "The experimental results are produced in an environment that satisfies:"
    r"|(?:produced|obtained|reproduced|generated)\s+(?:\w+\s+){0,2}?(?:environments?|setup)"
    r"|(?:conducted|performed|ran|run)\s+(?:\w+\s+){0,2}?experiments?\s+(?:under|with|on|using))"
    r"\b[^.]{0,40}"
    r"(?::|\bis|\bare|\bas follows|\bbelow)?\s*$"
)
# A sentence that introduces a list of what the user must have ("To run this code, make sure the
# following are installed:"): its items' known packages are requirements, versions or not.
REQUIRE_LEAD_IN = re.compile(
    r"(?i)\b(?:requires?|required|needs?|needed|install(?:ed|ing)?|make sure|must have|"
    r"depends? on|dependenc(?:y|ies)|prerequisites?)\b[^.:]{0,80}:\s*$"
)
NEGATED = re.compile(r"\b(not|n't|no|without|never)\s+(\w+\s+)?$", re.IGNORECASE)
CJK_REQUIRE = re.compile(r"(需要|安装|依赖|环境|要求|配置|编译|必须|必要|インストール|必要です)")
HINT = re.compile(
    r"(?i)requir|need|necessar|install|depend|prerequisite|must|make sure|have to|test|"
    r"develop|verified|\brun|\bran\b|trained|work|compatible|support|built|implemented|used|"
    r"using|\buse\b|updat|upgrad|ported|migrat|adapted|simplified|rewritten|refactored|[\u3040-\u9fff]"
)
SENTENCE = re.compile(r"(?<=[.!?。！？])\s+|(?<=[。！？])")
NOT_ITEMS = re.compile(
    r"^(python\s*\d?|py\d|linux|ubuntu|debian|centos|windows|win\d+|mac\s?os|macos|os ?x|unix|"
    r"x86|x64|64-?bit|gpu|cpu|nvidia|an?\b|the\b|you|we|it|this|please|note|download|clone|run|"
    r"create|make|build|set|use|see|check|go|open|follow|add|put|copy|change|edit|modify|train|"
    r"test|get|only|at least|optional|recommended|tested|for|if|to|in|on|with|and|or|ram|memory|"
    r"disk|none|nothing|n/a|required|\d)\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class DocFinding:
    """A documentation statement of required software, with the packages it names."""

    evidence: Evidence
    deps: tuple[Dependency, ...]


def _normal(name: str) -> str:
    return re.sub(r"[-_. ]+", "-", name.strip().lower())


def _line_in(block: Block, offset: int) -> int:
    return block.line + block.text.count("\n", 0, offset) if block.kind != "html" else block.line


def _snippet(text: str, start: int, end: int) -> str:
    lo = max(text.rfind("\n", 0, start) + 1, start - 150)
    hi = text.find("\n", end)
    return " ".join(text[lo : hi if hi >= 0 else len(text)].split())[:300]


def _packages(
    block: Block, text: str, base: int, start: int = 0, stop: int | None = None
) -> Iterator[Dependency]:
    """Known packages named in text[start:stop], with a version when one follows the name."""
    for m in PACKAGE.finditer(text, start, len(text) if stop is None else stop):
        name = _normal(m.group(1)).replace("py-torch", "pytorch").replace("open-cv", "opencv")
        v = VERSION_AFTER.match(text, m.end())
        spec = version_spec(v) if v and v.start() <= m.end() + 12 else ""
        upper = UPPER_BOUND.match(text, v.end()) if v and spec.startswith(">") else None
        if upper:  # "PyTorch >= 1.7.0 < 1.11.0": a range the authors bound on both sides
            spec += f",{upper.group(1).replace('≤', '<=')}{upper.group(2)}"
        line = _line_in(block, base + m.start())
        yield Dependency(name, spec, block.path, line, _snippet(text, m.start(), m.end()))


UPPER_BOUND = re.compile(r"\s*,?\s*(?:and\s+)?(<=?|≤)\s*v?(\d+(?:\.\d+)*)\b")
RUNS_SCRIPT = re.compile(r"\s+(?:-\w\b|[\w./-]+\.py\b|[\w.-]*/)|\s*`")
# A comment line of a code block (`# Works only with Python 3.`): prose, not a command; a
# shebang (`#!/usr/bin/env python3`) is a command.
CODE_COMMENT = re.compile(r"^[ \t]*(?:#(?!!)|//)[^\n]*$", re.M)


def version_spec(match: re.Match[str]) -> str:
    """The specifier a version statement gives: "1.4" pins, "1.4+" and "1.4 or later" open."""
    operator, version, open_end = match.group(1), match.group(2), match.group(3)
    if operator == "=" and version in ("0", "1"):
        return ""  # a switch set in the shell ("gpu=0 cudnn=0 forces CPU only"), not a release
    if operator and operator[0].isalpha():  # "over ver1.0"
        operator = ">="
    if open_end and not operator:
        return ">=" + version
    return (operator or "") + version


# An image tagged with its Python: `nvcr.io/nvidia/pytorch:21.11-py3`, `tensorflow:1.12-py3`.
IMAGE_PYTHON = re.compile(r"[\w./-]+:[\w.]*-py(3\d*)\b")
# The Python an environment is made with, given as an option or argument of the tool
# (`uv venv --python 3.11`, `virtualenv -p python3.8`, `pyenv install 3.10.4`, `poetry env use
# 3.11`): `python=3.10` in `conda create` is read as a statement already.
ENV_PYTHON = re.compile(
    r"(?i)(?:\s--python[ =]\s*|\s-p\s*python)([23]\.\d{1,2})\b"
    r"|\b(?:pyenv\s+(?:install|local|global|shell)|poetry\s+env\s+use|uv\s+python\s+(?:install|pin))"
    r"\s+(?:python)?([23]\.\d{1,2})\b"
)
# An environment's package folder in a step the reader runs (`cp doom*.py
# ../env/lib/python2.7/site-packages/gym_doom/`, `export LD_LIBRARY_PATH=.../python3.8/
# site-packages/nvidia/lib`): the instructions assume that Python.
SITE_PACKAGES = re.compile(r"/lib/python([23]\.\d{1,2})/(?:site|dist)-packages\b")
# A run's output quoted in the docs names the Python of whoever ran it: a traceback, a warning,
# pip's "Requirement already satisfied".
OUTPUT_LINE = re.compile(
    r"(?i)^\W*(?:File\s+\"|Traceback\b|Requirement already)|\w\.py:\d+:|\b\w*(?:Warning|Error)\b"
)


def _in_comment(text: str, pos: int) -> bool:
    """True when offset `pos` of a code block lies on one of its comment lines."""
    start = text.rfind("\n", 0, pos) + 1
    return bool(CODE_COMMENT.match(text, start))


def python_statements(blocks: Iterable[Block]) -> list[Dependency]:
    """Every Python version the documentation states, in reading order ("Python 3.6+",
    "tested with python3.7", "Python (>=3.8)"); a bare "Python 3" counts, "Python" does not."""
    found: list[Dependency] = []
    for block in blocks:
        if "py" not in block.text.lower():
            continue
        for image in IMAGE_PYTHON.finditer(block.text):
            spec = image.group(1) if len(image.group(1)) == 1 else f"3.{image.group(1)[1:]}"
            line = _line_in(block, image.start())
            found.append(Dependency("python", spec, block.path, line, image.group(0)[:160]))
        for env in ENV_PYTHON.finditer(block.text):
            line = _line_in(block, env.start())
            text = _snippet(block.text, env.start(), env.end())
            found.append(Dependency("python", env.group(1) or env.group(2), block.path, line, text))
        for folder in SITE_PACKAGES.finditer(block.text):
            start = block.text.rfind("\n", 0, folder.start()) + 1
            end = block.text.find("\n", folder.end())
            step = block.text[start : len(block.text) if end < 0 else end]
            if not OUTPUT_LINE.search(step):
                line = _line_in(block, folder.start())
                text = " ".join(step.split())[:160]
                found.append(Dependency("python", folder.group(1), block.path, line, text))
        for m in PYTHON_VERSION.finditer(block.text):
            bare = "." not in m.group(2) and not (m.group(1) or m.group(3))
            in_code = block.kind == "code" and not _in_comment(block.text, m.start())
            stated = ":" in m.group(0)  # "Python: 2 or 3", a list of versions in a code block
            if bare and not stated and (in_code or RUNS_SCRIPT.match(block.text, m.end())):
                continue  # "python3 train.py" runs a script, it states no version
            line = _line_in(block, m.start())
            found.append(
                Dependency("python", version_spec(m), block.path, line,
                           _snippet(block.text, m.start(), m.end()))
            )  # fmt: skip
    return found


def _sentences(text: str) -> Iterable[tuple[int, str]]:
    pos = 0
    for part in SENTENCE.split(text):
        at = text.find(part, pos)
        pos = at + len(part)
        if part.strip():
            yield at, part


def _sentence_findings(block: Block) -> Iterable[DocFinding]:
    if not HINT.search(block.text):
        return  # no requirement verb at all (most prose)
    for at, sentence in _sentences(block.text):
        for rule, pattern, need_version in (
            ("software.readme_requires", REQUIRE, False),
            ("software.readme_tested_with", TESTED, True),
        ):
            for verb in pattern.finditer(sentence):
                if NEGATED.search(sentence[: verb.start()]):
                    break  # "do not need to install X": the later verbs are negated too
                window_end = min(len(sentence), verb.end() + 90)
                deps = [
                    d for d in _packages(block, sentence, at, verb.end(), window_end)
                    if d.spec or not need_version
                ]  # fmt: skip
                if deps:
                    line = _line_in(block, at + verb.start())
                    text = _snippet(block.text, at, at + len(sentence))
                    yield DocFinding(Evidence(block.path, line, text, rule), tuple(deps))
                    break
        for verb in REQUIRED_AFTER.finditer(sentence):
            deps = list(_packages(block, sentence, at, max(0, verb.start() - 60), verb.start()))
            if deps:
                text = _snippet(block.text, at, at + len(sentence))
                rule = "software.readme_required_after"
                yield DocFinding(Evidence(block.path, deps[0].line, text, rule), tuple(deps))
                break
        if CJK_REQUIRE.search(sentence):
            deps = list(_packages(block, sentence, at))
            if deps:
                line = _line_in(block, at)
                text = _snippet(block.text, at, at + len(sentence))
                yield DocFinding(
                    Evidence(block.path, line, text, "software.readme_requires"), tuple(deps)
                )


def _command_findings(block: Block, self_names: frozenset[str]) -> Iterable[DocFinding]:
    offset = 0
    for raw in block.text.splitlines(keepends=True):
        deps = [
            Dependency(c.name, c.spec, block.path, _line_in(block, offset), raw.strip()[:300])
            for c in install_commands(raw)
            if _normal(c.name) not in self_names
        ]
        if deps:
            evidence = Evidence(
                block.path, deps[0].line, raw.strip()[:300], "software.readme_install"
            )
            yield DocFinding(evidence, tuple(deps))
        offset += len(raw)


# A framework's container image named with a release tag ("We used the
# 'nvcr.io/nvidia/pytorch:19.10-py3' image", `docker pull tensorflow/tensorflow:1.15.0-gpu`):
# the image fixes the framework's version as a requirements file would.
IMAGE_REF = re.compile(r"(?<![\w./-])((?:[\w.-]+/)+[\w.-]+):(\d[\w.-]*)")


def _image_findings(block: Block) -> Iterable[DocFinding]:
    for m in IMAGE_REF.finditer(block.text):
        found = image_dependency(f"{m.group(1)}:{m.group(2)}")
        if found is None or found[0] == "cuda" or not found[1]:
            continue  # a CUDA base image names the toolkit, not the project's software
        line = _line_in(block, m.start())
        dep = Dependency(found[0], f"=={found[1]}", block.path, line, m.group(0))
        yield DocFinding(Evidence(block.path, line, m.group(0), "software.readme_image"), (dep,))


def _list_item_dep(block: Block, listing: bool) -> Dependency | None:
    """The package a Requirements-list item names, e.g. "OpenSlide Python" or "Caffe: Linux ...".

    An item outside the known-package list counts when its list names known packages too
    (`listing`), or when it looks like a package: a version, a URL, or a name such as
    "PyYAML" or "png++" rather than an English word ("thorough, covering ...", "Image").
    """
    head = re.split(
        r"\s*(?::|\(|,|;| - | – | — | or | for | and |https?://)", block.text, maxsplit=1
    )[0]
    head = head.strip(" *`'\"[]")
    words = head.split()
    bare = re.sub(r"(?<=[A-Za-z])\d[\d.]*x?\b", "", head)  # "Windows10", "Python3.x"
    if not words or len(words) > 5 or NOT_ITEMS.match(bare) or not words[0][0].isalpha():
        return None
    if "/" in head or re.search(r"\.(py|sh|ipynb|json|txt|ya?ml|md)\b", head):
        return None  # a file or folder of the project, not a package
    name, spec = words[0], ""
    version = VERSION_AFTER.match(head, len(words[0]))
    if version:
        spec = version_spec(version)
    looks_like_package = re.search(r"[\d_.+\-]|[a-z][A-Z]", name) or "://" in block.text
    if not (listing or spec or looks_like_package):
        return None
    return Dependency(name, spec, block.path, block.line, " ".join(block.text.split())[:300])


def _section_findings(block: Block, listing: bool = False) -> Iterable[DocFinding]:
    """Packages listed under a Requirements/Dependencies/Installation heading (or label)."""
    label = INLINE_LABEL.match(block.text)
    section = label.group(1) if label else block.from_deepest(LIST_SECTION)
    if not LIST_SECTION.search(section) or NOT_SOFTWARE_SECTION.search(section):
        return  # "Dataset requirements", "Test requirement", "Hardware requirements"
    if block.kind == "heading" or block.text == block.header:
        return  # a table's header row names columns, not packages
    strong = bool(label or STRONG_LIST_SECTION.search(section))
    deps: list[Dependency] = []
    rule = "software.readme_section"
    if block.kind == "code":
        for n, raw in enumerate(block.text.splitlines()):
            for name, spec in requirement_line(raw):
                # A code line is a requirement line when it names a known package, or, under a
                # Requirements heading, carries a pip-style version ("networkx  2.4").
                listed = strong and spec and not spec.startswith("=") and "(" not in raw
                if PACKAGE.fullmatch(name) or listed:
                    deps.append(Dependency(name, spec, block.path, block.line + n, raw.strip()))
    else:
        if strong or block.kind in ("list_item", "table_row", "html"):
            deps = list(_packages(block, block.text, 0))
        if not deps and strong and block.kind in ("list_item", "table_row"):
            item = _list_item_dep(block, listing)
            deps = [item] if item else []
        if not deps and block.kind == "paragraph":
            # a line of its own that names a package and its version, set out as a label
            # ("**PyTorch 2.0**", then "Please refer requirements.txt"), as a list item would
            first = block.text.split("\n", 1)[0]
            if len(first.split()) <= LABEL_WORDS:
                deps = [d for d in _packages(block, first, 0) if d.spec]
    deps = [d for d in deps if d.name.lower() not in NOT_PACKAGES]
    if deps:
        evidence = Evidence(block.path, deps[0].line, deps[0].text, rule)
        yield DocFinding(evidence, tuple(deps))


def doc_requirements(blocks: Iterable[Block], self_names: frozenset[str]) -> list[DocFinding]:
    """Every statement of required software in the documentation blocks, in reading order."""
    findings: list[DocFinding] = []
    blocks = list(blocks)
    # Sections whose list names at least one known package: their other items are packages too.
    listing = {
        (b.path, b.section)
        for b in blocks
        if b.kind != "heading" and LIST_SECTION.search(b.section) and PACKAGE.search(b.text)
    }
    # "The test environment is:" opens a list of versions; "make sure the following are
    # installed:" a list of packages
    lead = ""
    for block in blocks:
        findings.extend(_command_findings(block, self_names))
        if block.kind != "heading":
            findings.extend(_image_findings(block))
        if block.kind == "list_item" and lead:
            deps = [d for d in _packages(block, block.text, 0) if d.spec or lead == "packages"]
            if deps:
                rule = (
                    "software.readme_tested_with" if lead == "versions" else "software.readme_list"
                )
                evidence = Evidence(block.path, block.line, deps[0].text, rule)
                findings.append(DocFinding(evidence, tuple(deps)))
                continue
        if block.kind in ("paragraph", "list_item") and LEAD_IN.search(block.text):
            lead = "versions"
        elif block.kind == "paragraph" and REQUIRE_LEAD_IN.search(block.text):
            lead = "packages"
        elif block.kind != "list_item":
            lead = ""
        if block.kind == "code":
            findings.extend(_section_findings(block))
            continue
        section = list(_section_findings(block, (block.path, block.section) in listing))
        findings.extend(section)
        if not section:
            findings.extend(_sentence_findings(block))
    return [
        f for f in findings
        if any(_normal(d.name) not in self_names and d.name.lower() not in NOT_PACKAGES
               for d in f.deps)
    ]  # fmt: skip
