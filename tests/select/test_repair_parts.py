"""The parts of environment repair: uv's failures read, pins moved, names rewritten, the import
closure walked, the interpreter chosen from the pins."""

from __future__ import annotations

import glob
import os
from pathlib import Path

import pytest
from packaging.version import Version
from smoke_projects import build_wheel

from miner.audit.closure import entry_scripts, import_closure
from miner.select.repair.failures import diagnose
from miner.select.repair.index import IndexSource, Release, releases
from miner.select.repair.interpreter import interpreters_for
from miner.select.repair.moves import companion, nearest, pin_move
from miner.select.repair.names import distribution_for
from miner.select.repair.requirements import (
    aliases,
    duplicates,
    name_of,
    readable,
    reduce_freeze,
    urls,
)

# Lines as uv 0.13 writes them.
UV_LINES = {
    "missing_pin": "  cause: Because there is no version of torch==0.4.0 and you require "
    "torch==0.4.0, we can conclude that your requirements are unsatisfiable.",
    "no_wheel": "  cause: Because tensorflow==1.4.0 has no wheels with a matching Python ABI tag "
    "(e.g., `cp38`) and you require tensorflow==1.4.0, we can conclude that ...",
    "not_found": "  cause: Because cv2 was not found in the package registry and you require cv2,",
    "url": "error: Failed to download and build `pcen @ git+https://github.com/daemon/pytorch-pcen`",
    "build": "error: Failed to build `functools32==3.2.3.post2`",
}


@pytest.mark.parametrize("kind", sorted(UV_LINES))
def test_uv_failures_name_the_requirement_and_the_kind(kind: str) -> None:
    failure = diagnose(["Using Python 3.8.18 environment", UV_LINES[kind]])
    assert failure is not None and failure.kind == kind
    assert failure.name == {"missing_pin": "torch", "no_wheel": "tensorflow", "not_found": "cv2",
                            "url": "pcen", "build": "functools32"}[kind]  # fmt: skip
    assert failure.evidence.line == 2 and failure.evidence.rule == f"repair.failure.{kind}"


def test_a_project_with_no_release_before_the_date_is_not_found() -> None:
    line = "  cause: Because there are no versions of torch and you require torch>=0.2, we can"
    failure = diagnose([line])
    assert failure is not None and (failure.kind, failure.name) == ("not_found", "torch")


def test_pip_failures_of_python2_environments_are_read_too() -> None:
    line = "ERROR: No matching distribution found for Lasagne==0.2.dev1 (from -r req.txt (line 4))"
    failure = diagnose([line])
    assert failure is not None and (failure.kind, failure.name, failure.version) == (
        "missing_pin",
        "Lasagne",
        "0.2.dev1",
    )


def test_build_failures_say_what_the_build_needs() -> None:
    lines = ["error: Failed to build `sklearn-crfsuite==0.3`",
             "  error in sklearn-crfsuite setup command: use_2to3 is invalid."]  # fmt: skip
    assert diagnose(lines).use_2to3  # type: ignore[union-attr]
    lines = ["error: Failed to build `pycocotools==2.0.0`",
             "ModuleNotFoundError: No module named 'numpy'"]  # fmt: skip
    assert diagnose(lines).build_missing == "numpy"  # type: ignore[union-attr]
    # an old setup.py's setup_requires, fetched through pip, which the build environment lacks
    lines = ["error: Failed to build `pycocotools==2.0.2`",
             "         /root/.cache/uv/builds-v0/.tmpq/bin/python: No module named pip",
             "         distutils.errors.DistutilsError: Command '['/root/.cache/uv/builds-v0/.tmpq/"
             "bin/python', '-m', 'pip', '--disable-pip-version-check', 'wheel', '--no-deps', "
             "'-w', '/tmp/tmpr9w1rccw', '--quiet', 'numpy']' returned non-zero exit status 1.",
             ]  # fmt: skip
    found = diagnose(lines)
    assert found is not None and (found.name, found.build_missing) == ("pycocotools", "numpy")
    lines[-1] = lines[-1].replace("'numpy'", "'cython>=0.27.3'")  # a requirement with its range
    assert diagnose(lines).build_missing == "cython"  # type: ignore[union-attr]
    lines = ["error: Failed to build `gym==0.18.0`",
             "  error in gym setup command: 'extras_require' must be a dictionary whose values are "
             "strings or lists of strings containing valid project/version requirement "
             "specifiers."]  # fmt: skip
    assert diagnose(lines).legacy  # type: ignore[union-attr]


def _releases(*versions: str, wheel: str = "py3-none-any") -> list[Release]:
    return [Release(Version(v), (f"p-{v}-{wheel}.whl",), None) for v in versions]


def test_a_pin_moves_within_its_minor_then_its_major() -> None:
    found = _releases("0.3.1", "0.4.1", "0.4.2", "1.0.0")
    assert pin_move("torch==0.4.0", found, (3, 6)) == ("torch==0.4.1", "0.4.1")
    assert pin_move("torch==0.5.0", found, (3, 6)) == ("torch==0.4.2", "0.4.2")
    assert pin_move("torch==2.0.0", found, (3, 6)) is None  # never to another major
    assert nearest(Version("1.2.3"), _releases("1.2.0", "1.2.5")).version == Version("1.2.5")  # type: ignore[union-attr]


def test_wheels_are_matched_to_the_interpreter() -> None:
    cp36 = _releases("1.4.0", wheel="cp36-cp36m-manylinux1_x86_64")[0]
    assert cp36.wheel_for((3, 6)) and not cp36.wheel_for((3, 8))
    assert not _releases("1.0", wheel="cp38-cp38-win_amd64")[0].wheel_for((3, 8))


def test_companions_follow_their_framework() -> None:
    moved = companion(["torch==1.4.0", "torchvision", "keras==2.2.4", "tensorflow"])
    assert (1, "torchvision==0.5.0") in [(i, line) for i, line, _ in moved]
    assert (3, "tensorflow==1.15.*") in [(i, line) for i, line, _ in moved]
    # torchtext 0.8 loads a C++ extension built against torch 1.7: torch 1.3 gets its own 0.4.
    moved = companion(["torch==1.3.1", "torchtext"])
    assert [(i, line) for i, line, _ in moved] == [(1, "torchtext==0.4.0")]
    from miner.select.repair.moves import jaxlib_bound

    assert jaxlib_bound(["jax==0.4.29", "flax"]) == (
        "jaxlib<=0.4.29", "jax 0.4.29 refuses a newer jaxlib at import")  # fmt: skip
    assert jaxlib_bound(["jax==0.4.29", "jaxlib==0.4.29"]) is None
    assert jaxlib_bound(["jax>=0.4"]) is None and jaxlib_bound(["jax==0.2.17"]) is None
    moved = companion(["keras==2.3.1", "tensorflow>=1.15.2"])  # the project's bound is kept
    assert [line for _, line, _ in moved] == ["tensorflow>=1.15.2,==2.2.*"]


def test_a_platform_only_dependency_is_traced_to_the_requirement_that_brought_it() -> None:
    lines = ["error: Failed to build `pyobjc-framework-coremedia==7.1`",
             "hint: `pyobjc-framework-coremedia` (v7.1) was included because `pyobjc` (v7.1) "
             "depends on `pyobjc-framework-coremedia`"]  # fmt: skip
    failure = diagnose(lines)
    assert failure is not None and failure.required_by == "pyobjc"
    mac = Release(Version("7.1"), ("p-7.1.tar.gz", "p-7.1-cp38-cp38-macosx_10_9_x86_64.whl"), None)
    assert mac.platform_only and mac.platforms == {"macOS"}
    assert not _releases("1.0", wheel="cp38-cp38-manylinux1_x86_64")[0].platform_only


def test_conda_and_apt_names_and_urls_become_the_index_names() -> None:
    on_index = {"opencv", "numpy", "helperpkg"}.__contains__
    lines, done = aliases(["numpy=1.16.4=py36_0", "opencv", "build-essential", "cudatoolkit",
                           "pkg-resources==0.0.0"], on_index)  # fmt: skip
    assert lines == ["numpy==1.16.4", "opencv-python"]
    assert [r.kind for r in done] == ["alias"] * 5
    assert "Debian's pip freeze" in done[-1].reason
    lines, done = urls(["git+git://github.com/a/helperpkg.git#egg=helperpkg",
                        "git+https://github.com/a/only-there.git"], on_index)  # fmt: skip
    assert lines == ["helperpkg", "git+https://github.com/a/only-there.git"]
    assert done[0].after == "git+https://github.com/a/helperpkg.git#egg=helperpkg"


def test_a_nightly_build_becomes_the_stable_project_it_precedes() -> None:
    lines, done = aliases(["jax", "tf-nightly", "tb-nightly==2.16.0a20240101"], lambda n: True)
    assert lines == ["jax", "tensorflow", "tensorboard"]
    assert [r.evidence.rule for r in done] == ["repair.alias.nightly"] * 2
    lines, done = aliases(["tensorflow==2.15.0", "tf-nightly"], lambda n: True)
    assert lines == ["tensorflow==2.15.0"] and done[0].after == ""


def test_a_system_freeze_is_reduced_to_what_the_code_imports(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("import numpy\nimport yaml\n", encoding="utf-8")
    closure = import_closure(tmp_path, [tmp_path / "train.py"])
    freeze = [f"pkg{i}==1.0" for i in range(60)] + ["numpy==1.16.4", "PyYAML==5.1"]
    lines, done = reduce_freeze(freeze, closure)
    assert lines == ["numpy==1.16.4", "PyYAML==5.1"] and len(done) == 60


def test_the_closure_follows_local_modules_and_marks_python2(tmp_path: Path) -> None:
    files = {
        "train.py": "import os\nfrom models import net\nimport helpers\nimport torch\n",
        "models/__init__.py": "", "models/net.py": "from . import layers\nimport cv2\n",
        "models/layers.py": "import numpy as np\n", "src/helpers.py": "print 'old'\nimport yaml\n",
    }  # fmt: skip
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    scripts = entry_scripts(("{python}", "train.py", "--epochs", "1"), tmp_path)
    closure = import_closure(tmp_path, scripts)
    assert set(closure.names) == {"torch", "cv2", "numpy", "yaml"} and closure.names[0] == "torch"
    assert closure.python2 is not None and closure.python2.path == "src/helpers.py"
    assert distribution_for("yaml") == ("PyYAML", "pipreqs mapping")


def test_a_shell_script_that_runs_a_module_brings_that_module_into_the_closure(
    tmp_path: Path,
) -> None:
    files = {
        "scripts/run_train.sh": "cd $PROJECT_DIR\npython3 -u -m lwm.train \\\n  --steps=2\n",
        "lwm/__init__.py": "", "lwm/train.py": "import jax\nfrom lwm import data\n",
        "lwm/data.py": "import datasets\n",
    }  # fmt: skip
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    scripts = entry_scripts(("bash", "scripts/run_train.sh"), tmp_path)
    assert scripts == [tmp_path / "lwm/train.py"]
    assert set(import_closure(tmp_path, scripts).names) == {"jax", "datasets"}


def test_folders_the_code_puts_on_sys_path_hold_local_modules(tmp_path: Path) -> None:
    files = {
        "train.py": "import os, sys\nROOT_DIR = os.path.dirname(os.path.abspath(__file__))\n"
        "sys.path.append(os.path.join(ROOT_DIR, 'utils'))\nsys.path.insert(0, 'models')\n"
        "import pc_util\nfrom votenet import VoteNet\n",
        "utils/pc_util.py": "import plyfile\nimport trimesh\n",
        "models/votenet.py": "import torch\nimport sys\nsys.path.append('../pointnet2')\n"
        "import pointnet2_utils\n",
        "pointnet2/pointnet2_utils.py": "import numpy\n",
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    closure = import_closure(tmp_path, [tmp_path / "train.py"])
    assert set(closure.names) == {"plyfile", "trimesh", "torch", "numpy"}  # no local name
    assert "pointnet2/pointnet2_utils.py" in closure.files


def test_a_python_program_without_a_suffix_is_read_for_its_imports(tmp_path: Path) -> None:
    files = {"train": "#!/usr/bin/python3\nimport torchvision\nfrom models import Net\n",
             "models.py": "import torch\n", "download": "#!/bin/bash\nwget $1\n"}  # fmt: skip
    for rel, text in files.items():
        (tmp_path / rel).write_text(text, encoding="utf-8")
    scripts = entry_scripts(("{python}", "./train", "--cuda"), tmp_path)
    assert scripts == [tmp_path / "train"]
    assert set(import_closure(tmp_path, scripts).names) == {"torch", "torchvision"}
    assert entry_scripts(("bash", "download"), tmp_path) == []  # a shell program, not Python


def test_the_interpreter_is_the_one_the_pinned_framework_has_wheels_for(tmp_path: Path) -> None:
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.[6-9].*/bin/python")))
    older = [p for p in found if "/3.6." in p or "/3.7." in p]
    newer = [p for p in found if "/3.8." in p or "/3.9." in p]
    if not older or not newer:
        pytest.skip("needs a Python 3.6/3.7 and a 3.8/3.9 under ~/.pyenv/versions")
    index = tmp_path / "index"
    wheel = build_wheel(index, "torch", "1.0.0", {"torch.py": ""})
    tag = "cp36-cp36m" if "/3.6." in older[-1] else "cp37-cp37m"
    wheel.rename(index / f"torch-1.0.0-{tag}-manylinux1_x86_64.whl")
    source = IndexSource.of(("--no-index", f"--find-links {index}"), {})
    assert releases(source, "torch") is not None
    order, done = interpreters_for((older[-1], newer[-1]), "2022-01-01", ["torch==1.0.0"],
                                   source, None)  # fmt: skip
    assert order[0] == older[-1]
    assert done and done[0].kind == "interpreter" and "torch==1.0.0 has no wheel" in done[0].reason


def test_a_freeze_keeps_what_any_file_imports_and_conda_duplicates_go(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("import numpy\n", encoding="utf-8")
    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "model.py").write_text("import tensorflow as tf\n", encoding="utf-8")
    everything = import_closure(tmp_path, sorted(tmp_path.rglob("*.py")))
    freeze = [f"pkg{i}==1.0" for i in range(60)] + ["numpy==1.16.4", "tensorflow==1.2.1"]
    assert reduce_freeze(freeze, everything)[0] == ["numpy==1.16.4", "tensorflow==1.2.1"]
    lines, done = aliases(["opencv==1.0.1", "opencv-python==3.2.0.7"], {"opencv"}.__contains__)
    assert lines == ["opencv-python==3.2.0.7"] and done[0].after == ""


def test_frameworks_are_never_dropped_and_a_wheel_move_for_python_keeps_the_major(
    tmp_path: Path,
) -> None:
    from miner.select.repair.moves import wheel_move
    from miner.select.repair.requirements import needed

    (tmp_path / "train.py").write_text("import keras\n", encoding="utf-8")
    closure = import_closure(tmp_path, [tmp_path / "train.py"])
    assert needed("tensorflow==0.12.1", closure) and not needed("PyYAML==3.12", closure)
    found = _releases("0.12.1", "1.13.1", wheel="cp37-cp37m-manylinux1_x86_64")
    assert wheel_move("tensorflow==0.12.0", "tensorflow", "0.12.0", found, (3, 7), True) == (
        "tensorflow==0.12.1"
    )
    assert wheel_move("tensorflow==0.11", "tensorflow", "0.11", found[1:], (3, 7), True) is None
    assert wheel_move("tensorflow==0.11", "tensorflow", "0.11", found[1:], (3, 7)) == (
        "tensorflow==1.13.1"
    )


def _python_37_and_39() -> tuple[list[str], list[str]]:
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.[7-9].*/bin/python")))
    old = [p for p in found if "/3.7." in p]
    new = [p for p in found if "/3.9." in p]
    if not old or not new:
        pytest.skip("needs Python 3.7 and 3.9 under ~/.pyenv/versions")
    return old, new


def _tagged_wheels(index: Path, name: str, version: str, tags: tuple[str, ...]) -> None:
    """Wheels of `name` `version` for the interpreters `tags` name (`cp37-cp37m`)."""
    for tag in tags:
        build_wheel(index, name, version, {f"{name}.py": ""}).rename(
            index / f"{name}-{version}-{tag}-manylinux1_x86_64.whl"
        )


def test_among_interpreters_the_framework_fits_the_most_pins_with_wheels_decide(
    tmp_path: Path,
) -> None:
    old, new = _python_37_and_39()
    index = tmp_path / "index"
    _tagged_wheels(index, "torch", "1.8.0", ("cp37-cp37m", "cp39-cp39"))  # the framework fits both
    _tagged_wheels(index, "pandas", "0.25.1", ("cp37-cp37m",))
    source = IndexSource.of(("--no-index", f"--find-links {index}"), {})
    pins = ["torch==1.8.0", "pandas==0.25.1"]
    order, done = interpreters_for((old[-1], new[-1]), "2022-06-01", pins, source, None)
    assert order[0] == old[-1]
    assert done and "pandas==0.25.1 has no wheel for Python 3.9" in done[0].reason
    # Where the pins fit the date's own pick as well, the date decides and nothing is recorded.
    order, done = interpreters_for((old[-1], new[-1]), "2022-06-01", pins[:1], source, None)
    assert done == []


def test_the_companion_a_pinned_torch_decides_must_have_a_wheel_too(tmp_path: Path) -> None:
    old, new = _python_37_and_39()
    index = tmp_path / "index"
    # torch 1.13 fits both, torchvision 0.14 the older one only
    _tagged_wheels(index, "torch", "1.13.0", ("cp37-cp37m", "cp39-cp39"))
    _tagged_wheels(index, "torchvision", "0.14.0", ("cp37-cp37m",))
    source = IndexSource.of(("--no-index", f"--find-links {index}"), {})
    pythons = (new[-1], old[-1])
    order, done = interpreters_for(pythons, "2023-06-01", ["torch==1.13"], source, None,
                                   ("torch", "torchvision"))  # fmt: skip
    assert order[0] == old[-1]
    assert done and "torchvision==0.14.0 has no wheel for Python 3.9" in done[0].reason
    # a project that imports no torchvision keeps the date's pick
    order, done = interpreters_for(pythons, "2023-06-01", ["torch==1.13"], source, None,
                                   ("torch",))  # fmt: skip
    assert order[0] == new[-1] and done == []
    # a pin without its patch number names the release all the same (`torch==1.6` is 1.6.0)
    only = tmp_path / "only"
    _tagged_wheels(only, "torch", "1.6.0", ("cp37-cp37m",))
    source = IndexSource.of(("--no-index", f"--find-links {only}"), {})
    order, done = interpreters_for(pythons, "2023-06-01", ["torch==1.6"], source, None)
    assert order[0] == old[-1] and "torch==1.6 has no wheel for Python 3.9" in done[0].reason


def test_a_build_missing_a_standard_module_is_not_given_a_package() -> None:
    lines = ["error: Failed to build `scikit-learn==0.21.3`",
             "hint: This error likely indicates that `scikit-learn@0.21.3` depends on "
             "`distutils.msvccompiler`, but doesn't declare it as a build dependency.",
             "[tool.uv.extra-build-dependencies]",
             'scikit-learn = ["distutils.msvccompiler"]']  # fmt: skip
    failure = diagnose(lines)
    assert failure is not None and failure.kind == "build" and failure.in_build
    assert not failure.interpreter_independent


def test_a_conda_export_with_pip_pins_loses_its_build_string() -> None:
    lines, done = aliases(["torch==1.12.1=py3.8_cuda11.3_cudnn8.3.2_0", "tqdm==4.64.1"],
                          lambda name: True)  # fmt: skip
    assert lines == ["torch==1.12.1", "tqdm==4.64.1"]
    assert [(r.kind, r.before) for r in done] == [
        ("alias", "torch==1.12.1=py3.8_cuda11.3_cudnn8.3.2_0")
    ]


def test_a_line_the_installer_cannot_read_keeps_its_project_name_only() -> None:
    wheel = "http://h/p-1.0-py3-none-any.whl"
    lines, done = readable(["pytz>=2011k", "numpy=>1.16", "torch==1.4.0", "-e /abs/pkg",
                            "--find-links https://x/", wheel, "!!"])  # fmt: skip
    assert lines == ["pytz", "numpy", "torch==1.4.0", "-e /abs/pkg", "--find-links https://x/",
                     wheel]  # fmt: skip
    assert [(r.kind, r.before, r.after) for r in done] == [
        ("unreadable", "pytz>=2011k", "pytz"), ("unreadable", "numpy=>1.16", "numpy"),
        ("unreadable", "!!", ""),
    ]  # fmt: skip


def test_pips_options_after_a_requirement_go_to_lines_of_their_own() -> None:
    pinned = "torch==2.0.1 --hash=sha256:ab --hash=sha256:cd"
    lines, done = readable(
        ["jax[tpu]==0.4.14 -f https://storage.googleapis.com/libtpu.html", pinned, "numpy<2"]
    )
    assert lines == ["jax[tpu]==0.4.14", "-f https://storage.googleapis.com/libtpu.html",
                     "torch==2.0.1", "numpy<2"]  # fmt: skip
    assert [(r.kind, r.after) for r in done] == [
        ("unreadable", "jax[tpu]==0.4.14"), ("unreadable", "torch==2.0.1")
    ]  # fmt: skip


def test_a_project_listed_twice_is_listed_once_the_later_pin_winning() -> None:
    lines, done = duplicates(["transformers==4.28.1", "tqdm", "transformers==4.37.2",
                              "tqdm==4.64.1", "numpy>=1.16", "numpy<2",
                              'pywin32; sys_platform == "win32"', "pywin32==306"])  # fmt: skip
    assert lines == ["transformers==4.37.2", "tqdm==4.64.1", "numpy>=1.16", "numpy<2",
                     'pywin32; sys_platform == "win32"', "pywin32==306"]  # fmt: skip
    assert [(r.kind, r.before) for r in done] == [
        ("duplicate", "transformers==4.28.1"), ("duplicate", "tqdm"),
    ]  # fmt: skip
    assert "transformers==4.37.2" in done[0].reason


def test_wheel_sdist_and_snapshot_urls_name_their_project() -> None:
    assert name_of("http://h.example/never_delete/modelscope_studio-0.4.0.9-py3-none-any.whl") == (
        "modelscope_studio"
    )
    assert name_of("https://files.example/p/pycocotools-2.0.tar.gz") == "pycocotools"
    assert name_of("https://github.com/owner/some-lib/archive/refs/heads/master.zip") == "some-lib"
    lines, done = urls(["http://h.example/x/modelscope_studio-0.4.0.9-py3-none-any.whl"],
                       {"modelscope_studio"}.__contains__)  # fmt: skip
    assert lines == ["modelscope_studio"] and done[0].kind == "url"


def test_a_direct_url_that_cannot_be_downloaded_is_a_url_failure_not_an_index() -> None:
    failure = diagnose([
        "error: Failed to download `flash-attn-3 @ https://github.com/o/w/releases/download/v1/"
        "flash_attn_3-3.0.0-cp39-abi3-linux_x86_64.whl`",
        "  cause: Request failed after 3 retries in 7.6s",
        "  cause: Failed to fetch: https://github.com/o/w/releases/download/v1/"
        "flash_attn_3-3.0.0-cp39-abi3-linux_x86_64.whl",
        "  cause: dns error",
    ])  # fmt: skip
    assert failure is not None and (failure.kind, failure.name) == ("url", "flash-attn-3")


def test_a_training_log_names_the_repair_it_calls_for(tmp_path: Path) -> None:
    from miner.select.repair.runtime import runtime_fault

    (tmp_path / "basicsr").mkdir()
    (tmp_path / "basicsr" / "__init__.py").write_text("", encoding="utf-8")
    log = tmp_path / "train.log"

    def fault(text: str, python: tuple[int, int] = (3, 11)):  # type: ignore[no-untyped-def]
        log.write_text(f"Traceback (most recent call last):\n{text}\n", encoding="utf-8")
        return runtime_fault(log, python, tmp_path)

    future = fault("ImportError: No module named builtins", (2, 7))
    assert future is not None and (future.module, future.distribution) == ("builtins", "future")
    assert fault("ImportError: No module named builtins", (3, 11)) is None
    typing = fault("ImportError: No module named typing", (2, 7))  # torch 1.0 on Python 2
    assert typing is not None and (typing.module, typing.distribution) == ("typing", "typing")
    assert fault("ImportError: No module named typing", (3, 11)) is None
    found = fault("ImportError: No module named cv2", (2, 7))  # Python 2's words
    assert found is not None and (found.kind, found.module) == ("module", "cv2")
    assert found.evidence.line == 2 and found.evidence.rule == "repair.import.runtime"
    assert fault("ModuleNotFoundError: No module named 'PIL.Image'").module == "PIL"  # type: ignore[union-attr]
    assert fault("ModuleNotFoundError: No module named 'basicsr.version'") is None  # its own
    assert fault("ModuleNotFoundError: No module named 'json.tool2'") is None  # the stdlib's
    removed = fault("AttributeError: module 'collections' has no attribute 'Iterable'", (3, 10))
    assert removed is not None and removed.kind == "interpreter" and removed.before == (3, 10)
    assert fault("AttributeError: module 'collections' has no attribute 'Iterable'", (3, 9)) is None
    numpy2 = fault("AttributeError: `np.float_` was removed in the NumPy 2.0 release. Use "
                   "`np.float64` instead.")  # fmt: skip
    assert numpy2 is not None and (numpy2.kind, numpy2.distribution) == ("bound", "numpy<2")
    (tmp_path / "python").mkdir()
    (tmp_path / "python" / "train.py").write_text("import tensorflow as tf\n", encoding="utf-8")
    check = fault('  File "train.py", line 176, in main\n'
                  '    assert "1.4" <= tf.__version__, "Need TensorFlow r1.4 or Later."\n'
                  "AssertionError: Need TensorFlow r1.4 or Later.", (2, 7))  # fmt: skip
    assert check is not None and (check.kind, check.distribution) == ("bound", "tensorflow<1.10")
    assert check.evidence.rule == "repair.version_check.runtime" and check.evidence.line == 3
    assert fault('  File "train.py", line 3\n    assert len(x) == 4\nAssertionError') is None
    for words in (
        "OSError: sndfile library not found",
        "OSError: cannot load library 'libsndfile.so': libsndfile.so: cannot open",
    ):
        sndfile = fault(words)  # soundfile's words before and after 0.11
        assert sndfile is not None and (sndfile.kind, sndfile.distribution) == (
            "bound", "soundfile>=0.12.1")  # fmt: skip
    gfortran = "OSError: libgfortran.so.3: cannot open shared object file: No such file"
    frame = '  File "/env/lib/python3.7/site-packages/mxnet/base.py", line 103, in _load_lib\n'
    mxnet = fault(frame + gfortran)
    assert mxnet is not None and (mxnet.kind, mxnet.distribution) == ("bound", "mxnet>=1.0.0.post4")
    assert fault(gfortran) is None  # another binding's: which release bundles it is not known
    loose = fault("AttributeError: module 'distutils' has no attribute 'version'", (3, 8))
    assert loose is not None and (loose.kind, loose.distribution) == ("bound", "setuptools<59.6")
    assert fault("AttributeError: module 'distutils' has no attribute 'version'", (3, 12)) is None
    distutils = fault("ModuleNotFoundError: No module named 'distutils'", (3, 12))
    assert distutils is not None and distutils.kind == "interpreter"
    async_name = ('  File "classify.py", line 215\n    target = target.cuda(async=True)\n'
                  "                             ^\nSyntaxError: invalid syntax")  # fmt: skip
    keyword = fault(async_name, (3, 7))
    assert keyword is not None and (keyword.kind, keyword.before) == ("interpreter", (3, 7))
    assert fault(async_name, (3, 6)) is None
    dependency = async_name.replace('"classify.py"', '"/env/lib/python3.8/site-packages/lib.py"')
    assert fault(dependency, (3, 8)) is None  # a dependency's: the install's fallback judges it
    coroutine = '  File "serve.py", line 3\n    async def handle(x) return\nSyntaxError: bad'
    assert fault(coroutine, (3, 11)) is None  # a real syntax error of modern code
    protobuf = fault("TypeError: Descriptors cannot be created directly.")
    assert protobuf is not None and (protobuf.kind, protobuf.distribution) == (
        "bound",
        "protobuf<=3.20.3",
    )
    gone = fault("ImportError: cannot import name 'cached_download' from 'huggingface_hub' "
                 "(/venv/lib/python3.10/site-packages/huggingface_hub/__init__.py)")  # fmt: skip
    assert gone is not None and (gone.kind, gone.module, gone.feature) == (
        "older",
        "huggingface_hub",
        "huggingface_hub.cached_download",
    )
    own = fault("ImportError: cannot import name 'x' from 'basicsr.utils' (/src/basicsr/utils.py)")
    assert own is None  # the project's own module
    part = fault("ModuleNotFoundError: No module named 'timm.models.layers.helpers'")
    assert part is not None and (part.module, part.feature) == (
        "timm",
        "timm.models.layers.helpers",
    )


def test_a_cv2_folder_of_two_opencv_releases_pins_the_newest_variant_to_the_oldest(
    tmp_path: Path,
) -> None:
    from miner.select.repair.runtime import runtime_fault

    site = tmp_path / "venv/lib/python3.8/site-packages"
    (site / "cv2").mkdir(parents=True)
    for info in ("opencv_python-4.3.0.36", "opencv_python_headless-4.10.0.84", "numpy-1.24.4"):
        (site / f"{info}.dist-info").mkdir()
    log = tmp_path / "train.log"
    log.write_text(
        f'Traceback (most recent call last):\n  File "tutorial_train.py", line 1\n'
        f'  File "{site}/cv2/__init__.py", line 181, in bootstrap\n'
        "AttributeError: module 'cv2.gapi.wip.draw' has no attribute 'Text'\n",
        encoding="utf-8",
    )
    fault = runtime_fault(log, (3, 8), tmp_path)
    assert fault is not None and (fault.kind, fault.distribution) == (
        "bound",
        "opencv-python-headless==4.3.0.36",
    )
    assert fault.evidence.rule == "repair.opencv.runtime" and fault.evidence.line == 4
    # one release in the folder: not this repair's to answer
    (site / "opencv_python_headless-4.10.0.84.dist-info").rename(
        site / "opencv_python_headless-4.3.0.36.dist-info"
    )
    same = runtime_fault(log, (3, 8), tmp_path)
    assert same is None or same.evidence.rule != "repair.opencv.runtime"


def test_python_2_import_errors_are_read_with_the_import_line_above_them(tmp_path: Path) -> None:
    from miner.select.repair.runtime import runtime_fault

    (tmp_path / "lib").mkdir()
    (tmp_path / "lib" / "__init__.py").write_text("", encoding="utf-8")
    log = tmp_path / "train.log"

    def fault(code: str, error: str):  # type: ignore[no-untyped-def]
        site = '  File "/env/lib/python2.7/site-packages/lasagne/layers/pool.py", line 6'
        log.write_text(f"Traceback (most recent call last):\n{site}\n    {code}\n{error}\n",
                       encoding="utf-8")  # fmt: skip
        return runtime_fault(log, (2, 7), tmp_path)

    # `serialization` alone names no distribution; the import line says it is torch's part
    part = fault("from torch.utils.serialization import load_lua",
                 "ImportError: No module named serialization")  # fmt: skip
    assert part is not None and (part.kind, part.module, part.feature) == (
        "module", "torch", "torch.utils.serialization")  # fmt: skip
    assert part.evidence.line == 4
    gone = fault("from theano.tensor.signal import downsample",
                 "ImportError: cannot import name downsample")  # fmt: skip
    assert gone is not None and (gone.kind, gone.module, gone.feature, gone.importer) == (
        "older", "theano", "theano.tensor.signal.downsample", "lasagne")  # fmt: skip
    # Python 3.6 quotes the name and still leaves out the module
    quoted = fault("from theano.tensor.signal import pool, downsample",
                   "ImportError: cannot import name 'downsample'")  # fmt: skip
    assert quoted is not None and quoted.feature == "theano.tensor.signal.downsample"
    assert fault("from lib.models import Net", "ImportError: cannot import name Net") is None
    assert fault("from .models import Net", "ImportError: cannot import name Net") is None
    plain = fault("import cv2", "ImportError: No module named cv2")
    assert plain is not None and (plain.module, plain.feature) == ("cv2", "")


def _releases_of(index: Path, name: str, versions: tuple[str, ...]) -> IndexSource:
    """A local index holding a small wheel of `name` at each of `versions`."""
    for version in versions:
        build_wheel(index, name, version, {f"{name}/__init__.py": ""})
    return IndexSource.of(("--no-index", f"--find-links {index}"), {})


def test_an_open_framework_whose_code_calls_a_removed_api_stops_before_the_removal(
    tmp_path: Path,
) -> None:
    from miner.select.repair.api_bounds import bound_to_api

    source = _releases_of(tmp_path / "index", "tensorflow", ("1.14.0", "1.15.5", "2.4.0"))
    code = "import tensorflow as tf\n# tf.Session( in a comment\nx = tf.placeholder(tf.float32)\n"
    (tmp_path / "train.py").write_text(code, encoding="utf-8")
    files = ("train.py",)
    lines, done = bound_to_api(["numpy", "tensorflow>=1.4"], tmp_path, files, source, None)
    assert lines == ["numpy", "tensorflow==1.15.5"]
    assert [(r.kind, r.before, r.after) for r in done] == [
        ("api_bound", "tensorflow>=1.4", "tensorflow==1.15.5")]  # fmt: skip
    assert (done[0].evidence.path, done[0].evidence.line) == ("train.py", 3)
    assert "2.0 removed" in done[0].reason
    # Not declared at all: added at that release; pinned or bounded: left as written.
    assert bound_to_api(["numpy"], tmp_path, files, source, None)[0][-1] == "tensorflow==1.15.5"
    for kept in (["tensorflow==2.4.0"], ["tensorflow<2"], ["tensorflow~=1.14"]):
        assert bound_to_api(kept, tmp_path, files, source, None) == (kept, [])
    # Code written for TF 2 through its compatibility module is not bounded.
    (tmp_path / "train.py").write_text("import tensorflow.compat.v1 as tf\nx = tf.placeholder(1)\n",
                                       encoding="utf-8")  # fmt: skip
    assert bound_to_api(["tensorflow"], tmp_path, files, source, None) == (["tensorflow"], [])


def test_pandas_code_that_calls_as_matrix_stops_before_pandas_1(tmp_path: Path) -> None:
    from miner.select.repair.api_bounds import bound_to_api

    source = _releases_of(tmp_path / "index", "pandas", ("0.22.0", "0.25.3", "1.0.5"))
    code = "import pandas as pd\nx = pd.read_csv(path).as_matrix()\n"
    (tmp_path / "lstnet.py").write_text(code, encoding="utf-8")
    lines, done = bound_to_api(["pandas>=0.22.0"], tmp_path, ("lstnet.py",), source, None)
    assert lines == ["pandas==0.25.3"] and "pandas 1.0 removed" in done[0].reason
    # scipy's Rotation.as_matrix in a file that does not import pandas is not pandas'
    rotation = (
        "from scipy.spatial.transform import Rotation\nm = Rotation.from_quat(q).as_matrix()\n"
    )
    (tmp_path / "lstnet.py").write_text(rotation, encoding="utf-8")
    assert bound_to_api(["pandas"], tmp_path, ("lstnet.py",), source, None) == (["pandas"], [])


def test_an_unguarded_import_of_a_python_2_module_marks_python_2_code(tmp_path: Path) -> None:
    (tmp_path / "train.py").write_text("import os\nimport cPickle as pickle\nimport numpy\n",
                                       encoding="utf-8")  # fmt: skip
    shim = "try:\n    import cPickle as pickle\nexcept ImportError:\n    import pickle\n"
    shim += "import numpy\n"
    (tmp_path / "both.py").write_text(shim, encoding="utf-8")
    closure = import_closure(tmp_path, [tmp_path / "train.py"])
    assert closure.python2 is not None and closure.python2.line == 2
    assert closure.python2.rule == "repair.python2.import" and closure.names == ("numpy",)
    both = import_closure(tmp_path, [tmp_path / "both.py"])
    assert both.python2 is None and both.names == ("numpy",)  # a shim runs on either
    branch = ("import sys\nif sys.version_info[0] == 3:\n    from urllib.request import urlopen\n"
              "else:\n    from urllib2 import urlopen\n")  # fmt: skip
    (tmp_path / "branch.py").write_text(branch, encoding="utf-8")
    assert import_closure(tmp_path, [tmp_path / "branch.py"]).python2 is None
    # the Python 2 name as the fallback of an ImportError, the Python 3 one tried first
    fallback = ("try:\n    from urllib.parse import urlparse\nexcept ImportError:\n"
                "    from urlparse import urlparse\n")  # fmt: skip
    (tmp_path / "fallback.py").write_text(fallback, encoding="utf-8")
    assert import_closure(tmp_path, [tmp_path / "fallback.py"]).python2 is None


def test_open_requirements_are_bounded_by_the_newest_release_of_the_date_for_pip() -> None:
    from miner.select.repair.requirements import dated

    newest = {"easydict": "1.7", "numpy": "1.13.3"}.get
    given = ["EasyDict", "numpy>=1.10; python_version < '3'", "opencv-python==3.4.0.12",
             "scipy<1.3", "unknown", "-e /abs/pkg"]  # fmt: skip
    lines, done = dated(given, lambda name: newest(name.lower()))
    assert lines == ["EasyDict<=1.7", 'numpy>=1.10,<=1.13.3; python_version < "3"', *given[2:]]
    assert [(r.kind, r.before) for r in done] == [
        ("era", "EasyDict"), ("era", "numpy>=1.10; python_version < '3'")]  # fmt: skip


def test_a_package_moved_back_to_its_era_takes_its_own_requirements_with_it() -> None:
    from miner.select.repair.older import era_bounds

    requires = ["llvmlite", "numpy", "funcsigs"]  # numba 0.45.1's, as `required_by` reads them
    installed = {"llvmlite": "0.35.0", "numpy": "1.19.5", "numba": "0.45.1", "scipy": "1.5.4"}
    then = {"llvmlite": "0.30.0", "numpy": "1.17.3"}
    # numpy is the project's own pin: its words stand; llvmlite goes back with numba
    bounds = era_bounds(requires, installed, ["numpy==1.19.5", "numba<=0.45.1"], then.get)
    assert bounds == [("llvmlite==0.35.0", "llvmlite<=0.30.0")]
    # already as old as its era: nothing to move
    assert era_bounds(requires, {"llvmlite": "0.29.0"}, [], then.get) == []


def test_pythons_2_pip_gets_one_line_per_project_with_every_bound() -> None:
    from miner.select.repair.requirements import merged

    lines = ["--find-links /w", "torch", "numpy>=1.10", "torch<=1.2.0", "Torch<1.1",
             "six; python_version < '3'", "six"]  # fmt: skip
    assert merged(lines) == ["--find-links /w", "torch<=1.2.0,<1.1", "numpy>=1.10",
                             "six; python_version < '3'", "six"]  # fmt: skip


def test_pythons_2_pip_reads_no_config_file_whose_constraints_would_outrank_the_dates(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import os

    from miner.select.repair import envs
    from miner.select.sandbox import Finished

    seen: list[dict[str, str]] = []
    monkeypatch.setattr(envs, "run_bounded", lambda argv, cwd, env, log, timeout, limits: (
        seen.append(dict(env)) or Finished(0, False, 0.0)))  # fmt: skip
    old = envs.Builder(tmp_path / "env", tmp_path, tmp_path / "log", {"A": "1"}, 60, python2=True)
    old.install(["torch<=1.2.0"])
    assert seen[-1] == {"A": "1", "PIP_CONFIG_FILE": os.devnull}
    new = envs.Builder(tmp_path / "env3", tmp_path, tmp_path / "log", {"A": "1"}, 60)
    new.install(["torch"])
    assert "PIP_CONFIG_FILE" not in seen[-1]


def test_the_innermost_frame_is_read_through_a_distributed_workers_prefix() -> None:
    from miner.select.repair.keywords import innermost_frame

    lines = ["[rank0]: Traceback (most recent call last):",
             '[rank0]:   File "/copy/src/k_diffusion/utils.py", line 253, in __init__',
             "[rank0]:     super().__init__(optimizer, last_epoch, verbose)",
             "[rank0]: TypeError: LRScheduler.__init__() takes from 2 to 3 positional arguments"
             " but 4 were given"]  # fmt: skip
    assert innermost_frame(lines, 4) == ("/copy/src/k_diffusion/utils.py", 253)


def test_lines_pip_reads_and_uv_does_not_are_rewritten_for_uv(tmp_path: Path) -> None:
    from miner.select.repair.pip_lines import uv_lines

    (tmp_path / "det").mkdir()
    (tmp_path / "det" / "setup.py").write_text("from setuptools import setup\nsetup()\n")
    own = "-e git+https://github.com/org/vim@a452c02#egg=detectron2&subdirectory=det"
    other = "-e git+https://github.com/org/fla@36743f3#egg=fla"
    lines, done = uv_lines(["--no-binary=imgaug,albumentations", own, other, "torch==2.1"],
                           tmp_path)  # fmt: skip
    assert lines == ["--no-binary imgaug", "--no-binary albumentations", "-e ./det",
                     "git+https://github.com/org/fla@36743f3#egg=fla", "torch==2.1"]  # fmt: skip
    assert [r.evidence.rule for r in done] == ["repair.pip.binary_list",
                                               "repair.pip.editable_vcs",
                                               "repair.pip.editable_vcs"]  # fmt: skip
    assert "in the checkout itself" in done[1].reason and "not editable" in done[2].reason
    # a sub-folder the checkout lacks, or one outside it, is not taken for the package
    away = "-e git+https://github.com/org/vim@a452c02#egg=x&subdirectory=../etc"
    assert uv_lines([away], tmp_path)[0] == [away.removeprefix("-e ")]
    assert uv_lines(["--no-binary :all:", "numpy"], tmp_path) == (
        ["--no-binary :all:", "numpy"],
        [],
    )


def test_a_keyword_handed_on_through_a_packages_kwargs_is_still_the_projects_call(
    tmp_path: Path,
) -> None:
    from miner.select.repair.keywords import keyword_caller

    (tmp_path / "load_llff.py").write_text(
        "import os, imageio\n\ndef imread(f):\n    return imageio.imread(f, ignoregamma=True)\n",
        encoding="utf-8",
    )
    site = "/env/lib/python3.7/site-packages"
    lines = [
        "Traceback (most recent call last):",
        f'  File "{tmp_path}/load_llff.py", line 4, in imread',
        "    return imageio.imread(f, ignoregamma=True)",
        f'  File "{site}/imageio/__init__.py", line 97, in imread',
        "    return imread_v2(uri, format=format, **kwargs)",
        f'  File "{site}/imageio/v2.py", line 360, in imread',
        "    result = file.read(index=0, **kwargs)",
        "TypeError: read() got an unexpected keyword argument 'ignoregamma'",
    ]
    assert keyword_caller(lines, 8, tmp_path) == ("imageio", "imageio.imread(ignoregamma=)")
    # handed on into another package than the one the project called: not this repair's
    other = [*lines[:5], lines[5].replace("imageio/v2.py", "PIL/Image.py"), *lines[6:]]
    assert keyword_caller(other, 8, tmp_path) is None
