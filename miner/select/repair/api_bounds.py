"""A framework left open (`tensorflow`, `tensorflow>=1.4`) whose code calls an API a later major
removed (`tf.placeholder`, `tf.contrib`, gone in TensorFlow 2.0): pinned to the newest release
before the removal, so that the resolver does not pick the release the code cannot run on.

The table of such APIs is the one `miner lint` reads for MNR206 (miner.lint.statements); the
code read is the training closure's own files.
"""

from __future__ import annotations

import re
from pathlib import Path

from packaging.version import InvalidVersion, Version

from miner.codebook import Evidence
from miner.lint.statements import API_VERSIONS, COMPAT_V1, PACKAGE_FAMILY
from miner.select.repair.index import IndexSource, releases
from miner.select.repair.records import Repair
from miner.select.repair.requirements import requirement

MAX_LINES = 20_000  # lines read per file


def imports(text: str, module: str) -> bool:
    """True when the source imports `module` (`import pandas as pd`, `from pandas import x`)."""
    return re.search(rf"^\s*(?:import|from)\s+{re.escape(module)}\b", text, re.M) is not None


def removed_api_calls(root: Path, files: tuple[str, ...]) -> dict[str, tuple[str, Evidence]]:
    """family -> (the first release without it, the first call of a removed API), read from the
    closure's `files` under `root`; a file that imports the compatibility module is skipped."""
    found: dict[str, tuple[str, Evidence]] = {}
    for rel in files:
        try:
            text = (root / rel).read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        lines = text.splitlines()[:MAX_LINES]
        if any(COMPAT_V1.search(line) for line in lines):
            continue
        for api in API_VERSIONS:
            if api.until is None or api.family in found:
                continue
            if api.imported and not imports(text, api.imported):
                continue
            for number, line in enumerate(lines, start=1):
                if api.pattern.search(line) and not line.lstrip().startswith("#"):
                    evidence = Evidence(rel, number, line.strip()[:200], "repair.api_bound")
                    found[api.family] = (api.until, evidence)
                    break
    return found


def bound_to_api(
    lines: list[str], root: Path, files: tuple[str, ...], source: IndexSource, as_of: str | None
) -> tuple[list[str], list[Repair]]:
    """`lines` with each open framework requirement whose code calls a removed API pinned to
    the newest release before the removal (a missing one added so), each change recorded."""
    removed = removed_api_calls(root, files)
    if not removed:
        return lines, []
    out = list(lines)
    repairs: list[Repair] = []
    for family, (until, call) in removed.items():
        limit = Version(until)
        named = [(i, r) for i, ln in enumerate(out) if (r := requirement(ln)) is not None
                 and PACKAGE_FAMILY.get(r.name.lower()) == family]  # fmt: skip
        if any(_bounded(r.specifier, limit) for _, r in named):
            continue  # pinned or bounded already: the authors' own words stand
        name = named[0][1].name if named else family
        last = _last_before(source, name, limit, as_of)
        if last is None:
            continue
        fixed = f"{name}=={last}"
        before = out[named[0][0]] if named else ""
        if named:
            out[named[0][0]] = fixed
        else:
            out.append(fixed)
        reason = (f"the code calls {call.text[:60]!r} ({call.path}:{call.line}), which "
                  f"{family} {until} removed; {last} is the last release before it")  # fmt: skip
        repairs.append(Repair("api_bound", before, fixed, reason, call))
    return out, repairs


def _bounded(specifier: object, limit: Version) -> bool:
    """True when every version the specifier admits is below `limit`, or it pins one."""
    for spec in specifier:  # type: ignore[attr-defined]
        if spec.operator in ("==", "==="):
            return True
        if spec.operator in ("<", "<=", "~="):
            try:
                if Version(spec.version.rstrip(".*")) <= limit:
                    return True
            except InvalidVersion:
                continue
    return False


def _last_before(source: IndexSource, name: str, limit: Version, as_of: str | None) -> str | None:
    """The newest final release of `name` below `limit` the index has (as of the date, else any
    date: a project of 2021 may still need the 1.x line that ended in 2020)."""
    for date in (as_of, None):
        found = releases(source, name, date) or []
        below = [r.version for r in found if r.version < limit and not r.version.is_prerelease]
        if below:
            return str(max(below))
    return None
