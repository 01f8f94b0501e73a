"""The class a line of Python belongs to, and whether a project's code ever names that class.

A training step inside a method of a class that nothing builds (a mixed-precision trainer or a
loss scaler copied in with a model's package) never runs: the project trains nothing through
it. The audit's training signal and lint's scope both read it so.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

CLASS_LINE = re.compile(r"^(\s*)class\s+(\w+)")


def enclosing_class(lines: list[str], line: int) -> str | None:
    """The name of the class whose method holds `lines[line - 1]`, if it is in a method."""
    if not 0 < line <= len(lines):
        return None
    indent = len(lines[line - 1]) - len(lines[line - 1].lstrip())
    for text in reversed(lines[: line - 1]):
        if not text.strip() or text.lstrip().startswith(("#", "@")):
            continue
        level = len(text) - len(text.lstrip())
        if level >= indent:
            continue
        found = CLASS_LINE.match(text)
        if found:
            return found.group(2)
        if level == 0:
            return None  # a module-level function or statement
        indent = level
    return None


def class_named(name: str, texts: Iterable[str], configs: str = "") -> bool:
    """True when `texts` (the lines of the project's own code) or `configs` name the class
    `name` outside its `class` line: built, subclassed, passed, or a config's target."""
    use = re.compile(rf"\b{re.escape(name)}\b")
    defined = re.compile(rf"^\s*class\s+{re.escape(name)}\b")
    return bool(use.search(configs)) or any(
        use.search(text) and not defined.match(text) for text in texts if name in text
    )
