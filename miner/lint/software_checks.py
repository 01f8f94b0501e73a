"""The MNR2xx checks: what a project states about the software it needs.

Every statement comes from the audit (`details["dependencies"]`, `details["python_versions"]`,
`details["dependency_files"]`): lint judges what the audit read, it does not read it again.
"""

from __future__ import annotations

import re
from typing import Any

from miner.audit.files import is_vendored
from miner.audit.ownership import LICENCES, foreign_trees
from miner.codebook import Evidence
from miner.lint.context import Finding, LintContext
from miner.lint.framework_use import (
    api_site,
    dependencies,
    framework_deps,
    framework_packages,
    framework_site,
    frameworks_used,
    normal,
    required_site,
    source,
)
from miner.lint.python_checks import python_unstated
from miner.lint.scope import BUNDLED
from miner.lint.statements import (
    API_VERSIONS,
    FRAMEWORK_TITLES,
    PACKAGE_FAMILY,
    admits_without,
    contradicts,
    python_version_stated,
    specifier,
)
from miner.lint.unpackaged import (
    framework_named,
    framework_unknown,
    framework_versioned,
    submodule_of,
)

# Package metadata (`install_requires`, `[project] dependencies`): a lower bound there is the
# convention for anything installed beside other packages, not a missing pin.
PACKAGE_METADATA = re.compile(r"(^|/)(?:setup\.py|setup\.cfg|pyproject\.toml)$")


def _install_requires(ctx: LintContext, path: str) -> bool:
    """True when a `setup.py` beside `path` reads it into `install_requires`: the requirements
    file is the package's metadata."""
    folder, _, name = path.rpartition("/")
    setup = ctx.tree.read_text(f"{folder}/setup.py" if folder else "setup.py") or ""
    return "install_requires" in setup and name in setup


MAX_OTHER_PAGES = 40

ENV_FOLDERS = frozenset({"requirements", "requirement", "envs", "env", "environment", "conda"})


EXTENSION_BUILD = re.compile(r"\bext_modules\s*=|\b(?:CUDA|Cpp)Extension\(|\bPybind11Extension\(")


def _extension_build(ctx: LintContext, path: str) -> bool:
    """True for a nested `setup.py` that builds a compiled extension."""
    if "/" not in path or not path.endswith("setup.py"):
        return False
    return bool(EXTENSION_BUILD.search(ctx.tree.read_text(path) or ""))


def _governing(files: list[str], site: Evidence | None) -> list[str]:
    """The dependency files that speak for the code at `site`: those in one of its folders
    (a `requirements/` or `envs/` folder speaks for its parent)."""
    if site is None:
        return files
    chosen = []
    for path in files:
        parts = path.split("/")[:-1]
        if parts and parts[-1].lower() in ENV_FOLDERS:
            parts = parts[:-1]
        folder = "/".join(parts)
        if not folder or site.path.startswith(folder + "/"):
            chosen.append(path)
    return chosen


CONSTRAINTS_FILE = re.compile(r"(^|/)constraints?[\w.-]*\.txt$", re.I)
PINNED_LINE = re.compile(r"^\s*([A-Za-z0-9][\w.\-\[\],]*?)\s*===?\s*\d", re.M)


# Lock files an installer reads (`uv sync`, `poetry install`, `pdm install`): each package with
# its exact version, `name = "torch"` then `version = "2.9.1"`.
LOCK_FILE = re.compile(r"(^|/)(?:uv|poetry|pdm)\.lock$")
LOCKED_PACKAGE = re.compile(r'^name\s*=\s*"([^"]+)"\s*\n\s*version\s*=\s*"[^"]+"', re.M)


def _constrained(ctx: LintContext, names: tuple[str, ...]) -> Evidence | None:
    """A pin of one of `names` in a pip constraints file (`constraints_gpu.txt`, read with
    `pip install -c`) or a lock file: the installed version is fixed there, whatever range the
    requirements give."""
    for f in ctx.tree.files:
        if f.depth > 1 or not LOCK_FILE.search(f.path):
            continue
        text = ctx.tree.read_text(f.path) or ""
        for m in LOCKED_PACKAGE.finditer(text):
            if normal(m.group(1)) in names:
                line = text.count("\n", 0, m.start()) + 1
                return Evidence(f.path, line, m.group(0).replace("\n", " ")[:120], "lint.stated")
    for f in ctx.tree.files:
        if f.depth > 2 or not CONSTRAINTS_FILE.search(f.path):
            continue
        text = ctx.tree.read_text(f.path) or ""
        for m in PINNED_LINE.finditer(text):
            if normal(m.group(1).split("[")[0]) in names:
                line = text.count("\n", 0, m.start()) + 1
                return Evidence(f.path, line, m.group(0).strip(), "lint.stated")
    return None


def _pins(spec: str) -> bool | None:
    """True for a pin or a bounded range, False for a lower bound only, None for no version."""
    parsed = specifier(spec)
    if parsed is None:
        return True if spec.strip() else None  # a syntax lint cannot read: not called unpinned
    operators = {s.operator for s in parsed}  # type: ignore[attr-defined]
    return not operators <= {">=", ">", "!="}


def _requirements_unstated(ctx: LintContext) -> list[Finding]:
    if ctx.label("software_req") is not False:
        return []
    if any(framework_named(ctx, f) for f in frameworks_used(ctx)):
        return []  # the docs name the framework to build (Caffe): MNR207 asks for its version
    if any(framework_versioned(ctx, f) for f in sorted(ctx.label("frameworks") or ())):
        return []  # "implemented by MXNet @92053bd": the docs state the build the code needs
    if _requirements_in_other_pages(ctx):
        return []  # a sub-project's README: "Networks are trained using PyTorch 1.4"
    framework = FRAMEWORK_TITLES.get(ctx.label("primary_framework") or "", "the framework")
    python = python_version_stated(ctx.tree, ctx.audit.details)
    only = f" (only the Python version, at {python.path}:{python.line})" if python else ""
    return [
        Finding(
            "MNR201",
            ctx.readme,
            1,
            f"no dependency file, and the docs name no package{only}",
            f"add a requirements.txt (or environment.yml) listing {framework} and the "
            "other packages with the versions you used",
            (ctx.absent("no dependency file and no package named"),),
        )
    ]


def _requirements_in_other_pages(ctx: LintContext) -> Evidence | None:
    """The first statement of required software in a Markdown page of the project the audit's
    reading leaves out (each experiment folder's README: "Networks are trained using PyTorch
    1.4", a Requirements list), read as the audit reads the README; with no version, MNR202
    speaks for it."""
    from miner.audit.classify.doc_requirements import doc_requirements
    from miner.audit.docs import parse_markdown

    for path in ctx.other_pages[:MAX_OTHER_PAGES]:
        text = ctx.tree.read_text(path) or ""
        for finding in doc_requirements(parse_markdown(path, text), frozenset()):
            if any(d.name.lower() != "python" for d in finding.deps):
                return finding.evidence
    return None


def _framework_unpinned(ctx: LintContext) -> list[Finding]:
    files = ctx.package_files
    if not files:
        return []  # nothing an installer reads: MNR201 speaks for an absence
    findings: list[Finding] = []
    for framework in frameworks_used(ctx):
        names = framework_packages(framework)
        if not names or (framework == "keras" and "tensorflow" in frameworks_used(ctx)):
            continue
        title = FRAMEWORK_TITLES.get(framework, framework)
        deps = framework_deps(ctx, framework)
        # a file the setup script reads (`requirements.txt`, nbdev's `settings.ini`) is listed
        listed = [d for d in deps if source(d)[0] in files or _install_requires(ctx, source(d)[0])]
        # a compiled extension's own `setup.py` (`ops/cpp/setup.py`) speaks for the extension's
        # build, not for the project, when another file lists the framework
        listed.sort(key=lambda d: _extension_build(ctx, source(d)[0]))
        fix = f"pin {names[0]} to the version you trained with, e.g. {names[0]}==<version>"
        if not listed:
            if any(_pins(str(d.get("spec", ""))) for d in deps) or _constrained(ctx, names):
                continue  # the docs or a lock file state the version ("tested with PyTorch 1.4")
            if submodule_of(ctx, framework):
                continue  # a fork pinned as a git submodule (`SNIPER-mxnet`), built from source
            if framework_versioned(ctx, framework, exact=True):
                continue  # the docs name it with its version ("Pytorch `1.13.1` ... are used")
            governing = _governing(files, required_site(ctx, framework))
            if not governing:
                continue  # a monorepo: no dependency file speaks for the code that imports it
            absent = Evidence("", 0, f"{', '.join(files[:6])}: no {names[0]}", "lint.absent")
            findings.append(
                Finding(
                    "MNR202",
                    governing[0],
                    1,
                    f"the code uses {title}, but no dependency file lists it",
                    f"add {names[0]}==<version> to {governing[0]}",
                    (*framework_site(ctx, framework), absent),
                )
            )
            continue
        if any(_pins(str(d.get("spec", ""))) for d in deps) or _constrained(ctx, names):
            continue  # pinned in a file or a constraints file, or stated in the docs
        if framework_versioned(ctx, framework, exact=True):
            continue  # "Chainer (v2.0) implementations": the docs name the version used
        dep = listed[0]
        path, line = source(dep)
        spec = str(dep.get("spec", "")).strip()
        if spec and (PACKAGE_METADATA.search(path) or _install_requires(ctx, path)):
            continue  # a package declares the range it works with; a pin there breaks installs
        if spec and open_range_site(ctx, dep) is not None:
            continue  # MNR206 says more: the range admits a release the code cannot run on
        what = (
            f"{dep.get('name')}{spec} sets only a lower bound"
            if spec
            else (f"{dep.get('name')} is listed without a version")
        )
        ev = Evidence(path, line, f"{dep.get('name')}{spec}", "dependency")
        findings.append(Finding("MNR202", path, line or 1, what, fix, (ev,)))
    return findings


def _family_deps(ctx: LintContext) -> list[tuple[str, dict[str, Any], Any]]:
    """(family, dependency, specifier) for each framework dependency lint knows releases of."""
    found = []
    for dep in dependencies(ctx):
        family = PACKAGE_FAMILY.get(str(dep.get("name", "")).lower())
        spec = specifier(str(dep.get("spec", "")))
        if family is not None and spec is not None:
            found.append((family, dep, spec))
    return found


def _framework_version_contradicted(ctx: LintContext) -> list[Finding]:
    files = set(ctx.package_files)
    for family, dep, spec in _family_deps(ctx):
        path, line = source(dep)
        if path not in files:
            continue  # "works with PyTorch 1.12" in prose is not an upper bound
        stated_ev = Evidence(path, line, f"{dep.get('name')}{dep.get('spec')}", "dependency")
        for api in API_VERSIONS:
            if api.family != family or not contradicts(family, spec, api):
                continue
            site = api_site(ctx, api, path.rpartition("/")[0])
            if site is None:
                continue
            need = f"{family}>={api.since}" if api.since else f"{family}<{api.until}"
            return [
                Finding(
                    "MNR203",
                    site.path,
                    site.line,
                    f"this line needs {need}, but {path}:{line} allows only "
                    f"{dep.get('name')}{dep.get('spec')}",
                    f"raise the version in {path} or replace the call",
                    (site, stated_ev),
                )
            ]
    return []


def _third_party(ctx: LintContext, path: str) -> bool:
    """True for a dependency file of another package copied in: under `dependencies/`,
    `third_party/` or `submodules/`, or in a folder with its own packaging under another name
    (`deps/AutoGPTQ/setup.py`); its ranges speak for that package's code only."""
    return bool(BUNDLED.search(path)) or any(
        path.startswith(folder + "/") for folder in foreign_trees(ctx.tree)
    )


def open_range_site(ctx: LintContext, dep: dict[str, Any]) -> tuple[Evidence, str, Any] | None:
    """A call the code makes that some release `dep`'s range admits lacks, with what it needs."""
    family = PACKAGE_FAMILY.get(str(dep.get("name", "")).lower())
    spec = specifier(str(dep.get("spec", "")))
    if family is None or spec is None:
        return None
    path, _ = source(dep)
    if _third_party(ctx, path):
        return None  # a copied project's own packaging speaks for its code, not this project's
    folder = path.rpartition("/")[0] if path in ctx.package_files else ""
    for api in API_VERSIONS:
        if api.family != family or contradicts(family, spec, api):
            continue
        lacking = admits_without(family, spec, api)
        if lacking is None:
            continue
        site = api_site(ctx, api, folder)
        if site is not None:
            return site, lacking, api
    return None


def _pinned_beside(deps: list[tuple[str, dict[str, Any], Any]], family: str, path: str) -> bool:
    """True when the page that states a range also pins the family exactly ("Tensorflow 1.13.0+"
    in a note, `pip install tensorflow==1.15.0` in the install steps): the pin is what it asks."""
    return any(
        f == family and source(d)[0] == path and str(d.get("spec", "")).startswith("==")
        for f, d, _ in deps
    )


def _range_too_open(ctx: LintContext) -> list[Finding]:
    deps = _family_deps(ctx)
    for family, dep, _ in deps:
        path = source(dep)[0]
        if path not in ctx.package_files and _pinned_beside(deps, family, path):
            continue
        found = open_range_site(ctx, dep)
        if found is None:
            continue
        site, lacking, api = found
        path, line = source(dep)
        stated = f"{dep.get('name')}{dep.get('spec')}"
        if api.until:
            fix = f"bound the range, e.g. {stated},<{api.until}, or port the call"
        else:
            fix = f"raise the lower bound to {api.since} ({dep.get('name')}>={api.since})"
        return [
            Finding(
                "MNR206",
                path,
                line or 1,
                f"{stated} admits {lacking}, which lacks an API the code calls "
                f"({site.path}:{site.line})",
                fix,
                (Evidence(path, line, stated, "dependency"), site),
            )
        ]
    return []


REQUIREMENT_OPTION = re.compile(r"^\s*(?:-|#|$)|://|^\s*(?:\.|/|~|git\+)")
# A relative path to a local project (`compression/dependencies/AutoGPTQ`): pip installs it.
LOCAL_FOLDER = re.compile(r"^\s*[\w.\-]+(?:/[\w.\-]+)+/?\s*$")
PIP_LIST_RULE = re.compile(r"^\s*-{3,}\s+-{3,}")


def _unreadable_lines(text: str) -> list[tuple[int, str]]:
    """Lines of a requirements file `pip install -r` cannot read as requirements."""
    from packaging.requirements import InvalidRequirement, Requirement

    bad = []
    for number, raw in enumerate(text.splitlines(), 1):
        # pip reads options after a requirement (`pkg==1 --hash=...`, `--no-binary=...`)
        line = re.split(r"\s+#|\s+--?[a-z]", raw, maxsplit=1)[0].rstrip(" \\")
        if line.lstrip().startswith("#"):
            continue  # a comment, `# pkg @ file:///...` included: pip skips it
        if "@ file://" in line or "@file://" in line:
            bad.append((number, raw))  # `pip freeze` in a conda env: a path on the author's disk
            continue
        if REQUIREMENT_OPTION.search(line) or LOCAL_FOLDER.match(line):
            continue
        try:
            Requirement(line.strip())
        except InvalidRequirement:
            bad.append((number, raw))
    return bad


def _in_copied_package(ctx: LintContext, path: str) -> bool:
    """True when `path` lies in a copy of another package: a folder with its own licence and a
    `setup.py` naming a package other than the repository's (`promptist/diffusers/`)."""
    repo = normal(ctx.tree.root.name.split("__")[-1])
    parts = path.split("/")[:-1]
    for depth in range(len(parts), 0, -1):
        folder = "/".join(parts[:depth])
        if not any(f"{folder}/{n}" in ctx.tree.paths for n in LICENCES):
            continue
        found = SETUP_NAME.search(ctx.tree.read_text(f"{folder}/setup.py") or "")
        name = normal(found.group(1)) if found else ""
        if name and repo not in name and name not in repo:
            return True
    return path.startswith(tuple(f + "/" for f in foreign_trees(ctx.tree)))


def _unparseable(ctx: LintContext) -> list[Finding]:
    findings = []
    for path, kind in ctx.tree.dependency_files:
        if kind != "requirements_file" or not path.endswith((".txt", ".in", ".pip")):
            continue
        if is_vendored(path) or _in_copied_package(ctx, path):
            continue  # a copied package's own file (`third_party/gym-0.21.0/requirements.txt`)
        text = ctx.tree.read_text(path) or ""
        bad = _unreadable_lines(text)
        if not bad:
            continue
        number, raw = bad[0]
        if PIP_LIST_RULE.search(text) or re.match(r"^\s*Package\s+Version\b", text):
            what = "is `pip list` output"
            fix = f"regenerate {path} with `pip freeze` (name==version lines)"
        elif "file://" in raw:
            what = "points to files on the author's machine (`pip freeze` in a conda environment)"
            fix = f"regenerate {path} with `pip list --format=freeze`"
        elif re.match(r"^\s*[\w.-]+=[\w.]+=\w", raw):
            what = "is a conda package list (`name=version=build`)"
            fix = f"move it to an environment.yml, or write name==version lines in {path}"
        else:
            what = "has lines that are not requirements"
            fix = f"write one requirement per line (name==version) in {path}"
        more = f"; {len(bad) - 1} more line(s) like it" if len(bad) > 1 else ""
        findings.append(
            Finding(
                "MNR205",
                path,
                number,
                f"`pip install -r {path}` cannot use it: it {what}{more}",
                fix,
                (Evidence(path, number, " ".join(raw.split())[:160], "lint.unparseable"),),
            )
        )
    return findings


SETUP_NAME = re.compile(r"""\bsetup\([^)]*?\bname\s*=\s*["']([\w.\-]+)["']""", re.S)


SOFTWARE_CHECKS = (
    _requirements_unstated,
    _framework_unpinned,
    _framework_version_contradicted,
    python_unstated,
    _unparseable,
    _range_too_open,
    framework_unknown,
)
