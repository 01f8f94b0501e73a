"""The repairs an install failure calls for, one method each, on an attempt's lines, build
settings and builder (miner.select.repair.attempt decides which applies): a pin moved, a release
asking for what cannot be had left to the resolver, metadata uv cannot parse passed over, an
unreachable index left out, a standard-library name dropped, a package for another system
dropped. Each applied repair is recorded with its reason and the log line behind it."""

from __future__ import annotations

import sys
from dataclasses import replace

from packaging.requirements import InvalidRequirement, Requirement
from packaging.version import InvalidVersion, Version

from miner.audit.closure import ImportClosure
from miner.select.repair.envs import Builder
from miner.select.repair.failures import Failure
from miner.select.repair.index import IndexSource, ever_released, releases
from miner.select.repair.moves import companion, next_line, next_release, pin_move
from miner.select.repair.names import canonical
from miner.select.repair.records import Repair
from miner.select.repair.requirements import is_option, name_of, needed, requirement

SETUPTOOLS = "setuptools<81"  # the last line with pkg_resources
# Modules the standard library ships or shipped (distutils left it in 3.12; setuptools has it).
STANDARD_LIBRARY = frozenset(getattr(sys, "stdlib_module_names", ())) | {
    "distutils", "imp", "asynchat", "asyncore", "smtpd"}  # fmt: skip


class RepairSteps:
    """The repair methods of an attempt (its state is set by miner.select.repair.attempt)."""

    builder: Builder
    closure: ImportClosure
    source: IndexSource
    as_of: str | None
    version: tuple[int, int]
    lines: list[str]
    repairs: list[Repair]
    tried: set[str]
    bounds: dict[str, str]
    late: dict[str, str]  # project -> its release that reached the index after the date

    def _satisfied(self, name: str, spec: str) -> bool:
        """True when `name` has a release `spec` (`==1.2`, `>=0.4`; "" always) admits."""
        try:
            wanted = Requirement(f"{name}{spec}").specifier
        except InvalidRequirement:
            return False
        return any(wanted.contains(r.version, prereleases=True)
                   for r in releases(self.source, name, self.as_of) or [])  # fmt: skip

    def _platform_only(self, line: str, failure: Failure) -> bool:
        """Drop a package for another operating system (pyobjc, pywin32) nothing here imports."""
        found = releases(self.source, failure.name) or []
        release = next((r for r in found if str(r.version) == failure.version), None)
        release = release or (found[-1] if found and not failure.version else None)
        if release is None or not release.platform_only or needed(line, self.closure):
            return False
        self.lines.remove(line)
        systems = " and ".join(sorted(release.platforms))
        what = f"{failure.name} {release.version}"
        if canonical(name_of(line)) != canonical(failure.name):
            what = f"it needs {what}, which"
        return self._record("platform", line, "", f"{what} is built for {systems} only", failure)

    def _moved(self, line: str, failure: Failure) -> bool:
        found = releases(self.source, failure.name, self.as_of) or []
        move = pin_move(line, found, self.version)
        if failure.kind == "sdist_format":
            why = (f"{failure.version} has only a source archive of a kind uv no longer reads "
                   "(not .tar.gz or .zip)")  # fmt: skip
        elif ever_released(self.source, failure.name, failure.version):
            why = f"{failure.version} is not on the index as of {self.as_of}"
        else:
            why = f"{failure.version} was never on the index"
        if move is None:
            later = next_release(line, found, self.version)
            major = failure.version.split(".")[0]
            if later is not None:
                why += f"; the index has no {major}.x release, {later.split('==')[-1]} is the next"
            elif self.as_of:
                # Published on the framework's own index only (PyTorch before 1.0 on Linux): the
                # first release the index has, even after the commit's date.
                anytime = releases(self.source, failure.name) or []
                first_after = next_release(line, anytime, self.version)
                if first_after is not None:
                    later = first_after
                    why += (f"; the index had no later release of it at the commit's date, "
                            f"{first_after.split('==')[-1]} is the first after")  # fmt: skip
                # only earlier releases, uploaded after the date (torchsample 0.1.0, where the
                # project pins its own fork's 0.1.3): the nearest of them
                elif (nearer := pin_move(line, anytime, self.version)) is not None:
                    later = nearer[0]
                    why += (f"; the index had no release of it at the commit's date, "
                            f"{nearer[1]} is the nearest since")  # fmt: skip
                else:
                    return False
                if failure.name not in self.builder.past_date:
                    past = (*self.builder.past_date, failure.name)
                    self.builder = replace(self.builder, past_date=past)
            else:
                return False
            move = (later, later)
        if move[0] in self.tried:
            return False
        self.tried.add(move[0])
        index = self._line(failure.name)
        self._replace(index, move[0])
        return self._record("pin", line, move[0], why, failure)

    def _floor_at_the_date(self, line: str, failure: Failure) -> bool:
        """An open requirement the resolver settled on a release of a much older line that does
        not build (pandas 0.12 for a project of 2019, because uv cannot parse the metadata of
        pandas 0.13 to 0.24 and passes over them): a floor at the newest release of the commit's
        date, so the resolver meets that release, and its own repair, instead."""
        parsed = requirement(line) if line else None
        if not self.as_of or parsed is None or parsed.url:
            return False
        if any(s.operator in ("==", "===", "<", "<=", "~=") for s in parsed.specifier):
            return False
        # the newest release of the date with a wheel for this interpreter: one the resolver
        # would have had no reason to pass over but its metadata
        built = [r.version for r in releases(self.source, failure.name, self.as_of) or []
                 if not r.version.is_prerelease and r.wheel_for(self.version)]  # fmt: skip
        try:
            old, new = Version(failure.version), max(built)
        except (InvalidVersion, ValueError):
            return False
        newest = str(new)
        if new.release[:2] <= old.release[:2]:
            return False  # the same release line: a build repair's, not the resolver's choice
        floor = f"{failure.name}>={newest}"
        if floor in self.tried:
            return False
        self.tried.add(floor)
        self._replace(self._line(failure.name), floor)
        why = (f"the resolver took {failure.name} {failure.version}, which does not build, over "
               f"the releases up to {newest}, the newest at the commit's date")  # fmt: skip
        return self._record("era", line or failure.name, floor, why, failure)

    def _dependency_past_the_date(self, failure: Failure) -> bool:
        """A release resolved past the commit's date that pins what came after it too
        (torchvision 0.2.2, for torch 1.0, asks for `tqdm==4.19.9`): that dependency is resolved
        past the date as well, rather than the release left to the resolver."""
        owner = failure.dependent.partition("==")[0]
        if (failure.kind != "missing_pin" or not owner or owner not in self.builder.past_date
                or failure.name in self.builder.past_date):  # fmt: skip
            return False
        self.builder = replace(self.builder, past_date=(*self.builder.past_date, failure.name))
        why = (f"{failure.dependent} asks for {_asked_for(failure)}, released after the commit's "
               f"date; resolved past it, as {owner} is")  # fmt: skip
        return self._record("pin", failure.name, f"{failure.name} (past the date)", why, failure)

    def _dependent(self, failure: Failure) -> bool:
        """A pinned release that asks for what cannot be had (a version the index lacks, or one
        another pin rules out): left to the resolver, which picks a release that fits."""
        name, _, version = failure.dependent.partition("==")
        index = self._line(name)
        if index is None or (failure.kind != "unsatisfiable" and index == self._line(failure.name)):
            return False
        line = self.lines[index]
        parsed = requirement(line)
        if parsed is None or not any(s.operator == "==" and s.version == version
                                     for s in parsed.specifier):  # fmt: skip
            return False
        extras = f"[{','.join(sorted(parsed.extras))}]" if parsed.extras else ""
        loose = f"{parsed.name}{extras}"
        if loose in self.tried:
            return False
        self.tried.add(loose)
        self.lines[index] = loose
        what = ("the index does not have" if failure.kind == "missing_pin"
                else "the other requirements rule out")  # fmt: skip
        why = (f"{failure.dependent} asks for {_asked_for(failure)}, which {what}; the resolver "
               "picks a release")  # fmt: skip
        return self._record("pin", line, loose, why, failure)

    def _past_metadata(self, failure: Failure) -> bool:
        """A release whose metadata uv cannot parse (`pytz>=2011k`): the next release line,
        resolved past the commit date when it came later."""
        found = releases(self.source, failure.name) or []
        spec = next_line(failure.version, found, self.version)
        if spec is None:
            return False
        bound = f"{failure.name}{spec}"
        if bound in self.tried:
            return False
        self.tried.add(bound)
        # The bound of an earlier round for the same project gives way to this one, and so does
        # a pin on the very release (written so, or set by an earlier repair): it cannot install.
        self.lines = [
            ln for ln in self.lines
            if ln != self.bounds.get(failure.name) and not _pins_release(ln, failure)
        ]  # fmt: skip
        self.bounds[failure.name] = bound
        self.lines.append(bound)
        if failure.name not in self.builder.past_date:
            past = (*self.builder.past_date, failure.name)
            self.builder = replace(self.builder, past_date=past)
        why = (f"the installer cannot parse the metadata of {failure.name} {failure.version}; "
               "the next release line, at any date")  # fmt: skip
        before = f"{failure.name}=={failure.version}"
        return self._record("metadata", before, bound, why, failure)

    def _past_the_date(self, line: str, failure: Failure) -> bool:
        """A project the index has, but with no release for this interpreter by the commit's
        date (opencv-python for Python 3.6 before mid-2017): resolved at any date, as the first
        release of a pin the index never had is."""
        if not self.as_of or failure.name in self.builder.past_date:
            return False
        index = self._line(failure.name)
        past = (*self.builder.past_date, failure.name)
        for at, paired, why in companion(self.lines):
            if at == index and index is not None:  # torchvision for a torch moved past the date
                self.builder = replace(self.builder, past_date=past)  # its release is later too
                before = self.lines[index]
                self._replace(index, paired)  # an exact pin installs a yanked release too
                return self._record("companion", before, paired, why, failure)
        found = releases(self.source, failure.name) or []
        if not found:
            return False  # not on the index at all: an alias or a drop answers it
        self.builder = replace(self.builder, past_date=past)
        # the first release with a wheel for this Python, not today's (a sdist that no longer
        # builds for an old interpreter)
        wheels = [r for r in found if not r.version.is_prerelease and r.wheel_for(self.version)]
        after = line
        if wheels and name_of(line) == line.strip():
            after = f"{line.strip()}=={min(wheels, key=lambda r: r.version).version}"
            self._replace(index, after)
        why = (f"no release of {failure.name} for this Python on the index by {self.as_of[:10]}; "
               "the first with a wheel for it, past the commit's date")  # fmt: skip
        return self._record("pin", line, after, why, failure)

    def _uploaded_late(self, failure: Failure) -> bool:
        """A release that existed by the commit's date but reached the index later (uv's hint
        names it): the project resolved past the date, once."""
        if not failure.name or failure.name in self.builder.past_date:
            return False
        self.late[failure.name] = failure.version
        era = self._era_of_late_releases() if len(self.late) > 1 else None
        if era is not None and self.as_of and era > self.as_of:
            # A second release past the date: a release let past it (TensorFlow 1.15.5 for a
            # 2016 project) brings its own dependencies of its time, one per round otherwise;
            # the index moves to the date of the latest of them instead.
            self.builder = replace(self.builder, as_of=era)
            before, self.as_of = self.as_of, era
            return self._record("date", f"the index as of {before[:10]}",
                                f"the index as of {era[:10]}",
                                f"{', '.join(f'{n} {v}' for n, v in self.late.items())} reached "
                                "the index after the commit's date; the environment takes the "
                                "index of the latest of them", failure)  # fmt: skip
        self.builder = replace(self.builder, past_date=(*self.builder.past_date, failure.name))
        date = (self.as_of or "")[:10]
        return self._record("date", failure.name, f"{failure.name} past {date}",
                            f"its release {failure.version} reached the index after the "
                            "commit's date", failure)  # fmt: skip

    def _era_of_late_releases(self) -> str | None:
        """The upload time (uv's `--exclude-newer` form) of the latest of the releases that
        reached the index after the commit's date; None when none of them is dated."""
        times = []
        for name, version in self.late.items():
            found = releases(self.source, name) or []
            times += [r.uploaded for r in found if str(r.version) == version and r.uploaded]
        if not times:
            return None
        return max(times).strftime("%Y-%m-%dT%H:%M:%SZ")

    def _drop_index(self, failure: Failure) -> bool:
        """An extra index or find-links location this machine does not reach, left out."""
        host = failure.url.split("/")[2] if failure.url.count("/") >= 2 else ""
        options = self.builder.options
        kept = tuple(o for o in options if not host or host not in o)
        # an option line among the requirements (`-f <url>`, moved off a requirement's line)
        lines = [ln for ln in self.lines if not (host and is_option(ln) and host in ln)]
        if not host or (kept == options and len(lines) == len(self.lines)):
            return False
        dropped = "; ".join([*(o for o in options if o not in kept),
                             *(ln for ln in self.lines if ln not in lines)])  # fmt: skip
        self.builder = replace(self.builder, options=kept)
        self.lines[:] = lines
        return self._record("index", dropped, "", f"{host} does not answer from this machine; "
                            "the default index serves the rest", failure)  # fmt: skip

    def _standard(self, line: str, failure: Failure) -> bool:
        """A requirement naming a module of the standard library, which no index serves."""
        module = failure.name.replace("-", "_")
        if module not in STANDARD_LIBRARY:
            return False
        self.lines.remove(line)
        return self._record("standard", line, "", f"{module} is part of Python's standard "
                            "library, not a distribution", failure)  # fmt: skip

    def _line(self, name: str) -> int | None:
        want = canonical(name) if name else ""
        for i, line in enumerate(self.lines):
            if want and canonical(name_of(line)) == want:
                return i
        return None

    def _replace(self, index: int | None, line: str) -> None:
        if index is None:
            self.lines.append(line)
        else:
            self.lines[index] = line

    def _record(self, kind: str, before: str, after: str, reason: str, failure: Failure) -> bool:
        self.repairs.append(Repair(kind, before, after, reason, failure.evidence))
        with self.builder.log.open("a", encoding="utf-8") as fh:
            fh.write(f"miner: repair {kind}: {before} -> {after or '(dropped)'}: {reason}\n")
        return True


def _pins_release(line: str, failure: Failure) -> bool:
    """True when `line` pins exactly the release the failure names (`pandas==0.23.2`)."""
    parsed = requirement(line)
    if parsed is None or canonical(parsed.name) != canonical(failure.name):
        return False
    specs = list(parsed.specifier)
    return (
        len(specs) == 1
        and specs[0].operator in ("==", "===")
        and (specs[0].version == failure.version)
    )


def _asked_for(failure: Failure) -> str:
    """What the dependent release asks for, from uv's words (`... depends on tqdm==4.19.9 and`)."""
    return failure.evidence.text.split(" depends on ", 1)[-1].split(" and ")[0].split(",")[0]
