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

from miner.audit.classify.data_docs import raw_lines
from miner.audit.classify.data_sources import data_evidence
from miner.audit.classify.external_trainer import external_trainer
from miner.audit.classify.library import library_evidence
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

# A post or a video that teaches, not post-processing or a video model.
POST = r"posts?(?![-\w]|\s+(?:training|processing|hoc|editing)\b)"
VIDEO = (
    r"(?:youtube\s+)?videos?\s+(?:series|tutorials?|lectures?|course)|youtube\s+(?:videos?|series)"
)
EDU_WORDS = re.compile(
    r"\b(?:tutorials?|(?<!of )courses?|lectures?|class notes|study notes|exercises|assignments?|"
    r"homework|lessons?|cheat ?sheets?|awesome|reading list|paper list|"
    r"companion (?:code|repository|notebooks?)|(?:code|notebooks?) (?:for|of|to) (?:the |our |my )?"
    # a collection of implementations or notes, not of a benchmark's tasks or a dataset's items
    r"book|this book|collection of(?!\s+(?:[\d,.]+\s+)?(?:[\w-]+\s+){0,2}?(?:tasks|datasets?|"
    r"environments|benchmarks?|images|videos|hours|samples|scenes|games)\b)|"
    r"explanation videos?|video explanations?|explainer videos?|"
    r"learn(?:ing)? (?:deep learning|pytorch|tensorflow|keras|"
    r"machine learning)|(?:for|intended for|meant for) (?:educational|teaching|learning) "
    r"purposes|(?:primarily|mostly|mainly) (?:educational|for education)|implementations? of "
    r"(?:various|many|several|popular|classic|common|different) (?:[\w-]+ ){0,3}?(?:models|"
    r"algorithms|architectures|networks|papers)|"
    # Tutorial companions (codebook): "the code for my post on ...", "code accompanying my blog
    # post", "the code for the article on Medium", "a step-by-step walkthrough", "written for
    # teaching"; a paper's article in a journal is not one.
    # "This repo is intended to be educational", "implementations of 30 papers", "a hands-on
    # guide to fine-tuning": said of itself, a teaching project or a collection.
    r"(?:intended|meant|designed)\s+(?:to\s+be|as)\s+(?:an?\s+)?(?:educational|teaching|learning\s+"
    r"(?:resource|material|tool))|implementations?\s+of\s+(?:[5-9]|\d{2,})\+?\s+(?:[\w-]+\s+)"
    r"{0,2}?(?:papers|models|algorithms|"
    r"architectures|networks)|hands-on\s+(?:guide|introduction|course|tutorial)s?|"
    r"(?:code|repo|repository|notebooks?)\s+(?:for|of|to|accompanying|that accompanies|to "
    r"accompany)\s+(?:(?:my|our|the|this|a)\s+(?:[\w'-]+\s+){0,3}?(?:blog\s*posts?|"
    rf"{POST}|{VIDEO}|write-?up|screencast)|my\s+(?:[\w'-]+\s+){{0,3}}?articles?|(?:the|a|this)\s+"
    r"(?:blog|medium)\s+articles?|(?:the|an?|this)\s+articles?\s+on\s+medium)|"
    r"\baccompan(?:ies|ying)\s+(?:my|our|the|this|a)\s+(?:[\w'-]+\s+){0,3}?(?:blog\s*posts?|"
    rf"{POST}|{VIDEO})|step[- ]by[- ]step\s+(?:walk-?through|guide)|"
    r"(?:written|made|designed)\s+for\s+teaching)\b",
    re.I,
)
# Tutorial companions said in Japanese, Chinese or Korean: a blog or article and the code
# written for it ("[この記事](...)で実装したコードです", "博客中的代码实现",
# "블로그 포스팅의 코드").
# A paper is not one (论文, 論文, 本文; 文章 is left out: it names papers as often as posts).
CJK_POST = r"(?:記事|ブログ|博客|博文|专栏|專欄|블로그|포스팅|포스트)"
CJK_CODE = r"(?:実装|コード|代码|代碼|实现|實現|源码|源碼|코드|구현)"
CJK_COMPANION = re.compile(rf"{CJK_POST}[^。.!\n]{{0,30}}?{CJK_CODE}|{CJK_CODE}[^。.!\n]{{0,20}}?"
                           rf"{CJK_POST}")  # fmt: skip
# Words that make a title a tutorial's: "Examples", "X Cookbook", "The Official Guide to X"
# (a "handbook" of training recipes is a project's, not a guide's).
EDU_TITLE_ONLY = re.compile(
    r"\b(?:examples|samples|demos|notebooks|zoo|workshop|book|cookbook|"
    r"(?:a|the|official|complete|practical|beginner'?s'?)\s+guide\s+(?:to|for|on))\b",
    re.I,
)
EDU_FOLDER = re.compile(
    r"^(?:chapter|chap|ch|lesson|lecture|week|day|lab|assignment|exercise|hw|tutorial|part|"
    r"module|unit|session)[ _\-]?\d+",
    re.I,
)
SUBJECT = (
    r"(?:this|the|our)\s+(?:repo|repository|project|code|codebase|implementation|library|package)"
)
# What a README deprecates when it is not the project ("## Deprecated options").
OPTIONS = (
    r"(?:options?|arguments?|flags?|functions?|features?|apis?|methods?|parameters?|settings?|"
    r"models?|scripts?|commands?|configs?)\b"
)
DEPRECATED = re.compile(
    rf"\b{SUBJECT}\b[^.]{{0,60}}?\b(?:is|has been|was)\s+(?:now\s+)?(?:deprecated|no longer "
    r"(?:being )?(?:actively )?(?:maintained|supported|developed|updated)|not (?:being )?"
    r"(?:actively )?(?:maintained|supported|developed|updated)(?: any ?more)?\b|unmaintained|"
    r"archived(?!\s+(?:in|at|on|under)\s+(?:the\s+|a\s+)?(?:branch|tag))|obsolete|outdated|"
    r"(?:quite |very |rather )?old\b(?![-\w])|"
    r"superseded|moved|discontinued)|\bwe (?:are )?no longer (?:maintain|support|updat)\w*|"
    rf"\b{SUBJECT}\s+(?:has\s+)?moved\s+to\b|^\W*(?:deprecated|unmaintained)\b(?!\s+{OPTIONS})|"
    r"\b(?:has been|is now|was)\s+superseded by\b|\bsemi-archived\b|"
    r"\b(?:development|we|it)\s+(?:has|have)\s+(?:now\s+)?moved\s+to\b|"
    # "## Consider using llama.cpp instead", "The changes have since been upstreamed in X": the
    # readers are sent to the project that took the work over.
    r"^\W*(?:please\s+)?consider\s+using\s+(?:[^.\n]|\.(?=\w)){1,60}?\binstead\b|"
    r"\b(?:have|has)\s+(?:since\s+|now\s+)?been\s+upstreamed\b|"
    # The other ways a README says its project is over: "is no longer under active
    # development", "will not be updated anymore", "has reached end of life", "I am no longer
    # maintaining this repository", "our new repository, which supersedes this one".
    rf"\b{SUBJECT}\b[^.]{{0,60}}?\b(?:is|are)\s+no\s+longer\s+(?:under|in)\s+(?:active\s+)?"
    r"development\b|"
    rf"\b{SUBJECT}\b[^.]{{0,60}}?\bwill\s+(?:no\s+longer|not)\s+(?:be\s+)?(?:updated|"
    r"maintained|supported)(?:(?!\s+(?:until|unless|before|after|when|if)\b)|(?=\s+any\s*more))|"
    rf"\b{SUBJECT}\b[^.]{{0,40}}?\bha(?:s|ve)\s+reached\s+(?:its\s+)?end[- ]of[- ]life\b|"
    r"\b(?:i|we)\s+(?:am|are)\s+(?:no\s+longer|not)\s+(?:actively\s+)?maintaining\s+"
    rf"{SUBJECT}\b|"
    r"\bsupersedes\s+this\s+(?:one|repo|repository|project|code(?:base)?)\b|"
    # "This package has stopped updating, please see our new repository"
    rf"\b{SUBJECT}\b[^.]{{0,40}}?\b(?:has|have)\s+(?:now\s+)?stopped\s+(?:updating|being\s+"
    r"(?:updated|maintained|developed)|development|maintenance)\b|"
    r"\b(?:i|we)\s+(?:have\s+)?stopped\s+(?:updating|maintaining|developing)\s+"
    rf"{SUBJECT}\b|"
    # "`keras-team/keras-core` is no longer in use": the repository named by its address
    rf"(?:\b{SUBJECT}\b|(?<![\w/.-])[\w.-]+/[\w.-]+(?![\w/]))[^.\n]{{0,60}}?\bis\s+no\s+longer\s+"
    r"(?:in\s+use|used)\b",
    re.I | re.M,
)
# A banner at the top of the README says it without naming the repository ("No longer
# maintained. Please use X.", "Deprecated: see the new repository").
DEPRECATED_BANNER = re.compile(
    r"^\W*(?:note\W+|important\W+|warning\W+)?(?:deprecated|archived|no longer (?:actively )?"
    r"(?:maintained|supported|updated)|not maintained|superseded by)\b|"
    # "Status: Archive (code is provided as-is, no updates expected)"
    r"^\W*(?:project\s+)?status\W+(?:archived?|deprecated|unmaintained|inactive|frozen|"
    r"end[- ]of[- ]life)\b|\bno (?:further )?updates (?:are )?expected\b|"
    # "The complete code and scripts of Timer have been included in [Large-Time-Series-Model]"
    r"^\W*(?::[\w+\-]+:\s*)*(?:the\s+)?(?:complete\s+|full\s+)?code(?:base|s)?\b[^.\n]{0,60}?\b(?:has|have)\s+"
    r"(?:now\s+)?been\s+(?:included|moved|migrated)\s+(?:in|into|to)\b",
    re.I | re.M,
)
# A root document named for the state: `CONTRIBUTING-ARCHIVED.md`, `DEPRECATED.md`.
STATE_DOC = re.compile(r"^[^/]*(?:archived|deprecated)[^/]*$", re.I)
STATE_WORDS = re.compile(
    r"\b(?:archived|deprecated|no longer (?:actively )?(?:maintained|supported))\b", re.I
)
# A pointer to a tutorial of the README's own ("as per the tutorial below", "see the tutorial
# section"): the project's documentation, not a tutorial's companion.
OWN_TUTORIAL = re.compile(
    r"\b(?:the|our|this)\s+(?:[\w-]+\s+)?tutorials?\s+(?:below|above|section)\b|"
    r"\btutorials?\s+section\b",
    re.I,
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
        m = EDU_WORDS.search(OWN_TUTORIAL.sub(" ", block.text))
        if m and block.kind in ("paragraph", "heading") and not _links_to_its_tutorials(ctx, block):
            return [Evidence(block.path, block.line, block.text[:200], "exclude.educational_intro")]
        if block.kind == "paragraph" and CJK_COMPANION.search(block.text):
            return [Evidence(block.path, block.line, block.text[:200], "exclude.educational_intro")]
    tops = {f.path.split("/", 1)[0] for f in ctx.tree.files if "/" in f.path}
    numbered = sorted(t for t in tops if EDU_FOLDER.match(t))
    if len(numbered) >= 3:
        return [Evidence(numbered[0], 0, ", ".join(numbered[:5]), "exclude.educational_folders")]
    return []


# A Markdown link or image with its text (`[[Tutorial (CN)]](url)`, `[**Tutorials**](url)`).
MARKDOWN_LINK = re.compile(r"!?\[(?:[^\[\]]|\[[^\]]*\])*\]\([^)\s]*(?:\s+\"[^\"]*\")?\)")
# A label over a list of links (`**Tutorial:** [v1.6](...), [v1.5](...)`), once the links are gone.
LINK_LIST_LABEL = re.compile(
    r"\**\b(?:tutorials?|docs|documentation)\b\**\s*:\**(?=[\s,;|*]*$)", re.I
)


def _links_to_its_tutorials(ctx: AuditContext, block: Block) -> bool:
    """True when the intro's teaching words are only the links a project gives to tutorials of
    its own use (`[Documentation](...) | [Tutorials](...)`, "our subsequent works [Tutorial
    (CN)](...)"): documentation of the project, not a project that is a tutorial's companion."""
    raw = raw_lines((ctx.tree.read_text(block.path) or "").splitlines(), block)
    if "](" not in raw:
        return False
    rest = LINK_LIST_LABEL.sub(" ", MARKDOWN_LINK.sub(" ", raw))
    return EDU_WORDS.search(rest) is None


# A heading that is the project's state, wherever it stands ("## No Longer Maintained"); a
# heading "Deprecated" over a list of deprecated options is none.
STATE_HEADING = re.compile(
    r"^\W*(?:(?:this\s+)?(?:project|repo(?:sitory)?)\s+(?:is\s+)?)?(?:no\s+longer\s+(?:actively\s+)?"
    r"(?:maintained|supported)|not\s+(?:actively\s+)?maintained|unmaintained|archived)\W*$",
    re.I,
)
# The state said of the project by its own name ("AutoAWQ is officially deprecated and will no
# longer be maintained").
NAMED_STATE = (
    r"[^.\n]{0,40}?\b(?:is|has\s+been)\s+(?:now\s+|officially\s+)*(?:deprecated|"
    r"no\s+longer\s+(?:actively\s+)?(?:maintained|supported)|unmaintained|discontinued)\b"
)
# A state that keeps the project maintained (repostatus.org's "Inactive: ... no longer being
# actively developed; support/maintenance will be provided as time allows") is no deprecation.
STILL_MAINTAINED = re.compile(
    r"\b(?:support|maintenance)\b[^.]{0,40}?\bwill\s+be\s+provided\b|\bstill\s+(?:be\s+)?"
    r"maintained\b",
    re.I,
)


def _deprecated(ctx: AuditContext, blocks: list[Block]) -> list[Evidence]:
    name = ctx.tree.root.name.split("__", 1)[-1]
    named = re.compile(rf"(?<![\w/.-]){re.escape(name)}(?![\w/-]){NAMED_STATE}", re.I)
    for n, block in enumerate(blocks):
        if STILL_MAINTAINED.search(block.text):
            continue
        if (
            DEPRECATED.search(block.text)
            or (n < INTRO_BLOCKS and DEPRECATED_BANNER.search(block.text))
            or (block.kind == "heading" and STATE_HEADING.search(block.text))
            or (len(name) > 2 and named.search(block.text))
        ):
            return [Evidence(block.path, block.line, block.text[:200], "exclude.deprecated")]
    for block in ctx.docs.blocks:
        if STATE_DOC.match(block.path) and STATE_WORDS.search(block.text):
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


def _loads_models(
    ctx: AuditContext, index: CodeIndex, blocks: list[Block], library: bool = False
) -> list[Evidence]:
    for sf in sorted(index.own(), key=lambda f: -f.weight):
        hit = sf.hits.get("proj.load")
        if hit and uses_nn(sf):
            line, text, _ = index.where_code(sf.path, hit.samples)
            return [Evidence(sf.path, line, text, "exclude.pretrained_load")]
    for block in blocks:
        if PRETRAINED_DOC.search(block.text):
            return [Evidence(block.path, block.line, block.text[:200], "exclude.pretrained_docs")]
    # A project that runs networks and trains none runs weights made elsewhere, however it
    # reads them (its own unpickling of sharded checkpoints, a runtime's model files). A
    # library's networks are its users' to train (a simulator, a kernel library): it is
    # pretrained-only when it loads or documents weights, as above.
    if library:
        return []
    for sf in sorted(index.own(), key=lambda f: -f.weight):
        if sf.read and not sf.support and uses_nn(sf):
            return [Evidence(sf.path, 0, "runs networks, trains none", "exclude.pretrained_runs")]
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
    if dl and not training:
        training = external_trainer(ctx)
    data = data_evidence(ctx, index, trains=bool(training) or not dl,
                         training_files=frozenset(e.path for e in training))  # fmt: skip
    yield Label("is_dl", bool(dl), tuple(dl))
    yield Label("training_code", bool(training), tuple(training[:3]))
    yield Label("data_available", bool(data), tuple(data[:3]))
    yield Label("domain", _domain(ctx, index, labels))
    reasons: dict[str, list[Evidence]] = {
        "educational": _educational(ctx, blocks),
        "library": library_evidence(ctx, blocks, bool(training)),
        "deprecated": _deprecated(ctx, blocks),
        "not_dl": []
        if dl
        else [
            Evidence(".", 0, "no neural-network code or model files", "exclude.not_dl")
        ],  # fmt: skip
    }
    if dl and not training:
        reasons["pretrained_only"] = _loads_models(ctx, index, blocks, bool(reasons["library"]))
    found = {k: v for k, v in reasons.items() if v}
    ctx.details["exclude_reasons"] = sorted(found)
    yield Label("exclude", frozenset(found), tuple(e for v in found.values() for e in v))
