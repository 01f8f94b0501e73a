"""The project's own compiled extension: found from the import error, built in place with the
run's interpreter, and put on the environment's path."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from miner.select.repair.extensions import build_extension, built_file, extension_setup
from miner.select.repair.runtime import runtime_fault

SETUP = """
from setuptools import setup, Extension
setup(name="lab", ext_modules=[Extension("{name}", ["{source}"])])
"""
MODULE = """
#include <Python.h>
static struct PyModuleDef mod = {PyModuleDef_HEAD_INIT, "_C", NULL, -1, NULL};
PyMODINIT_FUNC PyInit__C(void) { return PyModule_Create(&mod); }
"""


def _write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_the_setup_that_builds_the_missing_module_is_found(tmp_path: Path) -> None:
    root = _write(tmp_path, {
        "setup.py": "from torch.utils.cpp_extension import CppExtension, BuildExtension\n"
                    "ext_modules = [CppExtension('fcos_core._C', ['fcos_core/csrc/v.cpp'])]\n",
        "models/ops/setup.py": "ext_modules=[CUDAExtension(name='MultiScaleDeformableAttention',"
                               " sources=[])]\n",
        "tools/setup.py": "setup(name='tools', packages=['tools'])  # builds nothing\n",
    })  # fmt: skip
    assert extension_setup(root, "fcos_core._C") == ("setup.py", "fcos_core._C")
    assert extension_setup(root, "MultiScaleDeformableAttention") == (
        "models/ops/setup.py", "MultiScaleDeformableAttention",
    )  # fmt: skip
    assert extension_setup(root, "tools") is None and extension_setup(root, "dcn_v2") is None
    # a Cython source the setup cythonizes: the module is its path, dotted
    cython = _write(tmp_path / "c", {
        "setup.py": "from Cython.Build import cythonize\n"
                    "setup(ext_modules=cythonize('utils/compute_overlap.pyx'))\n",
    })  # fmt: skip
    assert extension_setup(cython, "utils.compute_overlap") == ("setup.py", "utils.compute_overlap")


def test_an_import_of_an_unbuilt_extension_is_a_fault_to_compile(tmp_path: Path) -> None:
    root = _write(tmp_path / "copy", {"setup.py": SETUP.format(name="lab._C", source="c.c")})
    log = tmp_path / "train.log"
    log.write_text(
        "Traceback (most recent call last):\n"
        f"ImportError: cannot import name '_C' from 'lab' ({root}/lab/__init__.py)\n",
        encoding="utf-8",
    )
    fault = runtime_fault(log, (3, 11), root)
    assert fault is not None and (fault.kind, fault.feature, fault.generated) == (
        "compile", "setup.py", "lab._C",
    )  # fmt: skip
    log.write_text("ModuleNotFoundError: No module named 'lab._C'\n", encoding="utf-8")
    assert runtime_fault(log, (3, 11), root).kind == "compile"  # type: ignore[union-attr]


def _venv(tmp_path: Path) -> Path:
    venv = tmp_path / "env"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", "--system-site-packages",
                    str(venv)], check=True)  # fmt: skip
    return venv / "bin" / "python"


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler on this machine")
def test_the_extension_is_built_in_place_and_imports(tmp_path: Path) -> None:
    root = _write(tmp_path / "copy", {
        "setup.py": SETUP.format(name="lab._C", source="lab/csrc/c.c"),
        "lab/__init__.py": "", "lab/csrc/c.c": MODULE,
    })  # fmt: skip
    python, log = _venv(tmp_path), tmp_path / "install.log"
    assert build_extension(root, "setup.py", "lab._C", python, {"PATH": "/usr/bin:/bin"}, log, 120)
    assert built_file(root, "lab._C") is not None
    ran = subprocess.run([str(python), "-c", "import lab._C"], cwd=tmp_path, check=False)
    assert ran.returncode == 0  # from outside the checkout: the folder is on the path
    assert "building lab._C" in log.read_text(encoding="utf-8")


def test_a_cython_source_in_a_package_folder_is_built_one_folder_down(tmp_path: Path) -> None:
    # the layout of the TTS projects' `monotonic_align`: its own setup.py cythonizes `core.pyx`,
    # Cython names it `monotonic_align.core`, and the package imports `.monotonic_align.core`
    root = _write(tmp_path / "copy", {
        "monotonic_align/__init__.py": "from .monotonic_align import core\n",
        "monotonic_align/setup.py": "from Cython.Build import cythonize\n"
                                    "setup(name='ma', ext_modules=cythonize('core.pyx'))\n",
    })  # fmt: skip
    found = extension_setup(root, "monotonic_align.monotonic_align")
    assert found == ("monotonic_align/setup.py", "monotonic_align.core")
    assert extension_setup(root, "monotonic_align.other") is None
    # built in place from that folder: the folder the copy goes to is made first, as the
    # README's `mkdir monotonic_align` does (a plain C extension of the same name stands in for
    # Cython's output here)
    module = MODULE.replace('"_C"', '"core"').replace("PyInit__C", "PyInit_core")
    (root / "monotonic_align" / "core.c").write_text(module, encoding="utf-8")
    (root / "monotonic_align" / "setup.py").write_text(
        SETUP.format(name="monotonic_align.core", source="core.c"), encoding="utf-8"
    )
    python, log = _venv(tmp_path), tmp_path / "install.log"
    assert build_extension(root, "monotonic_align/setup.py", "monotonic_align.core", python,
                           {"PATH": "/usr/bin:/bin"}, log, 120)  # fmt: skip
    assert built_file(root / "monotonic_align", "monotonic_align.core") is not None
    ran = subprocess.run([str(python), "-c", "import monotonic_align.monotonic_align.core"],
                         cwd=root, check=False)  # fmt: skip
    assert ran.returncode == 0


def test_a_build_that_fails_leaves_the_environment_as_it_was(tmp_path: Path) -> None:
    root = _write(tmp_path / "copy", {"setup.py": "raise SystemExit('nvcc not found')\n"})
    python, log = _venv(tmp_path), tmp_path / "install.log"
    assert not build_extension(root, "setup.py", "lab._C", python, {}, log, 60)
    # a compiled file the checkout ships for another interpreter is no build of this one
    (root / "lab").mkdir()
    shipped = root / "lab" / "_C.cpython-36m-x86_64-linux-gnu.so"
    shipped.write_bytes(b"\x7fELF")
    os.utime(shipped, (1_600_000_000, 1_600_000_000))  # committed long before this run
    assert not build_extension(root, "setup.py", "lab._C", python, {}, log, 60)
    assert not list((tmp_path / "env").glob("lib/python*/site-packages/_miner_extension.pth"))
    assert "nvcc not found" in log.read_text(encoding="utf-8")


def test_the_projects_header_folders_are_given_to_the_compiler(tmp_path: Path) -> None:
    from miner.select.repair.extensions import header_folders

    root = _write(tmp_path, {
        "fcos_core/csrc/nms.h": "", "fcos_core/csrc/cpu/vision.h": "", "fcos_core/csrc/v.cpp": "",
        "build/temp/fcos_core/csrc/old.h": "", "README.md": "",
    })  # fmt: skip
    assert header_folders(root) == [root / "fcos_core/csrc", root / "fcos_core/csrc/cpu"]


def test_an_installed_extension_built_against_another_framework_is_built_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from miner.audit.closure import ImportClosure
    from miner.select.repair.attempt import EnvironmentBuild
    from miner.select.repair.envs import Builder
    from miner.select.repair.extensions import extension_repair
    from miner.select.sandbox import Finished

    log = tmp_path / "train.log"
    log.write_text(
        "OSError: /env/lib/python3.8/site-packages/torch_cluster/_version.so: undefined symbol: "
        "_ZN3c106detail12infer_schema20make_function_schemaEOSsS2_\n",
        encoding="utf-8",
    )
    fault = runtime_fault(log, (3, 8), tmp_path)
    assert fault is not None and (fault.kind, fault.module) == ("rebuild", "torch_cluster")
    rebuilt: list[str] = []
    monkeypatch.setattr(Builder, "freeze", lambda self: ["torch==1.8.1", "torch-cluster==1.5.9"])

    def rebuild(self: Builder, line: str) -> Finished:
        rebuilt.append(line)
        return Finished(0, False, 1.0)

    monkeypatch.setattr(Builder, "rebuild", rebuild)
    built = EnvironmentBuild(None, 1.0, "python3.8", (), ("torch==1.8.1",), ImportClosure((), ()))
    done = extension_repair(built, fault, tmp_path, tmp_path / "env", tmp_path,
                            tmp_path / "install.log", {}, 60)  # fmt: skip
    assert rebuilt == ["torch-cluster==1.5.9"] and done is not None
    assert (
        done.repairs[-1].kind == "extension"
        and "against this environment" in done.repairs[-1].after
    )


# A stand-in for Cython: the setup script imports it to make its extensions, and no
# requirements file names it (a build tool, not a dependency of the code).
EXTHELP = """def cythonize(extension):
    return [extension]
"""
CYTHON_SETUP = """from setuptools import Extension, setup
from exthelp import cythonize
setup(name="lab", ext_modules=cythonize(Extension("lab._C", ["lab/csrc/c.c"])))
"""


@pytest.mark.skipif(shutil.which("cc") is None, reason="no C compiler on this machine")
def test_what_the_extensions_setup_imports_is_installed_before_it_builds(tmp_path: Path) -> None:
    import ensurepip

    from smoke_projects import TINYFIT, build_wheel, train

    from miner.select.smoke import SmokeOptions, SmokeTarget, smoke

    bundled = sorted(Path(ensurepip.__file__).parent.glob("_bundled/setuptools-*.whl"))
    if not bundled:
        pytest.skip("this interpreter's ensurepip bundles no setuptools wheel to build with")
    index = tmp_path / "index"
    build_wheel(index, "exthelp", "1.0", {"exthelp/__init__.py": EXTHELP})
    shutil.copy(bundled[-1], index)
    build_wheel(index, "tinyfit", "0.1", {"tinyfit/__init__.py": TINYFIT})
    root = _write(tmp_path / "repo", {
        "requirements.txt": f"--no-index\n--find-links {index}\ntinyfit==0.1\n",
        "setup.py": CYTHON_SETUP, "lab/__init__.py": "", "lab/csrc/c.c": MODULE,
        "train.py": "from lab import _C\n" + train(),
    })  # fmt: skip
    env = {"PATH": "/usr/bin:/bin", "UV_OFFLINE": "1", "UV_CACHE_DIR": str(tmp_path / "uv"),
           "UV_PYTHON_DOWNLOADS": "never"}  # fmt: skip
    options = SmokeOptions(out_dir=tmp_path / "smoke", timeout=60, env=env)
    files = (("requirements.txt", "requirements_file"),)
    result = smoke(SmokeTarget("lab/ext", None, None, root, ("{python}", "train.py"), files),
                   options)  # fmt: skip
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    kinds = [(r.kind, r.before, r.after) for r in result.repairs]
    assert ("import", "import exthelp", "exthelp") in kinds
    assert ("extension", "lab._C", "setup.py build_ext --inplace") in kinds
