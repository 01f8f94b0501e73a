"""Modules the code imports in another case than their file is named: `from dataset import
Tedd1104Dataset` beside `Dataset.py`.

Windows and macOS file systems ignore case, so the import finds the file where the authors ran
it; on Linux it does not, and finds an installed namesake (the index's `dataset`) or nothing.
The smoke copy, thrown away after the run, gets a link in the case the code imports beside the
file (`dataset.py -> Dataset.py`), in the importer's folder or at the root, where the import
looks. Names of the standard library are never linked: a local `Queue.py` must not stand in
for `queue`.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

IMPORTED = re.compile(
    r"^[ \t]*(?:from[ \t]+([A-Za-z_]\w*)[\w.]*[ \t]+import\b|import[ \t]+([A-Za-z_]\w*))", re.M
)
MAX_FILES = 3000  # a checkout's Python files read for imports


def _modules(folder: Path) -> dict[str, str]:
    """Lower-cased module name -> the file or package folder's own name, for `folder`."""
    found: dict[str, str] = {}
    try:
        entries = list(folder.iterdir())
    except OSError:
        return found
    for entry in entries:
        if entry.suffix == ".py" and entry.is_file():
            found.setdefault(entry.stem.lower(), entry.name)
        elif entry.is_dir() and (entry / "__init__.py").is_file():
            found.setdefault(entry.name.lower(), entry.name)
    return found


def case_aliases(copy: Path) -> list[str]:
    """Link each module imported in another case than its file's; a note per link."""
    notes: list[str] = []
    listings: dict[Path, dict[str, str]] = {}
    files = [p for p in copy.rglob("*.py") if ".git" not in p.parts][:MAX_FILES]
    for path in files:
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in IMPORTED.finditer(text):
            name = match.group(1) or match.group(2)
            if name in sys.stdlib_module_names:
                continue
            for folder in dict.fromkeys((path.parent, copy)):
                if folder not in listings:  # each folder listed once
                    listings[folder] = _modules(folder)
                modules = listings[folder]
                actual = modules.get(name.lower())
                if actual is None:
                    continue
                stem = actual.removesuffix(".py")
                if stem != name:
                    link = folder / (name + (".py" if actual.endswith(".py") else ""))
                    link.symlink_to(actual)
                    modules[name.lower()] = link.name  # linked once
                    where = link.relative_to(copy)
                    notes.append(f"case: `import {name}` finds {actual} where case is "
                                 f"ignored; {where} linked to it")  # fmt: skip
                break
    return notes
