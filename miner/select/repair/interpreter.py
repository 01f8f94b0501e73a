"""The interpreter a project's environment is made from: among those of the commit's time, the
first for which every pinned framework has a wheel and, of those, the most other pins have one;
then the others in the order of miner.select.pythons (older ones first, then newer).
"""

from __future__ import annotations

from packaging.version import InvalidVersion, Version

from miner.codebook import Evidence
from miner.select.pythons import interpreter_version, pythons_in_order
from miner.select.repair.index import IndexSource, releases
from miner.select.repair.moves import companion
from miner.select.repair.records import Repair
from miner.select.repair.requirements import requirement
from miner.select.versions import PACKAGES

# The companions a framework's pin decides, by the module the code imports.
COMPANION_MODULES = ("torchvision", "torchaudio", "torchtext")


def pinned_frameworks(lines: list[str]) -> list[tuple[str, str, str]]:
    """(line, name, version) of each framework requirement pinned with `==`."""
    return [p for p in pinned(lines) if p[1].lower().replace("_", "-") in PACKAGES]


def pinned(lines: list[str]) -> list[tuple[str, str, str]]:
    """(line, name, version) of each requirement pinned with `==`."""
    out = []
    for line in lines:
        parsed = requirement(line)
        if parsed is None:
            continue
        exact = [s.version for s in parsed.specifier if s.operator in ("==", "===")]
        if exact and not exact[0].endswith(".*"):
            out.append((line, parsed.name, exact[0]))
    return out


def implied_companions(lines: list[str], imported: tuple[str, ...]) -> list[str]:
    """The companion release a pinned torch decides (`torchvision==0.14.0` for `torch==1.13`)
    for each companion the entry point imports and the requirements leave unpinned: it is
    installed with the framework, so it must have a wheel for the interpreter too."""
    out = []
    for _, line, _ in companion([*lines, *(m for m in COMPANION_MODULES if m in imported)]):
        parsed = requirement(line)
        if parsed is not None and parsed.name not in {n for _, n, _ in pinned(lines)}:
            out.append(line)
    return out


def _same(version: Version, pin: str) -> bool:
    """Whether release `version` is the one `==pin` names (`torch==1.6` is 1.6.0)."""
    try:
        return version == Version(pin)
    except InvalidVersion:
        return str(version) == pin


def interpreters_for(
    choices: tuple[str, ...],
    commit_date: str | None,
    lines: list[str],
    source: IndexSource,
    as_of: str | None,
    imported: tuple[str, ...] = (),
) -> tuple[list[str], list[Repair]]:
    """Interpreters to try, best first, and the record of a choice the pins made: every pinned
    framework with a wheel first, then as many of the other pins with one as possible (a pin
    with no wheel must build from source, which an old sdist seldom does on a newer Python).
    A companion the entry point imports (`imported`) counts as pinned where the framework's pin
    decides its release: torch 1.13 has a wheel for Python 3.11, torchvision 0.14 has none."""
    ordered = pythons_in_order(choices, commit_date)
    implied = implied_companions(lines, imported)
    pins = pinned([*lines, *implied])
    if len(ordered) < 2 or not pins:
        return ordered, []
    frameworks = {name for _, name, _ in pinned_frameworks(lines)}
    frameworks |= {name for _, name, _ in pinned(implied)}
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
            release = next((r for r in found if _same(r.version, pin)), None)
            if release is not None and release.wheel_for(version):
                fits[interpreter].append(name)

    def score(interpreter: str) -> tuple[bool, int]:
        fit = fits.get(interpreter, [])
        return frameworks <= set(fit), len(fit)

    best = max(score(i) for i in ordered)
    good = [i for i in ordered if score(i) == best]
    if score(ordered[0]) == best:
        return ordered, []
    # Of the best, the first in the date's order (the date's own pick, else the newest older
    # one, else the oldest newer one).
    chosen = good[0]
    before = interpreter_version(ordered[0]) or (0, 0)
    after = interpreter_version(chosen) or (0, 0)
    lacking = [f"{name}=={pin}" for _, name, pin in pins if name not in fits.get(ordered[0], [])
               and name in fits.get(chosen, [])]  # fmt: skip
    shown = ", ".join(lacking[:4]) + (f" and {len(lacking) - 4} more" if len(lacking) > 4 else "")
    line = next(ln for ln, name, pin in pins if f"{name}=={pin}" == lacking[0])
    repair = Repair(
        "interpreter", "Python {}.{}".format(*before), "Python {}.{}".format(*after),
        f"{shown} {'has' if len(lacking) == 1 else 'have'} no wheel for Python "
        f"{before[0]}.{before[1]}",
        Evidence("requirements.txt", 0, line, "repair.interpreter.pins"),
    )  # fmt: skip
    return [chosen, *(i for i in ordered if i != chosen)], [repair]
