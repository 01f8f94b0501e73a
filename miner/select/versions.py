"""Framework version specs from a checkout's dependency files and docs, each with its source.

Read statically: setup.py through `ast`, TOML with tomllib, the rest line by line.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

import tomllib

from miner.audit.classify.python_manifests import toml_version
from miner.audit.files import RepoTree
from miner.codebook import Evidence

# Distribution (or conda/Docker image) name -> codebook framework.
PACKAGES = {
    "torch": "pytorch", "pytorch": "pytorch", "pytorch-cpu": "pytorch",
    "tensorflow": "tensorflow", "tensorflow-gpu": "tensorflow", "tensorflow-cpu": "tensorflow",
    "tf-nightly": "tensorflow", "keras": "keras", "jax": "jax", "jaxlib": "jax",
    "mxnet": "mxnet", "mxnet-cu101": "mxnet", "chainer": "chainer", "paddlepaddle": "paddlepaddle",
    "paddlepaddle-gpu": "paddlepaddle", "theano": "theano", "cntk": "cntk", "dynet": "dynet",
}  # fmt: skip
REQUIREMENT = re.compile(
    r"^\s*(?:-\s*)?(?:pip\s+install\s+)?([A-Za-z][A-Za-z0-9_.-]*)(?:\[[^\]]*\])?\s*"
    r"((?:===?|>=|<=|~=|!=|>|<|=)\s*[0-9][^;#\s,]*(?:\s*,\s*(?:==|>=|<=|~=|!=|>|<)\s*[0-9][^;#\s,]*)*)"
)
# NVIDIA's NGC images (nvcr.io/nvidia/pytorch:22.10-py3) are tagged by year and month, not by
# the framework's version.
DOCKER_FROM = re.compile(
    r"^\s*FROM\s+(?!\S*nvcr\.io/)(?:\S+/)?(tensorflow|pytorch)[:/-]\S*?:?(\d+\.\d+(?:\.\d+)?)",
    re.I,
)
PROSE = re.compile(
    r"\b(TensorFlow|PyTorch|Keras|JAX|MXNet|Chainer|Theano)(?:[\s-]*(?:version|v|ver\.?)?)?\s*"
    r"(==|>=|<=|~=|≥|>)?\s*v?(\d+\.\d+(?:\.\d+|\.x)?)\b",
    re.I,
)
DEPENDENCY_KINDS = ("requirements_file", "conda_env", "pipfile", "dockerfile", "other_manifest")


@dataclass(frozen=True)
class VersionSpec:
    """One framework requirement: `pytorch` `==1.4.0` from requirements.txt line 3."""

    framework: str
    package: str
    spec: str
    source: (
        str  # requirements_file | conda_env | setup | pipfile | poetry | dockerfile | readme | ...
    )
    evidence: Evidence

    @property
    def major(self) -> str | None:
        """The first version number's major part, e.g. '1' for '>=1.4,<2'."""
        match = re.search(r"\d+", self.spec)
        return match.group(0) if match else None

    @property
    def pinned(self) -> bool:
        """True for an exact pin (== or conda's single =)."""
        return bool(re.match(r"\s*(===?|=)\s*\d", self.spec))

    def as_dict(self) -> dict[str, object]:
        """Manifest form."""
        return {
            "framework": self.framework,
            "package": self.package,
            "spec": self.spec,
            "source": self.source,
            "evidence": self.evidence.as_dict(),
        }


def _framework(package: str) -> str | None:
    name = package.lower().replace("_", "-")
    if name in PACKAGES:
        return PACKAGES[name]
    if name.startswith(("mxnet-", "tensorflow-", "torch-")):
        return None  # plug-ins such as tensorflow-addons or torch-geometric are not the framework
    return None


def _spec(text: str) -> str:
    return re.sub(r"\s+", "", text).replace("≥", ">=")


def version_specs(tree: RepoTree) -> list[VersionSpec]:
    """Every framework version requirement found, dependency files first, then the docs."""
    found: list[VersionSpec] = []
    for path, kind in tree.dependency_files:
        text = tree.read_text(path)
        if not text:
            continue
        name = path.rsplit("/", 1)[-1]
        if name == "setup.py":
            found += _from_setup_py(path, text)
        elif name == "pyproject.toml" or name.startswith("Pipfile") and not name.endswith(".lock"):
            found += _from_toml(path, text, "pipfile" if name.startswith("Pipfile") else kind)
        elif kind in DEPENDENCY_KINDS or name == "setup.cfg":
            found += _from_lines(path, text, kind)
    for doc in tree.docs:
        found += _from_prose(doc, tree.read_text(doc) or "")
    return found


def _from_lines(path: str, text: str, kind: str) -> list[VersionSpec]:
    out = []
    for no, line in enumerate(text.splitlines(), start=1):
        if line.lstrip().startswith("#"):
            continue
        docker = DOCKER_FROM.match(line)
        if docker:
            framework = PACKAGES[docker.group(1).lower()]
            out.append(
                VersionSpec(
                    framework,
                    docker.group(1).lower(),
                    f"=={docker.group(2)}",
                    kind,
                    Evidence(path, no, line.strip()[:160], "docker_image"),
                )
            )
            continue
        for part in re.split(r"\s+(?=-?\s*[A-Za-z][\w.-]*\s*[=<>~!])|pip install", line):
            match = REQUIREMENT.match(part)
            if match and _framework(match.group(1)):
                out.append(
                    VersionSpec(
                        _framework(match.group(1)) or "",
                        match.group(1).lower(),
                        _spec(match.group(2)),
                        kind,
                        Evidence(path, no, line.strip()[:160], "dependency_pin"),
                    )
                )
    return out


def _from_setup_py(path: str, text: str) -> list[VersionSpec]:
    """install_requires strings from setup.py, parsed with ast (the file is never run)."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return _from_lines(path, text, "setup")
    out = []
    for node in ast.walk(module):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            match = REQUIREMENT.match(node.value)
            if match and _framework(match.group(1)):
                ev = Evidence(path, node.lineno, node.value[:160], "setup_requires")
                out.append(VersionSpec(_framework(match.group(1)) or "", match.group(1).lower(),
                                       _spec(match.group(2)), "setup", ev))  # fmt: skip
    return out


def _from_toml(path: str, text: str, kind: str) -> list[VersionSpec]:
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return []
    entries: list[str] = []
    project = data.get("project", {})
    entries += [d for d in project.get("dependencies", []) if isinstance(d, str)]
    poetry = data.get("tool", {}).get("poetry", {}).get("dependencies", {})
    for table in (poetry, data.get("packages", {}), data.get("dev-packages", {})):
        for name, value in table.items():
            spec = toml_version(value)
            if spec not in ("*", ""):
                entries.append(f"{name}{spec if spec[0] in '=<>~!' else '==' + spec}")
    lines = text.splitlines()
    out = []
    for entry in entries:
        match = REQUIREMENT.match(entry)
        if match and _framework(match.group(1)):
            no = next((i for i, ln in enumerate(lines, 1) if match.group(1) in ln), 0)
            ev = Evidence(path, no, entry[:160], "toml_dependency")
            out.append(
                VersionSpec(
                    _framework(match.group(1)) or "",
                    match.group(1).lower(),
                    _spec(match.group(2)),
                    kind if kind != "setup" else "setup",
                    ev,
                )
            )
    return out


def _from_prose(path: str, text: str) -> list[VersionSpec]:
    """'TensorFlow 1.4', 'PyTorch >= 1.7' in the documentation."""
    out = []
    for no, line in enumerate(text.splitlines(), start=1):
        for match in PROSE.finditer(line):
            name = match.group(1).lower()
            framework = {"tensorflow": "tensorflow", "pytorch": "pytorch"}.get(name, name)
            op = (match.group(2) or "==").replace("≥", ">=")
            version = match.group(3).replace(".x", "")
            ev = Evidence(path, no, line.strip()[:160], "readme_version")
            out.append(VersionSpec(framework, name, f"{op}{version}", "readme", ev))
    return out
