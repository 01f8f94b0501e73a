"""The interpreter a project's environment is made from: the newest, among those of the
commit's time, for which every pinned framework has a wheel; then the others in the order of
miner.select.pythons (older ones first, then newer).
"""

from __future__ import annotations

from miner.codebook import Evidence
from miner.select.pythons import interpreter_version, pythons_in_order
from miner.select.repair.index import IndexSource, releases
from miner.select.repair.records import Repair
from miner.select.repair.requirements import requirement
from miner.select.versions import PACKAGES


def pinned_frameworks(lines: list[str]) -> list[tuple[str, str, str]]:
    """(line, name, version) of each framework requirement pinned with `==`."""
    out = []
    for line in lines:
        parsed = requirement(line)
        if parsed is None or parsed.name.lower().replace("_", "-") not in PACKAGES:
            continue
        exact = [s.version for s in parsed.specifier if s.operator in ("==", "===")]
        if exact and not exact[0].endswith(".*"):
            out.append((line, parsed.name, exact[0]))
    return out


def interpreters_for(
    choices: tuple[str, ...],
    commit_date: str | None,
    lines: list[str],
    source: IndexSource,
    as_of: str | None,
) -> tuple[list[str], list[Repair]]:
    """Interpreters to try, best first, and the record of a choice the pins made."""
    ordered = pythons_in_order(choices, commit_date)
    pins = pinned_frameworks(lines)
    if len(ordered) < 2 or not pins:
        return ordered, []
    fits: dict[str, list[str]] = {}
    for interpreter in ordered:
        version = interpreter_version(interpreter)
        if version is None:
            continue
        fits[interpreter] = []
        for _, name, pin in pins:
            found = releases(source, name, as_of)
            if found is None:
                return ordered, []  # the index does not answer: keep the date's order
            release = next((r for r in found if str(r.version) == pin), None)
            if release is not None and release.wheel_for(version):
                fits[interpreter].append(name)
    good = [i for i in ordered if len(fits.get(i, [])) == len(pins)]
    if not good or good[0] == ordered[0]:
        return ordered, []
    # Of those the pins allow, the first in the date's order (the date's own pick, else the
    # newest older one, else the oldest newer one).
    chosen = good[0]
    before = interpreter_version(ordered[0]) or (0, 0)
    after = interpreter_version(chosen) or (0, 0)
    pinned = ", ".join(f"{name}=={pin}" for _, name, pin in pins)
    repair = Repair(
        "interpreter", "Python {}.{}".format(*before), "Python {}.{}".format(*after),
        f"{pinned} has no wheel for Python {before[0]}.{before[1]}",
        Evidence("requirements.txt", 0, pins[0][0], "repair.interpreter.pins"),
    )  # fmt: skip
    return [chosen, *(i for i in ordered if i != chosen)], [repair]
