"""Why an install failed, read from uv's log: which requirement, and what kind of failure.

uv explains a failed resolution in one `Because ...` sentence whose first clause names the
culprit; a failed build names the distribution in `Failed to build `name==version``, and the build
backend's output below it says why (`use_2to3 is invalid`, `No module named 'numpy'`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from miner.codebook import Evidence
from miner.select.repair.requirements import name_of

KINDS = ("missing_pin", "sdist_format", "no_wheel", "not_found", "build", "url", "index",
         "metadata", "python", "unsatisfiable", "unreadable", "uploaded_late", "other")  # fmt: skip
# Failures that no other interpreter changes: the same index answers the same way for each.
INTERPRETER_INDEPENDENT = frozenset({"missing_pin", "sdist_format", "not_found", "url", "index",
                                     "metadata", "unreadable", "uploaded_late"})  # fmt: skip
NAME = r"`?([A-Za-z0-9][A-Za-z0-9._-]*)(?:\[[^\]]*\])?"
PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    # Old releases the index received after the commit's date (jaxlib 0.4.13, published on PyPI
    # years after it was made), or a pinned release newer than the date (a pin a repair chose,
    # `tensorflow==1.15.5` for code of 2016): uv's hint names the package and the release the
    # date hides, as "the latest version satisfying the requirement" or "the requested version".
    (
        "uploaded_late",
        re.compile(
            rf"hint: {NAME}` was filtered by `exclude-newer`.*"
            r"(?:latest version satisfying the requirement is|requested version,) v?([^\s,]+),"
        ),
    ),
    # uv reads every candidate's metadata strictly; an old release may not parse (`pytz>=2011k`).
    ("metadata", re.compile(rf"Metadata for {NAME}` \(v([^)\s]+)\) could not be parsed")),
    # A requirements line uv cannot read: every interpreter reads it the same way.
    ("unreadable", re.compile(r"Couldn't parse requirement in `[^`]*`()")),
    # A git requirement or an extra index on a host this machine does not reach.
    ("url", re.compile(r"fatal: unable to access '(https?://[^']+)'")),
    # A direct URL requirement first: its download's `Failed to fetch` is no index's.
    ("url", re.compile(rf"Failed to (?:download and build|fetch|download) `{NAME}\s*@\s*([^`]+)`")),
    ("index", re.compile(r"Failed to fetch: `?(https?://[^\s`]+)")),
    # Every release the date allows was yanked (torchvision 0.1.x by early 2018): none by the
    # date, as for a project with no release at all then.
    ("not_found", re.compile(rf"Because {NAME}(?:[<>=!~]=?[^\s,`]+)? was yanked")),
    ("missing_pin", re.compile(rf"there is no version of {NAME}\s*(==|===)\s*([^\s,`]+)")),
    ("missing_pin", re.compile(rf"only the following versions of {NAME} are available")),
    # pip's words, for Python 2 environments.
    ("missing_pin", re.compile(rf"No matching distribution found for {NAME}\s*(==)\s*([^\s,()]+)")),
    # A release whose only sdist is a `.tar.bz2` (Twisted before 21): uv no longer reads them.
    ("sdist_format", re.compile(rf"{NAME}==([^\s,`]+) has a non-PEP 625-compliant source")),
    ("no_wheel", re.compile(rf"Because {NAME}(?:==([^\s,`]+))? has no (?:wheels|usable wheels)")),
    ("no_wheel", re.compile(rf"{NAME}(?:==([^\s,`]+))? has no wheels with a matching")),
    ("python", re.compile(rf"(?:Because )?{NAME}(?:==([^\s,`]+))? (?:depends on|requires) Python")),
    (
        "not_found",
        re.compile(rf"Because {NAME} was not found in the (?:package registry|provided)"),
    ),
    ("not_found", re.compile(rf"Because there are no versions of {NAME}")),  # none by the date
    (
        "build",
        re.compile(
            rf"Failed to (?:download and build|build|prepare distributions?)"
            rf"[^`]*`{NAME}(?:\s*==\s*([^`\s]+))?"
        ),
    ),  # fmt: skip
    ("unsatisfiable", re.compile(rf"Because {NAME}(?:[<>=!~]=?([^\s,`]+))? depends on")),
    # pip's words for a build that failed (Python 2 environments).
    ("build", re.compile(rf"ERROR: Failed building wheel for {NAME}")),
)
USE_2TO3 = re.compile(r"use_2to3 is invalid|error in \S+ setup command: use_2to3")
LEGACY = re.compile(r"Cannot import 'setuptools\.build_meta'|No module named 'setuptools\.command"
                    r"\.(?:build|test)'|has no attribute '(?:Feature|setuptools_scm)'"
                    # setuptools 67 reads requirement strings strictly (`opencv-python>=3.`)
                    r"|must be a dictionary whose values are strings or lists of strings "
                    r"containing valid project/version requirement specifiers"
                    r"|(?:install|extras)_require must be a string or list of strings")  # fmt: skip
BUILD_IMPORT = re.compile(r"No module named '([A-Za-z_][\w]*)")
# A `setup_requires` that an old setup.py fetches through pip, which a build environment lacks:
# `... pip wheel --no-deps -w /tmp/x --quiet numpy` failed; the package it wanted.
SETUP_REQUIRES = re.compile(r"'--no-deps', '-w', '[^']*', '--quiet', '([A-Za-z0-9][\w.-]*)[^']*'")
UV_BUILD_HINT = re.compile(r"^\s*([A-Za-z0-9][\w.-]*)\s*=\s*\[\s*\"([^\"]+)\"")
METADATA = re.compile(r"(?i)invalid metadata|failed to parse metadata|metadata mismatch|"
                      r"Failed to read metadata|invalid version")  # fmt: skip
INCLUDED = re.compile(r"`([^`]+)` \(v[^)]*\) was included because `([^`]+)`")
DEPENDS = re.compile(rf"{NAME}==([^\s,`]+) depends on {NAME}")
IN_BUILD = re.compile(r"build-system\.requires|extra-build-dependencies|Failed to build `")
SYNTAX = re.compile(r"SyntaxError|Missing parentheses in call to 'print'")


@dataclass(frozen=True)
class Failure:
    """The requirement an install failed on, how, and the log line that says so."""

    kind: str
    name: str  # the distribution's name as uv wrote it ("" when none was found)
    version: str  # the version involved, when the line gives one
    evidence: Evidence
    build_missing: str = ""  # a module the build imported and did not find
    use_2to3: bool = False  # the build needs setuptools < 58
    legacy: bool = False  # the build needs an older setuptools for another reason
    metadata: bool = False  # the package's metadata could not be read
    syntax: bool = False  # a build ran Python 2 code
    required_by: str = ""  # the requirement that pulled it in (uv's "was included because")
    url: str = ""  # the URL that could not be reached (url and index failures)

    in_build: bool = False  # it happened while a sdist's build requirements were resolved
    dependent: str = ""  # `torchvision==0.15.0`: the pinned release whose dependency it is

    @property
    def interpreter_independent(self) -> bool:
        """True when another interpreter would meet the same failure (not one inside a build,
        which an interpreter with a wheel does not run)."""
        return self.kind in INTERPRETER_INDEPENDENT and not self.in_build


BUILDING = re.compile(r"^\s+Building ([A-Za-z0-9][\w.-]*)==(\S+)")
BUILT = re.compile(r"^\s+Built ([A-Za-z0-9][\w.-]*)==(\S+)")


def unfinished_build(
    lines: list[str], since: int = 0, log_name: str = "install.log"
) -> Failure | None:
    """The sdist an install was still building when its time ran out (`Building onnxsim==0.4.36`
    with no `Built` after it), as a build failure of that release; None when none was."""
    built = {m.group(1).lower() for line in lines[since:] if (m := BUILT.match(line))}
    for offset, line in enumerate(lines[since:]):
        match = BUILDING.match(line)
        if match and match.group(1).lower() not in built:
            evidence = Evidence(log_name, since + offset + 1, line.strip()[:300],
                                "repair.failure.slow_build")  # fmt: skip
            return Failure("build", match.group(1), match.group(2), evidence)
    return None


def diagnose(lines: list[str], since: int = 0, log_name: str = "install.log") -> Failure | None:
    """The first failure uv reports in `lines[since:]`, None when none is recognised."""
    tail = lines[since:]
    text = "\n".join(tail)
    for kind, pattern in PATTERNS:
        for offset, line in enumerate(tail):
            match = pattern.search(line)
            if not match:
                continue
            groups = list(match.groups())
            name = (groups[0] or "").strip("`")
            version = ""
            if kind == "missing_pin" and len(groups) >= 3:
                version = groups[2] or ""
            elif kind != "url" and len(groups) >= 2:
                version = groups[1] or ""
            url = ""
            if "://" in name:  # a host out of reach: the URL, and the project it names
                url, name = name, ("" if kind == "index" else name_of(name))
            evidence = Evidence(log_name, since + offset + 1, " ".join(line.split())[:200],
                                f"repair.failure.{kind}")  # fmt: skip
            missing = (BUILD_IMPORT.search(text) or SETUP_REQUIRES.search(text)
                       if kind == "build" else None)  # fmt: skip
            hint = _build_hint(tail)
            return Failure(
                kind, name, version.strip("`"), evidence,
                build_missing=hint or (missing.group(1) if missing else ""),
                use_2to3=bool(USE_2TO3.search(text)),
                legacy=bool(LEGACY.search(text)),
                metadata=bool(METADATA.search(text)),
                syntax=bool(SYNTAX.search(text)),
                required_by=_required_by(tail, name),
                url=url,
                in_build=bool(IN_BUILD.search(text)),
                dependent=(f"{name}=={version}" if kind == "unsatisfiable" and version
                           else _dependent(text, name)),  # fmt: skip
            )  # fmt: skip
    return _pip_build(tail, since, log_name)


PIP_ERRORED = re.compile(r"ERROR: Command errored out with exit status")
PIP_COLLECTING = re.compile(rf"^\s*Collecting {NAME}(?:\s*(?:==|>=)\s*([^\s,;()]+))?")


def _pip_build(tail: list[str], since: int, log_name: str) -> Failure | None:
    """pip's `Command errored out` while preparing a sdist: the project it was collecting."""
    for offset, line in enumerate(tail):
        if not PIP_ERRORED.search(line):
            continue
        for back in range(offset, -1, -1):
            match = PIP_COLLECTING.match(tail[back])
            if match:
                evidence = Evidence(log_name, since + offset + 1, " ".join(line.split())[:200],
                                    "repair.failure.build")  # fmt: skip
                return Failure("build", match.group(1), match.group(2) or "", evidence)
        return None
    return None


def _dependent(text: str, name: str) -> str:
    """`A==x` when uv says `A==x depends on NAME...` (the release that asks for it)."""
    for match in DEPENDS.finditer(text):
        if match.group(3).lower() == name.lower():
            return f"{match.group(1)}=={match.group(2)}"
    return ""


def _required_by(lines: list[str], name: str) -> str:
    """The first requirement on the chain that brought `name` in."""
    for line in lines:
        match = INCLUDED.search(line)
        if match and match.group(1).lower() == name.lower():
            return match.group(2)
    return ""


def _build_hint(lines: list[str]) -> str:
    """The module uv suggests as an extra build dependency (`name = ["numpy"]`)."""
    for line in lines:
        match = UV_BUILD_HINT.match(line)
        if match:
            return match.group(2)
    return ""
