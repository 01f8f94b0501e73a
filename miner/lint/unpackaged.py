"""MNR207: a framework pip cannot install (Caffe, Lua Torch, Darknet) needs the docs to say
which build: a version, a commit, a bundled copy or a pinned git submodule."""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from miner.codebook import Evidence
from miner.lint.context import Finding, LintContext
from miner.lint.framework_use import (
    dep_name,
    dependencies,
    framework_site,
    frameworks_used,
    normal,
    source,
)
from miner.lint.statements import FRAMEWORK_PACKAGES, FRAMEWORK_TITLES, OTHER_FRAMEWORK_NAMES

# Files of a bundled framework copy: its version is the copy's, nothing to state.
BUNDLED_FRAMEWORK = {
    "caffe": re.compile(r"(^|/)src/caffe/net\.cpp$"),
    "darknet": re.compile(r"(^|/)(?:src/darknet\.c|include/darknet\.h)$"),
}


SUBMODULE_PATH = re.compile(r"(?m)^\s*path\s*=\s*(\S+)")
UNRELEASED = frozenset({"torch7", "darknet"})
# Frameworks another framework's wheels carry: Caffe2 ships inside PyTorch's since 1.0, so a
# stated torch release states the Caffe2 build.
CARRIED_BY = {"caffe2": ("torch", "pytorch", "torch-nightly")}
# Frameworks with a pip package of their own: not MNR207's (a framework pip cannot install),
# and ONNX is an exchange format whose runtime serves exporters and inference.
PIP_PACKAGED = frozenset({"onnx", "cntk", "dynet"})
# How the docs name a framework pip cannot install, and a version or commit given for it.
DOC_NAMES = {
    "caffe": re.compile(r"(?i)\b(?:py|bvlc[/ -]?)?caffe(?!2)"),
    # in a project whose code is Lua, "[Torch](http://torch.ch)" and a capitalised "Torch" name
    # it too ("Torch implementation of ..."); "PyTorch" and `torch.nn` do not
    "torch7": re.compile(
        r"(?i:\btorch7\b|\blua[ -]?torch\b|\btorch \(lua\)|\btorch\.ch\b)"
        r"|(?<![\w.-])Torch\b(?![\w-]|\.\w)"
    ),
    "darknet": re.compile(r"(?i)\bdarknet\b"),
}
TO_INSTALL = re.compile(
    r"(?i)\b(?:install|build|compil|download|clone|compatib|requir|need|depend|make\b|"
    r"use[sd]?\b|based on|modified|fork)"
)
BUILD_VERSION = re.compile(
    r"(?i)@[0-9a-f]{7,40}\b|\bcommit\s+`?[0-9a-f]{7,40}\b|\brelease\s+v?\d|"
    r"\b(?:rc|v)\d+(?:\.\d+)+\b"
)


# Short names the docs use beside a version ("TF 1.0.1(native pip install)").
ABBREVIATIONS = {"tensorflow": ("TF",)}


def _doc_name(framework: str) -> re.Pattern[str]:
    """How the docs name `framework`: its own pattern, else its title or package names."""
    if framework in DOC_NAMES:
        return DOC_NAMES[framework]
    bare = framework.removeprefix("other:")
    words = {FRAMEWORK_TITLES.get(framework, bare), *FRAMEWORK_PACKAGES.get(framework, ()),
             *ABBREVIATIONS.get(framework, ())}  # fmt: skip
    names = "|".join(sorted(map(re.escape, words), key=len, reverse=True))
    return re.compile(rf"(?i)(?<![\w/-])(?:{names})(?![\w-])")


def framework_named(
    ctx: LintContext, framework: str, *, anyhow: bool = False
) -> tuple[Evidence, bool] | None:
    """The first docs line that names `framework` as something to install, build or be
    compatible with ("Download our modified caffe", "compatible with `BVLC/caffe:master`"), and
    whether it (or the two lines after it) gives a version or commit (`master@8c66fa5`).
    With `anyhow`, the first line that names it at all ("implemented by [Caffe](...)")."""
    name = DOC_NAMES.get(framework)
    if name is None:
        return None
    for doc in ctx.docs:
        lines = (ctx.tree.read_text(doc) or "").splitlines()
        for number, line in enumerate(lines, 1):
            found = name.search(line)
            if not found or not (anyhow or TO_INSTALL.search(line)):
                continue
            window = " ".join(lines[number - 1 : number + 2])
            near = re.search(r"\d+\.\d+", line[found.end() : found.end() + 20])
            versioned = bool(BUILD_VERSION.search(window) or near)
            return Evidence(doc, number, " ".join(line.split())[:160], "lint.stated"), versioned
    return None


# A version or commit written right after a framework's name: "MXNet @92053bd" (a link to
# that tree), "PyTorch(0.4.1)", "TensorFlow r1.4", "Chainer v1.5", "[MatConvNet](url) (we used
# `v1.0-beta20`)".
VERSION_AFTER_NAME = re.compile(
    r"^[^\w\n]{0,4}(?:@\s*[0-9a-f]{7,40}\b|\(?\s*[rv]?\d+\.\d+|\s*(?:version|release)\s+v?\d"
    r"|\(\s*(?:we\s+used|tested\s+(?:with|on)|version)\s*:?\s*`?[rv]?\d+\.\d+)",
    re.I,
)
LINK_TARGET = re.compile(r"^\]\([^)\s]*\)")  # the rest of a Markdown link the name is the text of


def framework_versioned(
    ctx: LintContext, framework: str, *, exact: bool = False
) -> Evidence | None:
    """The first docs line that names `framework` with a version or commit right after it
    ("DPNs are implemented by [MXNet @92053bd](...)"): a statement of the build it needs.
    With `exact`, a lower bound ("PyTorch >= 1.3", "Chainer 1.21+", "1.0 or later") is none."""
    name = _doc_name(framework)
    for doc in ctx.docs:
        text = ctx.tree.read_text(doc) or ""
        for number, line in enumerate(text.splitlines(), 1):
            for found in name.finditer(line):
                after = line[found.end() :]
                after = after[len(m.group(0)) :] if (m := LINK_TARGET.match(after)) else after
                version = VERSION_AFTER_NAME.search(after[:40])
                if version and exact and _lower_bound(after, version.end()):
                    continue
                if version:
                    return Evidence(doc, number, " ".join(line.split())[:160], "lint.stated")
    return None


OPEN_END = re.compile(r"^[\d.]*(?:\+|\s*(?:or|and)\s+(?:later|higher|newer|above|greater))", re.I)


def _lower_bound(after: str, end: int) -> bool:
    """True when the version that ends at `end` of `after` is a lower bound: `>`/`≥` before
    it, or `+`, "or later" after it."""
    return bool(re.search(r"[>≥]|\b(?:above|over|at least)\b", after[:end], re.I)) or bool(
        OPEN_END.match(after[end:])
    )


def _mentioned(ctx: LintContext, framework: str) -> tuple[Evidence, bool] | None:
    """The first docs line that names a framework lint has no doc pattern for (Caffe2,
    TensorFlow.js, `other:` ones) by its title or package name: the message then says that
    its version is missing, not that nothing names it; and whether a docs line gives the
    version right after the name ("[MatConvNet](...) (we used `v1.0-beta20`)")."""
    if framework in DOC_NAMES:
        return None
    name = _doc_name(framework)
    for doc in ctx.docs:
        for number, line in enumerate((ctx.tree.read_text(doc) or "").splitlines(), 1):
            if name.search(line):
                versioned = framework_versioned(ctx, framework) is not None
                return Evidence(doc, number, " ".join(line.split())[:160], "lint.stated"), versioned
    return None


def submodule_of(ctx: LintContext, framework: str) -> bool:
    """True when `.gitmodules` pins a copy of `framework` (`caffe-fast-rcnn`, a Caffe fork)."""
    text = (ctx.tree.read_text(".gitmodules") or "").lower()
    bare = framework.removeprefix("other:")
    return any(
        bare in line for line in text.splitlines() if line.strip().startswith(("path", "url"))
    )


def _built_in_submodule(ctx: LintContext, named: Evidence) -> bool:
    """True when the docs build the framework inside a git submodule's folder (`git clone
    --recursive`, then `cd $ROOT/PSPNet && make`, PSPNet being a pinned Caffe fork): the
    checkout pins the build's commit, whatever the submodule is called."""
    text = ctx.tree.read_text(".gitmodules") or ""
    folders = [m.group(1).strip().rstrip("/") for m in SUBMODULE_PATH.finditer(text)]
    if not folders:
        return False
    lines = (ctx.tree.read_text(named.path) or "").splitlines()
    window = "\n".join(lines[max(0, named.line - 4) : named.line + 6])
    return any(
        re.search(rf"(?<![\w-]){re.escape(PurePosixPath(folder).name)}(?![\w-])", window)
        for folder in folders
    )


def framework_unknown(ctx: LintContext) -> list[Finding]:
    """Frameworks without a pip package lint knows: the docs must still say which build."""
    findings = []
    for framework in frameworks_used(ctx):
        if framework in FRAMEWORK_PACKAGES or framework in PIP_PACKAGED:
            continue
        bundled = BUNDLED_FRAMEWORK.get(framework)
        if bundled and any(bundled.search(p) for p in ctx.tree.paths):
            continue  # a bundled copy: the checkout carries its version
        if submodule_of(ctx, framework):
            continue  # a git submodule: the checkout pins the framework's commit
        bare = framework.removeprefix("other:")
        names = OTHER_FRAMEWORK_NAMES.get(framework, (normal(bare),))
        title = FRAMEWORK_TITLES.get(framework, bare)
        stated = [d for d in dependencies(ctx) if dep_name(d) in names]
        if any(str(d.get("spec", "")).strip() for d in stated):
            continue
        carriers = CARRIED_BY.get(framework, ())
        if any(dep_name(d) in carriers and str(d.get("spec", "")).strip()
               for d in dependencies(ctx)):  # fmt: skip
            continue  # `torch==1.3.1`: the build of Caffe2 its wheel carries
        named = (
            framework_named(ctx, framework)
            or framework_named(ctx, framework, anyhow=True)
            or _mentioned(ctx, framework)
        )
        if named and named[1]:
            continue  # "compatible with BVLC/caffe:master ... since master@8c66fa5"
        if named and _built_in_submodule(ctx, named[0]):
            continue
        if stated:
            path, line = source(stated[0])
            # Lua Torch and Darknet never had releases: the commit built is what can be stated
            what = "a commit" if framework in UNRELEASED else "a version"
            message = f"{title} is named without {what}"
            evidence: tuple[Evidence, ...] = (
                Evidence(path, line, str(stated[0].get("name")), "dependency"),
            )
        elif named:
            path, line = named[0].path, named[0].line
            message = f"{title} is named without a version or commit"
            evidence = (*framework_site(ctx, framework), named[0])
        else:
            path, line = ctx.readme, 1
            message = f"the code uses {title}, but no dependency file or document names it"
            evidence = (*framework_site(ctx, framework), ctx.absent(f"no {title}"))
        findings.append(
            Finding(
                "MNR207",
                path,
                line or 1,
                message,
                f"state the {title} version (or commit) you built and how to install it",
                evidence,
            )
        )
    return findings
