"""Findings rendered the way linters print them: text lines, JSON, and SARIF 2.1.0."""

from __future__ import annotations

import json
from typing import Any

from miner import __version__
from miner.lint.rules import RULES, Finding
from miner.lint.run import LintReport

SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"


def as_text(report: LintReport) -> str:
    """`path:line: CODE message`, then the evidence and the fix, one finding after another."""
    lines: list[str] = []
    for f in report.findings:
        lines.append(f"{f.path}:{f.line}: {f.code} {f.message}")
        for ev in f.evidence:
            where = f"{ev.path}:{ev.line}  " if ev.path else "read "
            lines.append(f"    because {where}{ev.text}")
        lines.append(f"    fix: {f.fix}")
    count = len(report.findings)
    lines.append(f"{count} finding{'s' if count != 1 else ''}" if count else "no findings")
    return "\n".join(lines)


def _finding_dict(f: Finding) -> dict[str, Any]:
    return {
        "code": f.code,
        "path": f.path,
        "line": f.line,
        "message": f.message,
        "fix": f.fix,
        "evidence": [
            {"path": e.path, "line": e.line, "text": e.text, "rule": e.rule} for e in f.evidence
        ],  # fmt: skip
    }


def as_json(report: LintReport) -> str:
    """One object: the project, the codes checked, and every finding with its evidence."""
    return json.dumps(
        {
            "project": str(report.root),
            "kind": report.kind,
            "checked": list(report.checked),
            "config": report.config_source,
            "findings": [_finding_dict(f) for f in report.findings],
        },
        indent=2,
        ensure_ascii=False,
    )


def _location(path: str, line: int, message: str | None = None) -> dict[str, Any]:
    location: dict[str, Any] = {
        "physicalLocation": {
            "artifactLocation": {"uri": path, "uriBaseId": "%SRCROOT%"},
            "region": {"startLine": max(1, line)},
        }
    }
    if message:
        location["message"] = {"text": message}
    return location


def as_sarif(report: LintReport) -> str:
    """A SARIF 2.1.0 log with one run, so code-scanning dashboards can show the findings."""
    rules = [
        {
            "id": rule.code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "help": {"text": f"{rule.summary} Every code is listed in docs/codebook.md."},
            "defaultConfiguration": {"level": "warning"},
        }
        for rule in RULES
    ]
    index = {rule.code: i for i, rule in enumerate(RULES)}
    results = [
        {
            "ruleId": f.code,
            "ruleIndex": index[f.code],
            "level": "warning",
            "message": {
                "text": f"{f.message}. Fix: {f.fix}"
                + "".join(f" ({e.text})" for e in f.evidence if not e.path)
            },
            "locations": [_location(f.path, f.line)],
            "relatedLocations": [
                {**_location(e.path, e.line, e.text), "id": i}
                for i, e in enumerate(f.evidence)
                if e.path
            ],
        }
        for f in report.findings
    ]
    log = {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [
            {
                "tool": {
                    "driver": {
                        "name": "miner",
                        "version": __version__,
                        "rules": rules,
                    }
                },
                "originalUriBaseIds": {"%SRCROOT%": {"uri": report.root.resolve().as_uri() + "/"}},
                "results": results,
            }
        ],
    }
    return json.dumps(log, indent=2, ensure_ascii=False)


def statistics(report: LintReport) -> str:
    """Findings per code, most frequent first, the way `ruff --statistics` prints them."""
    from collections import Counter

    counts = Counter(f.code for f in report.findings)
    names = {rule.code: rule.name for rule in RULES}
    rows = sorted(counts.items(), key=lambda kv: (-kv[1], kv[0]))
    return "\n".join(f"{n:>5}  {code}  {names[code]}" for code, n in rows)


RENDERERS = {"text": as_text, "json": as_json, "sarif": as_sarif}
