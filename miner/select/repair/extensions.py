"""The project's own compiled extension, built in the smoke run's copy.

Detection and segmentation code of the maskrcnn-benchmark lineage (FCOS, its forks), and many
projects with custom operators, ship the C++ (and CUDA) sources of an extension module
(`fcos_core._C`, `MultiScaleDeformableAttention`) and a `setup.py` that builds it; their README
runs `python setup.py build develop` before anything else. Run from the checkout without that
step, the first import stops (`cannot import name '_C' from 'fcos_core'`). The repair builds the
extension in place with the run's interpreter (`setup.py build_ext --inplace`, from the folder
of the `setup.py` that names it), against the headers of the framework the environment has, and
puts that folder on the environment's path as `setup.py develop` would. No CUDA is there, so a
setup that chooses its sources by `torch.cuda.is_available()` builds its CPU operators; one that
needs `nvcc` fails, and the import outcome stands with the build's log in install.log.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import sys
import time
from collections.abc import Mapping
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from miner.select.repair.attempt import EnvironmentBuild
from miner.select.repair.envs import Builder
from miner.select.repair.imports import distribution_on_index
from miner.select.repair.index import IndexSource
from miner.select.repair.names import canonical
from miner.select.repair.records import Repair
from miner.select.repair.requirements import is_option
from miner.select.sandbox import network_cut_prefix

if TYPE_CHECKING:
    from miner.select.repair.runtime import RuntimeFault

# A compiled extension a setup.py declares: `CppExtension("fcos_core._C", ...)`,
# `extension(name="MultiScaleDeformableAttention", ...)`, `Extension('nms.cpu_nms', ...)`.
EXTENSION_NAME = re.compile(r"""\b\w*[Ee]xtension\(\s*(?:name\s*=\s*)?['"]([A-Za-z_][\w.]*)['"]""")
CYTHON_SOURCE = re.compile(r"""\bcythonize\(\s*\[?\s*['"](?:\./)?([A-Za-z_][\w/]*)\.pyx['"]""")
EXTENSION_BUILD = re.compile(r"\bext_modules\s*=|\bBuildExtension\b|\bcythonize\(")
MAX_DEPTH = 3  # `setup.py`, `ops/setup.py`, `models/dcn/setup.py`, `lib/models/ops/setup.py`
BUILT_SUFFIXES = (".so", ".pyd")
# Variables that make a setup build its CUDA sources (or look for a toolkit) where none is.
CUDA_VARIABLES = ("FORCE_CUDA", "CUDA_HOME", "CUDA_PATH", "TORCH_CUDA_ARCH_LIST")


def extension_setup(root: Path, module: str) -> tuple[str, str] | None:
    """The checkout's `setup.py` (relative path) that builds the extension `module`
    (`fcos_core._C`, or its last part where the error gives only that), with the extension's
    full name; None when no setup.py names it."""
    setups = [p for depth in range(MAX_DEPTH + 1)
              for p in sorted(root.glob("*/" * depth + "setup.py"))]  # fmt: skip
    for setup in setups:
        try:
            text = setup.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        if not EXTENSION_BUILD.search(text):
            continue
        names = [m.group(1) for m in EXTENSION_NAME.finditer(text)]
        # `cythonize("utils/compute_overlap.pyx")`: the module is the source's path, dotted
        sources = [m.group(1).replace("/", ".") for m in CYTHON_SOURCE.finditer(text)]
        names += sources
        # Cython names a source in a package folder after the package (`monotonic_align/
        # setup.py` builds `monotonic_align.core`), and `build_ext --inplace` run there writes
        # it one folder down, which the code imports as `monotonic_align.monotonic_align.core`
        folder = setup.parent.relative_to(root)
        if folder.parts and (setup.parent / "__init__.py").is_file():
            package = ".".join(folder.parts)
            for source in sources:
                imported = f"{package}.{package}.{source}"
                if imported == module or imported.startswith(module + "."):
                    return setup.relative_to(root).as_posix(), f"{package}.{source}"
        for name in names:
            if name == module or name.endswith("." + module) or module.endswith("." + name):
                return setup.relative_to(root).as_posix(), name
    return None


def built_file(folder: Path, extension: str, since: float = 0.0) -> Path | None:
    """The compiled file of `extension` under `folder` (`fcos_core/_C.cpython-311-x86_64-linux-
    gnu.so`) written at `since` or later, None before it is built. A file the checkout ships,
    built for another interpreter (`compute_overlap.cpython-36m-...so` beside Python 3.7), is
    older than the build and does not count."""
    package, _, name = extension.rpartition(".")
    where = folder / package.replace(".", "/") if package else folder
    for path in sorted(where.glob(f"{name}.*")):
        if path.suffix in BUILT_SUFFIXES and path.stat().st_mtime >= since:
            return path
    return None


def build_extension(
    root: Path, setup: str, extension: str, python: Path, env: Mapping[str, str], log: Path,
    seconds: float,
) -> bool:  # fmt: skip
    """Build `extension` with `setup` in place, the network cut where the OS allows, and put its
    folder on the environment's path; True once the compiled file is there."""
    folder = (root / setup).parent
    build_env = {k: v for k, v in env.items() if k not in CUDA_VARIABLES}
    build_env["MAX_JOBS"] = str(max(1, min(4, os.cpu_count() or 1)))
    # PyTorch compiles with ninja where it finds one, from its build folder, where the relative
    # include folders a setup script gives (`-Ifcos_core/csrc`) do not resolve: the compiler
    # is given the project's header folders as absolute paths as well.
    headers = [str(p) for p in header_folders(folder)]
    build_env["CPATH"] = os.pathsep.join([*headers, *filter(None, [env.get("CPATH")])])
    argv = [*(network_cut_prefix() or ()), str(python), "setup.py", "build_ext", "--inplace"]
    package = extension.rpartition(".")[0]
    if package and (folder / "__init__.py").is_file():
        # a package's own setup: `--inplace` copies into a folder of the package's name inside
        # it, which the README makes first (`mkdir monotonic_align`)
        (folder / package.replace(".", "/")).mkdir(parents=True, exist_ok=True)
    since = time.time() - 1.0  # a file system's coarse clock: a second's grace
    with log.open("a", encoding="utf-8") as fh:
        fh.write(f"miner: building {extension} with {setup} build_ext --inplace\n")
        fh.flush()
        try:
            subprocess.run(argv, cwd=folder, env=build_env, stdout=fh, stderr=subprocess.STDOUT,
                           timeout=seconds, check=False)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as exc:
            fh.write(f"miner: the build of {extension} stopped: {exc}\n")
            return False
    if built_file(folder, extension, since) is None:
        return False
    _on_path(python, folder)
    return True


HEADER_SUFFIXES = (".h", ".hpp", ".cuh", ".hh")
MAX_HEADER_FOLDERS = 40


def header_folders(folder: Path) -> list[Path]:
    """The folders under `folder` that hold C/C++ headers (`fcos_core/csrc`), shallowest first."""
    found: set[Path] = set()
    for path in folder.rglob("*"):
        if path.suffix in HEADER_SUFFIXES and "build" not in path.relative_to(folder).parts:
            found.add(path.parent)
    return sorted(found, key=lambda p: (len(p.parts), str(p)))[:MAX_HEADER_FOLDERS]


def _on_path(python: Path, folder: Path) -> None:
    """A `.pth` file in the environment naming `folder`, as `setup.py develop` writes one."""
    venv = python.parent.parent
    for site in sorted(venv.glob("lib/python*/site-packages")):
        with (site / "_miner_extension.pth").open("a", encoding="utf-8") as fh:
            fh.write(f"{folder}\n")
        return


def with_extension(
    built: EnvironmentBuild, fault: RuntimeFault, root: Path, python: Path,
    env: Mapping[str, str], log: Path, seconds: float,
) -> EnvironmentBuild | None:  # fmt: skip
    """The environment once the extension `fault` names is built, the build a repair of its
    own; None when it did not build."""
    if not build_extension(root, fault.feature, fault.generated, python, env, log, seconds):
        return None
    repair = Repair("extension", fault.generated, f"{fault.feature} build_ext --inplace",
                    "the project's own compiled extension, never built in the checkout",
                    fault.evidence)  # fmt: skip
    return replace(built, repairs=(*built.repairs, repair))


def rebuilt_in_environment(
    built: EnvironmentBuild, fault: RuntimeFault, builder: Builder
) -> EnvironmentBuild | None:
    """The environment once the installed package whose compiled module `fault` names is built
    again against the framework release installed beside it (a source build made in isolation
    compiles against whatever release the build environment resolved); None when it is not
    installed or does not build."""
    wanted = canonical(fault.module)
    installed = [ln for ln in builder.freeze()
                 if "==" in ln and canonical(ln.split("==")[0]) == wanted]  # fmt: skip
    if len(installed) != 1 or builder.rebuild(installed[0]).exit_code != 0:
        return None
    repair = Repair("extension", installed[0], f"{installed[0]} built against this environment",
                    "its compiled module was built against another release of the framework",
                    fault.evidence)  # fmt: skip
    return replace(built, repairs=(*built.repairs, repair))


def extension_repair(
    built: EnvironmentBuild, fault: RuntimeFault, root: Path, venv: Path, work: Path, log: Path,
    env: Mapping[str, str], seconds: float,
) -> EnvironmentBuild | None:  # fmt: skip
    """The repair of a compiled module a run could not load: the project's own extension built
    in place ("compile"), or an installed package's built again in the environment ("rebuild")."""
    python = venv / "bin" / "python"
    builder = Builder(venv, work, log, dict(env), seconds, built.as_of, built.options,
                      built.python2)  # fmt: skip
    if fault.kind == "compile":
        return with_extension(with_build_imports(built, fault, root, builder, env), fault, root,
                              python, env, log, seconds)  # fmt: skip
    return rebuilt_in_environment(built, fault, builder)


# What a setup script imports that the build itself provides or that is not a package to install.
BUILD_TOOLS = frozenset(("setuptools", "distutils", "pkg_resources", "wheel"))


def build_imports(root: Path, setup: str) -> list[str]:
    """The top-level modules `setup` imports (`Cython`, `numpy`, `torch`), less the
    interpreter's, the build tools' and the folder's own modules."""
    path = root / setup
    try:
        tree = ast.parse(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, SyntaxError, ValueError):
        return []
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names += [alias.name.split(".")[0] for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.append(node.module.split(".")[0])
    local = {p.stem for p in path.parent.iterdir()}
    return [
        n
        for n in dict.fromkeys(names)
        if n not in sys.stdlib_module_names and n not in BUILD_TOOLS and n not in local
    ]


def with_build_imports(
    built: EnvironmentBuild, fault: RuntimeFault, root: Path, builder: Builder,
    env: Mapping[str, str],
) -> EnvironmentBuild:  # fmt: skip
    """`built` with what the extension's setup script imports and the environment lacks
    installed into it (Cython for `cythonize`: no requirements file names a build tool), each
    an `import` repair; as it was when nothing is missing or nothing installs."""
    missing = builder.probe(build_imports(root, fault.feature))
    if not missing:
        return built
    options = tuple(ln for ln in (*built.options, *built.lines) if is_option(ln))
    source = IndexSource.of(options, dict(env))
    lines, repairs = list(built.lines), list(built.repairs)
    as_lines = True  # the environment is as `lines` say
    for module in missing:
        mapped = distribution_on_index(module, source, built.as_of)
        if mapped is None:
            continue
        as_lines = builder.install([*lines, mapped[0]]).exit_code == 0
        if not as_lines:
            continue
        lines.append(mapped[0])
        why = f"the setup script that builds {fault.generated} imports it ({mapped[1]})"
        repairs.append(Repair("import", f"import {module}", mapped[0], why, fault.evidence))
    if not as_lines:  # the last try failed: back to what the lines say
        builder.install(lines)
    return replace(built, lines=tuple(lines), repairs=tuple(repairs))
