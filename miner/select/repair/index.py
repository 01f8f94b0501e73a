"""What the package index holds: a project's releases, their files and upload times.

The index is the one the install uses: `--index-url`/`--find-links`/`--no-index` lines of the
requirements, else uv's and pip's variables (`UV_INDEX_URL`, `UV_DEFAULT_INDEX`,
`UV_FIND_LINKS`, `PIP_INDEX_URL`), else PyPI. Folders of find-links are listed; an index is read
through the simple repository API in its JSON form (PEP 691), with upload times (PEP 700) so that
"as of the commit date" means what uv's `--exclude-newer` means.
"""

from __future__ import annotations

import functools
import json
import os
import platform
import urllib.error
import urllib.request
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from urllib.parse import urljoin, urlparse

from packaging.utils import (
    InvalidSdistFilename,
    InvalidWheelFilename,
    parse_sdist_filename,
    parse_wheel_filename,
)
from packaging.version import InvalidVersion, Version

from miner.select.repair.names import canonical

PYPI = "https://pypi.org/simple/"
JSON_ACCEPT = "application/vnd.pypi.simple.v1+json"
TIMEOUT = 30.0
READABLE_SDISTS = (".tar.gz", ".zip")


@dataclass(frozen=True)
class IndexSource:
    """Where releases are looked up: index URLs and find-links locations."""

    indexes: tuple[str, ...] = (PYPI,)
    find_links: tuple[str, ...] = ()

    @classmethod
    def of(cls, lines: tuple[str, ...], env: Mapping[str, str]) -> IndexSource:
        """The source a requirements file and the environment give uv."""
        indexes: list[str] = []
        extra: list[str] = []  # --extra-index-url adds to the default index, never replaces it
        links: list[str] = []
        no_index = False
        for line in lines:
            words = line.replace("=", " ", 1).split() if line.startswith("-") else []
            if not words:
                continue
            option, value = words[0], words[1] if len(words) > 1 else ""
            if option in ("--no-index",):
                no_index = True
            elif option in ("-i", "--index-url") and value:
                indexes.append(value)
            elif option == "--extra-index-url" and value:
                extra.append(value)
            elif option in ("-f", "--find-links") and value:
                links.append(value)
        for name in ("UV_INDEX_URL", "UV_DEFAULT_INDEX", "PIP_INDEX_URL"):
            if env.get(name) and not indexes:
                indexes.append(env[name])
        links += [v for v in env.get("UV_FIND_LINKS", "").split(",") if v]
        if no_index or (env.get("UV_NO_INDEX") or "").lower() in ("1", "true"):
            indexes = []
        elif not indexes:
            indexes = [PYPI, *extra]
        else:
            indexes += extra
        if (env.get("UV_OFFLINE") or "").lower() in ("1", "true"):  # only what is on disk
            indexes = [i for i in indexes if i.startswith("file:")]
        return cls(tuple(indexes), tuple(links))


@dataclass(frozen=True)
class Release:
    """One version of a project and the names of its files."""

    version: Version
    files: tuple[str, ...]
    uploaded: datetime | None  # the earliest upload among its files (None: unknown)

    def wheel_for(self, python: tuple[int, int]) -> bool:
        """True when one of its wheels installs on `python` on this machine."""
        return any(_wheel_fits(f, python) for f in self.files if f.endswith(".whl"))

    @property
    def platforms(self) -> frozenset[str]:
        """The operating systems its binary wheels are for ("any" for pure ones)."""
        found = set()
        for name in self.files:
            if name.endswith(".whl"):
                tag = name[:-4].rsplit("-", 1)[-1]
                found |= {_system(p) for p in tag.split(".")}
        return frozenset(found)

    @property
    def platform_only(self) -> bool:
        """True when its wheels are all for another operating system than Linux."""
        return bool(self.platforms) and not self.platforms & {"any", "linux"}

    @property
    def has_sdist(self) -> bool:
        """True when it ships a source distribution the installer reads: uv no longer reads the
        `.tar.bz2` (and other) archives that PEP 625 ruled out, only `.tar.gz` and `.zip`."""
        return any(f.endswith(READABLE_SDISTS) for f in self.files)


def releases(source: IndexSource, name: str, as_of: str | None = None) -> list[Release] | None:
    """The project's releases (oldest first) uploaded by `as_of`, None when no index answers."""
    files: dict[Version, list[tuple[str, datetime | None]]] = {}
    answered = False
    for location in source.find_links:
        found = _listed(location)
        answered = answered or found is not None
        for filename in found or ():
            _add(files, name, filename, None)
    for index in source.indexes:
        found_files = _index_files(index, canonical(name))
        answered = answered or found_files is not None
        for filename, uploaded in found_files or ():
            _add(files, name, filename, uploaded)
    if not answered:
        return None
    limit = _when(as_of) if as_of else None
    # A file with no upload date (a local index, a wheel folder) is dated by the index's dated
    # releases: one newer than a release uploaded after the date came after it too (torch
    # 2.14.1 in a local folder is not a release of 2019).
    later = [v for v, entries in files.items() if limit is not None
             and any(t is not None and t > limit for _, t in entries)]  # fmt: skip
    first_later = min(later) if later else None
    out = []
    for version, entries in sorted(files.items()):
        kept = [(f, t) for f, t in entries if limit is None or (t is not None and t <= limit)
                or (t is None and (first_later is None or version < first_later))]  # fmt: skip
        if kept:
            times = [t for _, t in kept if t is not None]
            out.append(Release(version, tuple(f for f, _ in kept), min(times) if times else None))
    return out


def ever_released(source: IndexSource, name: str, version: str) -> bool:
    """True when the index has (or had, before a later upload) `name==version` at any date."""
    found = releases(source, name)
    return any(str(r.version) == version or r.version == _version(version) for r in found or [])


def _system(platform_tag: str) -> str:
    systems = (("any", "any"), ("manylinux", "linux"), ("musllinux", "linux"),
               ("linux", "linux"), ("macosx", "macOS"), ("win", "Windows"))  # fmt: skip
    for prefix, system in systems:
        if platform_tag.startswith(prefix):
            return system
    return platform_tag


def _version(text: str) -> Version | None:
    try:
        return Version(text)
    except InvalidVersion:
        return None


def _when(text: str) -> datetime | None:
    try:
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=timezone.utc)


def _add(files: dict, name: str, filename: str, uploaded: datetime | None) -> None:
    parsed = _parse(filename)
    if parsed is not None and canonical(parsed[0]) == canonical(name):
        files.setdefault(parsed[1], []).append((filename, uploaded))


def _parse(filename: str) -> tuple[str, Version] | None:
    try:
        if filename.endswith(".whl"):
            wname, version, _, _ = parse_wheel_filename(filename)
            return str(wname), version
        sname, version = parse_sdist_filename(filename)
        return str(sname), version
    except (InvalidWheelFilename, InvalidSdistFilename, InvalidVersion):
        return None


def _wheel_fits(filename: str, python: tuple[int, int]) -> bool:
    try:
        _, _, _, tags = parse_wheel_filename(filename)
    except (InvalidWheelFilename, InvalidVersion):
        return False
    major, minor = python
    machine = platform.machine() or "x86_64"
    for tag in tags:
        interpreters = {f"cp{major}{minor}", f"py{major}{minor}", f"py{major}"}
        stable = tag.abi == "abi3" and tag.interpreter.startswith(f"cp{major}")
        if stable:
            stable = int(tag.interpreter[3:] or 0) <= minor
        if tag.interpreter not in interpreters and not stable:
            continue
        if tag.platform == "any" or (
            machine in tag.platform and tag.platform.startswith(("manylinux", "linux"))
        ):
            return True
    return False


@functools.cache
def _listed(location: str) -> tuple[str, ...] | None:
    path = Path(location[len("file://") :] if location.startswith("file://") else location)
    if not path.is_dir():
        return None
    return tuple(sorted(p.name for p in path.iterdir() if p.is_file()))


@functools.cache
def _index_files(index: str, project: str) -> tuple[tuple[str, datetime | None], ...] | None:
    """(filename, upload time) of a project on a simple index, None when it cannot be read."""
    base = index if index.endswith("/") else index + "/"
    url = urljoin(base, f"{project}/")
    if urlparse(url).scheme == "file":
        folder = Path(urlparse(url).path)
        if not folder.is_dir():
            return () if Path(urlparse(base).path).is_dir() else None
        return tuple((p.name, None) for p in folder.iterdir() if p.is_file())
    request = urllib.request.Request(url, headers={"Accept": JSON_ACCEPT})
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT) as response:
            data = json.loads(response.read().decode("utf-8"))
    except urllib.error.HTTPError as exc:
        return () if exc.code == 404 else None
    except (OSError, ValueError):
        return None
    out = []
    for entry in data.get("files") or []:
        if entry.get("yanked"):
            continue
        uploaded = entry.get("upload-time")
        out.append((str(entry.get("filename")), _when(uploaded) if uploaded else None))
    return tuple(out)


def environment_index(env: Mapping[str, str] | None = None) -> dict[str, str]:
    """The index variables of `env` (default: this process) that uv reads."""
    env = os.environ if env is None else env
    names = ("UV_INDEX_URL", "UV_DEFAULT_INDEX", "UV_FIND_LINKS", "PIP_INDEX_URL", "UV_NO_INDEX")
    return {k: env[k] for k in names if env.get(k)}


def newest_release(source: IndexSource, date: str, name: str) -> str | None:
    """The newest final release of `name` uploaded by `date`, None when there is none."""
    found = releases(source, name, date) or []
    final = [r.version for r in found if not r.version.is_prerelease]
    return str(max(final)) if final else None
