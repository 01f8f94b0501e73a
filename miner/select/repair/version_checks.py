"""A version check the project wrote as a string comparison (`assert "1.4" <= tf.__version__`):
it holds from 1.4 to 1.9 and fails from 1.10 on, so the release line the check was written for
is the one to install (`tensorflow<1.10`)."""

from __future__ import annotations

import re
from pathlib import Path

from miner.select.repair.keywords import imported_from
from miner.select.repair.names import distribution_for

# "1.4" <= tf.__version__, tf.__version__ >= '1.4' (a one-digit minor: the compare breaks at .10)
STRING_CHECK = re.compile(
    r"""['"](\d+)\.(\d)(?:\.\d+)?['"]\s*<=?\s*([A-Za-z_]\w*)\.__version__"""
    r"""|([A-Za-z_]\w*)\.__version__\s*>=?\s*['"](\d+)\.(\d)(?:\.\d+)?['"]"""
)
MAX_FILES = 2000  # the checkout's modules read for the alias


def failed_check(above: list[str], root: Path) -> tuple[int, str, str, str] | None:
    """For the lines above an AssertionError: (lines back, the code line, the distribution bound,
    the module) when the failing line compares a version string; None otherwise."""
    for back, text in enumerate(reversed(above), start=1):
        code = text.strip()
        if code and not set(code) <= set("^~ "):  # past the markers of newer Pythons
            found = string_version_bound(code, root)
            return None if found is None else (back, code[:300], *found)
    return None


def string_version_bound(code: str, root: Path) -> tuple[str, str] | None:
    """(distribution bound, the module) for a failed check on `code`, the line of the assert or
    the `if` that raised; None when the line compares no version string."""
    match = STRING_CHECK.search(code)
    if match is None:
        return None
    major = match.group(1) or match.group(5)
    alias = match.group(3) or match.group(4)
    module = _imported_as(alias, root) or alias
    dist, _ = distribution_for(module)
    return f"{dist}<{major}.10", module


def _imported_as(alias: str, root: Path) -> str | None:
    """The module a checkout's file imports as `alias` (`import tensorflow as tf`); the run's
    folder may be below the root, so every module is looked in, not the traceback's file."""
    for number, path in enumerate(root.rglob("*.py")):
        if number == MAX_FILES:
            break
        try:
            source = path.read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError:
            continue
        if module := imported_from(source, alias):
            return module
    return None
