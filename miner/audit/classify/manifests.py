"""Dependency files parsed into package lists, without executing anything they contain.

Python packaging files are read in python_manifests; this module reads Dockerfiles and
docker-compose files (base images and install commands), install.sh-style scripts, Lua
rockspecs, package.json, CMake `find_package` lines, R DESCRIPTION files and a few other
manifests, and finds every dependency file of a checkout that lists at least one package.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import PurePosixPath

from miner.audit.classify import python_manifests as py
from miner.audit.classify.dependency import Dependency, Manifest, Reader, load_json
from miner.audit.classify.installs import install_commands, requirement_line
from miner.audit.files import RepoTree

SCRIPT_SUFFIXES = (".sh", ".bash", ".bat", ".cmd", ".ps1")
MAX_SCRIPTS = 300
# Binder (repo2docker) runs `postBuild` as a shell script after the environment is built.
BINDER_SCRIPTS = frozenset({"postBuild"})
ECHO = re.compile(r"\b(echo|printf|print)\b")
MAX_YAML = 100_000  # a conda environment is short; bigger YAML files are data or configs
MAX_YAMLS = 200  # YAML files read per checkout when looking for conda environments
CONDA_KEYS = re.compile(r"^(?:channels|name)\s*:", re.M)
CONDA_DEPS = re.compile(r"^dependencies\s*:\s*\n(?:\s*#.*\n)*\s*-\s", re.M)


IMAGE_PACKAGES = (
    ("tensorflow", "tensorflow"), ("pytorch", "pytorch"), ("torch", "torch"), ("caffe", "caffe"),
    ("mxnet", "mxnet"), ("theano", "theano"), ("keras", "keras"), ("chainer", "chainer"),
    ("paddle", "paddlepaddle"), ("jax", "jax"), ("cuda", "cuda"),
)  # fmt: skip


GENERIC_IMAGES = frozenset({"python", "runtime", "base", "devel", "gpu", "cpu", "latest"})
# A framework built from its own repository at a release tag (`git clone --branch v1.2.0
# https://github.com/pytorch/pytorch`): the tag is the version.
FRAMEWORK_REPOS = {
    "pytorch/pytorch": "torch", "tensorflow/tensorflow": "tensorflow", "apache/mxnet": "mxnet",
    "apache/incubator-mxnet": "mxnet", "bvlc/caffe": "caffe", "google/jax": "jax",
    "chainer/chainer": "chainer", "theano/theano": "theano", "keras-team/keras": "keras",
}  # fmt: skip
GIT_CLONE = re.compile(r"\bgit\s+clone\b(?P<rest>.*)", re.I)
CLONED_REPO = re.compile(r"github\.com[/:]([\w.-]+/[\w.-]+?)(?:\.git)?(?=[\s\"'/]|$)", re.I)
CLONED_TAG = re.compile(r"(?:--branch|-b)[\s=]+v?(\d+\.\d+(?:\.\d+)?)\b")


def cloned_framework(line: str) -> tuple[str, str] | None:
    """(package, version) for a framework cloned at a release tag, None otherwise."""
    clone = GIT_CLONE.search(line)
    if clone is None:
        return None
    repo, tag = CLONED_REPO.search(clone.group("rest")), CLONED_TAG.search(clone.group("rest"))
    package = FRAMEWORK_REPOS.get(repo.group(1).lower()) if repo else None
    return (package, tag.group(1)) if package and tag else None


def image_dependency(image: str) -> tuple[str, str] | None:
    """(package, version) for a framework base image such as tensorflow/tensorflow:1.4-gpu."""
    repo, _, tag = image.partition(":")
    low = repo.lower()
    # the image's name, or its publisher's when the name is generic (`mxnet/python:1.4.1_gpu`)
    names = low.split("/")[-2:] if low.rsplit("/", 1)[-1] in GENERIC_IMAGES else low.split("/")[-1:]
    for needle, package in IMAGE_PACKAGES:
        if any(needle in name for name in names) or (needle == "cuda" and "cuda" in low):
            version = re.match(r"v?(\d+(?:\.\d+)*)", tag)
            return package, (version.group(1) if version else "")
    return None


def _logical_lines(text: str) -> Iterator[tuple[int, str]]:
    """Lines joined across trailing backslashes / carets, with the number of the first."""
    start, buf = 0, list[str]()
    for n, line in enumerate(text.splitlines(), 1):
        if not buf:
            start = n
        stripped = line.rstrip()
        if stripped.endswith(("\\", "^")) and not stripped.lstrip().startswith("#"):
            buf.append(stripped[:-1])
            continue
        buf.append(line)
        yield start, " ".join(buf)
        buf = []
    if buf:
        yield start, " ".join(buf)


def _commands(r: Reader, text_lines: Iterator[tuple[int, str]]) -> list[Dependency]:
    deps = []
    for n, line in text_lines:
        if line.lstrip().startswith(("#", "REM ", "rem ", "::")):
            continue
        echo = ECHO.search(line)
        if echo:  # a message only suggests a command; what runs before it on the line still runs
            line = line[: echo.start()]
        for cmd in install_commands(line):
            deps.append(r.dep(cmd.name, cmd.spec, n))
        if cloned := cloned_framework(line):
            deps.append(r.dep(cloned[0], f"=={cloned[1]}", n))
    return deps


def _dockerfile(r: Reader) -> list[Dependency]:
    deps = []
    for n, line in _logical_lines(r.text):
        m = re.match(r"\s*FROM\s+(?:--\S+\s+)*(\S+)", line, re.I)
        if m and (found := image_dependency(m.group(1))):
            deps.append(r.dep(found[0], found[1], n))
    return deps + _commands(r, _logical_lines(r.text))


def _compose(r: Reader) -> list[Dependency]:
    deps = []
    for n, line in enumerate(r.lines, 1):
        m = re.match(r"\s*image:\s*['\"]?([^'\"\s]+)", line)
        if m and (found := image_dependency(m.group(1))):
            deps.append(r.dep(found[0], found[1], n))
    return deps + _commands(r, _logical_lines(r.text))


def _script(r: Reader) -> list[Dependency]:
    return _commands(r, _logical_lines(r.text))


def _rockspec(r: Reader) -> list[Dependency]:
    deps = []
    for block in re.finditer(r"dependencies\s*=\s*\{(.*?)\}", r.text, re.S):
        for q in re.finditer(r"['\"]([^'\"]+)['\"]", block.group(1)):
            name, _, spec = q.group(1).strip().partition(" ")
            deps.append(r.dep(name, spec, r.text.count("\n", 0, block.start(1) + q.start()) + 1))
    return deps


def _package_json(r: Reader) -> list[Dependency]:
    data = load_json(r)
    deps = []
    if isinstance(data, dict):
        for key in ("dependencies", "devDependencies", "peerDependencies", "optionalDependencies"):
            table = data.get(key)
            if isinstance(table, dict):
                for name, spec in table.items():
                    deps.append(r.dep(name, str(spec), r.line_of(f'"{name}"')))
    return deps


def _cmake(r: Reader) -> list[Dependency]:
    deps = []
    for m in re.finditer(r"find_package\s*\(\s*([A-Za-z][\w.+-]*)(\s+\d[\d.]*)?", r.text, re.I):
        line = r.text.count("\n", 0, m.start()) + 1
        if not r.lines[line - 1].lstrip().startswith("#"):
            deps.append(r.dep(m.group(1), (m.group(2) or "").strip(), line))
    return deps


def _r_description(r: Reader) -> list[Dependency]:
    if not re.search(r"^Package:", r.text, re.M):
        return []  # a file named DESCRIPTION that is not an R package description
    deps = []
    for m in re.finditer(r"^(Depends|Imports|LinkingTo|Suggests):(.*(?:\n[ \t].*)*)", r.text, re.M):
        line = r.text.count("\n", 0, m.start()) + 1
        for item in m.group(2).split(","):
            name, _, spec = item.strip().partition("(")
            if name.strip():
                deps.append(r.dep(name.strip(), spec.rstrip(")").strip(), line))
    return deps


def _generic_manifest(r: Reader) -> list[Dependency]:
    """Julia Project.toml, requirements.R, go.mod, pom.xml, build.gradle: names by pattern."""
    deps = []
    name = PurePosixPath(r.path).name.lower()
    patterns = {
        "project.toml": r"^\s*([A-Za-z]\w*)\s*=\s*\"[0-9a-f-]{36}\"",
        "requirements.r": r"(?:install\.packages|library|require)\(\s*c?\(?\s*['\"]?([\w.]+)",
        "go.mod": r"^\s*(?:require\s+)?([a-z0-9.-]+\.[a-z]+/\S+)\s+v[\d.]+",
        "pom.xml": r"<artifactId>([^<]+)</artifactId>",
        "build.gradle": r"(?:implementation|api|compile)\s*\(?\s*['\"]([^'\"]+)['\"]",
    }
    pattern = patterns.get(name)
    if pattern is None:
        return _script(r) if name.endswith(SCRIPT_SUFFIXES) else []
    for m in re.finditer(pattern, r.text, re.M):
        deps.append(r.dep(m.group(1), "", r.text.count("\n", 0, m.start()) + 1))
    return deps


def _parser_for(path: str, kind: str) -> tuple[str, Callable[[Reader], list[Dependency]]]:
    """(rule name, parser) for a dependency file of a software_req_sources kind."""
    name = PurePosixPath(path).name.lower()
    if kind == "requirements_file":
        return "software.requirements_file", py.requirements
    if kind == "conda_env":
        return "software.conda_env", py.conda_env
    if name == "setup.py":
        return "software.setup_py", py.setup_py
    if name == "setup.cfg":
        return "software.setup_cfg", py.setup_cfg
    if name == "pipfile":
        return "software.pipfile", py.pipfile
    if name == "pipfile.lock":
        return "software.pipfile_lock", py.pipfile_lock
    if name == "poetry.lock":
        return "software.poetry_lock", py.poetry_lock
    if name.startswith("docker-compose"):
        return "software.docker_compose", _compose
    if kind == "dockerfile":
        return "software.dockerfile", _dockerfile
    if name == "cog.yaml":
        return "software.cog", _cog
    if name.endswith(".rockspec"):
        return "software.rockspec", _rockspec
    if name == "package.json":
        return "software.package_json", _package_json
    if name == "cmakelists.txt":
        return "software.cmake_find_package", _cmake
    if name == "description":
        return "software.r_description", _r_description
    if name.endswith(SCRIPT_SUFFIXES) or PurePosixPath(path).name in BINDER_SCRIPTS:
        return "software.install_script", _script
    return "software.other_manifest", _generic_manifest


def parse_manifest(tree: RepoTree, path: str, kind: str, warnings: list[str]) -> Manifest:
    """Parse one dependency file; never raises (a broken file gives a warning and no packages)."""
    rule, parser = _parser_for(path, kind)
    reader = Reader(tree, path, warnings)
    try:
        if PurePosixPath(path).name.lower() == "pyproject.toml":
            deps, kind = py.pyproject(reader)
            rule = "software.poetry" if kind == "poetry" else "software.pyproject"
        else:
            deps = parser(reader)
    except Exception as exc:  # a hostile file must not stop the audit
        reader.warn(f"could not be read as a dependency file ({type(exc).__name__})", exc)
        deps = []
    return Manifest(path, kind, rule, deps)


def _cog(r: Reader) -> list[Dependency]:
    """`build.python_packages` of a Cog (`cog.yaml`) model definition."""
    import yaml

    try:
        data = yaml.safe_load(r.text)
    except yaml.YAMLError as exc:
        r.warn("malformed YAML", exc)
        return []
    build = data.get("build") if isinstance(data, dict) else None
    packages = build.get("python_packages") if isinstance(build, dict) else None
    deps = []
    for item in packages if isinstance(packages, list) else []:
        for name, spec in requirement_line(str(item)):
            deps.append(r.dep(name, spec, r.line_of(str(item))))
    return deps


def _by_content(tree: RepoTree, known: set[str]) -> list[tuple[str, str]]:
    """Dependency files their names do not give away: requirement lists in a `requirements/`
    folder, conda environments under any name (YAML with top-level `dependencies:` beside
    `channels:` or `name:`), and Cog's `cog.yaml`."""
    found: list[tuple[str, str]] = []
    yamls = 0
    for f in tree.files:
        if f.path in known or f.size > MAX_YAML:
            continue
        folder = f.path.rsplit("/", 2)[-2].lower() if "/" in f.path else ""
        if folder == "requirements" and f.suffix in (".txt", ".in"):
            found.append((f.path, "requirements_file"))
        elif f.name.lower() == "cog.yaml":
            found.append((f.path, "other_manifest"))
        elif f.suffix in (".yml", ".yaml") and yamls < MAX_YAMLS and not f.path.startswith("."):
            yamls += 1
            text = tree.read_text(f.path) or ""
            if "dependencies:" in text and CONDA_KEYS.search(text) and CONDA_DEPS.search(text):
                found.append((f.path, "conda_env"))
    return found


def dependency_manifests(tree: RepoTree, warnings: list[str]) -> list[Manifest]:
    """Every dependency file of the checkout that lists at least one package, parsed."""
    found = list(tree.dependency_files)
    known = {p for p, _ in found}
    found += _by_content(tree, known)
    known = {p for p, _ in found}
    scripts = [
        f.path for f in tree.files
        if (f.suffix in SCRIPT_SUFFIXES or f.name in BINDER_SCRIPTS) and f.path not in known
        and f.size < 200_000
    ][:MAX_SCRIPTS]  # fmt: skip
    found += [(p, "other_manifest") for p in scripts]  # install.sh-style scripts, by content
    manifests = [parse_manifest(tree, path, kind, warnings) for path, kind in found]
    return [m for m in manifests if m.packages]
