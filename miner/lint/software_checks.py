"""The MNR2xx checks: what a project states about the software it needs.

Every statement comes from the audit (`details["dependencies"]`, `details["python_versions"]`,
`details["dependency_files"]`): lint judges what the audit read, it does not read it again.
"""

from __future__ import annotations

import re
from typing import Any

from miner.codebook import Evidence
from miner.lint.context import Finding, LintContext
from miner.lint.framework_use import (
    api_site,
    dep_name,
    dependencies,
    framework_deps,
    framework_packages,
    framework_site,
    frameworks_used,
    normal,
    required_site,
    source,
)
from miner.lint.statements import (
    API_VERSIONS,
    FRAMEWORK_PACKAGES,
    FRAMEWORK_TITLES,
    OTHER_FRAMEWORK_NAMES,
    PACKAGE_FAMILY,
    admits_without,
    contradicts,
    python_version_stated,
    specifier,
)

# Files of a bundled framework copy: its version is the copy's, nothing to state.
BUNDLED_FRAMEWORK = {
    "caffe": re.compile(r"(^|/)src/caffe/net\.cpp$"),
    "darknet": re.compile(r"(^|/)(?:src/darknet\.c|include/darknet\.h)$"),
}


UNRELEASED = frozenset({"torch7", "darknet"})
# Frameworks with a pip package of their own: not MNR207's (a framework pip cannot install),
# and ONNX is an exchange format whose runtime serves exporters and inference.
PIP_PACKAGED = frozenset({"onnx", "cntk", "dynet"})
# Package metadata (`install_requires`, `[project] dependencies`): a lower bound there is the
# convention for anything installed beside other packages, not a missing pin.
PACKAGE_METADATA = re.compile(r"(^|/)(?:setup\.py|setup\.cfg|pyproject\.toml)$")


def _install_requires(ctx: LintContext, path: str) -> bool:
    """True when a `setup.py` beside `path` reads it into `install_requires`: the requirements
    file is the package's metadata."""
    folder, _, name = path.rpartition("/")
    setup = ctx.tree.read_text(f"{folder}/setup.py" if folder else "setup.py") or ""
    return "install_requires" in setup and name in setup


ENV_FOLDERS = frozenset({"requirements", "requirement", "envs", "env", "environment", "conda"})


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
        listed = [d for d in deps if source(d)[0] in files]
        fix = f"pin {names[0]} to the version you trained with, e.g. {names[0]}==<version>"
        if not listed:
            if any(_pins(str(d.get("spec", ""))) for d in deps):
                continue  # the docs state the version ("tested with PyTorch 1.4")
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
        if any(_pins(str(d.get("spec", ""))) for d in deps):
            continue  # pinned in a file, or the version stated in the docs
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


def open_range_site(ctx: LintContext, dep: dict[str, Any]) -> tuple[Evidence, str, Any] | None:
    """A call the code makes that some release `dep`'s range admits lacks, with what it needs."""
    family = PACKAGE_FAMILY.get(str(dep.get("name", "")).lower())
    spec = specifier(str(dep.get("spec", "")))
    if family is None or spec is None:
        return None
    path, _ = source(dep)
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


def _range_too_open(ctx: LintContext) -> list[Finding]:
    for _, dep, _ in _family_deps(ctx):
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


def _python_unstated(ctx: LintContext) -> list[Finding]:
    if ctx.label("language") not in ("python", None):
        return []
    if python_version_stated(ctx.tree, ctx.audit.details):
        return []
    return [
        Finding(
            "MNR204",
            ctx.readme,
            1,
            "no Python version is stated",
            "state the Python version you used, e.g. 'Python 3.10' in the README or "
            "requires-python in pyproject.toml",
            (ctx.absent("no Python version"),),
        )
    ]


REQUIREMENT_OPTION = re.compile(r"^\s*(?:-|#|$)|://|^\s*(?:\.|/|~|git\+)")
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
        if REQUIREMENT_OPTION.search(line):
            continue
        try:
            Requirement(line.strip())
        except InvalidRequirement:
            bad.append((number, raw))
    return bad


def _unparseable(ctx: LintContext) -> list[Finding]:
    findings = []
    for path, kind in ctx.tree.dependency_files:
        if kind != "requirements_file" or not path.endswith((".txt", ".in", ".pip")):
            continue
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


def _submodule_of(ctx: LintContext, framework: str) -> bool:
    """True when `.gitmodules` pins a copy of `framework` (`caffe-fast-rcnn`, a Caffe fork)."""
    text = (ctx.tree.read_text(".gitmodules") or "").lower()
    bare = framework.removeprefix("other:")
    return any(
        bare in line for line in text.splitlines() if line.strip().startswith(("path", "url"))
    )


def _framework_unknown(ctx: LintContext) -> list[Finding]:
    """Frameworks without a pip package lint knows: the docs must still say which build."""
    findings = []
    for framework in frameworks_used(ctx):
        if framework in FRAMEWORK_PACKAGES or framework in PIP_PACKAGED:
            continue
        bundled = BUNDLED_FRAMEWORK.get(framework)
        if bundled and any(bundled.search(p) for p in ctx.tree.paths):
            continue  # a bundled copy: the checkout carries its version
        if _submodule_of(ctx, framework):
            continue  # a git submodule: the checkout pins the framework's commit
        bare = framework.removeprefix("other:")
        names = OTHER_FRAMEWORK_NAMES.get(framework, (normal(bare),))
        title = FRAMEWORK_TITLES.get(framework, bare)
        stated = [d for d in dependencies(ctx) if dep_name(d) in names]
        if any(str(d.get("spec", "")).strip() for d in stated):
            continue
        if stated and framework in UNRELEASED:
            continue  # Lua Torch and Darknet never had releases: naming them is all one can do
        if stated:
            path, line = source(stated[0])
            message = f"{title} is named without a version"
            evidence: tuple[Evidence, ...] = (
                Evidence(path, line, str(stated[0].get("name")), "dependency"),
            )
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


SOFTWARE_CHECKS = (
    _requirements_unstated,
    _framework_unpinned,
    _framework_version_contradicted,
    _python_unstated,
    _unparseable,
    _range_too_open,
    _framework_unknown,
)
