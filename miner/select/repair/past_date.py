"""The dependencies of a release let past the commit's date come from its time too.

A project that had no release of a package by its commit's date gets the package past the date
(repair `date`): ggnn.pytorch asks for `torch>=0.2` in February 2018, before PyTorch was on the
index, and gets torch 1.10.2. The packages torch itself requires are still resolved at the date,
older than the release was built against: torch 1.10.2 imports `Final` from typing_extensions
3.6.2.1, which added it only in 3.7.4, and stops at `ImportError: cannot import name 'Final'`.
When a module fails so while packages have been let past the date, what those packages require
is let past the date too and installed again, once, and the imports are checked again.
"""

from __future__ import annotations

import json
import re
import subprocess
from dataclasses import replace
from typing import TYPE_CHECKING

from miner.codebook import Evidence
from miner.select.repair.names import canonical
from miner.select.repair.records import Repair
from miner.select.repair.requirements import name_of

if TYPE_CHECKING:
    from miner.select.repair.attempt import Attempt
    from miner.select.repair.envs import Builder

STALE_NAME = re.compile(r"^ImportError: cannot import name ")
# What installed distributions require, read in the environment (Python 2.7 to today).
REQUIRES = r"""
import json, sys
out = {}
for name in json.loads(sys.argv[1]):
    try:
        import importlib.metadata as md
        found = [r.split(";")[0] for r in (md.requires(name) or []) if "extra ==" not in r]
    except Exception:
        try:
            import pkg_resources
            found = [str(r) for r in pkg_resources.get_distribution(name).requires()]
        except Exception:
            found = []
    out[name] = found
print("MINER-REQUIRES " + json.dumps(out))
"""


def required_by(builder: Builder, names: tuple[str, ...]) -> list[str]:
    """The distributions that the installed `names` require, by canonical name."""
    argv = [str(builder.python), "-c", REQUIRES, json.dumps(list(names))]
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=120, check=False,
                              env=builder.env, cwd=builder.work)  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return []
    for line in done.stdout.splitlines():
        if line.startswith("MINER-REQUIRES "):
            found = json.loads(line[len("MINER-REQUIRES ") :])
            listed = (name_of(r) for required in found.values() for r in required)
            return sorted({canonical(n) for n in listed if n})
    return []


def companions_past_date(
    attempt: Attempt, broken: dict[str, str], good: list[str]
) -> tuple[list[str], dict[str, str]]:
    """Let past the date what the packages already let past it require, when an import stops
    at a name its dependency does not have yet. Returns the new good state and what still
    fails (unchanged when nothing was tried or the install failed)."""
    past = attempt.builder.past_date
    stale = sorted(m for m, error in broken.items() if STALE_NAME.match(error))
    if not stale or not past:
        return good, broken
    done = {canonical(n) for n in past}
    companions = [n for n in required_by(attempt.builder, past) if n not in done]
    if not companions:
        return good, broken
    state, builder = attempt.checkpoint(), attempt.builder
    attempt.builder = replace(builder, past_date=(*past, *companions))
    attempt.builder.uninstall(companions)  # installed at the date: an install keeps them else
    attempt.lines += [c for c in companions if c not in attempt.lines]
    failure, after = attempt.install_repaired(good)
    if failure is not None:
        attempt.builder = builder
        attempt.builder.restore(good)
        attempt.rollback(state)
        return good, broken
    where = Evidence("import check", 0, f"import {stale[0]}: {broken[stale[0]]}"[:200],
                     "repair.date.companions")  # fmt: skip
    for name in companions:
        attempt.repairs.append(Repair(
            "date", name, f"{name} past {(attempt.as_of or '')[:10]}",
            f"required by {', '.join(past)}, let past the commit's date; at the date it lacks "
            "what they import", where,
        ))  # fmt: skip
    return after, attempt.builder.probe(list(attempt.closure.names), "import")
