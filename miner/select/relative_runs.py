"""A script that imports relatively runs as a module: `python algo/train.py` becomes
`python -m algo.train` when the script's own statements say `from .models import Net`.

Run as a file, a script has no package, and its first relative import ends the run ("attempted
relative import with no known parent package"); `..` past the script's folder ends it with
"beyond top-level package" even inside a package. Run as a module from the folder above, the
same imports resolve, with or without `__init__.py` files (namespace packages). Only an
import the module runs whatever happens counts: one inside `try` has its fallback for the
script form, and one inside a function may never run. Nothing of the project is edited.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import replace
from pathlib import PurePosixPath
from typing import TYPE_CHECKING

from miner.codebook import Evidence

if TYPE_CHECKING:  # evidence.py calls this module
    from miner.select.evidence import EntryPoint

Reader = Callable[[str], "str | None"]


def relative_import(source: str) -> tuple[int, int, str] | None:
    """The deepest relative import among the module's own top-level statements (an `if` at the
    top level counts, `try` does not): its level, line and text; None when there is none."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return None
    deepest: tuple[int, int, str] | None = None
    statements = list(tree.body)
    while statements:
        node = statements.pop(0)
        if isinstance(node, ast.If):
            statements.extend(node.body + node.orelse)
        elif isinstance(node, ast.ImportFrom) and node.level > 0:
            if deepest is None or node.level > deepest[0]:
                text = ast.get_source_segment(source, node) or ""
                deepest = (node.level, node.lineno, " ".join(text.split()))
    return deepest


def _module_name(script: str, start: str) -> str:
    """`algo.train` for `algo/train.py` run from the root (`start` ""); "" when a folder on the
    way is no identifier."""
    path = PurePosixPath(script)
    if start:
        if not path.is_relative_to(start):
            return ""
        path = path.relative_to(start)
    parts = [*path.parent.parts, path.stem]
    return ".".join(parts) if all(part.isidentifier() for part in parts) else ""


def as_module_run(entry: EntryPoint, read: Reader) -> EntryPoint:
    """The entry point run as a module when its script imports relatively, from its own start
    folder when the package it needs fits below it, else from the checkout's root; unchanged
    when the import reaches above the root or the script runs some other way."""
    if entry.runner != "python" or not entry.script.endswith(".py"):
        return entry
    found = relative_import(read(entry.script) or "")
    if found is None:
        return entry
    level, line, text = found
    for start in dict.fromkeys((entry.folder, "")):
        module = _module_name(entry.script, start)
        if module and module.count(".") >= level:  # `..` needs two packages above the module
            why = Evidence(entry.script, line, text[:200], "relative_import_module")
            return replace(entry, runner="module", module=module, folder=start,
                           evidence=(*entry.evidence, why))  # fmt: skip
    return entry
