"""The lint stage: tell a project's maintainers which requirements their docs leave out.

`lint(path)` audits a checkout (the audit stage), scans what its code implies (GPU use,
launchers, mixed precision, seeds, thread settings, framework APIs) and reports, per stable
code, what the docs should state, with the evidence that triggered each finding and a fix.

- `code_facts`: what the code, scripts and configs imply;
- `statements`: what the docs and manifests state (Python version, CPU claims, versions);
- `rules`, `software_checks`: the codes and their checks, a plain registry;
- `framework_use`: which frameworks the own code needs and where it calls versioned APIs;
- `scope`: the project's kind and which code is its own;
- `run`: options (`[tool.miner.lint]`, select/ignore) and `lint()`;
- `output`: text, JSON and SARIF 2.1.0; `suggest`: the suggested Requirements section.

May import: `miner.audit`, `miner.codebook`, `miner.models`, `miner.errors`.
"""

from __future__ import annotations

from miner.lint.output import RENDERERS, as_json, as_sarif, as_text
from miner.lint.rules import RULES, Finding, Rule
from miner.lint.run import LintOptions, LintReport, lint
from miner.lint.suggest import requirements_markdown

__all__ = [
    "RENDERERS",
    "RULES",
    "Finding",
    "LintOptions",
    "LintReport",
    "Rule",
    "as_json",
    "as_sarif",
    "as_text",
    "lint",
    "requirements_markdown",
]
