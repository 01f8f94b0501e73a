"""What a smoke run installs: the requirements the project declares, read statically.

Sources, as the manifest lists them: requirements files (nested `-r` files inlined, local paths
made absolute), the pip section of environment.yml, setup.py/setup.cfg `install_requires`,
pyproject (PEP 621 and Poetry) and Pipfile dependencies. GPU builds of a framework become its CPU
build (`tensorflow-gpu` -> `tensorflow`, `+cu101` local versions dropped). The framework is added
at the manifest's version when one is stated and no dependency file names it.
"""

from __future__ import annotations

import ast
import configparser
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

import tomllib

from miner.audit.classify.python_manifests import toml_version
from miner.audit.files import RepoTree
from miner.codebook import Evidence
from miner.select.versions import PACKAGES

KINDS = ("requirements_file", "conda_env", "setup", "pipfile", "poetry")
SKIP_NAME = re.compile(r"(?i)(?:^|[-_.])(?:dev|test|tests|docs?|lint|ci|gpu|cuda|build)(?:[-_.]|$)")
DEVELOPMENT_NAME = re.compile(r"(?i)(?:^|[-_.])(?:dev|test|tests|docs?|lint|ci)(?:[-_.]|$)")
NAME = re.compile(r"^\s*([A-Za-z0-9][A-Za-z0-9_.-]*)(\[[^\]]*\])?\s*(.*)$")
CPU_BUILDS = {
    "tensorflow-gpu": "tensorflow", "tensorflow_gpu": "tensorflow", "tf-nightly-gpu": "tf-nightly",
    "mxnet-cu90": "mxnet", "mxnet-cu92": "mxnet", "mxnet-cu100": "mxnet", "mxnet-cu101": "mxnet",
    "mxnet-cu102": "mxnet", "mxnet-cu110": "mxnet", "paddlepaddle-gpu": "paddlepaddle",
    "onnxruntime-gpu": "onnxruntime",
}  # fmt: skip
PIP_NAMES = {"pytorch": "torch", "pytorch-cpu": "torch", "jaxlib": "jax"}
ACCELERATOR_EXTRA = re.compile(r"(?i)^(?:cuda\d*(?:[_-]\w+)?|cu\d+|gpu|tpu|rocm\d*|metal)$")
MXNET_CUDA = re.compile(r"(?i)^mxnet-cu\d+(?:mkl)?$")  # every CUDA build MXNet published
LOCAL_CUDA = re.compile(r"\+cu\d+|\+cpu")
MAX_NESTING = 3


@dataclass(frozen=True)
class InstallPlan:
    """The requirement lines a smoke run installs, where each came from, and what was changed."""

    lines: tuple[str, ...]
    sources: tuple[Evidence, ...]
    notes: tuple[str, ...] = ()

    def text(self) -> str:
        """The plan as one requirements file."""
        return "".join(f"{line}\n" for line in self.lines)


def project_files(
    environment_files: tuple[tuple[str, str], ...], entry: str | None
) -> tuple[tuple[str, str], ...]:
    """The dependency files of the entry point's own project. A repository of several projects
    (`model-v1/`, `model-v2/`, each with its requirements) gives the files of the deepest folder
    above the entry script that has any; the whole list when no folder above it has one."""
    if not entry:
        return environment_files
    above = PurePosixPath(entry).parents
    folders = {PurePosixPath(p).parent for p, _ in environment_files}
    owning = [f for f in above if f in folders]
    if not owning:
        return environment_files
    project = max(owning, key=lambda f: len(f.parts))
    return tuple((p, k) for p, k in environment_files if PurePosixPath(p).parent == project)


def chosen_files(
    environment_files: tuple[tuple[str, str], ...], entry: str | None = None
) -> list[tuple[str, str]]:
    """The dependency files to install from: those of the entry script's project, the shallowest
    of each kind, without dev, test, docs or GPU variants (a CPU variant wins when there is one)."""
    environment_files = project_files(environment_files, entry)
    chosen: list[tuple[str, str]] = []
    for kind in KINDS:
        files = [p for p, k in environment_files if k == kind]
        files = (
            [p for p in files if not SKIP_NAME.search(PurePosixPath(p).stem)]
            # A GPU variant as the only file still names what to install (its GPU builds
            # become CPU builds below).
            or [p for p in files if not DEVELOPMENT_NAME.search(PurePosixPath(p).stem)]
            or [p for p in files if "gpu" not in p.lower() and "cuda" not in p.lower()]
        )
        if not files:
            continue
        depth = min(p.count("/") for p in files)
        top = [p for p in files if p.count("/") == depth]
        cpu = [p for p in top if "cpu" in PurePosixPath(p).name.lower()]
        plain = [p for p in top if PurePosixPath(p).name.lower() in ("requirements.txt",)]
        chosen += [(p, kind) for p in (cpu or plain or top)]
    return chosen


def install_plan(
    root: Path,
    environment_files: tuple[tuple[str, str], ...],
    framework: str | None = None,
    version_spec: str | None = None,
    entry: str | None = None,
) -> InstallPlan:
    """The install plan of the checkout (or copy) at `root` for the entry script `entry`."""
    tree = RepoTree(root)
    lines: list[str] = []
    sources: list[Evidence] = []
    notes: list[str] = []
    for path, kind in chosen_files(environment_files, entry):
        text = tree.read_text(path)
        if text is None:
            continue
        name = PurePosixPath(path).name
        if kind == "requirements_file":
            found = _requirements(tree, root, path, text, 0)
        elif kind == "conda_env":
            found = _conda_pip(tree, root, path, text)
        elif name == "setup.py":
            found = _setup_py(path, text)
        elif name == "setup.cfg":
            found = _setup_cfg(path, text)
        else:
            found = _toml(path, text)
        for line, evidence in found:
            fixed, note = cpu_build(line)
            if note:
                notes.append(note)
            if fixed not in lines:
                lines.append(fixed)
                sources.append(evidence)
    addition = framework_requirement(framework, version_spec, lines)
    if addition is not None:
        lines.append(addition)
        sources.append(Evidence("manifest", 0, addition, "smoke.framework_version"))
        notes.append(f"added {addition}: the framework version the manifest states")
    return InstallPlan(tuple(lines), tuple(sources), tuple(notes))


def cpu_build(line: str) -> tuple[str, str | None]:
    """A requirement line with a GPU build renamed to its CPU build (and the note saying so)."""
    match = NAME.match(line)
    if not match or line.lstrip().startswith("-"):
        return line, None
    stripped, name = line.strip(), match.group(1)
    cpu_name = CPU_BUILDS.get(name.lower()) or MXNET_CUDA.sub("mxnet", name)
    fixed = LOCAL_CUDA.sub("", cpu_name + stripped[len(name) :])
    if match.group(2):  # `jax[cuda12]`, `jax[tpu]`: the accelerator plug-ins of an extra go
        extras = [e.strip() for e in match.group(2)[1:-1].split(",")]
        kept = [e for e in extras if not ACCELERATOR_EXTRA.match(e)]
        if kept != extras:
            tail = fixed[len(name) + len(match.group(2)) :]
            fixed = name + (f"[{','.join(kept)}]" if kept else "") + tail
    if fixed == stripped:
        return line.strip(), None
    return fixed, f"{line.strip()} -> {fixed} (CPU build)"


def framework_requirement(framework: str | None, spec: str | None, lines: list[str]) -> str | None:
    """`torch==1.4.0` when the manifest states a framework version no dependency file names."""
    if not spec:
        return None
    match = NAME.match(spec)
    if not match:
        return None
    package, version = match.group(1).lower(), match.group(3).strip()
    target = PACKAGES.get(package) or framework
    for line in lines:
        named = NAME.match(line)
        if named and PACKAGES.get(named.group(1).lower().replace("_", "-")) == target:
            return None
    if version.startswith("=") and not version.startswith("=="):
        version = "=" + version  # conda's single `=` is pip's `==`
    pip_name = CPU_BUILDS.get(package, PIP_NAMES.get(package, package))
    return f"{pip_name}{LOCAL_CUDA.sub('', version)}"


def _clean(line: str) -> str:
    return re.sub(r"\s+#.*$", "", line).strip()


def _requirements(
    tree: RepoTree, root: Path, path: str, text: str, depth: int
) -> list[tuple[str, Evidence]]:
    """Requirement lines; `-r` files inlined, `-e .` and other local paths made absolute."""
    out: list[tuple[str, Evidence]] = []
    folder = PurePosixPath(path).parent
    for no, raw in enumerate(text.splitlines(), start=1):
        line = _clean(raw)
        if not line or line.startswith("#"):
            continue
        evidence = Evidence(path, no, raw.strip()[:160], "smoke.requirement")
        nested = re.match(r"^(?:-r|--requirement)\s*=?\s*(\S+)$", line)
        if nested:
            rel = (folder / nested.group(1)).as_posix()
            inner = tree.read_text(rel) if depth < MAX_NESTING else None
            if inner is not None:
                out += _requirements(tree, root, rel, inner, depth + 1)
            continue
        if line.startswith(("-c ", "--constraint")):
            continue  # constraint files rarely travel with research code
        # a path: relative, a folder, or the author's own machine (`-e /home/me/lib` in a freeze)
        local = re.match(r"^(-e\s+|--editable\s+)?(\.{1,2}(?:/\S*)?|/\S+|~\S*|\S+/)$", line)
        # `olefile @ file:///home/conda/feedstock_root/...` in a freeze: a build on the
        # author's machine; the same project from the index
        elsewhere = re.match(r"^([A-Za-z0-9][\w.\-]*)\s*@\s*file://(/\S+)$", line)
        if elsewhere and not Path(elsewhere.group(2)).resolve().is_relative_to(root.resolve()):
            line = elsewhere.group(1)
        if local and "://" not in line:
            target = (root / folder / Path(local.group(2)).expanduser()).resolve()
            if not target.is_relative_to(root.resolve()):
                continue  # never install anything from outside the copy
            line = f"{local.group(1) or ''}{target}"
        out.append((line, evidence))
    return out


def _conda_pip(tree: RepoTree, root: Path, path: str, text: str) -> list[tuple[str, Evidence]]:
    """The `pip:` section of a conda environment file."""
    import yaml

    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError:
        return []
    deps = data.get("dependencies") if isinstance(data, dict) else None
    pip: list[str] = []
    for item in deps or []:
        if isinstance(item, dict) and isinstance(item.get("pip"), list):
            pip += [str(p) for p in item["pip"]]
    lines = text.splitlines()
    out = []
    for entry in pip:
        no = next((i for i, ln in enumerate(lines, 1) if entry in ln), 0)
        for line, _ in _requirements(tree, root, path, entry, 0):
            out.append((line, Evidence(path, no, entry[:160], "smoke.conda_pip")))
    return out


def _setup_py(path: str, text: str) -> list[tuple[str, Evidence]]:
    """`install_requires=[...]` string literals of setup.py, read with ast (never run)."""
    try:
        module = ast.parse(text)
    except (SyntaxError, ValueError):
        return []
    out = []
    for node in ast.walk(module):
        if not isinstance(node, ast.keyword) or node.arg != "install_requires":
            continue
        if isinstance(node.value, ast.List | ast.Tuple):
            for item in node.value.elts:
                if isinstance(item, ast.Constant) and isinstance(item.value, str):
                    ev = Evidence(path, item.lineno, item.value[:160], "smoke.install_requires")
                    out.append((item.value, ev))
    return out


def _setup_cfg(path: str, text: str) -> list[tuple[str, Evidence]]:
    parser = configparser.ConfigParser()
    try:
        parser.read_string(text)
    except configparser.Error:
        return []
    value = parser.get("options", "install_requires", fallback="")
    return [
        (line.strip(), Evidence(path, 0, line.strip()[:160], "smoke.install_requires"))
        for line in value.splitlines()
        if line.strip()
    ]


def _toml(path: str, text: str) -> list[tuple[str, Evidence]]:
    """PEP 621 `dependencies`, Poetry dependencies and Pipfile `[packages]`."""
    try:
        data = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return []
    entries = [d for d in data.get("project", {}).get("dependencies", []) if isinstance(d, str)]
    poetry = data.get("tool", {}).get("poetry", {}).get("dependencies", {})
    for table in (poetry, data.get("packages", {})):
        for name, value in table.items():
            if name.lower() == "python":
                continue
            spec = toml_version(value)
            if spec in ("", "*"):
                entries.append(name)
            elif spec[0] in "=<>~!":
                entries.append(f"{name}{spec}")
            elif spec[0] == "^":  # Poetry's caret: at least this version
                entries.append(f"{name}>={spec[1:]}")
            else:
                entries.append(f"{name}=={spec}")
    lines = text.splitlines()
    out = []
    for entry in entries:
        word = NAME.match(entry)
        no = next((i for i, ln in enumerate(lines, 1) if word and word.group(1) in ln), 0)
        out.append((entry, Evidence(path, no, entry[:160], "smoke.dependency")))
    return out
