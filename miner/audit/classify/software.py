"""Software requirements: dependency files and documentation statements (codebook rules).

`software_req` is yes when a dependency file lists at least one package or the documentation
states packages the user must have or install; `dependency_file` counts the files alone;
`software_req_sources` names where they were found; `versions_pinned` asks whether any
framework or library (not the Python interpreter) carries a version. The parsed packages go to
details["dependencies"] as {name, spec, source: "path:line"}.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from miner.audit.classify.dependency import NOT_PACKAGES, Dependency, Manifest
from miner.audit.classify.doc_requirements import DocFinding, doc_requirements, python_statements
from miner.audit.classify.doc_versions import configured_versions
from miner.audit.classify.manifests import dependency_manifests
from miner.audit.classify.named_lists import named_requirement_lists
from miner.audit.classify.notebook_installs import notebook_findings
from miner.audit.detect import AuditContext
from miner.audit.docs import Block
from miner.audit.ownership import link_list
from miner.codebook import Evidence
from miner.models import Label

MAX_EVIDENCE = 8
MAX_DEPENDENCIES = 1000
NAME_FIELD = re.compile(r"""^\s*name\s*[=:]\s*['"]?([A-Za-z0-9][\w.\-]*)""", re.M)
SETUP_NAME = re.compile(r"""\bname\s*=\s*['"]([A-Za-z0-9][\w.\-]*)['"]""")
# Operating systems and the interpreter carry versions that do not pin a library.
PYTHON_NAMES = frozenset({"python", "python2", "python3"})
NOT_LIBRARIES = NOT_PACKAGES | {"windows", "linux", "macos", "centos", "anaconda", "miniconda"}


def _normal(name: str) -> str:
    return re.sub(r"[-_. ]+", "-", name.strip().lower())


def _self_names(ctx: AuditContext, blocks: list[Block]) -> frozenset[str]:
    """Names the project itself goes by, so `pip install <project>` is not read as a dependency."""
    root = ctx.tree.root.name
    names = {root, root.split("__", 1)[-1]}
    readme_title = next((b.text for b in blocks if b.kind == "heading"), "")
    if readme_title and len(readme_title.split()) <= 6:
        names.add(readme_title)
    for path in ("setup.py", "setup.cfg", "pyproject.toml"):
        text = ctx.tree.read_text(path) if path in ctx.tree.paths else None
        if text:
            pattern = SETUP_NAME if path == "setup.py" else NAME_FIELD
            names.update(m.group(1) for m in pattern.finditer(text))
    return frozenset(_normal(n) for n in names if n.strip())


def _link_lists(ctx: AuditContext, paths: Iterable[str]) -> set[str]:
    """Documents that are awesome or reading lists: their prose names packages the list points
    to, not software this project needs."""
    return {path for path in paths if link_list(ctx.tree.read_text(path) or "")}


def _manifest_evidence(m: Manifest) -> Evidence:
    first = m.packages[0]
    return Evidence(m.path, first.line, first.text, m.rule)


def _all_dependencies(manifests: list[Manifest], findings: list[DocFinding]) -> list[Dependency]:
    deps = [d for m in manifests for d in m.packages]
    deps += [d for f in findings for d in f.deps if d.name.lower() not in NOT_PACKAGES]
    unique = {(d.name.lower(), d.spec, d.path, d.line): d for d in deps}
    return list(unique.values())[:MAX_DEPENDENCIES]


def _pinned(deps: Iterable[Dependency]) -> list[Dependency]:
    return [d for d in deps if d.pinned and d.name.lower() not in NOT_LIBRARIES]


def _one_per_line(evidence: Iterable[Evidence], limit: int = MAX_EVIDENCE) -> tuple[Evidence, ...]:
    """The first evidence of each file line, at most `limit` of them."""
    seen: set[tuple[str, int]] = set()
    kept: list[Evidence] = []
    for e in evidence:
        if (e.path, e.line) not in seen:
            seen.add((e.path, e.line))
            kept.append(e)
    return tuple(kept[:limit])


def classify_software(ctx: AuditContext, labels: Mapping[str, Label]) -> Iterable[Label]:
    """software_req, dependency_file, software_req_sources and versions_pinned, with evidence."""
    manifests: list[Manifest] = []
    findings: list[DocFinding] = []
    pythons: list[Dependency] = []
    try:
        manifests = dependency_manifests(ctx.tree, ctx.warnings)
    except Exception as exc:  # never lose the other labels to one unexpected file
        ctx.warnings.append(f"dependency files: {type(exc).__name__}: {exc}")
    try:
        wanted = set(ctx.tree.codebook_docs)
        lists = _link_lists(ctx, wanted)
        blocks = [
            b for b in ctx.docs.blocks
            if b.path in wanted and (b.kind == "code" or b.path not in lists)
        ]  # fmt: skip
        self_names = _self_names(ctx, blocks)
        findings = doc_requirements(blocks, self_names) + configured_versions(blocks)
        findings += notebook_findings(ctx, self_names)
        named = named_requirement_lists(ctx.tree, blocks, ctx.warnings)
        findings += named
        pythons += [d for f in named for d in f.deps if d.name.lower() in PYTHON_NAMES and d.spec]
        # a README read as a list of links still states the interpreter it needs ("You will
        # need Python 3.9 or later"): the list only keeps its entries' packages out
        pythons += python_statements([b for b in ctx.docs.blocks if b.path in wanted])
    except Exception as exc:
        ctx.warnings.append(f"documentation requirements: {type(exc).__name__}: {exc}")

    file_evidence = [_manifest_evidence(m) for m in manifests]
    doc_evidence = [f.evidence for f in findings]
    sources: dict[str, Evidence] = {}
    for m in manifests:
        sources.setdefault(m.kind, _manifest_evidence(m))
    if findings:
        sources["readme"] = findings[0].evidence
    deps = _all_dependencies(manifests, findings)
    pinned = _pinned(deps)
    ctx.details["dependencies"] = [d.as_dict() for d in deps]
    # The interpreter's version, from files first, then prose ("Python 3.8+", "python3.7").
    in_files = [d for m in manifests for d in m.deps if d.name.lower() in PYTHON_NAMES and d.spec]
    ctx.details["python_versions"] = [
        {**d.as_dict(), "text": d.text[:160]} for d in (in_files + pythons)[:MAX_EVIDENCE]
    ]
    ctx.details["dependency_files"] = {m.path: m.kind for m in manifests}

    yield Label(
        "software_req",
        bool(manifests or findings),
        _one_per_line(file_evidence[: MAX_EVIDENCE // 2] + doc_evidence),
    )
    yield Label("dependency_file", bool(manifests), _one_per_line(file_evidence))
    yield Label("software_req_sources", frozenset(sources), tuple(sources.values()))
    yield Label(
        "versions_pinned",
        bool(pinned),
        _one_per_line(
            (Evidence(d.path, d.line, d.text, "software.version_pin") for d in pinned), 5
        ),
    )
