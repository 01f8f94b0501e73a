"""The lint codes: one check per code, each a plain function in the registry.

Codes are stable (new ones are added, none is renumbered): MNR1xx hardware, MNR2xx software,
MNR3xx data, MNR4xx reproducibility. A check reads the audit's labels and evidence, the facts
the code implies and what the docs state, and returns findings that carry their evidence.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from miner.audit.files import RepoTree
from miner.codebook import Evidence
from miner.lint.code_facts import CodeFacts
from miner.lint.statements import (
    API_VERSIONS,
    COMPAT_V1,
    CPU_CLAIM,
    FRAMEWORK_PACKAGES,
    PACKAGE_FAMILY,
    REPRODUCIBLE,
    contradicts,
    python_version_stated,
    specifier,
    stated,
)
from miner.models import AuditResult


@dataclass(frozen=True)
class Rule:
    """A lint code: what it checks and how to fix what it finds."""

    code: str
    name: str
    summary: str


@dataclass(frozen=True)
class Finding:
    """One finding: where it points, what is wrong, how to fix it, and why miner thinks so."""

    code: str
    path: str
    line: int
    message: str
    fix: str
    evidence: tuple[Evidence, ...] = ()


@dataclass
class LintContext:
    """What every check reads."""

    tree: RepoTree
    audit: AuditResult
    facts: CodeFacts
    docs: tuple[str, ...]
    cache: dict[str, Any] = field(default_factory=dict)

    @property
    def readme(self) -> str:
        """Where a missing statement belongs: the README, or the project root."""
        return self.tree.readme or "README.md"

    def label(self, name: str) -> Any:
        """An audit label's value (None when the audit did not decide it)."""
        return self.audit.value(name)


RULES = (
    Rule("MNR101", "gpu-unstated", "The code runs on a GPU, but no GPU model or memory is stated."),
    Rule("MNR102", "cpu-claim-contradicted", "The docs say it runs on CPU; the code needs CUDA."),
    Rule("MNR201", "requirements-unstated", "No dependency file and no stated requirements."),
    Rule("MNR202", "framework-unpinned", "The framework the code imports has no version."),
    Rule(
        "MNR203",
        "framework-version-contradicted",
        "The allowed framework versions lack an API the code calls.",
    ),
    Rule("MNR204", "python-unstated", "No Python version is stated."),
    Rule("MNR301", "data-unstated", "Training code, but no stated way to obtain the data."),
    Rule("MNR401", "seed-unset", "Training code that never sets a random seed."),
    Rule(
        "MNR402",
        "threads-unset",
        "Reproducible numbers are claimed, but thread counts are left to the default.",
    ),
)
RULE_BY_CODE = {rule.code: rule for rule in RULES}


def _gpu_unstated(ctx: LintContext) -> list[Finding]:
    if not ctx.facts.gpu or ctx.label("hw_gpu"):
        return []
    implied = []
    if ctx.facts.gpus:
        implied.append(f"{ctx.facts.gpus} GPUs (from the launcher)")
    elif ctx.facts.distributed:
        implied.append("several GPUs (distributed training)")
    if ctx.facts.mixed_precision:
        implied.append("mixed precision")
    if ctx.facts.batch:
        implied.append(f"batch size {ctx.facts.batch}")
    hint = f"; the code implies {', '.join(implied)}" if implied else ""
    fix = (
        "add a 'Hardware' section naming the GPU model and memory you trained and evaluated "
        f"on, e.g. '<N> x <GPU model> (<memory> GB each)'{hint}"
    )
    evidence = (*ctx.facts.gpu[:2], *(e for _, e in ctx.facts.gpu_count[:1]))
    return [
        Finding(
            "MNR101",
            ctx.readme,
            1,
            "the code runs on a GPU, but the docs name no GPU model or GPU memory",
            fix,
            tuple(evidence),
        )
    ]


def _cpu_claim_contradicted(ctx: LintContext) -> list[Finding]:
    if not ctx.facts.hard_cuda or ctx.facts.cpu_fallback:
        return []
    claim = stated(ctx.tree, ctx.docs, CPU_CLAIM)
    if claim is None:
        return []
    site = ctx.facts.hard_cuda[0]
    return [
        Finding(
            "MNR102",
            site.path,
            site.line,
            f"the docs say it runs on CPU "
            f"({claim.path}:{claim.line}), but this line needs CUDA and the code has no "
            "CPU fallback",
            "choose the device with torch.cuda.is_available() (or a "
            "--device option), or say in the docs that a GPU is required",
            (site, claim),
        )
    ]


def _requirements_unstated(ctx: LintContext) -> list[Finding]:
    if ctx.label("software_req") is not False or not ctx.label("is_dl"):
        return []
    framework = ctx.label("primary_framework") or "the framework"
    return [
        Finding(
            "MNR201",
            ctx.readme,
            1,
            "no dependency file and no stated requirements",
            f"add a requirements.txt (or environment.yml) listing {framework} and the "
            "other packages with the versions you used",
        )
    ]


DEFINITION = re.compile(r"\s*(?:async\s+)?def\s|\s*class\s")
PROSE = re.compile(r"(?i)\.(?:md|markdown|rst|adoc|html?)$|(^|/)(?!requirements)[^/]*\.txt$")


def _source(dep: dict[str, str]) -> tuple[str, int]:
    path, _, line = str(dep.get("source", "")).rpartition(":")
    return path, int(line) if line.isdigit() else 0


def in_prose(dep: dict[str, str]) -> bool:
    """Whether a dependency was read from the docs' prose rather than a dependency file."""
    return bool(PROSE.search(_source(dep)[0]))


def framework_deps(ctx: LintContext) -> tuple[tuple[str, ...], list[dict[str, str]]]:
    framework = ctx.label("primary_framework") or ""
    names = FRAMEWORK_PACKAGES.get(framework, ())
    deps = [d for d in ctx.audit.details.get("dependencies", []) if isinstance(d, dict)]
    ours = [d for d in deps if str(d.get("name", "")).lower().replace("_", "-") in names]
    return names, ours


def _framework_unpinned(ctx: LintContext) -> list[Finding]:
    names, ours = framework_deps(ctx)
    deps = [d for d in ctx.audit.details.get("dependencies", []) if isinstance(d, dict)]
    if not names or not deps:
        return []
    framework = ctx.label("primary_framework")
    fix = f"pin {names[0]} to the version you trained with, e.g. {names[0]}==<version>"
    files = sorted(
        (_source(d) for d in deps if not in_prose(d)), key=lambda s: (s[0].count("/"), s)
    )
    listed = [d for d in ours if not in_prose(d)] if files else ours
    if not listed:
        # `pip install -r requirements.txt` would leave the framework out, or to chance
        path, line = files[0] if files else _source(deps[0])
        where = "no dependency file lists it" if files else "the stated requirements omit it"
        return [Finding("MNR202", path, line or 1, f"the code uses {framework}, but {where}", fix)]
    if any(str(d.get("spec", "")).strip() for d in listed):
        return []
    path, line = _source(listed[0])
    ev = Evidence(path, line, str(listed[0].get("name")), "dependency")
    where = "is stated" if in_prose(listed[0]) else "is listed"
    return [
        Finding(
            "MNR202",
            path,
            line or 1,
            f"{listed[0].get('name')} {where} without a version",
            fix,
            (ev,),
        )
    ]


def _framework_version_contradicted(ctx: LintContext) -> list[Finding]:
    _, ours = framework_deps(ctx)
    findings: list[Finding] = []
    for dep in ours:
        if in_prose(dep):
            continue  # "works with PyTorch 1.12" in prose is not an upper bound
        family = PACKAGE_FAMILY.get(str(dep.get("name", "")).lower())
        spec = specifier(str(dep.get("spec", "")))
        if family is None or spec is None:
            continue
        source = str(dep.get("source", ""))
        path, _, line = source.rpartition(":")
        stated_ev = Evidence(
            path,
            int(line) if line.isdigit() else 0,
            f"{dep.get('name')}{dep.get('spec')}",
            "dependency",
        )
        for api in API_VERSIONS:
            if api.family != family or not contradicts(family, spec, api):
                continue
            site = _api_site(ctx, api, path.rpartition("/")[0])
            if site is None:
                continue
            need = f"{family}>={api.since}" if api.since else f"{family}<{api.until}"
            findings.append(
                Finding(
                    "MNR203",
                    site.path,
                    site.line,
                    f"this line needs {need}, but {source} allows only {dep.get('name')}"
                    f"{dep.get('spec')}",
                    f"raise the version in {path} or replace the call",
                    (site, stated_ev),
                )
            )
        if findings:
            break  # one dependency line is enough to show the contradiction
    return findings


def _api_site(ctx: LintContext, api: Any, folder: str) -> Evidence | None:
    """The first call of `api` in code that the dependency file in `folder` governs."""
    for path, lines in ctx.facts.code_lines.items():
        if folder and not path.startswith(folder + "/"):
            continue
        if api.until and any(COMPAT_V1.search(line) for line in lines):
            continue  # tf.compat.v1 keeps the removed names
        for number, line in enumerate(lines, 1):
            code = line.split("#", 1)[0]
            if DEFINITION.match(code) or "compat.v1" in code:
                continue
            if api.pattern.search(code):
                return Evidence(path, number, " ".join(line.split())[:160], "lint.api")
    return None


def _python_unstated(ctx: LintContext) -> list[Finding]:
    if not ctx.label("is_dl") or python_version_stated(ctx.tree, ctx.docs):
        return []
    if ctx.label("language") not in ("python", None):
        return []
    return [
        Finding(
            "MNR204",
            ctx.readme,
            1,
            "no Python version is stated",
            "state the Python version you used, e.g. 'Python 3.10' in the README or "
            "requires-python in pyproject.toml",
        )
    ]


def _data_unstated(ctx: LintContext) -> list[Finding]:
    if not ctx.label("training_code") or ctx.label("data_available") is not False:
        return []
    return [
        Finding(
            "MNR301",
            ctx.readme,
            1,
            "the project trains a model but does not say how to obtain the data",
            "link the dataset and give the download or preparation "
            "steps (or ship a script that fetches it)",
        )
    ]


SEED_CALLS = {
    "pytorch": "torch.manual_seed(seed)",
    "tensorflow": "tf.random.set_seed(seed)",
    "keras": "keras.utils.set_random_seed(seed)",
}


def _seed_unset(ctx: LintContext) -> list[Finding]:
    if not ctx.label("training_code") or ctx.facts.seed:
        return []
    framework = ctx.label("primary_framework") or ""
    call = SEED_CALLS.get(framework, "every framework RNG's seed function")
    evidence = (
        ctx.audit.labels["training_code"].evidence[:1]
        if "training_code" in ctx.audit.labels
        else ()
    )
    return [
        Finding(
            "MNR401",
            evidence[0].path if evidence else ctx.readme,
            evidence[0].line if evidence else 1,
            "training code that never sets a random seed",
            f"add a --seed option and call {call}, random.seed and numpy.random.seed with it",
            tuple(evidence),
        )
    ]


def _threads_unset(ctx: LintContext) -> list[Finding]:
    if not ctx.label("training_code") or ctx.facts.threads:
        return []
    claim = stated(ctx.tree, ctx.docs, REPRODUCIBLE)
    if claim is None:
        return []
    return [
        Finding(
            "MNR402",
            claim.path,
            claim.line,
            "reproducible numbers are claimed, but "
            "CPU thread counts are left to the default, which changes results",
            "state the thread count you used and set it (torch.set_num_threads, "
            "OMP_NUM_THREADS or tf.config.threading)",
            (claim,),
        )
    ]


Check = Callable[[LintContext], list[Finding]]
CHECKS: tuple[Check, ...] = (
    _gpu_unstated,
    _cpu_claim_contradicted,
    _requirements_unstated,
    _framework_unpinned,
    _framework_version_contradicted,
    _python_unstated,
    _data_unstated,
    _seed_unset,
    _threads_unset,
)
