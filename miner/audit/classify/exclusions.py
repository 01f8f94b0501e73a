"""Project classifier: is_dl, exclude, domain, training_code and data_available (codebook rules).

Exclusions follow the 2021 study's data cleaning: `educational` (tutorials, courses, book code,
collections of examples, awesome/reading lists), `library` (a package presented for installation
and reuse rather than a project training one model), `deprecated` (the docs say so),
`pretrained_only` (runs pre-trained models, trains none) and `not_dl` (no neural network is
built, trained or run). `archived` comes from the GitHub API, so `analyze` adds it, not an audit.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from miner.audit.classify.data_sources import data_evidence
from miner.audit.classify.project_signals import (
    domain_scores,
    training_evidence,
    uses_nn,
)
from miner.audit.detect import AuditContext
from miner.audit.detect.framework_map import module_framework
from miner.audit.detect.sources import CodeIndex, code_index
from miner.audit.docs import Block
from miner.codebook import Evidence
from miner.models import Label

EDU_WORDS = re.compile(
    r"\b(?:tutorials?|(?<!of )courses?|lectures?|class notes|study notes|exercises|assignments?|"
    r"homework|lessons?|cheat ?sheets?|awesome|reading list|paper list|"
    r"companion (?:code|repository|notebooks?)|(?:code|notebooks?) (?:for|of|to) (?:the |our |my )?"
    r"book|this book|collection of|learn(?:ing)? (?:deep learning|pytorch|tensorflow|keras|"
    r"machine learning))\b",
    re.I,
)
EDU_TITLE_ONLY = re.compile(r"\b(?:examples|samples|demos|notebooks|zoo|workshop|book)\b", re.I)
EDU_FOLDER = re.compile(
    r"^(?:chapter|chap|ch|lesson|lecture|week|day|lab|assignment|exercise|hw|tutorial|part|"
    r"module|unit|session)[ _\-]?\d+",
    re.I,
)
LIBRARY_WORDS = re.compile(
    r"\b(?:library|toolkit|toolbox|framework|package|python module|api|sdk|platform)\b", re.I
)
# "X is an open-source deep learning toolkit ...": the project presents itself as a library.
SELF_LIBRARY = re.compile(
    r"\bis\s+an?\s+(?:[\w-]+,?\s+){0,5}?(?:library|toolkit|toolbox|framework|package|"
    r"python (?:module|package))\b",
    re.I,
)
BUILD_FILES = ("setup.py", "setup.cfg", "pyproject.toml", "Makefile", "CMakeLists.txt")
PIP_SELF = re.compile(r"\b(?:pip3?|conda)\s+install\s+(?:-U\s+|--upgrade\s+)?([A-Za-z][\w.\-]*)")
PYPI_BADGE = re.compile(r"pypi\.(?:org|python\.org)/(?:project|pypi)/|badge\.fury\.io/py", re.I)
SUBJECT = (
    r"(?:this|the|our)\s+(?:repo|repository|project|code|codebase|implementation|library|package)"
)
DEPRECATED = re.compile(
    rf"\b{SUBJECT}\b[^.]{{0,60}}?\b(?:is|has been|was)\s+(?:now\s+)?(?:deprecated|no longer "
    r"(?:being )?(?:actively )?(?:maintained|supported|developed|updated)|unmaintained|archived|"
    r"moved|discontinued)|\bwe (?:are )?no longer (?:maintain|support|updat)\w*|"
    rf"\b{SUBJECT}\s+(?:has\s+)?moved\s+to\b|^\W*(?:deprecated|unmaintained)\b",
    re.I | re.M,
)
PRETRAINED_DOC = re.compile(r"\bpre-?trained\b", re.I)
INTRO_BLOCKS = 3
# Ties go to the more specific domain: a medical imaging CNN is medical before vision.
DOMAIN_PRIORITY = ("medical", "rl", "graph", "speech", "nlp", "recsys", "generative", "vision")


def _readme_blocks(ctx: AuditContext) -> list[Block]:
    readme = ctx.tree.readme
    return [b for b in ctx.docs.blocks if b.path == readme and b.kind != "code"]


def _educational(ctx: AuditContext, blocks: list[Block]) -> list[Evidence]:
    title = next((b for b in blocks if b.kind == "heading"), blocks[0] if blocks else None)
    name = ctx.tree.root.name.split("__", 1)[-1].replace("-", " ").replace("_", " ")
    if EDU_WORDS.search(name) or EDU_TITLE_ONLY.search(name):
        return [Evidence(ctx.tree.readme or ".", 0, name, "exclude.educational_name")]
    if title and (EDU_WORDS.search(title.text) or EDU_TITLE_ONLY.search(title.text)):
        return [Evidence(title.path, title.line, title.text[:200], "exclude.educational_title")]
    for block in blocks[:INTRO_BLOCKS]:
        m = EDU_WORDS.search(block.text)
        if m and block.kind in ("paragraph", "heading"):
            return [Evidence(block.path, block.line, block.text[:200], "exclude.educational_intro")]
    tops = {f.path.split("/", 1)[0] for f in ctx.tree.files if "/" in f.path}
    numbered = sorted(t for t in tops if EDU_FOLDER.match(t))
    if len(numbered) >= 3:
        return [Evidence(numbered[0], 0, ", ".join(numbered[:5]), "exclude.educational_folders")]
    return []


def _library(ctx: AuditContext, blocks: list[Block]) -> list[Evidence]:
    """A package installed from PyPI/conda under its own name and described as a library."""
    names = {ctx.tree.root.name.split("__", 1)[-1].lower()}
    for path in ("setup.py", "setup.cfg", "pyproject.toml"):
        text = ctx.tree.read_text(path) if path in ctx.tree.paths else None
        if text:
            names.update(
                m.lower() for m in re.findall(r"""\bname\s*[=:]\s*['"]?([\w.\-]+)""", text)
            )
    names = {n.replace("_", "-") for n in names}
    published: Evidence | None = None
    for block in ctx.docs.blocks:
        if block.path != ctx.tree.readme:
            continue
        for m in PIP_SELF.finditer(block.text):
            if m.group(1).lower().replace("_", "-") in names:
                line = block.line + block.text.count("\n", 0, m.start())
                published = Evidence(block.path, line, m.group(0), "exclude.library_install")
                break
        if published is None and PYPI_BADGE.search(block.text):
            published = Evidence(block.path, block.line, block.text[:200], "exclude.library_pypi")
        if published:
            break
    if published is None:
        return _self_described_library(ctx, blocks)
    for block in blocks[: INTRO_BLOCKS + 2]:
        if LIBRARY_WORDS.search(block.text):
            return [published, Evidence(block.path, block.line, block.text[:200],
                                        "exclude.library_description")]  # fmt: skip
    return []


def _self_described_library(ctx: AuditContext, blocks: list[Block]) -> list[Evidence]:
    """An installable or buildable project whose introduction calls it a library or toolkit."""
    if not any(path in ctx.tree.paths for path in BUILD_FILES):
        return []
    for block in blocks[:INTRO_BLOCKS]:
        if block.kind != "heading" and SELF_LIBRARY.search(block.text):
            return [Evidence(block.path, block.line, block.text[:200], "exclude.library_self")]
    return []


def _deprecated(blocks: list[Block]) -> list[Evidence]:
    for block in blocks:
        if DEPRECATED.search(block.text):
            return [Evidence(block.path, block.line, block.text[:200], "exclude.deprecated")]
    return []


def _is_dl(index: CodeIndex) -> list[Evidence]:
    # Tests and docs exercise or illustrate the project; they do not make it a DL project.
    for sf in sorted(index.own(), key=lambda f: -f.weight):
        if sf.read and not sf.support and uses_nn(sf):
            imp = next((i for i in sf.imports if module_framework(sf.lang, i.module)), None)
            if imp:
                line = index.where(sf.path, imp.text)[0] if sf.notebook else imp.line
                return [Evidence(sf.path, line, imp.text, "is_dl.framework_code")]
            return [Evidence(sf.path, 0, "neural-network API calls", "is_dl.framework_code")]
    for art in index.artifacts:
        if art.weight > 0 and art.kind in ("prototxt", "darknet_cfg") and art.layer_types:
            return [
                Evidence(art.path, 0, ", ".join(sorted(art.layer_types)[:5]), "is_dl.model_file")
            ]
    if index.framework_copies:
        return [Evidence(index.framework_copies[0] + "src/caffe/", 0, "Caffe fork", "is_dl.fork")]
    return []


def _loads_models(ctx: AuditContext, index: CodeIndex, blocks: list[Block]) -> list[Evidence]:
    for sf in sorted(index.own(), key=lambda f: -f.weight):
        hit = sf.hits.get("proj.load")
        if hit and uses_nn(sf):
            line, text, _ = index.where_code(sf.path, hit.samples)
            return [Evidence(sf.path, line, text, "exclude.pretrained_load")]
    for block in blocks:
        if PRETRAINED_DOC.search(block.text):
            return [Evidence(block.path, block.line, block.text[:200], "exclude.pretrained_docs")]
    return []


def _domain(ctx: AuditContext, index: CodeIndex, labels: Mapping[str, Label]) -> str:
    types = labels.get("network_types")
    network_types = (
        frozenset(types.value) if types and isinstance(types.value, frozenset) else frozenset()
    )
    votes = domain_scores(ctx, index, network_types)
    ranked = sorted(votes.items(), key=lambda kv: -kv[1])
    ctx.details["domain_votes"] = {k: round(v, 1) for k, v in ranked}
    if not ranked or ranked[0][1] < 1.0:
        return "other"
    best = max(votes.values())
    return next(d for d in DOMAIN_PRIORITY if votes.get(d) == best)


def classify_project(ctx: AuditContext, labels: Mapping[str, Label]) -> Iterable[Label]:
    """is_dl, exclude, domain, training_code and data_available, each with evidence."""
    index = code_index(ctx)
    blocks = _readme_blocks(ctx)
    dl = _is_dl(index)
    training = training_evidence(index, bool(dl))
    data = data_evidence(ctx, index)
    yield Label("is_dl", bool(dl), tuple(dl))
    yield Label("training_code", bool(training), tuple(training[:3]))
    yield Label("data_available", bool(data), tuple(data[:3]))
    yield Label("domain", _domain(ctx, index, labels))
    reasons: dict[str, list[Evidence]] = {
        "educational": _educational(ctx, blocks),
        "library": _library(ctx, blocks),
        "deprecated": _deprecated(blocks),
        "not_dl": []
        if dl
        else [
            Evidence(".", 0, "no neural-network code or model files", "exclude.not_dl")
        ],  # fmt: skip
    }
    if dl and not training:
        reasons["pretrained_only"] = _loads_models(ctx, index, blocks)
    found = {k: v for k, v in reasons.items() if v}
    ctx.details["exclude_reasons"] = sorted(found)
    yield Label("exclude", frozenset(found), tuple(e for v in found.values() for e in v))
