"""Repairs a training run calls for, read from its log: a module imported by name at run time
that nothing declared (installed, then the run again), a part of an installed package that its
installed release no longer has (the package's previous release line, then the run again), and
a feature of the language this interpreter no longer has (the environment rebuilt on an
interpreter that has it).

Python's "What's New" pages list each removal; the table below holds those research code meets.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path

from miner.codebook import Evidence
from miner.select.repair.attempt import EnvironmentBuild
from miner.select.repair.envs import Builder
from miner.select.repair.imports import distribution_on_index
from miner.select.repair.index import IndexSource
from miner.select.repair.names import canonical
from miner.select.repair.records import Repair
from miner.select.repair.requirements import is_option
from miner.select.repair.undeclared import shipped_modules

# Python 3 module names that the `future` package provides on Python 2 (`from builtins import`).
FUTURE_MODULES = frozenset(
    {
        "builtins",
        "past",
        "future",
        "queue",
        "configparser",
        "socketserver",
        "copyreg",
        "_thread",
        "reprlib",
        "winreg",
        "html",
        "http",
        "xmlrpc",
    }
)
# A package written for NumPy 1 meeting NumPy 2 (NumPy's migration guide words these errors).
NUMPY_2 = re.compile(r"removed in the NumPy 2\.0 release|compiled using NumPy 1\.x cannot be run in"
                     r"|A module that was compiled using NumPy 1\.x")  # fmt: skip
MISSING = re.compile(r"(?:ModuleNotFoundError|ImportError): No module named '?([A-Za-z_][\w.]*)'?")
# A name a package's installed release does not have, imported from its installed files.
NO_NAME = re.compile(
    r"ImportError: cannot import name '?(\w+)'? from '([A-Za-z_][\w.]*)' \(([^)]*)\)"
)
# (what the error says, the first Python without it, what went away)
REMOVED: tuple[tuple[re.Pattern[str], tuple[int, int], str], ...] = (
    (re.compile(r"module 'time' has no attribute 'clock'"), (3, 8), "time.clock"),
    (
        re.compile(
            r"module 'fractions' has no attribute 'gcd'|cannot import name 'gcd' from "
            r"'fractions'"
        ),
        (3, 9),
        "fractions.gcd",
    ),  # fmt: skip
    (
        re.compile(
            r"has no attribute 'isAlive'|module 'base64' has no attribute 'encodestring'|"
            r"'array\.array' object has no attribute 'tostring'"
        ),
        (3, 9),
        "isAlive, base64.encodestring and array.tostring",
    ),  # fmt: skip
    (
        re.compile(
            r"cannot import name '\w+' from 'collections' |module 'collections' has no "
            r"attribute '(?:Iterable|Mapping|MutableMapping|Sequence|Callable|Set|"
            r"OrderedDict\w+|Hashable|Sized|Container)'"
        ),
        (3, 10),
        "the ABC aliases of collections",
    ),  # fmt: skip
    (
        re.compile(r"mutable default <class '[^']+'> for field \w+ is not allowed"),
        (3, 11),
        "unhashable dataclass defaults",
    ),  # fmt: skip
    (
        re.compile(
            r"module 'inspect' has no attribute 'getargspec'|cannot import name "
            r"'getargspec' from 'inspect'"
        ),
        (3, 11),
        "inspect.getargspec",
    ),  # fmt: skip
    (
        re.compile(
            r"No module named '(?:distutils|imp|asynchat|asyncore|smtpd)'|module 'pkgutil' "
            r"has no attribute 'ImpImporter'"
        ),
        (3, 12),
        "distutils, imp and pkgutil.ImpImporter",
    ),  # fmt: skip
    (
        re.compile(
            r"No module named '(?:cgi|cgitb|imghdr|pipes|crypt|telnetlib|sndhdr|audioop|"
            r"nntplib|uu|xdrlib|aifc|chunk|sunau|spwd|msilib|nis|ossaudiodev|mailcap)'"
        ),
        (3, 13),
        "the modules PEP 594 removed",
    ),  # fmt: skip
)


@dataclass(frozen=True)
class RuntimeFault:
    """What a training log says the environment lacks."""

    kind: str  # "module" (install it), "older" (its previous release line), "bound" (a bound
    # such as numpy<2) or "interpreter" (rebuild on an older one)
    evidence: Evidence
    module: str = ""  # the top-level module not found
    before: tuple[int, int] = (0, 0)  # the first Python without the feature
    feature: str = ""
    distribution: str = ""  # the distribution that provides the module, when known here


def runtime_fault(log: Path, python: tuple[int, int], root: Path) -> RuntimeFault | None:
    """The last error of `log` that a repair answers, for an environment of `python` and a
    checkout at `root`; None when there is none."""
    try:
        lines = log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return None
    for number in range(len(lines), 0, -1):
        line = lines[number - 1]
        for pattern, before, feature in REMOVED:
            if pattern.search(line) and python >= before:
                evidence = Evidence(log.name, number, line.strip()[:300],
                                    "repair.interpreter.runtime")  # fmt: skip
                return RuntimeFault("interpreter", evidence, before=before, feature=feature)
        if NUMPY_2.search(line) and python >= (3, 9):
            evidence = Evidence(log.name, number, line.strip()[:300], "repair.numpy2.runtime")
            return RuntimeFault("bound", evidence, distribution="numpy<2",
                                feature="an API NumPy 2.0 removed")  # fmt: skip
        missing = MISSING.search(line)
        if missing:
            top = missing.group(1).split(".")[0]
            evidence = Evidence(log.name, number, line.strip()[:300], "repair.import.runtime")
            if python < (3, 0) and top in FUTURE_MODULES:
                return RuntimeFault("module", evidence, module=top, distribution="future")
            if top in sys.stdlib_module_names or top in shipped_modules(root):
                return None  # the project's own module, or one the interpreter lacks
            if "." in missing.group(1):  # `timm.models.layers.helpers`: maybe a part gone
                return RuntimeFault("module", evidence, module=top, feature=missing.group(1))
            return RuntimeFault("module", evidence, module=top)
        no_name = NO_NAME.search(line)
        if no_name and "-packages" in no_name.group(3):
            top = no_name.group(2).split(".")[0]
            if top in sys.stdlib_module_names or top in shipped_modules(root):
                return None
            evidence = Evidence(log.name, number, line.strip()[:300], "repair.older.runtime")
            return RuntimeFault("older", evidence, module=top,
                                feature=f"{no_name.group(2)}.{no_name.group(1)}")  # fmt: skip
    return None


def install_module(
    built: EnvironmentBuild, fault: RuntimeFault, venv: Path, work: Path, log: Path,
    env: dict[str, str], timeout: float,
) -> EnvironmentBuild | None:  # fmt: skip
    """`built` with the distribution of the missing module installed into `venv` (and the
    repair recorded), None when the index has none, it is there already or it does not install."""
    builder = Builder(venv, work, log, env, timeout, built.as_of, built.options, built.python2)
    if fault.kind == "bound":
        return _bounded(built, fault, builder)
    if fault.kind == "older" or not builder.probe([fault.module]):
        # The distribution is there and a part of it is missing: its previous release line.
        return _older(built, fault, builder, env) if fault.feature else None
    options = tuple(ln for ln in (*built.options, *built.lines) if is_option(ln))
    mapped: tuple[str, str] | None = (
        fault.distribution,
        "the `future` package gives Python 2 these Python 3 names",
    )
    if not fault.distribution:
        mapped = distribution_on_index(fault.module, IndexSource.of(options, env), built.as_of)
    if mapped is None:
        return None
    distribution, why = mapped
    done = builder.install([*built.lines, distribution])
    if done.exit_code != 0 or builder.probe([fault.module]):
        return None
    with log.open("a", encoding="utf-8") as fh:
        fh.write(f"miner: repair import: {fault.module} -> {distribution}: imported at run time "
                 f"({fault.evidence.path}:{fault.evidence.line}); {why}\n")  # fmt: skip
    repair = Repair("import", f"import {fault.module}", distribution,
                    f"imported at run time, never declared ({why})", fault.evidence)  # fmt: skip
    return replace(built, repairs=(*built.repairs, repair),
                   lines=(*built.lines, distribution))  # fmt: skip


def _bounded(
    built: EnvironmentBuild, fault: RuntimeFault, builder: Builder
) -> EnvironmentBuild | None:
    """`built` with `fault.distribution` (`numpy<2`) installed beside its lines, None when that
    does not install."""
    bound = fault.distribution
    if bound in built.lines or builder.install([*built.lines, bound]).exit_code != 0:
        return None
    with builder.log.open("a", encoding="utf-8") as fh:
        fh.write(f"miner: repair pin: {bound}: {fault.feature} "
                 f"({fault.evidence.path}:{fault.evidence.line})\n")  # fmt: skip
    repair = Repair("pin", bound.split("<")[0], bound, f"the code or a dependency uses "
                    f"{fault.feature}", fault.evidence)  # fmt: skip
    return replace(built, repairs=(*built.repairs, repair), lines=(*built.lines, bound))


def _older(
    built: EnvironmentBuild, fault: RuntimeFault, builder: Builder, env: dict[str, str]
) -> EnvironmentBuild | None:
    """`built` with the distribution of `fault.module` moved below its installed release line
    (`timm<1.0` where timm 1.0.9 is installed and lacks `timm.models.layers.helpers`), when the
    requirements do not pin it; None otherwise or when that does not install."""
    options = tuple(ln for ln in (*built.options, *built.lines) if is_option(ln))
    mapped = distribution_on_index(fault.module, IndexSource.of(options, env), built.as_of)
    names = {canonical(fault.module), *((canonical(mapped[0]),) if mapped else ())}
    installed = [ln for ln in builder.freeze() if canonical(ln.split("==")[0]) in names]
    if len(installed) != 1 or "==" not in installed[0]:
        return None
    dist, version = installed[0].split("==", 1)
    if any(_pins(line, dist) for line in built.lines):
        return None  # the project asked for this release: the fault lies elsewhere
    parts = version.split(".")
    if not parts[0].isdigit() or (len(parts) > 1 and not parts[1].isdigit()):
        return None
    line = f"{parts[0]}.{parts[1]}" if len(parts) > 1 and parts[1] != "0" else parts[0]
    bound = f"{dist}<{line}"
    if bound in built.lines or builder.install([*built.lines, bound]).exit_code != 0:
        return None
    why = (f"{fault.feature} is not in {dist} {version}, the release installed; the release "
           f"line before it")  # fmt: skip
    with builder.log.open("a", encoding="utf-8") as fh:
        fh.write(f"miner: repair older: {dist}=={version} -> {bound}: {why} "
                 f"({fault.evidence.path}:{fault.evidence.line})\n")  # fmt: skip
    repair = Repair("older", f"{dist}=={version}", bound, why,
                    replace(fault.evidence, rule="repair.older.runtime"))  # fmt: skip
    return replace(built, repairs=(*built.repairs, repair), lines=(*built.lines, bound))


def _pins(line: str, dist: str) -> bool:
    """True when requirement `line` pins `dist` to one release (`==`)."""
    head = re.split(r"[<>=!~;\[ ]", line.strip(), maxsplit=1)[0]
    return canonical(head) == canonical(dist) and "==" in line
