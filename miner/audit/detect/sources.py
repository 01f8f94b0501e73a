"""The source index of a checkout: each code file's language, role weight, imports and signals.

Built once per audit (cached in the audit context) and shared by the framework, language and
network detectors and the project classifier, so every file is read and scanned once. A file's
weight says how much it speaks for the main model: model-defining and training code counts most;
utilities, tests, docs and examples less; vendored code and bundled copies of a framework (a
Caffe fork's `src/caffe`, `python/caffe`, ...) not at all. Signals and imports come from the
code of a file, not its comments and string literals (miner.audit.detect.code_views), except the few
signals that live in data strings by nature (STRING_SIGNALS).
"""

from __future__ import annotations

import json
import re
from collections import Counter
from dataclasses import dataclass, field

from miner.audit.detect import AuditContext
from miner.audit.detect.code_views import CodeViews, code_views
from miner.audit.detect.imports import Import, imports_for
from miner.audit.detect.signals import Hit, locate, merge, scan
from miner.audit.files import RepoFile, RepoTree, is_vendored
from miner.audit.ownership import library_copies

LANG_BY_SUFFIX = {
    ".py": "python", ".pyw": "python", ".ipynb": "python", ".lua": "lua", ".c": "c",
    ".h": "header", ".cpp": "cpp", ".cc": "cpp", ".cxx": "cpp", ".hpp": "cpp", ".hh": "cpp",
    ".hxx": "cpp", ".cu": "cpp", ".cuh": "cpp", ".m": "matlab", ".mm": "objc",
    ".js": "javascript", ".jsx": "javascript", ".mjs": "javascript", ".ts": "typescript",
    ".tsx": "typescript", ".java": "java", ".jl": "julia", ".go": "go", ".r": "r", ".cs": "csharp",
    ".scala": "other", ".kt": "other", ".swift": "other", ".rs": "other", ".rb": "other",
    ".php": "other", ".sh": "shell", ".bash": "shell", ".bat": "shell", ".cmd": "shell",
}  # fmt: skip
CODE_LANGS = frozenset(LANG_BY_SUFFIX.values()) - {"shell", "header"}
MAX_CODE_FILES = 1500  # files read per checkout; the rest count by size only
MAX_AUX_FILES = 300  # prototxt, shell scripts, darknet cfgs read per checkout
MAX_SCAN_BYTES = 8_000_000  # code scanned per checkout, most telling files first
MAX_SCAN_FILE = 400_000  # code scanned per file (generated or data-like files are longer)
DIR_WEIGHTS = (
    (frozenset({"test", "tests", "testing", "unittest", "unittests", "unit_tests"}), "test", 0.3),
    (frozenset({"doc", "docs", "documentation", "site", "website"}), "doc", 0.2),
    (frozenset({"example", "examples", "demo", "demos", "sample", "samples", "tutorial",
                "tutorials", "playground", "legacy", "old", "archive", "deprecated", "misc",
                "benchmark", "benchmarks", "contrib", "extra", "extras", "appendix"}), "example",
     0.5),
)  # fmt: skip
# Code in these folders exercises or illustrates the project: it confirms what the project's own
# code shows (a framework, a layer type) but never decides it on its own.
SUPPORT_FOLDERS = DIR_WEIGHTS[0][0] | DIR_WEIGHTS[1][0]
MODEL_NAME = re.compile(
    r"model|net|arch|layer|module|encoder|decoder|discriminator|agent|policy|backbone|"
    r"cnn|rnn|lstm|gru|gan|resnet|vgg|unet|transformer|attention|block|graph|seq2seq|tacotron"
)
TRAIN_NAME = re.compile(r"train|main|^run|fit|solver|learn|finetune|experiment|^rl_|^dqn")
UTIL_NAME = re.compile(
    r"util|helper|tool|preprocess|prepare|^data|dataset|loader|eval|visual|plot|^vis|convert|"
    r"export|download|config|metric|^log|setup|install|^test|_test$|benchmark|demo|inference|"
    r"predict|^infer|serve|server|app$|^api"
)
SETUP_FILES = frozenset({"setup.py", "conftest.py", "__init__.py", "version.py", "_version.py"})
OBJC = re.compile(r"^\s*(?:#import|@interface|@implementation|@end\b|@property)", re.M)
CAFFE_EXAMPLES = frozenset({
    "mnist", "cifar10", "imagenet", "siamese", "feature_extraction", "hdf5_classification",
    "web_demo", "finetune_flickr_style", "finetune_pascal_detection", "net_surgery", "pycaffe",
    "images", "cpp_classification", "ssd", "convert_model", "videonet", "pascal-multilabel",
})  # fmt: skip
COPY_FOLDERS = ("src/", "include/", "python/caffe/", "matlab/+caffe/", "matlab/caffe/",
                "matlab/demo/", "matlab/hdf5creation/", "tools/", "cmake/", "scripts/", "docs/",
                "docker/", "data/mnist/", "data/cifar10/", "data/ilsvrc12/", "models/bvlc_",
                "CMakeScripts/", "python/classify.py", "python/detect.py",
                "python/draw_net.py")  # fmt: skip
COMMENT_STARTS = ("#", "//", "%", "--", "*", '"""', "'''")
PROTO_TYPE = re.compile(r"\btype\s*:\s*\"?(\w+)\"?")
SOLVER_KEY = re.compile(r"^\s*(?:base_lr|lr_policy|max_iter|snapshot_prefix)\s*:", re.M)
# Signals read from a file's data strings too (not docstrings or comments): commands run from
# code (`subprocess.call(["caffe", "train", ...])`, `os.system("wget ...")`), the Keras backend
# set in `os.environ`, and checkpoint files named by path (`torch.load("model.pth")`).
STRING_SIGNALS = frozenset({
    "caffe.cli_train", "darknet.cli_train", "keras.backend", "proj.curl", "proj.download",
    "proj.load",
})  # fmt: skip
# Words those signals need in a string: data strings are read only in files with a string literal
# holding one of them (a fifth of the files; the others skip making their strings view).
STRING_HINT = re.compile(r"wget|gdown|curl|caffe|darknet|KERAS_BACKEND|\.(?:ckpt|pth|h5|t7)\b")
DARKNET_SECTION = re.compile(r"^\[(convolutional|connected|rnn|lstm|gru|net|yolo|region)\]", re.M)


@dataclass
class SourceFile:
    """One code file of the checkout, as the detectors see it."""

    path: str
    lang: str
    role: str
    weight: float
    size: int  # bytes of code (for notebooks: the code cells only)
    read: bool = False
    notebook: bool = False
    support: bool = False  # in a test or documentation folder (SUPPORT_FOLDERS)
    imports: list[Import] = field(default_factory=list)
    hits: dict[str, Hit] = field(default_factory=dict)

    def count(self, signal: str) -> int:
        """How often `signal` occurs in the file."""
        hit = self.hits.get(signal)
        return hit.count if hit else 0

    def imports_module(self, *prefixes: str) -> Import | None:
        """The first import of a module equal to or under one of `prefixes`."""
        for imp in self.imports:
            for p in prefixes:
                if imp.module == p or imp.module.startswith(p + "."):
                    return imp
        return None


@dataclass
class Artifact:
    """A non-code file that still tells about the model: Caffe prototxt, shell script, cfg."""

    path: str
    kind: str  # prototxt | shell | darknet_cfg
    weight: float
    layer_types: Counter[str] = field(default_factory=Counter)
    solver: bool = False
    hits: dict[str, Hit] = field(default_factory=dict)


@dataclass
class CodeIndex:
    """Every code file and model artifact of one checkout."""

    tree: RepoTree
    files: list[SourceFile]
    artifacts: list[Artifact]
    framework_copies: tuple[str, ...]
    code_text: dict[str, str] = field(default_factory=dict)  # notebook path -> its code cells
    views: dict[str, CodeViews] = field(default_factory=dict)  # path -> its code views

    def own(self) -> list[SourceFile]:
        """Code files that count (not vendored, not a bundled framework copy)."""
        return [f for f in self.files if f.weight > 0]

    def text(self, f: SourceFile) -> str:
        """The code text of `f` (notebooks: code cells joined)."""
        return self.code_text.get(f.path) or self.tree.read_text(f.path) or ""

    def where(self, path: str, sample: str) -> tuple[int, str]:
        """Line and original line text of `sample` in the file at `path`: found in the file's
        code (else its data strings), not in a comment or docstring. Notebook lines are those
        of the notebook file."""
        raw = self.tree.read_text(path) or ""
        views = self.views.get(path)
        if views is None:
            return locate(raw, sample)
        source = self.code_text.get(path) or raw
        for data in (False, True):  # the strings view is made only when the code lacks `sample`
            view = views.strings if data else views.code
            line = locate(view, sample)[0] if view else 0
            if not line:
                continue
            text = source.split("\n", line)[line - 1].strip()[:200]
            if path in self.code_text:  # the line of the notebook's JSON that holds this code
                return locate(raw, text)[0] or locate(raw, sample)[0], text
            return line, text
        return locate(raw, sample)

    def where_code(self, path: str, samples: list[str]) -> tuple[int, str, str]:
        """The most telling of `samples` as evidence: a call on a code line rather than a bare
        name or a comment. Returns (line, line text, sample)."""
        ranked = sorted(samples, key=lambda s: (not s.endswith("("), "." not in s))
        fallback: tuple[int, str, str] | None = None
        for sample in ranked[:4]:
            line, text = self.where(path, sample)
            if line and not text.startswith(COMMENT_STARTS):
                return line, text, sample
            fallback = fallback or (line, text, sample)
        return fallback or (0, "", samples[0] if samples else "")


def framework_copies(tree: RepoTree) -> tuple[str, ...]:
    """Folder prefixes holding a bundled copy of Caffe (a fork): its core sources and headers.

    A folder of extra layers meant to be copied into Caffe (`caffe/src/caffe/layers/...` without
    `net.cpp`) is the project's own code, not a copy.
    """
    found: dict[str, set[str]] = {"src/caffe/net.cpp": set(), "include/caffe/net.hpp": set()}
    for f in tree.files:
        for marker, prefixes in found.items():
            if f.path.endswith(marker) and (f.path == marker or f.path[-len(marker) - 1] == "/"):
                prefixes.add(f.path[: -len(marker)])
    return tuple(sorted(found["src/caffe/net.cpp"] & found["include/caffe/net.hpp"]))


def in_copy(path: str, copies: tuple[str, ...]) -> bool:
    """True when `path` belongs to a bundled framework copy rather than the project's own code."""
    for prefix in copies:
        if not path.startswith(prefix):
            continue
        rest = path[len(prefix) :]
        if rest.startswith(COPY_FOLDERS):
            return True
        parts = rest.split("/")
        if parts[0] == "examples" and (len(parts) == 2 or parts[1] in CAFFE_EXAMPLES):
            return True
        if parts[0] == "python" and len(parts) == 2:
            return True
    return False


def in_support_folder(path: str) -> bool:
    """True when `path` lies in a test or documentation folder (tests/, test/, docs/ ...)."""
    return not SUPPORT_FOLDERS.isdisjoint(path.lower().split("/")[:-1])


def role_of(path: str) -> tuple[str, float]:
    """The role of a code file from its path, and the weight that role gives it."""
    parts = path.lower().split("/")
    name = parts[-1]
    stem = name.rsplit(".", 1)[0] if "." in name[1:] else name
    base_role, base = "code", 1.0
    folders = set(parts[:-1])
    for names, role, weight in DIR_WEIGHTS:
        if folders & names:
            base_role, base = role, weight
            break
    if name.endswith((".min.js", "-min.js", ".bundle.js")):
        return "vendored", 0.0
    if name in SETUP_FILES:
        return ("setup" if base_role == "code" else base_role), base * 0.3
    if (stem.startswith("test_") or stem.endswith("_test") or stem == "tests") and not (
        name.endswith(".ipynb")  # a notebook is an experiment, never a unit test
    ):
        return "test", min(base, 0.3)
    # Utility words first: `model_utils.py`, `eval_net.py` and `demo_rnn.m` are not the model.
    if UTIL_NAME.search(stem) or folders & {"utils", "util", "tools", "scripts", "helpers"}:
        return ("util" if base_role == "code" else base_role), base * 0.8
    if MODEL_NAME.search(stem):
        return ("model" if base_role == "code" else base_role), base * 2.5
    if TRAIN_NAME.search(stem):
        return ("train" if base_role == "code" else base_role), base * 2.5
    return base_role, base


def _notebook_code(text: str) -> tuple[str, str]:
    """(language, code of the code cells) of a notebook; raises ValueError when malformed."""
    data = json.loads(text)
    if not isinstance(data, dict):
        raise ValueError("not a notebook object")
    cells = data.get("cells")
    if cells is None:  # nbformat 3
        cells = [c for ws in data.get("worksheets") or [] for c in (ws.get("cells") or [])]
    if not isinstance(cells, list):
        raise ValueError("cells is not a list")
    meta = data.get("metadata") or {}
    lang = ((meta.get("kernelspec") or {}).get("language") or "").lower() or (
        (meta.get("language_info") or {}).get("name") or "python"
    ).lower()
    chunks = []
    for cell in cells:
        if not isinstance(cell, dict) or cell.get("cell_type") != "code":
            continue
        src = cell.get("source", cell.get("input", ""))
        chunks.append("".join(src) if isinstance(src, list) else str(src))
    return lang, "\n".join(chunks)


def _artifact_kind(name: str, suffix: str, size: int) -> str | None:
    if suffix == ".prototxt" or name.endswith(".prototxt.template"):
        return "prototxt"
    if suffix in (".sh", ".bash", ".bat", ".cmd") or name == "makefile":
        return "shell"
    if suffix == ".cfg" and size < 200_000:
        return "darknet_cfg"
    return None


def build_index(tree: RepoTree, warnings: list[str]) -> CodeIndex:
    """Scan the checkout once: languages, roles, imports and signals of its code files."""
    copies = framework_copies(tree)
    libraries = tuple(library_copies(tree))  # `annotator/uniformer/mmcv/`: a library's copy
    files: list[SourceFile] = []
    aux: list[tuple[RepoFile, str, float]] = []
    for f in tree.files:
        suffix = f.suffix
        lang = LANG_BY_SUFFIX.get(suffix)
        kind = _artifact_kind(f.name.lower(), suffix, f.size)
        if lang is None and kind is None:
            continue
        role, weight = role_of(f.path)
        if is_vendored(f.path) or in_copy(f.path, copies) or f.path.startswith(libraries):
            role, weight = "vendored", 0.0
        if kind is not None:
            aux.append((f, kind, weight))
        if lang is not None and lang != "shell":
            sf = SourceFile(f.path, lang, role, weight, f.size, notebook=suffix == ".ipynb")
            sf.support = in_support_folder(f.path)
            files.append(sf)
    index = CodeIndex(tree, files, [], copies)
    # Read the files that matter most first; a huge checkout is capped, not slow. Vendored
    # files and framework copies are counted by size only.
    order = sorted(
        (sf for sf in files if sf.weight > 0),
        key=lambda sf: (-sf.weight, sf.path.count("/"), sf.path),
    )
    budget = MAX_SCAN_BYTES
    for sf in order[:MAX_CODE_FILES]:
        if budget <= 0:
            break
        budget -= _read_source(index, sf, warnings)
    _resolve_headers(files)
    aux.sort(key=lambda a: (a[2] == 0, a[0].path.count("/"), a[0].path))
    index.artifacts = [a for a in (_artifact(tree, *item) for item in aux[:MAX_AUX_FILES]) if a]
    return index


def _read_source(index: CodeIndex, sf: SourceFile, warnings: list[str]) -> int:
    """Read and scan one code file; returns the number of characters scanned."""
    text = index.tree.read_text(sf.path)
    if text is None:
        return 0
    if sf.notebook:
        try:
            lang, text = _notebook_code(text)
        except (ValueError, TypeError, AttributeError) as exc:
            warnings.append(f"{sf.path}: malformed notebook ({type(exc).__name__}), not read")
            sf.weight, sf.size = 0.0, 0
            return 0
        sf.lang = {"r": "r", "julia": "julia", "python": "python"}.get(lang, "python")
        sf.size = len(text)
        index.code_text[sf.path] = text
    elif sf.lang == "matlab" and OBJC.search(text):
        sf.lang = "objc"
    sf.read = True
    text = text[:MAX_SCAN_FILE]
    views = code_views(sf.lang, text, STRING_HINT)
    if views is None:  # a language not lexed: the whole text
        sf.imports = imports_for(sf.lang, text)
        sf.hits = scan(text)
    else:
        index.views[sf.path] = views
        sf.imports = imports_for(sf.lang, text, views)
        sf.hits = scan(views.code)
        if views.hinted and views.strings:
            merge(sf.hits, scan(views.strings, STRING_SIGNALS))
    if sf.role not in ("test", "doc", "vendored") and (
        "model.class" in sf.hits or "keras.layer_class" in sf.hits or "keras.functional" in sf.hits
    ):
        sf.weight = max(sf.weight, 2.5 * (0.5 if sf.role == "example" else 1.0))
    return len(text)


def _resolve_headers(files: list[SourceFile]) -> None:
    """`.h` files are C++ in a C++ project, Objective-C beside .m/.mm sources, C otherwise."""
    langs = Counter(f.lang for f in files)
    header = "cpp" if langs["cpp"] >= langs["c"] else "c"
    if langs["objc"] > langs["cpp"] + langs["c"]:
        header = "objc"
    for f in files:
        if f.lang == "header":
            f.lang = header


def _artifact(tree: RepoTree, f: RepoFile, kind: str, weight: float) -> Artifact | None:
    text = tree.read_text(f.path) if f.size < 1_000_000 else None
    if not text:
        return None
    art = Artifact(f.path, kind, weight)
    if kind == "prototxt":
        art.layer_types = Counter(PROTO_TYPE.findall(text))
        art.solver = bool(SOLVER_KEY.search(text))
        if not art.layer_types and not art.solver:
            return None
    elif kind == "darknet_cfg":
        art.layer_types = Counter(DARKNET_SECTION.findall(text))
        if "net" not in art.layer_types or len(art.layer_types) < 2:
            return None
    else:
        art.hits = scan(text[:MAX_SCAN_FILE])
    return art


def code_index(ctx: AuditContext) -> CodeIndex:
    """The checkout's source index, built on first use and shared by every detector."""
    index = ctx.cache.get("code_index")
    if index is None:
        index = build_index(ctx.tree, ctx.warnings)
        ctx.cache["code_index"] = index
    return index
