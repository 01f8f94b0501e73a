"""A keyword argument the project passes that an unpinned package no longer takes.

Research code written against a library's release of its day meets today's release, whose
signature has changed: `LRScheduler(mode=..., step=lr_decay_epoch)` from `gluoncv.utils`
stops with `TypeError: __init__() got an unexpected keyword argument 'step'`. The traceback's
last frame is the project's own call; the statement is read from the checkout back to the name
it calls, and the name back to the package the file imports it from. That package is then moved
a release line back, as for a module or a name it no longer has (miner.select.repair.older).
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

UNEXPECTED_KEYWORD = re.compile(r"TypeError: (?:[\w.]+\.)?\w+\(\) got an unexpected keyword "
                                r"argument '(\w+)'")  # fmt: skip
FRAME = re.compile(r'^(?:\[rank\d+\]:)?\s*File "([^"]+)", line (\d+)')  # `[rank0]:` of torchrun
STATEMENT_LINES = 12  # how far up a call's statement may start


def keyword_caller(lines: list[str], number: int, root: Path) -> tuple[str, str] | None:
    """(the package, `Name(keyword=)`) where the error on line `number` of a log comes from the
    project's own call of a name it imports from an installed package; None otherwise."""
    found = UNEXPECTED_KEYWORD.search(lines[number - 1])
    passed = _through_package(lines, number, root) if found else None
    if found is None or passed is None:
        return None
    (source, line), through = passed
    called = _called_with(source, line, found.group(1))
    package = _package_of(source, called) if called else None
    if package is None or (through and through != {package}):
        return None  # the keyword went into another package than the one the project called
    return package, f"{called}({found.group(1)}=)"


SITE_PACKAGE = re.compile(r"-packages/([A-Za-z_]\w*)/")  # the installed package a file lies in


def _through_package(
    lines: list[str], number: int, root: Path
) -> tuple[tuple[list[str], int], set[str]] | None:
    """The project's own frame nearest the error on line `number`, and the packages of the
    frames between (empty when the project's frame is the innermost): a keyword handed on
    through `**kwargs` (`imageio.imread(f, ignoregamma=True)` to a plugin's `read()`) is still
    the project's call. None when no frame of the checkout is found."""
    through: set[str] = set()
    for index in range(number - 2, -1, -1):
        if lines[index].lstrip().startswith("Traceback"):
            return None
        frame = FRAME.match(lines[index])
        if frame is None:
            continue
        package = SITE_PACKAGE.search(frame.group(1))
        if package is not None:
            through.add(package.group(1))
            continue
        source = _source(root, frame.group(1))
        line = int(frame.group(2))
        return ((source, line), through) if source is not None and 0 < line <= len(source) else None
    return None


# `LRScheduler.__init__() takes from 2 to 3 positional arguments but 4 were given`: a class of
# a package whose constructor dropped an argument the project still passes (torch's schedulers
# lost `verbose`), often through `super().__init__(...)` in the project's own subclass.
POSITIONAL = re.compile(r"TypeError: (?:[\w.]+\.)?(\w+)\.__init__\(\) takes (?:from \d+ to )?\d+ "
                        r"positional arguments? but \d+ (?:were|was) given")  # fmt: skip
CLASS_BASES = re.compile(r"^\s*class\s+\w+\s*\(\s*([A-Za-z_][\w.]*)")


def positional_caller(lines: list[str], number: int, root: Path) -> tuple[str, str] | None:
    """(the package, `Name(...)`) where the error on line `number` of a log says the project
    gives a package's class more positional arguments than its installed release takes: the
    project's own call of the class, or `super().__init__(...)` in its subclass of it."""
    found = POSITIONAL.search(lines[number - 1])
    called_at = _project_frame(lines, number, root) if found else None
    if found is None or called_at is None:
        return None
    source, line = called_at
    called: str | None = found.group(1)
    if "super()" in source[line - 1]:  # the class's first base: the package's class
        bases = (CLASS_BASES.match(text) for text in reversed(source[: line - 1]))
        owner = next((b for b in bases if b), None)
        called = owner.group(1) if owner else None
    package = _package_of(source, called) if called else None
    return (package, f"{found.group(1)}(...) with more positional arguments") if package else None


def _project_frame(lines: list[str], number: int, root: Path) -> tuple[list[str], int] | None:
    """The lines of the project's own file the innermost frame above line `number` names, and
    its line; None when that frame is a package's or the file is not the checkout's."""
    frame = innermost_frame(lines, number)
    if frame is None or "-packages/" in frame[0]:
        return None  # raised inside a package: not the project's call
    source = _source(root, frame[0])
    return (source, frame[1]) if source is not None and 0 < frame[1] <= len(source) else None


def _package_of(source: list[str], called: str) -> str | None:
    """The installed package the file imports `called` from; None for the standard library."""
    package = imported_from(source, called)
    return None if package is None or package in sys.stdlib_module_names else package


def innermost_frame(lines: list[str], number: int) -> tuple[str, int] | None:
    """(file, line) of the innermost traceback frame above the error on line `number`."""
    for line in reversed(lines[max(0, number - 6) : number - 1]):
        frame = FRAME.match(line)
        if frame:
            return frame.group(1), int(frame.group(2))
    return None


def _source(root: Path, path: str) -> list[str] | None:
    """The lines of the traceback's file, inside the checkout (a relative path is the run's)."""
    candidate = Path(path) if Path(path).is_absolute() else root / path
    try:
        resolved = candidate.resolve()
        if not resolved.is_relative_to(root.resolve()):
            return None
        return resolved.read_text(encoding="utf-8", errors="replace").splitlines()
    except (OSError, ValueError):
        return None


def _called_with(source: list[str], line: int, keyword: str) -> str | None:
    """The name called with `keyword=` in the statement the traceback points at: Python 3.11
    and later name its first line, earlier ones its last, so the nearest `keyword=` on either
    side of `line` (1-based) is taken."""
    start = max(0, line - STATEMENT_LINES)
    text = "\n".join(source[start : line + STATEMENT_LINES])
    here = len("\n".join(source[start : line - 1]))
    found = [m.start() for m in re.finditer(rf"\b{re.escape(keyword)}\s*=(?!=)", text)]
    if not found:
        return None
    at = min(found, key=lambda pos: abs(pos - here))
    depth = 0
    for pos in range(at - 1, -1, -1):  # back to the parenthesis that opens the call
        if text[pos] == ")":
            depth += 1
        elif text[pos] == "(":
            if depth == 0:
                name = re.search(r"([A-Za-z_][\w.]*)\s*$", text[:pos])
                return name.group(1) if name else None
            depth -= 1
    return None


def imported_from(source: list[str], called: str) -> str | None:
    """The top-level package the file imports `called` (or its first part) from."""
    head = called.split(".")[0]
    for line in source:
        found = re.match(r"\s*from\s+([\w.]+)\s+import\s+(.+)", line)
        if found and re.search(rf"\b{re.escape(head)}\b", found.group(2)):
            return found.group(1).split(".")[0] if not found.group(1).startswith(".") else None
        listed = re.match(
            r"\s*import\s+([\w.]+(?:\s+as\s+\w+)?(?:\s*,\s*[\w.]+(?:\s+as\s+\w+)?)*)", line
        )
        for part in listed.group(1).split(",") if listed else ():  # `import os, imageio`
            module, _, alias = (w.strip() for w in part.partition(" as "))
            if head in (alias, module.split(".")[0]):
                return module.split(".")[0]
    return None
