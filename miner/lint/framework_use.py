"""Which frameworks a project's own code needs, and where its code calls a versioned API.

A framework counts where a file the project runs or imports uses it at module level, outside
the optional parts (exporters, converters, tools, evaluation suites, demos) and unless a
dependency file names it only in a comment; an API call counts unless an option, a version
check or a method the user opts into guards it. Shared by the MNR2xx checks.
"""

from __future__ import annotations

import re
from typing import Any

from miner.audit.closure import local_imports
from miner.codebook import Evidence
from miner.lint.context import LintContext
from miner.lint.scope import enclosing_function, is_own, training_entry
from miner.lint.statements import COMPAT_V1, FRAMEWORK_PACKAGES, OTHER_FRAMEWORK_NAMES

DEFINITION = re.compile(r"\s*(?:async\s+)?def\s|\s*class\s")


# Where a second framework is an optional extra: exporters, converters, one dataset's
# preprocessing, tools, scripts and evaluation suites (`models/tf.py` for TF export,
# `tools/data_converter/`, an FID suite under `evaluations/`, a web demo under `gradio/`).
OPTIONAL_USE = re.compile(
    r"(?:^|/)(?:tools?|scripts?|converters?|data_converter|datasets?_preprocess\w*|"
    r"preprocess\w*|export\w*|eval|evaluate|evaluations?|metrics?|demos?|gradio|scratch\w*)/"
    r"|(?:^|/)(?:tf|onnx|tflite|export|convert|demo)[\w.-]*\.(?:py|ipynb)$"
    r"|(?:^|/)[\w.-]*(?:export|convert|preprocess)[\w.-]*\.(?:py|ipynb)$"
    # checkpoint converters: `llama_or_mistral_ckpt.py`, `orbax_to_hf.py`, `torch2jax.py`
    r"|(?:^|/)[\w.-]*_ch?kpt\.(?:py|ipynb)$|(?:^|/)[\w.-]*(?:_to_|2)(?:hf|huggingface|torch|"
    r"pytorch|pt|tf|tensorflow|jax|flax|keras|onnx|orbax|mlx|paddle|caffe|mxnet)(?:_[\w.-]*)?"
    r"\.(?:py|ipynb)$"
    # weights ported from another framework: `notebooks/port-jax-tf.ipynb`, `porting_weights.py`
    r"|(?:^|/)port(?:ing)?[-_][\w.-]*\.(?:py|ipynb)$",
    re.I,
)
# Folders of one framework's backend: a package that offers its models in several frameworks
# (`aim/v1/torch/`, `aim/v1/jax/`, `aim/v1/mlx/`) lets the user pick one.
BACKEND_FOLDERS = {
    "pytorch": ("torch", "pytorch", "pt"), "tensorflow": ("tf", "tensorflow", "tf2"),
    "keras": ("keras",), "jax": ("jax", "flax"), "mxnet": ("mxnet", "mx", "gluon"),
    "paddlepaddle": ("paddle",), "mlx": ("mlx",), "numpy": ("numpy",),
}  # fmt: skip
BACKEND_NAMES = frozenset(n for names in BACKEND_FOLDERS.values() for n in names)


def normal(name: str) -> str:
    return re.sub(r"[-_. ]+", "-", name.strip().lower())


def source(dep: dict[str, Any]) -> tuple[str, int]:
    """(path, line) a dependency was read from."""
    path, _, line = str(dep.get("source", "")).rpartition(":")
    return path, int(line) if line.isdigit() else 0


def dependencies(ctx: LintContext) -> list[dict[str, Any]]:
    """Every package the audit read from dependency files and docs."""
    return [d for d in ctx.audit.details.get("dependencies", []) if isinstance(d, dict)]


def framework_packages(framework: str) -> tuple[str, ...]:
    return FRAMEWORK_PACKAGES.get(framework, ())


def dep_name(dep: dict[str, Any]) -> str:
    return normal(str(dep.get("name", "")))


def framework_deps(ctx: LintContext, framework: str | None = None) -> list[dict[str, Any]]:
    """The dependencies naming `framework` (default: the primary framework)."""
    framework = framework or ctx.label("primary_framework") or ""
    names = framework_packages(framework)
    return [
        d for d in dependencies(ctx)
        if dep_name(d) in names or (names and dep_name(d).startswith(names[0] + "-cu"))
    ]  # fmt: skip


def frameworks_used(ctx: LintContext) -> list[str]:
    """The primary framework, then the others the project's own code needs: imported at module
    level in a file it runs or imports, outside exporters, converters, tools and evaluation
    suites (an exporter's `import onnx` inside a function, a bundled detector's import or a
    helper module nothing imports does not count)."""
    primary = ctx.label("primary_framework")
    ordered = [primary] if primary and primary != "none" else []
    if primary in FRAMEWORK_PACKAGES and required_site(ctx, primary) is None:
        if ctx.facts.framework_sites.get(primary) or _only_in_helpers(ctx, primary):
            ordered = []  # the primary framework only in helpers (a C++ project's scripts)
    if ordered and (commented_out(ctx, ordered[0]) or _backend_only(ctx, ordered[0])):
        ordered = []
    found = ctx.label("frameworks") or frozenset()
    training = training_closure(ctx)
    return ordered + sorted(
        f for f in ctx.facts.framework_sites
        if f in found and f not in ordered and required_site(ctx, f) is not None
        and not commented_out(ctx, f) and not _backend_only(ctx, f) and not _copied_only(ctx, f)
        and (not training or any(
            s.path in training and not OPTIONAL_USE.search(s.path)
            for s in ctx.facts.framework_sites[f]
        ))
    )  # fmt: skip


def _backend_only(ctx: LintContext, framework: str) -> bool:
    """True when every import of `framework` lies in a folder named for it beside a folder
    named for another framework: one backend of several, which the user chooses."""
    own = BACKEND_FOLDERS.get(framework, ())
    sites = ctx.facts.framework_sites.get(framework, [])
    if not own or not sites:
        return False
    parents = set()
    for site in sites:
        parts = site.path.split("/")[:-1]
        at = [i for i, part in enumerate(parts) if part.lower() in own]
        if not at:
            return False
        parents.add("/".join(parts[: at[-1]]))
    others = BACKEND_NAMES - set(own)
    folders = {
        "/".join(parts[:i]) for f in ctx.tree.files
        for parts in [f.path.split("/")] for i in range(1, len(parts))
    }  # fmt: skip
    return all(
        any(f"{parent}/{other}".lstrip("/") in folders for other in others) for parent in parents
    )


# A copyright notice in a file's header: "# Copyright 2024 Google LLC", "Copyright (c) 2019, X".
COPYRIGHT = re.compile(
    r"^\W*copyright\s+(?:\(c\)\s*|©\s*)?(?:\d{4}(?:\s*[-–]\s*\d{4})?[\s,]*)+(\w[^\n]*)", re.I | re.M
)
HEADER_LINES = 20


def _holder(ctx: LintContext, path: str) -> str | None:
    """The copyright holder a file's header names, if any ("Google LLC")."""
    lines = ctx.facts.code_lines.get(path) or (ctx.tree.read_text(path) or "").splitlines()
    found = COPYRIGHT.search("\n".join(lines[:HEADER_LINES]))
    return normal(found.group(1).rstrip(" .*")) if found else None


def _copied_only(ctx: LintContext, framework: str) -> bool:
    """True when every file that imports a second framework carries a copyright notice of a
    holder no file of the training code outside their folders names (TimesFM's JAX files,
    "Copyright 2024 Google LLC", copied in as a baseline): another project's code, which its
    framework serves."""
    sites = ctx.facts.framework_sites.get(framework, [])
    holders = {_holder(ctx, s.path) for s in sites}
    if not sites or None in holders:
        return False
    folders = {s.path.rpartition("/")[0] + "/" for s in sites}
    others = [p for p in training_closure(ctx) if not p.startswith(tuple(folders))]
    return bool(others) and not holders & {_holder(ctx, path) for path in others}


def training_closure(ctx: LintContext) -> frozenset[str]:
    """The files training runs: the scripts that lead to the training code (run directly, or
    importing it at any depth) and every local module they import (empty when the audit found
    no training code of the project's own). A second framework outside it serves a demo, an
    exporter or a copied example."""
    if "training_closure" not in ctx.cache:
        training = {e.path for e in training_entry(ctx.audit, ctx.own_code) if e.path}
        ctx.cache["training_closure"] = _runs(ctx, training) if training else frozenset()
    closure: frozenset[str] = ctx.cache["training_closure"]
    return closure


def _runs(ctx: LintContext, training: set[str]) -> frozenset[str]:
    graph = local_imports(ctx.tree.root, [p for p in ctx.own_code.lines if p.endswith(".py")])
    leads = set(training)  # files from which the training code is reached
    changed = True
    while changed:
        changed = False
        for path, edges in graph.items():
            if path not in leads and edges & leads:
                leads.add(path)
                changed = True
    reached, queue = set(leads), list(leads)
    while queue:
        for nxt in graph.get(queue.pop(), frozenset()) - reached:
            reached.add(nxt)
            queue.append(nxt)
    return frozenset(reached)


def required_site(ctx: LintContext, framework: str) -> Evidence | None:
    """The first module-level import of `framework` in a file of the project's own code that
    it runs or imports, outside the optional parts (`OPTIONAL_USE`)."""
    if "imported" not in ctx.cache:
        ctx.cache["imported"] = ctx.own_code.imported_names()
    code, imported = ctx.own_code, ctx.cache["imported"]
    for site in ctx.facts.framework_sites.get(framework, []):
        if not OPTIONAL_USE.search(site.path) and code.used(site.path, imported):
            return site
    return None


def _only_in_helpers(ctx: LintContext, framework: str) -> bool:
    """True when the audit found `framework` only in optional parts or code not the project's
    own (imports inside a helper script's functions), so no module-level import was seen."""
    label = ctx.audit.labels.get("primary_framework")
    paths = [e.path for e in label.evidence if e.path] if label else []
    return bool(paths) and all(
        OPTIONAL_USE.search(p) or not is_own(p, ctx.facts.bundled) for p in paths
    )


def commented_out(ctx: LintContext, framework: str) -> bool:
    """True when a dependency file names the framework in a comment (`# tensorflow>=2.4  #
    TF exports`, "# this doesn't include tensorflow: it depends on your platform"): the
    maintainers left it out on purpose."""
    files = ctx.package_files
    if any(source(d)[0] in files for d in framework_deps(ctx, framework)):
        return False  # listed as well: the comment is a heading, the listing counts
    names = framework_packages(framework) or OTHER_FRAMEWORK_NAMES.get(framework, ())
    pattern = re.compile(rf"^\s*#.*?\b(?:{'|'.join(map(re.escape, names))})\b", re.I | re.M)
    return bool(names) and any(pattern.search(ctx.tree.read_text(path) or "") for path in files)


def framework_site(ctx: LintContext, framework: str) -> tuple[Evidence, ...]:
    site = required_site(ctx, framework) or ctx.facts.frameworks.get(framework)
    if site is not None:
        return (site,)
    label = ctx.audit.labels.get("frameworks")
    if label is None:
        return ()
    words = {framework, *framework_packages(framework), *OTHER_FRAMEWORK_NAMES.get(framework, ())}
    for ev in label.evidence:
        if any(re.search(rf"\b{re.escape(w)}\b", ev.text, re.I) for w in words if w):
            return (ev,)
    return ()


GUARD = re.compile(
    r"^\s*(?:if|elif)\b.*(?:\bargs\b|\bcfg\b|\bconfig\b|\bopt\b|\boptions?\b|hasattr\(|"
    r"version|__version__|compile|is_available|\bself\.\w+)"
)


GUARD_REACH = 8  # lines above a call where the blocks around it may open


def _feature_tested(lines: list[str], call: str) -> bool:
    """True when the file asks whether the API exists before it settles how to run
    (`if hasattr(torch.nn.functional, 'scaled_dot_product_attention'): MODE = 'flash'`)."""
    names = re.findall(r"[A-Za-z_]\w*", call)
    if not names:
        return False
    asked = re.compile(rf"""hasattr\([^)]*['"]{re.escape(names[-1])}['"]""")
    return any("hasattr" in line and asked.search(line) for line in lines)


def _guarded(lines: list[str], number: int) -> bool:
    """True when the line runs only behind an option or a version check, or is tried with a
    fallback: an `if` on an option, `hasattr(torch, "compile")` or `torch.__version__`, or a
    `try:`, opening one of the blocks around it within a few lines above."""
    indent = len(lines[number - 1]) - len(lines[number - 1].lstrip())
    for previous in reversed(lines[max(0, number - 1 - GUARD_REACH) : number - 1]):
        if not previous.strip():
            continue
        depth = len(previous) - len(previous.lstrip())
        if depth >= indent:
            continue
        if GUARD.match(previous) or previous.strip() == "try:":
            return True
        if DEFINITION.match(previous):
            return False
        indent = depth  # the header of an enclosing block: look further out
    return False


# Hugging Face's attention classes per kernel (`Qwen2SdpaAttention`, `LlamaFlashAttention2`):
# transformers picks one only where the installed torch has the kernel, else the eager class.
DISPATCHED_CLASS = re.compile(r"^class\s+\w*(?:Sdpa|FlashAttention)\w*\s*[(:]")


def _dispatched(lines: list[str], number: int) -> bool:
    """True when the line is inside a class the library selects by the torch it finds."""
    for previous in reversed(lines[: number - 1]):
        if previous.startswith("class "):
            return bool(DISPATCHED_CLASS.match(previous))
    return False


def _docstring_lines(lines: list[str]) -> set[int]:
    """Line numbers inside triple-quoted strings (docstrings that name an API in prose)."""
    inside: set[int] = set()
    quote = ""
    for number, line in enumerate(lines, 1):
        rest = line
        if quote:
            inside.add(number)
        while True:
            if quote:
                end = rest.find(quote)
                if end < 0:
                    break
                rest, quote = rest[end + 3 :], ""
                continue
            starts = [(rest.find(q), q) for q in ('"""', "'''") if q in rest]
            if not starts:
                break
            start, quote = min(starts)
            inside.add(number)
            rest = rest[start + 3 :]
    return inside


OPT_IN = re.compile(r"compile|^(?:enable|maybe|try)_", re.I)


def _opt_in(lines: list[str], number: int) -> bool:
    """True when the call lies in a function that offers it as an option the user calls
    (a model's `compile()` that wraps `torch.compile`)."""
    name = enclosing_function(lines, number)
    return name is not None and bool(OPT_IN.search(name))


def api_site(ctx: LintContext, api: Any, folder: str) -> Evidence | None:
    """The first call of `api` in code that the dependency file in `folder` governs: a nested
    project with dependency files of its own (`sam-hq2/setup.py`) answers to those instead."""
    nested = {
        f.rpartition("/")[0] for f in ctx.package_files
        if f.rpartition("/")[0] and f.rpartition("/")[0] != folder
        and (not folder or f.startswith(folder + "/"))
    }  # fmt: skip
    for path, lines in ctx.facts.code_lines.items():
        if folder and not path.startswith(folder + "/"):
            continue
        if any(path.startswith(n + "/") for n in nested):
            continue
        if api.until and any(COMPAT_V1.search(line) for line in lines):
            continue  # tf.compat.v1 keeps the removed names
        prose = _docstring_lines(lines) if path.endswith(".py") else set()
        for number, line in enumerate(lines, 1):
            code = line.split("#", 1)[0]
            if DEFINITION.match(code) or "compat.v1" in code or number in prose:
                continue
            found = api.pattern.search(code)
            if (
                found
                and not _feature_tested(lines, found.group(0))
                and not _guarded(lines, number)
                and not _opt_in(lines, number)
                and not _dispatched(lines, number)
            ):
                return Evidence(path, number, " ".join(line.split())[:160], "lint.api")
    return None
