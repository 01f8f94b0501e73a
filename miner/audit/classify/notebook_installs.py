"""Install commands in the notebooks that run the project's networks (`!pip install diffusers`).

Colab-first repositories state their requirements in a notebook's shell lines rather than in a
dependency file or the README. Only notebooks that import a neural-network framework speak for
the model: an install in a helper notebook (an audio recorder, a plotting sheet) does not.
Installing the project itself is not a dependency, as in the README rule.
"""

from __future__ import annotations

import re

from miner.audit.classify.dependency import NOT_PACKAGES, Dependency
from miner.audit.classify.doc_requirements import DocFinding
from miner.audit.classify.installs import install_commands
from miner.audit.detect import AuditContext
from miner.audit.detect.framework_map import RUNTIME_ONLY, module_framework
from miner.audit.detect.sources import code_index
from miner.codebook import Evidence

SHELL_LINE = re.compile(r"^[ \t]*[!%]+(.*install.*)$", re.M)
RULE = "software.notebook_install"


def _normal(name: str) -> str:
    return re.sub(r"[-_. ]+", "-", name.strip().lower())


def notebook_findings(ctx: AuditContext, self_names: frozenset[str]) -> list[DocFinding]:
    """Packages installed by shell lines of the notebooks that build or run a network."""
    index = code_index(ctx)
    findings: list[DocFinding] = []
    for sf in index.own():
        if not sf.notebook or not sf.read or sf.support:
            continue
        frameworks = {module_framework("python", imp.module) for imp in sf.imports}
        if not frameworks - RUNTIME_ONLY - {None}:
            continue
        text = index.code_text.get(sf.path, "")
        for match in SHELL_LINE.finditer(text):
            command = match.group(1).strip()
            names = [
                c for c in install_commands(command)
                if _normal(c.name) not in self_names and c.name.lower() not in NOT_PACKAGES
            ]  # fmt: skip
            if not names:
                continue
            line = index.where(sf.path, command)[0]
            shown = match.group(0).strip()[:300]
            deps = tuple(Dependency(c.name, c.spec, sf.path, line, shown) for c in names)
            findings.append(DocFinding(Evidence(sf.path, line, shown, RULE), deps))
    return findings
