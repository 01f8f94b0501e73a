"""The layers hold: stage packages never import the command line, typer, or a later stage.

Checked statically, over every module of each package and every import in it (function-level
ones included), so a lazy import cannot slip through; the checker is itself tested on a small
module that breaks each rule.
"""

from __future__ import annotations

import ast
import importlib
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PIPELINE = ("search", "clone", "audit", "lint", "annotate", "report", "select", "experiment")
# The store sits beneath every stage: it holds their SQL and imports none of them.
STAGES = (*PIPELINE, "store")


@dataclass(frozen=True)
class Violation:
    """One import a stage module must not make."""

    path: str
    line: int
    module: str
    rule: str


def imported_modules(source: str, package: str) -> list[tuple[int, str]]:
    """(line, dotted module) for every import in `source`, a module of `package`: `import x`,
    `from x import y` (also as `x.y`), relative imports resolved, `import_module("x")` calls."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join([*parts, base] if base else parts)
            found.append((node.lineno, base))
            found.extend((node.lineno, f"{base}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Call):
            name = getattr(node.func, "attr", None) or getattr(node.func, "id", None)
            first = node.args[0] if node.args else None
            if name == "import_module" and isinstance(first, ast.Constant):
                found.append((node.lineno, str(first.value)))
    return found


def _in(module: str, package: str) -> bool:
    return module == package or module.startswith(package + ".")


def check(stage: str, path: str, source: str, package: str) -> list[Violation]:
    """The imports of one module of `stage` that break the rules."""
    later = PIPELINE[PIPELINE.index(stage) + 1 :] if stage in PIPELINE else PIPELINE
    out = []
    for line, module in imported_modules(source, package):
        if _in(module, "typer"):
            out.append(Violation(path, line, module, "only miner.cli imports typer"))
        elif _in(module, "miner.cli"):
            out.append(Violation(path, line, module, "no stage imports the command line"))
        elif any(_in(module, f"miner.{other}") for other in later):
            out.append(Violation(path, line, module, f"{stage} imports a later stage"))
    return out


def _modules(stage: str) -> list[tuple[str, str, str]]:
    """(path, source, package) of every module of a stage package."""
    folder = ROOT / "miner" / stage
    found = []
    for path in sorted(folder.rglob("*.py")):
        relative = path.relative_to(ROOT)
        package = ".".join(relative.parent.parts)  # what a relative import is relative to
        found.append((relative.as_posix(), path.read_text(encoding="utf-8"), package))
    return found


@pytest.mark.parametrize("stage", STAGES)
def test_stage_imports_follow_the_layers(stage: str) -> None:
    importlib.import_module(f"miner.{stage}")  # the package itself imports cleanly
    modules = _modules(stage)
    assert modules, f"no modules found for miner.{stage}"
    broken = [v for path, source, package in modules for v in check(stage, path, source, package)]
    assert not broken, "\n".join(f"{v.path}:{v.line}: {v.module} ({v.rule})" for v in broken)


SYNTHETIC = '''
"""A stage module that breaks every rule, each time in a different way."""
import json
from miner.search import run_search
from miner.codebook import FIELDS


def render():
    import typer
    from miner.cli.common import settings
    from miner import report
    from ..select.rank import rank
    from . import docs
    return importlib.import_module("miner.experiment.run")
'''


def test_the_checker_finds_every_kind_of_broken_import() -> None:
    broken = check("audit", "miner/audit/synthetic.py", SYNTHETIC, "miner.audit")
    found = {(v.module, v.rule.split()[-1]) for v in broken}
    assert found == {
        ("typer", "typer"),
        ("miner.cli.common", "line"),
        ("miner.cli.common.settings", "line"),
        ("miner.report", "stage"),
        ("miner.select.rank", "stage"),
        ("miner.select.rank.rank", "stage"),
        ("miner.experiment.run", "stage"),
    }
    # Earlier stages, the base modules and the package's own modules are allowed.
    assert not check("report", "x.py", "from miner.audit import audit\n", "miner.report")
    assert not check("audit", "x.py", "from . import docs\n", "miner.audit")
    # The store imports no stage at all.
    assert check("store", "x.py", "from miner.search.slicing import Slice\n", "miner.store")


def test_the_checker_reads_every_module_of_a_package() -> None:
    paths = {path for path, _, _ in _modules("audit")}
    assert "miner/audit/classify/hardware.py" in paths
    assert "miner/audit/detect/__init__.py" in paths
    package = {path: pkg for path, _, pkg in _modules("audit")}
    assert package["miner/audit/detect/__init__.py"] == "miner.audit.detect"
    assert package["miner/audit/detect/frameworks.py"] == "miner.audit.detect"
