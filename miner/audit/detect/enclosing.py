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


# Classes found by name at run time: a module imported by a computed name and searched
# (`importlib.import_module(model_filename)`, then `for name, cls in lib.__dict__.items()`, the
# CycleGAN and pix2pix layout), or members listed by `inspect.getmembers`.
BUILT_BY_NAME = re.compile(
    r"\bimport_module\(\s*(?![\"'])|\b__import__\(\s*(?![\"'])|\.__dict__\.items\(\)|\bgetmembers\("
)


def builds_by_name(texts: Iterable[str]) -> bool:
    """True when the project's own code finds classes by name at run time, so that a class no
    line names may still be built."""
    return any(BUILT_BY_NAME.search(text) for text in texts)


def decorated(lines: list[str], name: str) -> bool:
    """True when the class `name` defined in `lines` carries a decorator (a registry's
    `@MODELS.register_module()`), which builds it by a name its own code never writes."""
    defined = re.compile(rf"^\s*class\s+{re.escape(name)}\b")
    for index, text in enumerate(lines):
        if defined.match(text):
            above = next((t for t in reversed(lines[:index]) if t.strip()), "")
            return above.lstrip().startswith("@")
    return False
