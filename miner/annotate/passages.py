"""What a reviewer sees of a checkout: its file list and the documentation lines relevant to
the field being labelled. Files are read only inside the checkout: symlinks are never followed
out of it, and large files are skipped."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

MAX_BYTES = 512 * 1024
CONTEXT = 2
SKIP_DIRS = {".git", "node_modules", "__pycache__", ".ipynb_checkpoints"}
DOC_SUFFIXES = {".md", ".rst", ".txt", ".markdown", ""}
NOT_DOCS = re.compile(
    r"^(licen[cs]e|copying|changelog|changes|history|code_of_conduct|contributing"
    r"|authors|notice)",
    re.I,
)
DEPENDENCY = re.compile(
    r"^(requirements.*\.txt|environment.*\.ya?ml|conda.*\.ya?ml|setup\.py|setup\.cfg"
    r"|pyproject\.toml|pipfile(\.lock)?|poetry\.lock|dockerfile.*|docker-compose.*\.ya?ml"
    r"|install.*\.sh|.*\.rockspec|package\.json|cmakelists\.txt|description)$",
    re.I,
)
GROUPS: dict[str, re.Pattern[str]] = {
    "project": re.compile(
        r"\b(train|training|pre-?trained|tutorial|course|deprecated|no longer"
        r" maintained|moved to|pip install|library|toolkit|dataset|model)\b",
        re.I,
    ),
    "framework": re.compile(
        r"\b(tensorflow|tf\.keras|keras|pytorch|torch|caffe2?|theano|mxnet"
        r"|cntk|jax|chainer|paddle|darknet|dynet|onnx|lua|matlab|julia"
        r"|import)\b",
        re.I,
    ),
    "network": re.compile(
        r"\b(cnn|convolution\w*|rnn|lstm|gru|recurrent|mlp|perceptron|gnn"
        r"|graph|transformer|attention|bert|gpt|gan|adversarial|reinforcement"
        r"|agent|resnet|vgg|u-?net)\b",
        re.I,
    ),
    "software": re.compile(
        r"(requirement|dependenc|prerequisite|install|pip3? |conda |docker"
        r"|version|==|>=|python ?[23]|cuda|cudnn)",
        re.I,
    ),
    "hardware": re.compile(
        r"(gpu|cpu|\bram\b|memory|\d+ ?gb\b|tesla|gtx|rtx|titan|v100|a100"
        r"|k80|p100|xeon|i[3579]-\d|ryzen|apple m1|tpu|jetson|raspberry|fpga"
        r"|nvidia|core)",
        re.I,
    ),
    "data": re.compile(r"(dataset|data set|download|wget|curl |data/|\.zip|\.tar)", re.I),
}
FIELD_GROUP = {
    "is_dl": "project",
    "exclude": "project",
    "training_code": "project",
    "domain": "project",
    "frameworks": "framework",
    "primary_framework": "framework",
    "paper_framework": "framework",
    "language": "framework",
    "network_types": "network",
    "paper_network": "network",
    "software_req": "software",
    "dependency_file": "software",
    "software_req_sources": "software",
    "versions_pinned": "software",
    "hardware_req": "hardware",
    "hw_gpu": "hardware",
    "hw_cpu": "hardware",
    "hw_memory": "hardware",
    "hw_other": "hardware",
    "data_available": "data",
}


@dataclass(frozen=True)
class Passage:
    """Consecutive lines of one file (1-based `start`), with the lines that matched."""

    path: str
    start: int
    lines: tuple[str, ...]
    hits: tuple[int, ...]


def inside(root: Path, path: Path) -> bool:
    """True when `path`, symlinks resolved, lies inside `root`."""
    try:
        return Path(os.path.realpath(path)).is_relative_to(os.path.realpath(root))
    except (OSError, ValueError):
        return False


def read_text(root: Path, rel: str) -> str | None:
    """A file of the checkout as text, or None when outside it, not a file, or too large."""
    path = root / rel
    if not inside(root, path) or not path.is_file() or path.stat().st_size > MAX_BYTES:
        return None
    return path.read_bytes().decode("utf-8", errors="replace")


def list_files(root: Path) -> list[str]:
    """Every file of the checkout (relative POSIX paths), without descending into symlinks."""
    found = []
    for folder, dirs, files in os.walk(root, followlinks=False):
        dirs[:] = sorted(d for d in dirs if d not in SKIP_DIRS)
        base = Path(folder).relative_to(root)
        found += [(base / name).as_posix() for name in sorted(files)]
    return found


def doc_files(files: list[str]) -> list[str]:
    """The documentation the codebook reads: READMEs, root and docs/ text files, manifests."""
    docs: list[str] = []
    deps: list[str] = []
    for rel in files:
        parts = rel.split("/")
        name = parts[-1]
        suffix = Path(name).suffix.lower()
        if DEPENDENCY.match(name) and len(parts) <= 3:
            deps.append(rel)
        elif len(parts) == 1 and name.lower().startswith("readme"):
            docs.insert(0, rel)
        elif (
            suffix in DOC_SUFFIXES - {""}
            and not NOT_DOCS.match(name)
            and (len(parts) == 1 or parts[0].lower() in ("docs", "doc"))
        ):
            docs.append(rel)
    return docs + deps


def _merge(path: str, text: str, hit_lines: list[int]) -> list[Passage]:
    lines = text.splitlines()
    spans: list[list[int]] = []
    for hit in hit_lines:
        lo, hi = max(1, hit - CONTEXT), min(len(lines), hit + CONTEXT)
        if spans and lo <= spans[-1][1] + 1:
            spans[-1][1] = max(spans[-1][1], hi)
        else:
            spans.append([lo, hi])
    return [
        Passage(path, lo, tuple(lines[lo - 1 : hi]), tuple(h for h in hit_lines if lo <= h <= hi))
        for lo, hi in spans
    ]


def field_passages(root: Path, files: list[str], field: str, limit: int = 8) -> list[Passage]:
    """Documentation lines matching the field's keywords, with context, at most `limit`."""
    pattern = GROUPS[FIELD_GROUP.get(field, "project")]
    out: list[Passage] = []
    for rel in doc_files(files):
        text = read_text(root, rel)
        if text is None:
            continue
        hits = [i for i, line in enumerate(text.splitlines(), start=1) if pattern.search(line)]
        out += _merge(rel, text, hits)
        if len(out) >= limit:
            break
    return out[:limit]


def evidence_passages(root: Path, evidence: list[tuple[str, int]]) -> list[Passage]:
    """The lines around each (path, line) of machine evidence, read inside the checkout."""
    out: list[Passage] = []
    for rel, line in evidence:
        text = read_text(root, rel)
        if text is None:
            continue
        out += _merge(rel, text, [max(1, line)])
    return out
