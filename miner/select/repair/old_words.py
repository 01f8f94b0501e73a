"""Import errors in the words of Python 2 and 3.6, restated as today's Python words them.

Python 2 says `ImportError: No module named serialization` for `from torch.utils.serialization
import load_lua`, and Python 2 and 3.6 say `cannot import name downsample` without the module it
was imported from. The repairs read the module's full name from the error (`torch` is the
distribution to move, not `serialization`), so the traceback's code line above the error, the
import statement itself, supplies what the message leaves out.
"""

from __future__ import annotations

import re

OLD_MISSING = re.compile(r"^(ImportError: No module named) ([A-Za-z_]\w*)\s*$")
OLD_NO_NAME = re.compile(r"^ImportError: cannot import name '?(\w+)'?\s*$")
FROM_IMPORT = re.compile(r"^\s*from\s+([A-Za-z_][\w.]*)\s+import\s+\(?([\w\s,]+?)\)?\s*(?:#.*)?$")
IMPORT = re.compile(r"^\s*import\s+([\w.,\s]+?)\s*(?:#.*)?$")


def in_todays_words(line: str, code: str, installed: bool) -> str:
    """`line`, an error of a traceback whose code line above it is `code`, in the words of
    Python 3.7 and later when the old words leave out the module (`No module named
    'torch.utils.serialization'`, `cannot import name 'downsample' from 'theano.tensor.signal'
    (site-packages/...)`); `line` itself otherwise. `installed`: whether the module's top-level
    package is an installed one (not the project's), which the newer words show by its path."""
    text = line.strip()
    missing = OLD_MISSING.match(text)
    if missing:
        leaf = missing.group(2)
        dotted = next((name for name in _imported_modules(code)
                       if "." in name and name.rsplit(".", 1)[1] == leaf), None)  # fmt: skip
        return f"{missing.group(1)} '{dotted}'" if dotted else line
    no_name = OLD_NO_NAME.match(text)
    statement = FROM_IMPORT.match(code)
    if no_name and statement and no_name.group(1) in _names(statement.group(2)):
        module = statement.group(1)
        if module.startswith("."):
            return line  # a relative import: the project's own package
        where = "/site-packages/" if installed else "/"
        path = where + module.replace(".", "/") + "/__init__.py"
        return f"ImportError: cannot import name '{no_name.group(1)}' from '{module}' ({path})"
    return line


def imported_top(code: str) -> str:
    """The top-level package the import statement `code` imports from, "" when it is none."""
    statement = FROM_IMPORT.match(code)
    if statement:
        return "" if statement.group(1).startswith(".") else statement.group(1).split(".")[0]
    modules = _imported_modules(code)
    return modules[0].split(".")[0] if modules else ""


def _imported_modules(code: str) -> list[str]:
    statement = FROM_IMPORT.match(code)
    if statement:  # `from torch.utils.serialization import load_lua`; `from a import b` (a.b)
        base = statement.group(1)
        return [base, *(f"{base}.{name}" for name in _names(statement.group(2)))]
    plain = IMPORT.match(code)
    if plain:
        return [part.split(" as ")[0].strip() for part in plain.group(1).split(",")]
    return []


def _names(listed: str) -> list[str]:
    return [part.split(" as ")[0].strip() for part in listed.split(",") if part.strip()]
