"""Requirement lines as the index names them, before anything is installed.

Each rewrite returns the new lines and a Repair per change: conda and apt names (a conda `=` pin
and build string, `opencv`, `python-dev`), `git://` URLs, git or URL requirements of a project the
index has, and a system-wide `pip freeze` reduced to what the code imports.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from packaging.requirements import InvalidRequirement, Requirement

from miner.audit.closure import ImportClosure
from miner.codebook import Evidence
from miner.select.repair.names import canonical, modules_of
from miner.select.repair.records import Repair
from miner.select.versions import PACKAGES

# conda's names for packages the index names otherwise ("" = nothing to install from the index).
CONDA_NAMES = {
    "opencv": "opencv-python", "py-opencv": "opencv-python", "pytorch": "torch",
    "pytorch-cpu": "torch", "tensorflow-mkl": "tensorflow", "tensorflow-eigen": "tensorflow",
    "pyyaml": "PyYAML", "pillow-simd": "Pillow", "cudatoolkit": "", "cudnn": "", "nccl": "",
    "python": "", "pip": "", "mkl": "", "mkl-service": "", "libgcc-ng": "", "libstdcxx-ng": "",
    "ca-certificates": "", "openssl": "", "certifi": "certifi", "cpuonly": "",
}  # fmt: skip
# Debian/Ubuntu system packages written into requirements files.
APT_NAME = re.compile(r"^(?:python3?-(?:dev|pip|tk|venv|setuptools|numpy|scipy|opencv)|"
                      r"build-essential|lib[\w.+-]+-dev|libgl1[\w-]*|ffmpeg|git|cmake-data|"
                      r"pkg-config|swig)$")  # fmt: skip
# Lines a system's `pip freeze` writes that name no distribution (Debian's pkg-resources==0.0.0).
FREEZE_ARTEFACTS = frozenset({"pkg-resources"})
# Nightly builds on the index and the stable projects they precede.
NIGHTLIES = {
    "tf-nightly": "tensorflow", "tf-nightly-cpu": "tensorflow-cpu",
    "tf-nightly-gpu": "tensorflow-gpu", "tb-nightly": "tensorboard", "keras-nightly": "keras",
    "tfp-nightly": "tensorflow-probability", "tfds-nightly": "tensorflow-datasets",
    "tf-estimator-nightly": "tensorflow-estimator", "tf-keras-nightly": "tf-keras",
}  # fmt: skip
CONDA_PIN = re.compile(r"^([A-Za-z0-9][\w.-]*)=(?!=)([\w.*+!]+)(?:=[\w.*]+)?$")
# `conda list --export` written with pip's `==`: `torch==1.12.1=py3.8_cuda11.3_cudnn8.3.2_0`.
CONDA_BUILD = re.compile(r"^([A-Za-z0-9][\w.-]*)==([\w.*+!]+)=[\w.*]+$")
LEADING_NAME = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)(\[[^\]]*\])?")
GIT_PROTOCOL = re.compile(r"\bgit://")
ARCHIVE = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._]*?)-\d[^/]*\.(?:whl|tar\.gz|zip|tar\.bz2)$")
SNAPSHOT = re.compile(r"/([A-Za-z0-9][\w.-]*)/(?:archive|zipball|tarball)/")
EGG = re.compile(r"#(?:.*&)?egg=([A-Za-z0-9][\w.-]*)")
FRAMEWORKS = frozenset(canonical(name) for name in PACKAGES)
FREEZE_SIZE = 40  # a requirements file this long, all `==`, reads as a whole system's freeze


# A requirement with pip's options after it on its line: `jax==0.4.14 -f <url>`, `--hash=...`.
TRAILING_OPTIONS = re.compile(r"^(\S+(?:\s*[<>=!~;,][^-]*?)?)\s+(--?[A-Za-z].*)$")
OPTION = re.compile(r"--?[A-Za-z][\w-]*(?:[= ]\s*(?!-)\S+)?")
PER_REQUIREMENT = ("--hash", "--global-option", "--install-option", "--config-settings")


def is_option(line: str) -> bool:
    """True for pip options (`--find-links`, `-e path`, `-r`), which are not requirements."""
    return line.lstrip().startswith("-") and not line.lstrip().startswith(("-e ", "--editable"))


def requirement(line: str) -> Requirement | None:
    """The parsed requirement of a line, None for options, paths and what does not parse."""
    if is_option(line) or line.lstrip().startswith(("-e ", "--editable")):
        return None
    try:
        return Requirement(line.strip())
    except InvalidRequirement:
        return None


REPOSITORY_AFFIXES = re.compile(
    r"^(?:pytorch|torch|tf|tensorflow|keras|python|py)[-_.]|[-_.](?:pytorch|torch|tf|tensorflow"
    r"|keras|python|py)$"
)


def name_of(line: str) -> str:
    """The project a line names (the `egg=` or the last URL part of a URL), "" for options."""
    parsed = requirement(line)
    if parsed is not None:
        return parsed.name
    egg = EGG.search(line)
    if egg:
        return egg.group(1)
    if "://" in line:
        bare = line.split("#", 1)[0].rstrip("/")
        tail = bare.rsplit("/", 1)[-1]
        snapshot = SNAPSHOT.search(bare)
        if snapshot:  # a repository's snapshot archive (`.../NAME/archive/master.zip`)
            return snapshot.group(1)
        archive = ARCHIVE.match(tail)
        if archive:  # a wheel's or sdist's file name: the project, then its version
            return archive.group(1)
        return re.sub(r"\.git$", "", re.sub(r"@.*$", "", tail))  # a ref first, then `.git`
    return ""


def provides(line: str) -> frozenset[str]:
    """The import names a requirement line is known to provide. A repository URL names the
    repository, which often wraps the module's name in the framework's or language's
    (`pytorch-pcen` ships `pcen`, `yolov5-pytorch` ships `yolov5`): those words are left off too."""
    name = name_of(line)
    if not name:
        return frozenset()
    modules = set(modules_of(name))
    if "://" in line:
        bare = REPOSITORY_AFFIXES.sub("", name.lower())
        if bare and bare != name.lower():
            modules |= modules_of(bare)
    return frozenset(modules)


def needed(line: str, closure: ImportClosure) -> bool:
    """True when the entry point's closure imports something this line provides, or when it is
    a deep-learning framework (Keras finds its back-end at run time, never by an import)."""
    if canonical(name_of(line)) in FRAMEWORKS:
        return True
    return bool(provides(line) & set(closure.names))


def line_repair(kind: str, before: str, after: str, reason: str, rule: str) -> Repair:
    """A repair of one requirement line, its evidence the line as the requirements file had it."""
    return Repair(kind, before, after, reason, Evidence("requirements.txt", 0, before, rule))


def aliases(lines: list[str], on_index: Callable[[str], bool]) -> tuple[list[str], list[Repair]]:
    """conda pins (`numpy=1.16=py36_0`) as pip pins; conda and apt names as the index's."""
    out: list[str] = []
    repairs: list[Repair] = []
    for line in lines:
        stripped = line.strip()
        conda = CONDA_PIN.match(stripped) or CONDA_BUILD.match(stripped)
        if conda:
            version = conda.group(2).rstrip(".*")
            fixed = f"{conda.group(1)}=={version}" if version else conda.group(1)
            if conda.group(2).endswith("*"):
                fixed = f"{conda.group(1)}=={version}.*" if version else conda.group(1)
            why = ("conda's build string is no part of a version" if "==" in stripped
                   else "conda's `=` pin is pip's `==`")  # fmt: skip
            repairs.append(line_repair("alias", stripped, fixed, why, "repair.alias.conda_pin"))
            stripped = fixed
        name = name_of(stripped)
        key = name.lower()
        if key in CONDA_NAMES and CONDA_NAMES[key] != name and not is_option(stripped):
            target = CONDA_NAMES[key]
            if not target:
                repairs.append(
                    line_repair(
                        "alias",
                        stripped,
                        "",
                        f"{name} is a conda package with no counterpart on the index",
                        "repair.alias.conda",
                    )
                )
                continue
            if any(canonical(name_of(other)) == canonical(target) for other in lines):
                repairs.append(
                    line_repair(
                        "alias",
                        stripped,
                        "",
                        f"conda names {target} {name}, which the list has already",
                        "repair.alias.conda",
                    )
                )
                continue
            if not on_index(name) or key in ("pytorch", "pytorch-cpu", "opencv", "py-opencv"):
                fixed = target + stripped[len(name) :]
                repairs.append(line_repair("alias", stripped, fixed, f"conda names {target} {name}",
                                           "repair.alias.conda"))  # fmt: skip
                stripped = fixed
        elif canonical(key) in NIGHTLIES and not is_option(stripped):
            # a nightly keeps its latest builds only: those of the commit's time are gone
            stable = NIGHTLIES[canonical(key)]
            listed = any(canonical(name_of(other)) == stable for other in lines)
            fixed = "" if listed else stable + stripped[len(name) :].split("==")[0]
            why = (f"{name}'s builds of the commit's time are gone from the index (a nightly "
                   f"keeps its latest); the stable {stable} of that time stands in")  # fmt: skip
            repairs.append(line_repair("alias", stripped, fixed, why, "repair.alias.nightly"))
            if listed:
                continue
            stripped = fixed
        elif canonical(key) in FREEZE_ARTEFACTS:
            why = (f"{name} is what Debian's pip freeze writes for setuptools' pkg_resources, "
                   "no project of the index")  # fmt: skip
            repairs.append(line_repair("alias", stripped, "", why, "repair.alias.freeze"))
            continue
        elif APT_NAME.match(key) and not on_index(name):
            why = f"{name} is a system (apt) package, not on the index"
            repairs.append(line_repair("alias", stripped, "", why, "repair.alias.apt"))
            continue
        out.append(stripped)
    return out, repairs


def urls(lines: list[str], on_index: Callable[[str], bool]) -> tuple[list[str], list[Repair]]:
    """`git://` as `git+https://`; a git or URL requirement as its project on the index."""
    out: list[str] = []
    repairs: list[Repair] = []
    for line in lines:
        fixed = line
        if GIT_PROTOCOL.search(fixed):
            fixed = GIT_PROTOCOL.sub("https://", fixed)
            if not re.search(r"git\+https://", fixed):
                fixed = fixed.replace("https://", "git+https://", 1)
            repairs.append(
                line_repair(
                    "url",
                    line,
                    fixed,
                    "git:// is no longer served; the same repository over https",
                    "repair.url.git_protocol",
                )
            )
        parsed = requirement(fixed)
        is_url = "://" in fixed and (parsed is None or parsed.url is not None)
        name = name_of(fixed)
        if is_url and name and not fixed.startswith(("-e /", "/")) and "file://" not in fixed:
            if on_index(name):
                repairs.append(
                    line_repair(
                        "url",
                        fixed,
                        name,
                        f"{name} is on the index; the URL needs a network the run may not have",
                        "repair.url.index",
                    )
                )
                fixed = name
        out.append(fixed)
    return out, repairs


def reduce_freeze(lines: list[str], closure: ImportClosure) -> tuple[list[str], list[Repair]]:
    """A long all-`==` list (a whole machine's `pip freeze`) kept to what the code imports."""
    pinned = [ln for ln in lines if (r := requirement(ln)) is not None and
              any(s.operator in ("==", "===") for s in r.specifier)]  # fmt: skip
    plain = [ln for ln in lines if requirement(ln) is not None]
    if len(pinned) < FREEZE_SIZE or len(pinned) < len(plain) * 0.9 or not closure.names:
        return lines, []
    out: list[str] = []
    repairs: list[Repair] = []
    for line in lines:
        if line in pinned and not needed(line, closure):
            repairs.append(
                line_repair(
                    "freeze",
                    line,
                    "",
                    f"a freeze of {len(pinned)} packages; the code imports nothing from it",
                    "repair.freeze",
                )
            )
            continue
        out.append(line)
    return out, repairs


def drop_backports(
    lines: list[str], shipped: Callable[[str], bool]
) -> tuple[list[str], list[Repair]]:
    """Requirements whose import names the interpreter already ships (enum34, futures, typing)."""
    out: list[str] = []
    repairs: list[Repair] = []
    for line in lines:
        name = name_of(line)
        if (
            name
            and requirement(line) is not None
            and canonical(name) not in ("pip", "setuptools", "wheel")
        ):
            ships = sorted(m for m in provides(line) if shipped(m))
            if ships:
                repairs.append(
                    line_repair(
                        "backport",
                        line,
                        "",
                        f"a backport of `{ships[0]}`, which this Python ships",
                        "repair.backport",
                    )
                )
                continue
        out.append(line)
    return out, repairs


def readable(lines: list[str]) -> tuple[list[str], list[Repair]]:
    """Lines the installer cannot read (`pytz>=2011k`, `numpy=>1.16`, a stray word after the
    version) kept as the bare project name, so one bad line does not stop the whole install; a
    line with no project name at all is dropped. Options, paths and URLs are left as they are."""
    out: list[str] = []
    repairs: list[Repair] = []
    for line in lines:
        stripped = line.strip()
        trailing = TRAILING_OPTIONS.match(stripped)
        if trailing and requirement(trailing.group(1)) is not None:
            # pip reads `jax==0.4.14 -f <url>`; uv wants the option on a line of its own
            project, options = trailing.group(1), trailing.group(2)
            moved = [o for o in OPTION.findall(options) if not o.startswith(PER_REQUIREMENT)]
            out += [project, *moved]
            repairs.append(line_repair("unreadable", stripped, project, "pip's options after the "
                                       "requirement go to lines of their own (hashes go)",
                                       "repair.unreadable"))  # fmt: skip
            continue
        if (
            requirement(stripped) is not None
            or is_option(stripped)
            or stripped.startswith(("-e ", "--editable", "/", ".", "~"))
            or "://" in stripped
        ):
            out.append(line)
            continue
        name = LEADING_NAME.match(stripped)
        fixed = name.group(0) if name else ""
        if fixed and requirement(fixed) is None:
            fixed = ""
        why = ("its version is not one the installer reads; the resolver picks a release"
               if fixed else "the installer cannot read it and it names no project")  # fmt: skip
        repairs.append(line_repair("unreadable", stripped, fixed, why, "repair.unreadable"))
        if fixed:
            out.append(fixed)
    return out, repairs


def duplicates(lines: list[str]) -> tuple[list[str], list[Repair]]:
    """A project listed more than once (`transformers==4.28.1` in one file, `==4.37.2` in an
    inlined one) listed once: the line with a version pinned wins over a bare or bounded one, and
    of two pins the later line wins, as later files refine earlier ones. Lines whose markers
    differ (one per platform) are not duplicates."""
    keyed: dict[tuple[str, str], list[tuple[int, Requirement]]] = {}
    for i, line in enumerate(lines):
        parsed = requirement(line)
        if parsed is not None and parsed.url is None:
            keyed.setdefault((canonical(parsed.name), str(parsed.marker or "")), []).append(
                (i, parsed)
            )
    drop: dict[int, int] = {}  # dropped line -> the line kept instead
    for found in keyed.values():
        pinned = [i for i, r in found if any(s.operator in ("==", "===") for s in r.specifier)]
        if len(found) < 2 or (not pinned and len({str(r.specifier) for _, r in found}) > 1):
            continue  # bounds combine; the resolver takes them together
        keep = pinned[-1] if pinned else found[-1][0]
        drop.update({i: keep for i, _ in found if i != keep})
    out: list[str] = []
    repairs: list[Repair] = []
    for i, line in enumerate(lines):
        if i in drop:
            kept = lines[drop[i]]
            repairs.append(line_repair("duplicate", line, "", f"the project is listed again as "
                                       f"{kept}, which is kept", "repair.duplicate"))  # fmt: skip
            continue
        out.append(line)
    return out, repairs


def dated(lines: list[str], newest: Callable[[str], str | None]) -> tuple[list[str], list[Repair]]:
    """Each requirement without a pin bounded by the newest release of the commit's date
    (`newest(name)`), for installers with no date filter of their own (pip, for Python 2): today's
    releases of a project seldom build on the interpreter of its time."""
    out: list[str] = []
    repairs: list[Repair] = []
    for line in lines:
        parsed = requirement(line)
        pinned = parsed is not None and any(
            s.operator in ("==", "===", "<", "<=", "~=") for s in parsed.specifier
        )
        last = None if parsed is None or parsed.url or pinned else newest(parsed.name)
        if parsed is None or last is None:
            out.append(line)
            continue
        extras = f"[{','.join(sorted(parsed.extras))}]" if parsed.extras else ""
        spec = str(parsed.specifier)
        marker = f"; {parsed.marker}" if parsed.marker else ""
        fixed = f"{parsed.name}{extras}{spec + ',' if spec else ''}<={last}{marker}"
        why = f"{last} was the newest release at the commit's date; pip has no date filter"
        repairs.append(line_repair("era", line, fixed, why, "repair.era"))
        out.append(fixed)
    return out, repairs


def merged(lines: list[str]) -> list[str]:
    """`lines` with the plain requirements of one project joined into one line where it
    stands first (`torch` and a repair's `torch<=1.2.0` become `torch<=1.2.0`): pip's old
    resolver, the one Python 2 has, takes the first line it meets and leaves an installed
    release that satisfies it in place, so a later bound would change nothing."""
    first: dict[str, int] = {}
    out: list[str] = []
    for line in lines:
        parsed = requirement(line)
        if parsed is None or parsed.url or parsed.marker:
            out.append(line)
            continue
        key = canonical(parsed.name)
        if key not in first:
            first[key] = len(out)
            out.append(line)
            continue
        kept = Requirement(out[first[key]])
        extras = sorted({*kept.extras, *parsed.extras})
        specs = ",".join(dict.fromkeys(str(s) for s in (*kept.specifier, *parsed.specifier)))
        out[first[key]] = f"{kept.name}{'[' + ','.join(extras) + ']' if extras else ''}{specs}"
    return out
