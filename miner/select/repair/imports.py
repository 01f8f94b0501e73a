"""The distribution that provides an import, on the index the install uses.

pipreqs' mapping answers first (miner.select.repair.names); then the project named like the
import; then pigar's database of the top-level modules every distribution on PyPI ships
(https://github.com/damnever/pigar), where `cv2` is listed for twenty distributions: of those the
index has, the one published first is the original, the rest are repackagings of it.
"""

from __future__ import annotations

import functools
import sqlite3
from datetime import datetime, timezone

from miner.select.repair.index import IndexSource, releases
from miner.select.repair.names import canonical, distribution_for

EPOCH = datetime.max.replace(tzinfo=timezone.utc)


@functools.cache
def pigar_candidates(module: str) -> tuple[str, ...]:
    """Distributions pigar's database lists as shipping top-level `module` (empty without it)."""
    from importlib import resources

    try:
        path = resources.files("pigar").joinpath(".db.sqlite3")
    except ModuleNotFoundError:
        return ()
    if not path.is_file():
        return ()
    with sqlite3.connect(f"file:{path}?mode=ro", uri=True) as db:
        rows = db.execute(
            "SELECT d.name FROM top_level_module_names t JOIN distributions d "
            "ON t.distribution_id = d.id WHERE t.name = ? ORDER BY d.name",
            (module,),
        ).fetchall()
    return tuple(row[0] for row in rows)


def distribution_on_index(
    module: str, source: IndexSource, as_of: str | None = None
) -> tuple[str, str] | None:
    """(distribution, where the answer came from) for `module`, None when the index has none."""
    dist, why = distribution_for(module)
    if releases(source, dist, as_of):
        return dist, why
    first: tuple[datetime, str] | None = None
    for name in pigar_candidates(module):
        if canonical(name) == canonical(dist):
            continue
        found = releases(source, name, as_of)
        if not found:
            continue
        when = min((r.uploaded or EPOCH for r in found), default=EPOCH)
        if first is None or when < first[0]:
            first = (when, name)
    if first is None:
        return None
    count = len(pigar_candidates(module))
    return first[1], f"pigar's database, the first published of {count} that ship it"
