"""Moving a requirement to a release the index has: the nearest one of the same major.minor, then
of the same major; for a sdist that does not build, the nearest release with a wheel for the
interpreter; companions (torchvision, keras) moved to the version their framework pairs with.
"""

from __future__ import annotations

from packaging.requirements import Requirement
from packaging.version import InvalidVersion, Version

from miner.select.repair.index import Release

# torchvision release -> the torch release it was built against (torchvision's README table).
TORCHVISION_FOR_TORCH = {
    "1.0": "0.2.2", "1.1": "0.3.0", "1.2": "0.4.0", "1.3": "0.4.1", "1.4": "0.5.0",
    "1.5": "0.6.0", "1.6": "0.7.0", "1.7": "0.8.1", "1.8": "0.9.0", "1.9": "0.10.0",
    "1.10": "0.11.1", "1.11": "0.12.0", "1.12": "0.13.0", "1.13": "0.14.0", "2.0": "0.15.1",
    "2.1": "0.16.0", "2.2": "0.17.0", "2.3": "0.18.0", "2.4": "0.19.0", "2.5": "0.20.0",
}  # fmt: skip
TORCHAUDIO_FOR_TORCH = {
    "1.5": "0.5.0", "1.6": "0.6.0", "1.7": "0.7.0", "1.8": "0.8.0", "1.9": "0.9.0",
    "1.10": "0.10.0", "1.11": "0.11.0", "1.12": "0.12.0", "1.13": "0.13.0",
}  # fmt: skip
# torch release line -> the torchtext release built for it (torchtext's README table; before 0.7
# torchtext was pure Python, and 0.4 and 0.3.1 are the releases of those torch lines' time).
TORCHTEXT_FOR_TORCH = {
    "1.0": "0.3.1", "1.1": "0.3.1", "1.2": "0.4.0", "1.3": "0.4.0", "1.4": "0.5.0",
    "1.5": "0.6.0", "1.6": "0.7.0", "1.7": "0.8.0", "1.8": "0.9.0", "1.9": "0.10.0",
    "1.10": "0.11.0", "1.11": "0.12.0", "1.12": "0.13.0", "1.13": "0.14.0", "2.0": "0.15.1",
    "2.1": "0.16.0", "2.2": "0.17.0", "2.3": "0.18.0",
}  # fmt: skip
# keras release line -> the newest TensorFlow line it runs on (Keras' release notes: 2.3 is the
# last multi-backend Keras and stops at TF 2.2; 2.4+ are tf.keras).
TENSORFLOW_FOR_KERAS = {
    "2.0": "1.15", "2.1": "1.15", "2.2": "1.15", "2.3": "2.2", "2.4": "2.3", "2.5": "2.5",
    "2.6": "2.6", "2.7": "2.7", "2.8": "2.8", "2.9": "2.9", "2.10": "2.10", "2.11": "2.11",
}  # fmt: skip


def major_minor(version: Version) -> tuple[int, int]:
    """(major, minor) of a version."""
    release = (*version.release, 0)
    return release[0], release[1]


def nearest(target: Version, candidates: list[Release]) -> Release | None:
    """The candidate closest to `target`: same major.minor first, then same major, then any;
    of two as close, the later one."""

    def key(release: Release) -> tuple[int, float, float]:
        version = release.version
        level = (0 if major_minor(version) == major_minor(target)
                 else 1 if version.major == target.major else 2)  # fmt: skip
        return level, abs(_number(version) - _number(target)), -_number(version)

    return min(candidates, key=key) if candidates else None


def _number(version: Version) -> float:
    parts = (*version.release, 0, 0)
    return parts[0] * 1_000_000 + parts[1] * 1_000 + min(parts[2], 999)


def pin_move(
    line: str, available: list[Release], python: tuple[int, int], same_major: bool = True
) -> tuple[str, str] | None:
    """A pinned line moved to the nearest release that installs on `python`, and why."""
    parsed = Requirement(line)
    pins = [s for s in parsed.specifier if s.operator in ("==", "===")]
    if not pins or pins[0].version.endswith(".*"):
        return None
    try:
        target = Version(pins[0].version)
    except InvalidVersion:
        return None
    usable = [r for r in available if r.wheel_for(python) or r.has_sdist]
    if same_major:
        usable = [r for r in usable if r.version.major == target.major]
    chosen = nearest(target, [r for r in usable if r.version != target])
    if chosen is None:
        return None
    return _with_version(parsed, str(chosen.version)), str(chosen.version)


def next_release(line: str, available: list[Release], python: tuple[int, int]) -> str | None:
    """A pin whose major has no release here moved to the first later release that installs on
    `python` (PyTorch 0.4 was published on its own index only; 1.0.0 is PyPI's next)."""
    parsed = Requirement(line)
    pins = [s for s in parsed.specifier if s.operator in ("==", "===")]
    if not pins:
        return None
    try:
        target = Version(pins[0].version.rstrip(".*"))
    except InvalidVersion:
        return None
    usable = [r for r in available if not r.version.is_prerelease
              and (r.wheel_for(python) or r.has_sdist)]  # fmt: skip
    later = [r for r in usable if r.version > target]
    if not later or any(r.version.major == target.major for r in usable):
        return None
    return _with_version(parsed, str(min(later, key=lambda r: r.version).version))


def next_line(version: str, available: list[Release], python: tuple[int, int]) -> str | None:
    """The specifier of the release line after `version`'s (`>=0.25,<0.26` after 0.24.2) that
    has a release installing on `python`, None when there is none."""
    try:
        target = Version(version)
    except InvalidVersion:
        return None
    line = major_minor(target)
    later = sorted(r.version for r in available if not r.version.is_prerelease
                   and major_minor(r.version) > line and r.wheel_for(python))  # fmt: skip
    if not later:
        return None
    major, minor = major_minor(later[0])
    return f">={major}.{minor},<{major}.{minor + 1}"


def wheel_move(
    line: str,
    name: str,
    version: str,
    available: list[Release],
    python: tuple[int, int],
    same_major: bool = False,
) -> str | None:
    """The requirement that replaces a failing build: the nearest release with a wheel (of the
    same major version when `same_major`)."""
    wheels = [r for r in available if r.wheel_for(python)]
    try:
        target = Version(version) if version else None
    except InvalidVersion:
        target = None
    if same_major and target is not None:
        wheels = [r for r in wheels if r.version.major == target.major]
    if target is None:
        chosen = wheels[-1] if wheels else None
    else:
        chosen = nearest(target, [r for r in wheels if r.version != target])
    if chosen is None:
        return None
    parsed = Requirement(line) if line else Requirement(name)
    return _with_version(parsed, str(chosen.version))


def _with_version(parsed: Requirement, version: str) -> str:
    extras = f"[{','.join(sorted(parsed.extras))}]" if parsed.extras else ""
    marker = f"; {parsed.marker}" if parsed.marker else ""
    return f"{parsed.name}{extras}=={version}{marker}"


def companion(lines: list[str]) -> list[tuple[int, str, str]]:
    """(index, new line, reason) for each companion whose version its framework's pin decides:
    torchvision/torchaudio/torchtext for a pinned torch, tensorflow for a pinned keras."""
    pins = _pins(lines)
    out: list[tuple[int, str, str]] = []
    torch = pins.get("torch")
    if torch and torch[1] is not None:
        key = "{}.{}".format(*major_minor(torch[1]))
        for name, table in (("torchvision", TORCHVISION_FOR_TORCH),
                            ("torchaudio", TORCHAUDIO_FOR_TORCH),
                            ("torchtext", TORCHTEXT_FOR_TORCH)):  # fmt: skip
            entry = pins.get(name)
            if entry and entry[1] is None and key in table:
                out.append(
                    (
                        entry[0],
                        _with_version(entry[2], table[key]),
                        f"{name} {table[key]} is the release built for torch {key}",
                    )
                )
    keras = pins.get("keras")
    for tf_name in ("tensorflow", "tensorflow-cpu"):
        tf = pins.get(tf_name)
        if keras and keras[1] is not None and tf and tf[1] is None:
            key = "{}.{}".format(*major_minor(keras[1]))
            if key in TENSORFLOW_FOR_KERAS:
                spec = str(tf[2].specifier)
                pin = f"=={TENSORFLOW_FOR_KERAS[key]}.*"
                line = f"{tf[2].name}{spec + ',' if spec else ''}{pin}"
                out.append((tf[0], line, f"keras {key} runs on TensorFlow "
                            f"{TENSORFLOW_FOR_KERAS[key]}"))  # fmt: skip
    return out


def _pins(lines: list[str]) -> dict[str, tuple[int, Version | None, Requirement]]:
    """Each requirement by lower-case name: (its line's index, its `==` version or None, it)."""
    pins: dict[str, tuple[int, Version | None, Requirement]] = {}
    for i, line in enumerate(lines):
        try:
            parsed = Requirement(line)
        except Exception:  # noqa: BLE001 - options and paths are not requirements
            continue
        exact = [s.version for s in parsed.specifier if s.operator == "=="]
        try:
            version = Version(exact[0].rstrip(".*")) if exact else None
        except InvalidVersion:
            version = None
        pins[parsed.name.lower()] = (i, version, parsed)
    return pins


def pillow_bound(lines: list[str]) -> tuple[str, str] | None:
    """`pillow<7` and why, when a pinned torchvision before 0.5 would meet a Pillow that no
    longer has the `PILLOW_VERSION` it imports (torchvision 0.5's release notes), and no line
    names Pillow already."""
    pins = _pins(lines)
    vision = pins["torchvision"][1] if "torchvision" in pins else None
    if "pillow" in pins or vision is None or vision >= Version("0.5"):
        return None
    return "pillow<7", f"torchvision {vision} imports PILLOW_VERSION, which Pillow 7 removed"


def jaxlib_bound(lines: list[str]) -> tuple[str, str] | None:
    """`jaxlib<=V` and why, for a `jax==V` no line pairs with a jaxlib: jax checks at import
    that jaxlib is not newer than itself, and the resolver takes the newest it allows."""
    pins = _pins(lines)
    jax = pins["jax"][1] if "jax" in pins else None
    if jax is None or "jaxlib" in pins or jax < Version("0.4"):
        return None
    return f"jaxlib<={jax}", f"jax {jax} refuses a newer jaxlib at import"
