"""An unpinned package moved back to an older release when the run imports from it a part that
its installed release lacks, or when it imports from a package held at an older release.

A run stops at `cannot import name 'X' from 'pkg'` for one of two reasons: `pkg` is too new (it
removed X) or the package importing it is too new for the `pkg` release the requirements or an
earlier repair hold. The first moves `pkg` to the release of its importer's era, else a release
line back; the second moves the importer to its release of the held package's era.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import TYPE_CHECKING

from packaging.version import InvalidVersion, Version

from miner.select.repair.attempt import EnvironmentBuild
from miner.select.repair.envs import Builder
from miner.select.repair.imports import distribution_on_index
from miner.select.repair.index import IndexSource, newest_release, releases
from miner.select.repair.names import canonical
from miner.select.repair.past_date import required_by
from miner.select.repair.records import Repair
from miner.select.repair.requirements import is_option, name_of, requirement

if TYPE_CHECKING:
    from miner.select.repair.runtime import RuntimeFault


# Release lines one feature may walk a package back (after its era's release, when known):
# imageio's `imread(..., ignoregamma=True)` for bmild/nerf is four back (2.31 to 2.27);
# accelerate's `DummyOptim`, exported only where deepspeed is installed, walked six.
MAX_STEPS_BACK = 4


def older_release(
    built: EnvironmentBuild, fault: RuntimeFault, builder: Builder, env: dict[str, str],
    why: str = "", held_by: tuple[str, str, IndexSource] | None = None,
) -> EnvironmentBuild | None:  # fmt: skip
    """`built` with the distribution of `fault.module` moved below its installed release line
    (`timm<1.0` where timm 1.0.9 is installed and lacks `timm.models.layers.helpers`), when the
    requirements do not pin it; None otherwise or when that does not install. Where it is
    moved because it imports from a package the requirements or a repair hold at a release
    (`held_by`: huggingface-hub held at 0.19.4, accelerate 0.32 imports what 0.23 added), its
    release of that package's era is tried first."""
    options = tuple(ln for ln in (*built.options, *built.lines) if is_option(ln))
    mapped = distribution_on_index(fault.module, IndexSource.of(options, env), built.as_of)
    names = {canonical(fault.module), *((canonical(mapped[0]),) if mapped else ())}
    installed = [ln for ln in builder.freeze() if canonical(ln.split("==")[0]) in names]
    if len(installed) != 1 or "==" not in installed[0]:
        return None
    dist, version = installed[0].split("==", 1)
    walked = [r for r in built.repairs if r.kind == "older" and fault.feature in r.reason
              and canonical(name_of(r.before)) == canonical(dist)]  # fmt: skip
    if len(walked) >= MAX_STEPS_BACK:
        return None  # release lines back, still missing: never there, or something else lacks
    # a bound an earlier step of this repair set may go one release line further back, and so
    # may the date's bound on an import nobody declared (`torch<=1.2.0` for Python 2's pip)
    stepped = {r.after for r in built.repairs if r.kind in ("older", "import", "era")
               and "==" not in r.after}  # fmt: skip
    # the release an API bound chose is miner's (the newest before a removal), not the
    # project's: code that needs an older API still moves it back (`tensorflow==1.14.0` for
    # `tensorflow.contrib.data.Iterator`)
    chosen_pins = {r.after for r in built.repairs if r.kind == "api_bound"}
    stepped |= chosen_pins
    # that pin gives way to the bound (a pin beside a lower bound would admit nothing)
    kept = [ln for ln in built.lines if not (ln in chosen_pins and _holds(ln, dist))]
    if any(_holds(line, dist) for line in built.lines if line not in stepped):
        if fault.importer:  # the package that imports it is too new for the release held
            pinned = any(_holds(line, dist, ("==", "===")) for line in built.lines)
            how = "pinned" if pinned else "held"
            why = f"it imports {fault.feature}, which {dist} {version} ({how}) does not have"
            importer = replace(fault, module=fault.importer, importer="", feature="")
            held = (dist, version, IndexSource.of(options, env))
            return older_release(built, importer, builder, env, why, held)
        return None  # the project (or a repair) asked for this release: the fault lies elsewhere
    source = IndexSource.of(options, env)
    tries: list[tuple[str, str, str | None]] = []  # (bound, why, the date of the era)
    if held_by is not None and (era_of_held := _era_of(dist, held_by)) is not None:
        tries.append((era_of_held[0], why, era_of_held[1]))  # one step to the held one's era
    era = _importer_era(fault, dist, version, builder, source)
    if era is None and not fault.importer and built.as_of:
        era = _project_era(fault, dist, version, built.as_of, source)
    if era is not None:  # the importer's era first; where that does not install, a line back
        tries.append(era)
    parts = version.split(".")
    if parts[0].isdigit() and (len(parts) < 2 or parts[1].isdigit()):
        line = f"{parts[0]}.{parts[1]}" if len(parts) > 1 and parts[1] != "0" else parts[0]
        tries.append((f"{dist}<{line}", why or (f"{fault.feature} is not in {dist} {version}, "
                                                "the release installed; the release line "
                                                "before it"), None))  # fmt: skip
    chosen = next((t for t in tries if t[0] not in kept
                   and builder.install([*kept, t[0]]).exit_code == 0), None)  # fmt: skip
    if chosen is None:
        return None
    bound, why, when = chosen
    with builder.log.open("a", encoding="utf-8") as fh:
        fh.write(f"miner: repair older: {dist}=={version} -> {bound}: {why} "
                 f"({fault.evidence.path}:{fault.evidence.line})\n")  # fmt: skip
    evidence = replace(fault.evidence, rule="repair.older.runtime")
    repairs = [Repair("older", f"{dist}=={version}", bound, why, evidence)]
    lines = [*kept, bound]
    if when is not None:  # its own requirements go back to its era with it
        for before, after in _installed_together(builder, lines, _companions_of_era(
                builder, dist, when, lines, source)):  # fmt: skip
            reason = (f"{dist} went back to its release as of {when[:10]}, and requires "
                      f"{before.split('==')[0]}; {after.split('<=')[1]} is its newest "
                      "release then")  # fmt: skip
            repairs.append(Repair("older", before, after, reason,
                                  replace(evidence, rule="repair.older.era")))  # fmt: skip
            lines.append(after)
            with builder.log.open("a", encoding="utf-8") as fh:
                fh.write(f"miner: repair older: {before} -> {after}: {reason}\n")
    return replace(built, repairs=(*built.repairs, *repairs), lines=tuple(lines))


def _installed_together(
    builder: Builder, lines: list[str], companions: list[tuple[str, str]]
) -> list[tuple[str, str]]:
    """The companions that install beside `lines`: all at once, else each that does, one by
    one; the environment is left with `lines` and those."""
    if not companions:
        return []
    if builder.install([*lines, *(after for _, after in companions)]).exit_code == 0:
        return companions
    kept: list[tuple[str, str]] = []
    last_ok = True
    for companion in companions:
        last_ok = builder.install([*lines, *(a for _, a in kept), companion[1]]).exit_code == 0
        if last_ok:
            kept.append(companion)
    if not last_ok:
        builder.install([*lines, *(a for _, a in kept)])
    return kept


def _companions_of_era(
    builder: Builder, dist: str, when: str, lines: list[str], source: IndexSource
) -> list[tuple[str, str]]:
    """(`llvmlite==0.35.0`, `llvmlite<=0.29.0`) for each requirement of the installed `dist`
    that is installed at a release newer than its newest on `when`, and that `lines` do not
    hold: numba moved back to 2019 calls llvmlite as llvmlite was in 2019."""
    installed = dict(ln.split("==", 1) for ln in builder.freeze() if "==" in ln)
    requires = required_by(builder, (dist,))
    return era_bounds(requires, installed, lines, lambda name: newest_release(source, when, name))


def era_bounds(
    requires: list[str], installed: dict[str, str], lines: list[str],
    newest: Callable[[str], str | None],
) -> list[tuple[str, str]]:  # fmt: skip
    """(`name==installed`, `name<=newest`) for each name of `requires` installed at a release
    newer than `newest(name)` and not held by `lines`."""
    versions = {canonical(name): (name, version) for name, version in installed.items()}
    bounds = []
    for wanted in dict.fromkeys(canonical(r) for r in requires):
        if wanted not in versions or any(_holds(line, wanted) for line in lines):
            continue
        name, version = versions[wanted]
        then = newest(name)
        try:
            if then is None or Version(then) >= Version(version):
                continue
        except InvalidVersion:
            continue
        bounds.append((f"{name}=={version}", f"{name}<={then}"))
    return bounds


def _importer_era(
    fault: RuntimeFault, dist: str, version: str, builder: Builder, source: IndexSource
) -> tuple[str, str, str] | None:
    """`dist<=N` and why, where N is the newest release of `dist` when the installed package
    that makes the failing import was released (diffusers 0.21 imports `cached_download`, which
    huggingface-hub 0.26 removed): one step to the importer's era instead of a release line a
    run; None when the importer or its release date is not known, or that is no older."""
    if not fault.importer:
        return None
    installed = [
        ln
        for ln in builder.freeze()
        if "==" in ln and canonical(ln.split("==")[0]) == canonical(fault.importer)
    ]
    if len(installed) != 1:
        return None
    importer, importer_version = installed[0].split("==", 1)
    found = releases(source, importer) or []
    release = next((r for r in found if str(r.version) == importer_version), None)
    if release is None or release.uploaded is None:
        return None
    when = release.uploaded.strftime("%Y-%m-%dT%H:%M:%SZ")
    newest = _older_on(source, when, dist, version)
    if newest is None:
        return None
    why = (f"{importer} {importer_version} imports {fault.feature}, which {dist} {version} does "
           f"not have; {newest} is the newest {dist} when {importer} {importer_version} was "
           f"released ({when[:10]})")  # fmt: skip
    return f"{dist}<={newest}", why, when


def _project_era(
    fault: RuntimeFault, dist: str, version: str, as_of: str, source: IndexSource
) -> tuple[str, str, str] | None:
    """`dist<=N` and why, where N is the newest release of `dist` on the project's commit date,
    when the project's own code makes the failing import and N is older than the installed
    release: torch 1.4 installed where a 2019 commit imports `torch.utils.serialization`."""
    newest = _older_on(source, as_of, dist, version)
    if newest is None:
        return None
    why = (f"the project imports {fault.feature}, which {dist} {version} does not have; "
           f"{newest} is the newest {dist} on the commit's date ({as_of[:10]})")  # fmt: skip
    return f"{dist}<={newest}", why, as_of


def _older_on(source: IndexSource, when: str, dist: str, version: str) -> str | None:
    """The newest release of `dist` on `when`, when it is older than `version`."""
    newest = newest_release(source, when, dist)
    try:
        return newest if newest is not None and Version(newest) < Version(version) else None
    except InvalidVersion:
        return None


HOLDING = ("==", "===", "<=", "<", "~=")


def _holds(line: str, dist: str, operators: tuple[str, ...] = HOLDING) -> bool:
    """True when requirement `line` holds `dist` at or below a release (`==`, `<=`, `<`, `~=`):
    the project's pin, or the bound of an earlier repair."""
    parsed = requirement(line)
    return (
        parsed is not None
        and canonical(parsed.name) == canonical(dist)
        and any(spec.operator in operators for spec in parsed.specifier)
    )


def _era_of(dist: str, held_by: tuple[str, str, IndexSource]) -> tuple[str, str] | None:
    """`dist<=N` and the date, N the newest release of `dist` when the held package's installed
    release came out; None when that date or release is not known."""
    held, held_version, source = held_by
    release = next((r for r in releases(source, held) or [] if str(r.version) == held_version),
                   None)  # fmt: skip
    if release is None or release.uploaded is None:
        return None
    when = release.uploaded.strftime("%Y-%m-%dT%H:%M:%SZ")
    newest = newest_release(source, when, dist)
    return None if newest is None else (f"{dist}<={newest}", when)
