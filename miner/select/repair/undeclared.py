"""Imports nothing declares, installed with the same repairs as the declared requirements: the
entry point's own (`import cv2` with no opencv in the requirements) and a dependency's (Keras,
which imports the TensorFlow it never declares)."""

from __future__ import annotations

import re
from functools import partial
from pathlib import Path
from typing import TYPE_CHECKING

from miner.codebook import Evidence
from miner.select.repair.imports import (
    buildable_alternative,
    distribution_on_index,
    namespace_part_on_index,
)
from miner.select.repair.index import newest_release
from miner.select.repair.moves import companion, pillow_bound
from miner.select.repair.names import canonical
from miner.select.repair.records import Repair
from miner.select.repair.requirements import dated, name_of

if TYPE_CHECKING:
    from miner.select.repair.attempt import Attempt

# setuptools' own top-level modules; many projects on the index vendor copies of them.
SETUPTOOLS_MODULES = frozenset({"setuptools", "pkg_resources", "_distutils_hack", "distutils"})
NO_MODULE = re.compile(r"No module named '([A-Za-z_]\w*)")


def add_undeclared(attempt: Attempt, good: list[str]) -> list[str]:
    """Install the distributions of the entry point's imports the environment does not have:
    all at once, else one at a time; each with its reason. Returns the new good state."""
    missing = attempt.builder.probe(list(attempt.closure.names))
    wanted: list[tuple[str, str, str, Evidence]] = []
    for module in missing:
        if module in SETUPTOOLS_MODULES:
            continue  # setuptools comes with the environment's own step (Attempt._setuptools)
        if module in attempt.shipped:
            continue  # the checkout has it (a folder the code puts on sys.path itself)
        where = dict(attempt.closure.imports)[module]
        found = _namespace_part(where.text, module, attempt) or distribution_on_index(
            module, attempt.source
        )
        if found is None:
            continue
        dist, why = found
        if any(canonical(name_of(ln)) == canonical(dist) for ln in attempt.lines):
            continue  # declared, so it installed and still lacks the module: leave it
        other = buildable_alternative(module, dist, attempt.source, attempt.version)
        if other is not None:
            dist, why = other[0], f"{why}; {other[1]}"
        if canonical(dist) in attempt.pins:
            dist, why = attempt.pins[canonical(dist)], f"{why}, at the version of the freeze"
        dist, why = _with_companion(attempt.lines, dist, why)
        if attempt.builder.python2 and attempt.as_of:  # pip has no date filter of its own
            (dist,), _ = dated([dist], partial(newest_release, attempt.source, attempt.as_of))
        wanted.append((module, dist, f"imported, never declared ({why})", where))
        bound = pillow_bound([*attempt.lines, dist])
        if bound is not None:
            wanted.append(("PIL", bound[0], bound[1], where))
    return _install(attempt, wanted, good)


def _namespace_part(line: str, module: str, attempt: Attempt) -> tuple[str, str] | None:
    """`import ruamel.yaml`: the distribution of the namespace package's part (`ruamel.yaml`),
    when one has that name; None otherwise."""
    match = re.search(rf"\b{re.escape(module)}\.([A-Za-z_]\w*)", line)
    if match is None:
        return None
    return namespace_part_on_index(module, f"{module}.{match.group(1)}", attempt.source)


def add_missing_dependencies(
    attempt: Attempt, broken: dict[str, str], good: list[str]
) -> tuple[list[str], dict[str, str]]:
    """A module an installed dependency imports and nobody installed: its distribution added,
    then the imports checked again. Returns the new good state and what still fails."""
    wanted: list[tuple[str, str, str, Evidence]] = []
    for module, error in sorted(broken.items()):
        match = NO_MODULE.search(error)
        if not match or match.group(1) == module or match.group(1) in attempt.closure.names:
            continue
        needed = match.group(1)
        if needed in SETUPTOOLS_MODULES:
            continue
        found = distribution_on_index(needed, attempt.source)
        if found is None or any(w[0] == needed for w in wanted):
            continue
        if canonical(found[0]) in attempt.unbuilt:
            continue  # its build failed and it was dropped (torch-sparse past the install bound)
        where = Evidence("import check", 0, f"import {module}: {error}"[:200],
                         "repair.import.dependency")  # fmt: skip
        dist, why = _with_companion(attempt.lines, found[0], f"{module} imports {needed}, "
                                    f"which nothing declares ({found[1]})")  # fmt: skip
        wanted.append((needed, dist, why, where))
    if not wanted:
        return good, broken
    good = _install(attempt, wanted, good)
    return good, attempt.builder.probe(list(attempt.closure.names), "import")


def shipped_modules(root: Path) -> frozenset[str]:
    """Top-level names the checkout ships anywhere: `x.py` files and folders with
    `__init__.py`, at any depth."""
    names = {p.stem for p in root.rglob("*.py") if not _wraps_its_namesake(p, root)}
    names |= {p.parent.name for p in root.rglob("__init__.py")}
    return frozenset(names)


def _wraps_its_namesake(path: Path, root: Path) -> bool:
    """True for a module below the root that imports the package of its own name
    (`models/darts.py` with `from darts import TimeSeries`): it wraps that package, it does
    not provide it."""
    if path.parent == root or path.stem == "__init__":
        return False  # at the root, `darts.py` is what `import darts` finds first
    try:
        text = path.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return False
    name = re.escape(path.stem)
    return bool(re.search(rf"(?m)^\s*(?:from\s+{name}(?:\.[\w.]+)?\s+import\b|import\s+{name}\b)",
                          text))  # fmt: skip


def _with_companion(lines: list[str], dist: str, why: str) -> tuple[str, str]:
    """An added torchvision, torchaudio or torchtext at the release built for the pinned torch
    (the old ones are yanked: only an exact pin installs them)."""
    for index, line, reason in companion([*lines, dist]):
        if index == len(lines):
            return line, f"{why}; {reason}"
    return dist, why


def _install(
    attempt: Attempt, wanted: list[tuple[str, str, str, Evidence]], good: list[str]
) -> list[str]:
    batches = [wanted] if len(wanted) > 1 else []
    batches += [[w] for w in wanted]
    for batch in batches:
        if not batch or all(dist in attempt.lines for _, dist, _, _ in batch):
            continue
        state = attempt.checkpoint()
        attempt.lines += [dist for _, dist, _, _ in batch if dist not in attempt.lines]
        failure, after = attempt.install_repaired(good)
        if failure is not None:
            attempt.builder.restore(good)
            attempt.rollback(state)
            if len(batch) == 1:
                attempt.unbuilt.add(canonical(name_of(batch[0][1])))
            continue
        good = after
        for module, dist, why, where in batch:
            attempt.repairs.append(Repair("import", f"import {module}", dist, why, where))
        if len(batch) > 1:
            break
    return good
