"""Import names to the index's distribution names, from pipreqs' maintained mapping.

pipreqs (https://github.com/bndr/pipreqs) ships `mapping`, `import_name:distribution` lines for
the imports whose distribution is named otherwise (`sklearn:scikit_learn`, `yaml:PyYAML`); an
import it does not list is looked for on the index under its own name, as pipreqs does.
"""

from __future__ import annotations

import functools
import re
import sqlite3
import sys


@functools.cache
def import_mapping() -> dict[str, str]:
    """pipreqs' import name -> distribution table (empty when pipreqs is not installed)."""
    from importlib import resources

    try:
        text = resources.files("pipreqs").joinpath("mapping").read_text(encoding="utf-8")
    except (ModuleNotFoundError, FileNotFoundError):
        return {}
    table: dict[str, str] = {}
    for line in text.splitlines():
        name, sep, dist = line.strip().partition(":")
        if sep and name and dist:
            table.setdefault(name, dist)
    return table


def distribution_for(module: str) -> tuple[str, str]:
    """The distribution that provides top-level `module`, and where the answer came from."""
    mapped = import_mapping().get(module)
    if mapped:
        return mapped, "pipreqs mapping"
    return module, "its own name"


def canonical(name: str) -> str:
    """PEP 503 normalised project name."""
    return re.sub(r"[-_.]+", "-", name).lower()


@functools.cache
def modules_of(distribution: str) -> frozenset[str]:
    """Import names pipreqs maps to `distribution`, the top-level modules pigar's database lists
    for it, and its own name: the reverse question, what does this requirement provide?"""
    want = canonical(distribution)
    found = {m for m, d in import_mapping().items() if canonical(d) == want}
    found |= pigar_modules(distribution)  # `opencv-python` ships `cv2`, which pipreqs omits
    own = re.sub(r"[-.]", "_", distribution)
    found |= {own, own.lower()}  # PyAudio is imported as pyaudio
    return frozenset(found)


def pigar_rows(query: str, parameters: list[str]) -> list[tuple[str, ...]]:
    """Rows of `query` on pigar's database of the top-level modules every PyPI distribution
    ships (https://github.com/damnever/pigar), read-only; none without the database."""
    from importlib import resources

    try:
        path = resources.files("pigar").joinpath(".db.sqlite3")
    except ModuleNotFoundError:
        return []
    if not path.is_file():
        return []
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        return db.execute(query, parameters).fetchall()


@functools.cache
def pigar_modules(distribution: str) -> frozenset[str]:
    """Top-level modules pigar's database lists for `distribution`, under any spelling of its
    name (empty without the database)."""
    plain = canonical(distribution)
    spellings = sorted({distribution, distribution.lower(), plain, plain.replace("-", "_")})
    marks = ",".join("?" * len(spellings))
    rows = pigar_rows(
        "SELECT t.name FROM top_level_module_names t JOIN distributions d "
        f"ON t.distribution_id = d.id WHERE d.name IN ({marks})",
        spellings,
    )
    # A standard-library name a package also ships (`test`, `typing`) would read as a backport.
    standard = sys.stdlib_module_names
    return frozenset(r[0] for r in rows if not r[0].startswith("_") and r[0] not in standard)
