"""Requirements that only Python 2 installs: the project ran on Python 2.

`functools32` and `subprocess32` backport Python 3 modules to Python 2 and refuse Python 3;
`futures` 3 declares `python_requires <3`; `wsgiref`, `MySQL-python`, `pysqlite` and `trollius`
are Python 2's. A Python 3 build drops them as requirements that do not install, and the run
may then stop on what Python 2 did otherwise (a dependency's implicit relative import: `from
selectivesearch import selective_search` inside `selectivesearch/__init__.py`). When such a run
fails, the requirement is the evidence that the project is Python 2 code, as a `print`
statement would be, provided its files compile on Python 2 (a Python 3 project's freeze can
carry `futures` from a Python 2 machine; its f-strings do not compile there).
"""

from __future__ import annotations

import subprocess
from pathlib import Path
from typing import TYPE_CHECKING

from miner.codebook import Evidence
from miner.select.repair.envs import python2_interpreters
from miner.select.repair.names import canonical
from miner.select.repair.requirements import name_of

if TYPE_CHECKING:
    from miner.select.repair.attempt import EnvironmentBuild

PYTHON2_ONLY = frozenset(
    {"functools32", "subprocess32", "futures", "wsgiref", "mysql-python", "pysqlite", "trollius"}
)
RULE = "smoke.python2.requirement"
# Compiles (never runs) each file named on the command line; exits 1 at the first that fails.
COMPILES = (
    "import sys\n"
    "for name in sys.argv[1:]:\n"
    "    try:\n"
    "        compile(open(name, 'rb').read(), name, 'exec')\n"
    "    except SyntaxError:\n"
    "        sys.exit(1)\n"
)


def python2_requirement(built: EnvironmentBuild, root: Path) -> Evidence | None:
    """The requirement (kept, or dropped by a repair) that only Python 2 installs, as evidence
    that the project is Python 2 code; None when there is none or the entry point's files (in
    the checkout at `root`) do not compile on Python 2."""
    found = _requirement(built)
    if found is None or not compiles_on_python2(root, built.closure.files):
        return None
    return found


def compiles_on_python2(root: Path, files: tuple[str, ...]) -> bool:
    """Whether every file compiles on the newest 2.7 interpreter at hand (False without one)."""
    interpreters = python2_interpreters()
    if not interpreters:
        return False
    argv = [interpreters[0], "-c", COMPILES, *files]
    try:
        done = subprocess.run(argv, cwd=root, capture_output=True, timeout=120, check=False)
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _requirement(built: EnvironmentBuild) -> Evidence | None:
    for line in built.lines:
        if canonical(name_of(line)) in PYTHON2_ONLY:
            return Evidence("requirements", 0, line, RULE)
    for repair in built.repairs:
        if repair.kind == "drop" and canonical(name_of(repair.before)) in PYTHON2_ONLY:
            where = repair.evidence
            text = f"{repair.before}: a requirement only Python 2 installs"
            return Evidence(where.path, where.line, text, RULE)
    return None
