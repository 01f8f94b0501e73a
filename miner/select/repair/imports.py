"""The distribution that provides an import, on the index the install uses.

pipreqs' mapping answers first (miner.select.repair.names). Then pigar's database of the
top-level modules every distribution on PyPI ships (https://github.com/damnever/pigar), where
`cv2` is listed for 27 distributions and `skimage` for a placeholder project too: of those the
index has, the ones with a long release history are kept (placeholders and repackagings have a
few), and of them the one named like the import, else the one published first (the original).
An import pigar does not know is looked for under its own name, as pipreqs does.
"""

from __future__ import annotations

import functools
import re
from datetime import datetime, timezone

from miner.select.repair.index import IndexSource, Release, releases
from miner.select.repair.names import canonical, distribution_for, pigar_rows

EPOCH = datetime.max.replace(tzinfo=timezone.utc)
GENERIC = 60  # more distributions than this ship the module: its name is a generic word
MIN_RELEASES = 10  # a maintained distribution has had at least this many releases
LONG_LIVED = 50  # releases of a distribution that owns a generic name (`datasets`)


@functools.cache
def pigar_candidates(module: str) -> tuple[str, ...]:
    """Distributions pigar's database lists as shipping top-level `module` (empty without it)."""
    rows = pigar_rows(
        "SELECT d.name FROM top_level_module_names t JOIN distributions d "
        "ON t.distribution_id = d.id WHERE t.name = ? ORDER BY d.name",
        [module],
    )
    return tuple(row[0] for row in rows)


def distribution_on_index(
    module: str, source: IndexSource, as_of: str | None = None
) -> tuple[str, str] | None:
    """(distribution, where the answer came from) for `module`, None when the index has none."""
    dist, why = distribution_for(module)
    candidates = pigar_candidates(module)
    if why != "its own name" or canonical(dist) not in {canonical(c) for c in candidates}:
        if releases(source, dist, as_of):  # pipreqs' answer, or a name pigar does not know
            return dist, why
    if len(candidates) > GENERIC:
        # A name hundreds of projects ship (`config`, `utils`) is nobody's, unless the
        # distribution of that very name has a release history few projects reach (`datasets`,
        # Hugging Face's, shipped as a top-level `datasets` by 70 distributions).
        if why == "its own name" and len(releases(source, dist, as_of) or ()) >= LONG_LIVED:
            return dist, f"{why}, the long-lived one of {len(candidates)} that ship it"
        return None
    found: dict[str, list[Release]] = {}
    for name in candidates:
        if listed := releases(source, name, as_of):
            found[name] = listed
    if not found:
        return None
    # A maintained distribution has a long release history; a repackaging or a project that
    # vendors the module has a few. Of the long-lived ones, the first published is the original.
    most = max(len(v) for v in found.values())
    kept = [n for n, v in found.items() if len(v) * 2 >= most]
    # pigar's own preference comes first: the distribution named like the import.
    first = min(kept, key=lambda n: (canonical(n) != canonical(module),
                                     min(r.uploaded or EPOCH for r in found[n]), n))  # fmt: skip
    if canonical(first) == canonical(dist):
        return dist, why
    if len(found[first]) < MIN_RELEASES:
        return None  # a project with a handful of releases is a bundle, not the original
    return first, f"pigar's database, the first published of {len(candidates)} that ship it"


def namespace_part_on_index(
    top: str, part: str, source: IndexSource, as_of: str | None = None
) -> tuple[str, str] | None:
    """(distribution, why) for `part` (`ruamel.yaml`), a part of the namespace package `top`
    that a distribution of its own name provides; None when there is none, or when `top` is
    itself a distribution (`torch.utils`, `tensorflow.keras`: parts of it, whatever else the
    index holds under the dotted name)."""
    own = distribution_on_index(top, source, as_of)
    if own is not None and own[1] == "its own name":
        return None
    found = distribution_on_index(part, source, as_of)
    if found is None or found[1] != "its own name":
        return None
    # `sklearn.preprocessing` on the index is a placeholder of a release or two, not the part
    # of scikit-learn the code imports; `ruamel.yaml` has a history of its own
    return found if len(releases(source, found[0], as_of) or []) >= MIN_RELEASES else None


GPU_BUILD = re.compile(r"(?i)gpu|cuda|[-_]cu\d")


def buildable_alternative(
    module: str, dist: str, source: IndexSource, python: tuple[int, int]
) -> tuple[str, str] | None:
    """(distribution, why) that ships `module` with a wheel for `python` when `dist` has neither
    such a wheel nor a source to build (`rdkit`, on the index from 2022 for Python 3.7 and
    later: `rdkit-pypi` has Python 3.6's; `faiss`, whose last wheels were for 3.7: `faiss-cpu`);
    of pigar's maintained candidates, a CPU build before a GPU one, then the first published.
    None when `dist` installs as it is, or nothing else ships the module."""
    listed = releases(source, dist)
    if listed is None or any(r.wheel_for(python) or r.has_sdist for r in listed):
        return None
    found: dict[str, list[Release]] = {}
    for name in pigar_candidates(module):
        if canonical(name) == canonical(dist):
            continue
        others = releases(source, name) or []
        if len(others) >= MIN_RELEASES and any(r.wheel_for(python) for r in others):
            found[name] = others
    if not found:
        return None
    best = min(found, key=lambda n: (bool(GPU_BUILD.search(n)),
                                     min(r.uploaded or EPOCH for r in found[n]), n))  # fmt: skip
    version = ".".join(map(str, python))
    return best, (f"{dist} has no build for Python {version}; {best} ships `{module}` "
                  f"and has one")  # fmt: skip
