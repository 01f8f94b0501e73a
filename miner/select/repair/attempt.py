"""One interpreter's build: a fresh environment, the install with a repair per failure (the
environment put back to its last good state first), undeclared imports, setuptools, the path, and
the check that the entry point's imports import."""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path

from miner.audit.closure import ImportClosure
from miner.codebook import Evidence
from miner.select.outcomes import install_failure
from miner.select.pythons import interpreter_version
from miner.select.repair.envs import SET_ASIDE, WITHOUT_DEPENDENCIES, Builder
from miner.select.repair.failures import Failure, diagnose, unfinished_build
from miner.select.repair.imports import distribution_on_index
from miner.select.repair.index import IndexSource, releases
from miner.select.repair.moves import wheel_move
from miner.select.repair.names import canonical, distribution_for
from miner.select.repair.past_date import companions_past_date
from miner.select.repair.records import Repair
from miner.select.repair.requirements import (
    drop_backports,
    name_of,
    needed,
    provides,
)
from miner.select.repair.steps import SETUPTOOLS, STANDARD_LIBRARY, RepairSteps
from miner.select.repair.undeclared import add_missing_dependencies, add_undeclared

MAX_ROUNDS = 12


@dataclass(frozen=True)
class BuildRequest:
    """What to build: the plan's lines for the checkout copy at `root`, where, and how."""

    interpreters: tuple[str, ...]
    lines: tuple[str, ...]
    root: Path
    command: tuple[str, ...]
    venv: Path
    work: Path
    log: Path
    env: dict[str, str]
    timeout: float
    commit_date: str | None = None
    as_of: bool = False
    python2: Evidence | None = None  # Python 2 code a run met that the parse did not show


@dataclass(frozen=True)
class EnvironmentBuild:
    """The environment built (or the failure), the repairs applied and what it imports."""

    failure: Evidence | None
    seconds: float
    interpreter: str
    repairs: tuple[Repair, ...]
    lines: tuple[str, ...]
    closure: ImportClosure
    import_failures: tuple[tuple[str, str], ...] = ()
    python2: bool = False
    options: tuple[str, ...] = field(default_factory=tuple)
    as_of: str | None = None  # the index date it was resolved at
    # distributions an undeclared import asked for that did not install (a build past its
    # bound): a repair after the run does not try them again
    unbuilt: frozenset[str] = frozenset()

    @property
    def imports_ok(self) -> bool:
        """True when every external module the entry point imports imports."""
        return self.failure is None and not self.import_failures


@dataclass(frozen=True)
class Checkpoint:
    """An attempt's state before a try that may fail."""

    lines: tuple[str, ...]
    repairs: int
    constraints: tuple[str, ...]
    extra_build: tuple[tuple[str, str], ...]
    builder: Builder


def on_index(source: IndexSource, name: str) -> bool:
    """True when the index has any release of `name`."""
    found = releases(source, name)
    return bool(found)


def _lines_of(log: Path) -> list[str]:
    try:
        return log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


class Attempt(RepairSteps):
    """One interpreter's build, from a fresh environment."""

    def __init__(self, builder: Builder, interpreter: str, closure: ImportClosure,
                 source: IndexSource, as_of: str | None, lines: list[str]) -> None:  # fmt: skip
        self.builder, self.interpreter, self.closure = builder, interpreter, closure
        self.source, self.as_of, self.lines = source, as_of, lines
        self.version = interpreter_version(interpreter) or (3, 0)
        self.repairs: list[Repair] = []
        self.constraints: tuple[str, ...] = ()
        self.extra_build: tuple[tuple[str, str], ...] = ()
        self.tried: set[str] = set()
        self.pins: dict[str, str] = {}
        self.unbuilt: set[str] = set()  # undeclared imports' distributions that did not install
        self.bounds: dict[str, str] = {}  # project -> the release-line bound a repair added
        self.late: dict[str, str] = {}  # project -> its release that reached the index late
        self.diagnosis: Failure | None = None  # what the last failed install failed on
        self.shipped: frozenset[str] = (
            frozenset()
        )  # module names the checkout has anywhere  # what the last failed install failed on

    def _result(self, started: float, prior: tuple[Repair, ...], options: tuple[str, ...],
                failure: Evidence | None, imports: tuple[tuple[str, str], ...] = ()
                ) -> EnvironmentBuild:  # fmt: skip
        return EnvironmentBuild(
            failure, time.perf_counter() - started, self.interpreter,
            (*prior, *self.repairs), tuple(self.lines), self.closure, imports,
            self.builder.python2, self.builder.options, self.as_of, frozenset(self.unbuilt),
        )  # fmt: skip

    def run(self, started: float, prior: tuple[Repair, ...], options: tuple[str, ...]
            ) -> EnvironmentBuild:  # fmt: skip
        """Make, install with repairs, add undeclared imports, check the imports."""
        log = self.builder.log
        since = len(_lines_of(log))
        made = self.builder.make(self.interpreter)
        if made.exit_code != 0:
            failure = install_failure(log, made.timed_out, 300.0, since)
            return self._result(started, prior, options, failure)
        # A fresh environment holds the standard library only: what it finds, it ships.
        names = sorted({m for ln in self.lines for m in provides(ln)})
        lacks = self.builder.probe(names)
        self.lines, dropped = drop_backports(self.lines, lambda m: m in names and m not in lacks)
        self.repairs += dropped
        failed, good = self.install_repaired(self.builder.freeze())
        if failed is not None:
            return self._result(started, prior, options, failed)
        good = add_undeclared(self, good)
        good = self._setuptools(good)
        if self.builder.add_path_hook() is not None:
            self.repairs.append(
                Repair(
                    "path",
                    "",
                    "the working folder and src/ on sys.path",
                    "the code imports its own modules",
                    Evidence("miner-checkout.pth", 1, "", "repair.path"),
                )
            )
        broken = self.builder.probe(list(self.closure.names), "import")
        if broken:  # a dependency's own undeclared import (Keras and its back-end)
            good, broken = add_missing_dependencies(self, broken, good)
        if broken:  # a release let past the date, its dependencies still at the date
            good, broken = companions_past_date(self, broken, good)
        with log.open("a", encoding="utf-8") as fh:  # what S2 (the entry point imports) needs
            fh.write(
                f"miner: {len(self.closure.names) - len(broken)} of "
                f"{len(self.closure.names)} imports of the entry point import\n"
            )
            fh.writelines(
                f"miner: import {name} fails: {error}\n" for name, error in broken.items()
            )
        return self._result(started, prior, options, None, tuple(sorted(broken.items())))

    def install_repaired(self, good: list[str]) -> tuple[Evidence | None, list[str]]:
        """Install the lines with the one repair each failure calls for, the environment put
        back to `good` after each failure: (None, the new good state) or (the failure, good)."""
        log = self.builder.log
        since = started = len(_lines_of(log))
        slow = False
        for _ in range(MAX_ROUNDS):
            since = len(_lines_of(log))
            done = self.builder.install(self.lines, self.constraints, self.extra_build)
            if done.exit_code == 0:
                self._record_without_dependencies(_lines_of(log), started)
                return None, self.builder.freeze()
            self.builder.restore(good)
            written = _lines_of(log)
            # a release set aside for its metadata: the failure is the rest's, after the mark
            aside = [n + 1 for n in range(since, len(written)) if written[n].startswith(SET_ASIDE)]
            self.diagnosis = diagnose(written, aside[-1] if aside else since, log.name)
            evidence = install_failure(log, done.timed_out, self.builder.timeout, since)
            if done.timed_out:
                # A sdist that builds past the bound (a C++ extension compiled from source): the
                # repair a failed build gets (a release with a wheel, or dropped if unneeded),
                # once per install.
                self.diagnosis = None if slow else unfinished_build(_lines_of(log), since,
                                                                    log.name)  # fmt: skip
                slow = True
            if self.diagnosis is None or not self._repair(self.diagnosis):
                return evidence, good
        return install_failure(log, False, 0, since), good

    def _record_without_dependencies(self, written: list[str], since: int) -> None:
        """A repair for each pinned release the install put in without its dependency list,
        as the installer's log says it did (its metadata does not parse)."""
        for number, text in enumerate(written[since:], start=since + 1):
            found = WITHOUT_DEPENDENCIES.match(text)
            if not found or any(r.kind == "metadata" and r.after.startswith(found.group(1))
                                for r in self.repairs):  # fmt: skip
                continue
            evidence = Evidence(self.builder.log.name, number, text.strip()[:300],
                                "repair.metadata.no_deps")  # fmt: skip
            for line in found.group(1).split(", "):
                self.repairs.append(Repair(
                    "metadata", line, f"{line} without its dependency list",
                    "the installer cannot parse its metadata; installed by itself, what it "
                    "imports checked like any import", evidence))  # fmt: skip

    def _wheel_past_the_date(self, line: str, failure: Failure) -> bool:
        """A sdist that does not build and no release of the commit's time with a wheel for
        this Python (numpy 1.11.1 in 2016, on 3.6, the oldest interpreter at hand): the
        nearest release that has one, past the commit's date."""
        if not self.as_of or failure.name in self.builder.past_date:
            return False
        every = releases(self.source, failure.name) or []
        fixed = wheel_move(line, failure.name, failure.version, every, self.version)
        if not fixed or fixed in self.tried:
            return False
        self.tried.add(fixed)
        self.builder = replace(self.builder, past_date=(*self.builder.past_date, failure.name))
        self._replace(self._line(failure.name), fixed)
        python = f"{self.version[0]}.{self.version[1]}"
        reason = (f"its sdist does not build and no release by {self.as_of[:10]} has a wheel for "
                  f"Python {python}; {fixed} has one, past the commit's date")  # fmt: skip
        return self._record("wheel", line, fixed, reason, failure)

    def checkpoint(self) -> Checkpoint:
        """What a failed try puts back: the lines, repairs, build settings and builder."""
        return Checkpoint(tuple(self.lines), len(self.repairs), self.constraints,
                          self.extra_build, self.builder)  # fmt: skip

    def rollback(self, state: Checkpoint) -> None:
        """Back to a checkpoint's lines, repairs and build settings."""
        self.lines = list(state.lines)
        del self.repairs[state.repairs :]
        self.constraints, self.extra_build = state.constraints, state.extra_build
        self.builder = state.builder

    def _setuptools(self, good: list[str]) -> list[str]:
        if not self.builder.probe(["pkg_resources"]) or self.builder.python2:
            return good
        done = self.builder.install([*self.lines, SETUPTOOLS], self.constraints, self.extra_build)
        if done.exit_code != 0:
            self.builder.restore(good)
            return good
        self.repairs.append(Repair("setuptools", "", SETUPTOOLS, "uv environments have no "
                                   "pkg_resources; old code imports it",
                                   Evidence("", 0, "", "repair.setuptools")))  # fmt: skip
        return self.builder.freeze()

    def _repair(self, failure: Failure) -> bool:
        """Apply the one repair `failure` calls for; False when there is none left."""
        if failure.kind == "uploaded_late" and self._uploaded_late(failure):
            return True  # before loosening the pins that asked for it: the date hid it
        index = self._line(failure.name)
        line = self.lines[index] if index is not None else ""
        parent = self._line(failure.required_by) if index is None else None
        if parent is not None and self._platform_only(self.lines[parent], failure):
            return True
        if failure.kind == "build" and self._floor_at_the_date(line, failure):
            return True
        if failure.kind == "build" and (failure.use_2to3 or failure.legacy):
            if "setuptools<58" not in self.constraints:
                self.constraints += ("setuptools<58",)
                why = "use_2to3" if failure.use_2to3 else "a legacy setup.py"
                return self._record(
                    "build",
                    failure.name,
                    "setuptools<58 at build time",
                    f"its build needs setuptools < 58 ({why})",
                    failure,
                )
        if failure.kind == "build" and failure.build_missing == "pkg_resources":
            if SETUPTOOLS not in self.constraints:  # the build got a setuptools without it
                self.constraints += (SETUPTOOLS,)
                return self._record("build", failure.name, f"{SETUPTOOLS} at build time",
                                    "its build imports pkg_resources, which setuptools 81 "
                                    "dropped", failure)  # fmt: skip
        top = failure.build_missing.split(".")[0]
        if failure.kind == "build" and failure.build_missing and top not in STANDARD_LIBRARY:
            # (a build that misses a standard module, `distutils.msvccompiler`, wants an older
            # Python, not an extra package)
            extra = distribution_for(top)[0]
            if (failure.name, extra) not in self.extra_build:
                self.extra_build += ((failure.name, extra),)
                return self._record(
                    "build",
                    failure.name,
                    f"{extra} at build time",
                    f"its build imports {failure.build_missing} without declaring it",
                    failure,
                )
        if failure.dependent and self._dependency_past_the_date(failure):
            return True
        if failure.dependent and self._dependent(failure):
            return True
        if failure.kind in ("missing_pin", "sdist_format") and line:
            moved = self._moved(line, failure)
            if moved:
                return True
        if failure.kind == "metadata" and self._past_metadata(failure):
            return True
        if failure.kind == "index" and self._drop_index(failure):
            return True
        if failure.kind == "not_found" and line and self._standard(line, failure):
            return True
        if failure.kind in ("build", "no_wheel") and line and self._platform_only(line, failure):
            return True
        if failure.kind in ("build", "no_wheel", "python"):
            found = releases(self.source, failure.name, self.as_of) or []
            # A sdist that does not build may move anywhere; a release with no wheel for this
            # Python stays within its major (else the next interpreter is the better repair).
            fixed = wheel_move(line, failure.name, failure.version, found, self.version,
                               same_major=failure.kind != "build")  # fmt: skip
            if fixed and fixed not in self.tried:
                self.tried.add(fixed)
                why = ("its sdist does not build" if failure.kind == "build" else
                       "it has no wheel for this Python")  # fmt: skip
                before = line or f"{failure.name}=={failure.version}"
                reason = (
                    f"{why}; {fixed} has a wheel for Python {self.version[0]}.{self.version[1]}"
                )
                self._replace(index, fixed)
                return self._record("wheel", before, fixed, reason, failure)
            if failure.kind == "build" and line and self._wheel_past_the_date(line, failure):
                return True
        if failure.kind == "not_found" and line:
            # An import name written as a requirement (`cv2`, `pkg-resources`, `sklearn`).
            mapped = distribution_on_index(failure.name.replace("-", "_"), self.source)
            dist, why = mapped or (failure.name, "")
            # `detectron2==0.6` pins a release of a project the index lacks, not an import
            # name: pigar's pick among the packages that ship such a module is not it.
            guessed = why.startswith("pigar's database") and "==" in line
            if canonical(dist) != canonical(failure.name) and not guessed:
                # The import name's version (`pkg-resources==0.0.0`) is kept only where the
                # distribution has such a release.
                spec = line[len(name_of(line)) :]
                self._replace(index, dist + (spec if self._satisfied(dist, spec) else ""))
                return self._record(
                    "alias",
                    line,
                    self.lines[index or 0],
                    f"an import name; {why} gives {dist}",
                    failure,
                )
            if self._past_the_date(line, failure):
                return True
        if index is None and "you require " in failure.evidence.text:
            required = failure.evidence.text.split("you require ", 1)[1].split()[0].strip(",")
            index = self._line(name_of(required))
            line = self.lines[index] if index is not None else ""
        if line and self.closure.files and not needed(line, self.closure):
            if failure.kind == "build":  # a dependency's import does not bring it back
                self.unbuilt.add(canonical(name_of(line)))
            del self.lines[index]  # type: ignore[arg-type]
            return self._record(
                "drop",
                line,
                "",
                "it does not install and the entry point's imports do not need it",
                failure,
            )
        return False
