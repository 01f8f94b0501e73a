"""Failures every interpreter would meet, read from uv's words and answered once: a major the
index never had, metadata uv cannot parse, an index or git host out of reach, a module of the
standard library named as a requirement; and the import a maintained database maps."""

from __future__ import annotations

import glob
import os
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from packaging.version import Version
from smoke_projects import build_wheel

from miner.codebook import Evidence
from miner.select.repair.failures import diagnose
from miner.select.repair.imports import distribution_on_index, pigar_candidates
from miner.select.repair.index import PYPI, IndexSource, Release
from miner.select.repair.moves import next_line, next_release
from miner.select.smoke import SmokeOptions, SmokeTarget, smoke

# uv 0.13's words, as written to install.log.
METADATA = [
    "error: No solution found when resolving dependencies",
    "  cause: Because pandas>=0.20.3 has invalid metadata and you require pandas>=0.20.3, we can "
    "conclude that your requirements are unsatisfiable.",
    "",
    "hint: Metadata for `pandas` (v0.24.2) could not be parsed:",
    "  after parsing `2011`, found `k`, which is not part of a valid version",
]
GIT = [
    "   Updating https://github.com/NVIDIA/dllogger.git (HEAD)",
    "error: Git operation failed",
    "         fatal: unable to access 'https://github.com/NVIDIA/dllogger.git/': Could not "
    "resolve host: github.com",
]
INDEX = [
    "error: Request failed after 3 retries in 10.4s",
    "  cause: Failed to fetch: https://download.pytorch.org/whl/cu117/six/",
]


def _releases(*versions: str, wheel: str = "py3-none-any") -> list[Release]:
    return [Release(Version(v), (f"p-{v}-{wheel}.whl",), None) for v in versions]


def test_failures_no_interpreter_changes_are_told_apart() -> None:
    metadata, git, index = diagnose(METADATA), diagnose(GIT), diagnose(INDEX)
    assert metadata is not None and (metadata.kind, metadata.name, metadata.version) == (
        "metadata", "pandas", "0.24.2")  # fmt: skip
    assert git is not None and (git.kind, git.name) == ("url", "dllogger")
    assert git.url == "https://github.com/NVIDIA/dllogger.git/"
    assert index is not None and index.kind == "index" and "download.pytorch.org" in index.url
    assert all(f.interpreter_independent for f in (metadata, git, index))
    unreadable = diagnose(["error: Couldn't parse requirement in `requirements.txt` at position 51",
                           "  cause: after parsing `1.12.1`, found `=py3.8_cuda11.3`"])  # fmt: skip
    assert unreadable is not None and unreadable.kind == "unreadable"
    assert unreadable.interpreter_independent
    no_wheel = diagnose(["  cause: Because tensorflow==1.4.0 has no wheels with a matching Python "
                         "ABI tag (e.g., `cp38`) and you require tensorflow==1.4.0"])  # fmt: skip
    assert no_wheel is not None and not no_wheel.interpreter_independent


def test_a_pin_whose_major_the_index_never_had_moves_to_the_next_release() -> None:
    found = _releases("1.0.0", "1.0.1", "1.2.0") + _releases("0.4.1", wheel="cp27-none-x")
    assert next_release("torch==0.4.1", found, (3, 7)) == "torch==1.0.0"
    # The major has a release: that is pin_move's answer, not a jump to the next major.
    assert next_release("torch==0.4.1", _releases("0.3.0", "1.0.0"), (3, 7)) is None
    assert next_release("torch==22.10", found, (3, 7)) is None  # nothing later


def test_unparseable_metadata_moves_to_the_next_release_line_with_a_wheel() -> None:
    found = _releases("0.24.1", "0.24.2", "0.25.0", "0.25.3", "1.0.0")
    assert next_line("0.24.2", found, (3, 7)) == ">=0.25,<0.26"
    assert next_line("1.0.0", found, (3, 7)) is None
    only_27 = _releases("0.24.2") + _releases("0.25.0", wheel="cp27-none-x")
    assert next_line("0.24.2", only_27, (3, 7)) is None


def test_an_extra_index_adds_to_the_default_one() -> None:
    source = IndexSource.of(("--extra-index-url https://download.pytorch.org/whl/cu117",), {})
    assert source.indexes == (PYPI, "https://download.pytorch.org/whl/cu117")
    source = IndexSource.of(("--index-url https://mirror.example/simple",), {})
    assert source.indexes == ("https://mirror.example/simple",)


def test_an_import_no_mapping_names_goes_to_the_first_published_of_its_distributions(
    tmp_path: Path,
) -> None:
    if not pigar_candidates("cv2"):
        pytest.skip("pigar's database is not installed")
    assert "opencv-python" in pigar_candidates("cv2")
    for minor in range(10):  # a maintained project: a long release history
        build_wheel(tmp_path, "opencv_python", f"4.{minor}.0.25", {"cv2/__init__.py": ""})
    source = IndexSource((), (str(tmp_path),))
    found = distribution_on_index("cv2", source)
    assert found is not None and found[0] == "opencv-python" and "pigar" in found[1]
    assert distribution_on_index("no_such_module_anywhere", source) is None
    # A placeholder named like the import (one release) gives way to the maintained project.
    other = tmp_path / "other"
    build_wheel(other, "skimage", "0.0", {"skimage/__init__.py": ""})
    for minor in range(10, 20):
        build_wheel(other, "scikit_image", f"0.{minor}.0", {"skimage/__init__.py": ""})
    found = distribution_on_index("skimage", IndexSource((), (str(other),)))
    assert found is not None and found[0] == "scikit-image"
    # A bundle with a few releases that happens to ship `cv2` is not taken for it.
    bundle = tmp_path / "bundle"
    build_wheel(bundle, "opencovis_python", "1.0", {"cv2/__init__.py": ""})
    assert distribution_on_index("cv2", IndexSource((), (str(bundle),))) is None


def test_a_generic_import_name_goes_to_its_namesake_only_when_that_one_is_long_lived(
    tmp_path: Path,
) -> None:
    if len(pigar_candidates("datasets")) <= 60 or len(pigar_candidates("utils")) <= 60:
        pytest.skip("pigar's database is not installed")
    for minor in range(50):  # Hugging Face's `datasets`: a release history few projects reach
        build_wheel(tmp_path, "datasets", f"2.{minor}.0", {"datasets/__init__.py": ""})
    for minor in range(12):  # the `utils` on the index: a dozen releases
        build_wheel(tmp_path, "utils", f"1.{minor}.0", {"utils/__init__.py": ""})
    source = IndexSource((), (str(tmp_path),))
    found = distribution_on_index("datasets", source)
    assert found is not None and found[0] == "datasets" and "long-lived" in found[1]
    assert distribution_on_index("utils", source) is None


def _pythons() -> tuple[str, ...]:
    found = [sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{v}.*/bin/python")))
             for v in ("3.11", "3.12")]  # fmt: skip
    return tuple(f[-1] for f in found if f)


def _smoke_on_pythons(  # type: ignore[no-untyped-def]
    tmp_path: Path, index: Path, requirements: list[str], script: str, pythons: tuple[str, ...]
):
    """A smoke run of a project of `requirements` (on the local `index`) and `script`."""
    root = tmp_path / "repo"
    root.mkdir()
    lines = ["--no-index", f"--find-links {index}", *requirements]
    (root / "requirements.txt").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "train.py").write_text(script, encoding="utf-8")
    env = {"PATH": "/usr/bin:/bin", "UV_OFFLINE": "1", "UV_PYTHON_DOWNLOADS": "never",
           "UV_CACHE_DIR": str(tmp_path / "uv-cache")}  # fmt: skip
    target = SmokeTarget("lab/ghost", None, None, root, ("{python}", "train.py"),
                         (("requirements.txt", "requirements_file"),))  # fmt: skip
    return smoke(target, SmokeOptions(out_dir=tmp_path / "smoke", timeout=60, env=env,
                                      pythons=pythons))  # fmt: skip


def test_requirements_no_interpreter_installs_are_repaired_once(tmp_path: Path) -> None:
    pythons = _pythons()
    if len(pythons) < 2:
        pytest.skip("needs Python 3.11 and 3.12 under ~/.pyenv/versions")
    index = tmp_path / "index"
    for version in ("1.2.0", "1.3.0"):
        build_wheel(index, "oldpin", version, {"oldpin.py": f"VERSION = {version!r}\n"})
    # distutils is the standard library's; oldpin 0.4.1 has no 0.x release here; ghostpkg is
    # nowhere, and the entry point imports it.
    result = _smoke_on_pythons(tmp_path, index, ["distutils", "oldpin==0.4.1", "ghostpkg==1.0"],
                               "import oldpin\nimport ghostpkg\n", pythons)  # fmt: skip
    assert result.outcome == "install"
    assert "ghostpkg" in result.evidence.text
    kinds = {r.kind: r for r in result.repairs}
    assert "interpreter" not in kinds  # every interpreter would meet the same index
    # Dropped as the standard library's, or as a backport where the interpreter still ships it.
    assert [r.kind for r in result.repairs if r.before == "distutils"] in (["standard"],
                                                                          ["backport"])  # fmt: skip
    assert kinds["pin"].after == "oldpin==1.2.0" and "no 0.x release" in kinds["pin"].reason


def _attempt(tmp_path: Path, source: IndexSource, lines: list[str], options=()):  # type: ignore[no-untyped-def]
    from miner.audit.closure import ImportClosure
    from miner.select.repair.attempt import Attempt
    from miner.select.repair.envs import Builder

    log = tmp_path / "install.log"
    builder = Builder(tmp_path / "venv", tmp_path, log, {}, 60.0, "2019-01-01T00:00:00Z",
                      tuple(options))  # fmt: skip
    return Attempt(builder, "python3.7", ImportClosure((), ()), source, None, list(lines))


def test_metadata_and_unreachable_index_repairs_are_recorded(tmp_path: Path) -> None:
    index = tmp_path / "index"
    for version in ("0.24.2", "0.25.0", "0.25.3"):
        build_wheel(index, "pandas", version, {"pandas/__init__.py": ""})
    source = IndexSource((), (str(index),))
    attempt = _attempt(tmp_path, source, ["pandas>=0.20.3"],
                       ["--extra-index-url https://download.pytorch.org/whl/cu117"])  # fmt: skip
    attempt.version = (3, 7)
    metadata, unreachable = diagnose(METADATA), diagnose(INDEX)
    assert metadata is not None and unreachable is not None
    assert attempt._repair(metadata) and attempt._repair(unreachable)
    assert attempt.lines == ["pandas>=0.20.3", "pandas>=0.25,<0.26"]
    assert attempt.builder.past_date == ("pandas",)  # resolved past the commit date
    assert any(
        a.startswith("--exclude-newer-package=pandas=") for a in attempt.builder.as_of_args()
    )
    assert attempt.builder.options == ()
    kinds = [(r.kind, r.before, r.after) for r in attempt.repairs]
    assert kinds[0] == ("metadata", "pandas==0.24.2", "pandas>=0.25,<0.26")
    assert kinds[1][0] == "index" and "download.pytorch.org" in attempt.repairs[1].reason
    assert not attempt._repair(metadata)  # the same bound is not tried twice


LATE = [
    "error: No solution found when resolving dependencies",
    "  cause: Because chex==0.1.82 depends on jaxlib and only jaxlib>=0.4.18 is available, we can"
    " conclude that chex==0.1.82 depends on jaxlib.",
    "hint: `jaxlib` was filtered by `exclude-newer` to only include packages uploaded before"
    " 2024-06-11T04:05:15Z. The latest version satisfying the requirement is v0.4.13, published"
    " at 2025-12-05T19:06:48Z. Consider using `exclude-newer-package` to override the cutoff",
]


def test_a_release_that_reached_the_index_after_the_date_is_let_past_it(tmp_path: Path) -> None:
    attempt = _attempt(tmp_path, IndexSource((), ()), ["jax==0.4.14", "chex==0.1.82"])
    failure = diagnose(LATE)
    assert failure is not None and (failure.kind, failure.name) == ("uploaded_late", "jaxlib")
    assert attempt._repair(failure)
    assert attempt.builder.past_date == ("jaxlib",)
    assert any(
        a.startswith("--exclude-newer-package=jaxlib=") for a in attempt.builder.as_of_args()
    )
    assert attempt.lines == ["jax==0.4.14", "chex==0.1.82"]  # no pin given up
    assert attempt.repairs[-1].kind == "date" and "0.4.13" in attempt.repairs[-1].reason
    attempt._repair(failure)  # a second time: the next repair, not the date again
    assert [r.kind for r in attempt.repairs].count("date") == 1


def test_an_unreachable_find_links_line_among_the_requirements_is_left_out(
    tmp_path: Path,
) -> None:
    url = "https://storage.googleapis.com/jax-releases/libtpu_releases.html"
    attempt = _attempt(tmp_path, IndexSource((), ()), ["jax==0.4.14", f"-f {url}", "numpy"])
    failure = diagnose(["error: Failed to read `--find-links` URL: " + url,
                        "  cause: Failed to fetch: " + url])  # fmt: skip
    assert failure is not None and attempt._repair(failure)
    assert attempt.lines == ["jax==0.4.14", "numpy"]
    assert attempt.repairs[-1].kind == "index" and f"-f {url}" in attempt.repairs[-1].before


def test_a_pin_on_the_release_with_unparseable_metadata_gives_way_to_the_next_line(
    tmp_path: Path,
) -> None:
    index = tmp_path / "index"
    for version in ("0.24.2", "0.25.0"):
        build_wheel(index, "pandas", version, {"pandas/__init__.py": ""})
    attempt = _attempt(tmp_path, IndexSource((), (str(index),)), ["numpy", "pandas==0.24.2"])
    attempt.version = (3, 7)
    metadata = diagnose(METADATA)
    assert metadata is not None and attempt._repair(metadata)
    assert attempt.lines == ["numpy", "pandas>=0.25,<0.26"]  # not both: they conflict


def test_a_standard_library_module_named_as_a_requirement_is_dropped(tmp_path: Path) -> None:
    attempt = _attempt(tmp_path, IndexSource((), ()), ["distutils", "numpy"])
    line = ("  cause: Because distutils was not found in the package registry and you require "
            "distutils, we can conclude that your requirements are unsatisfiable.")  # fmt: skip
    failure = diagnose([line])
    assert failure is not None and attempt._repair(failure)
    assert attempt.lines == ["numpy"]
    assert attempt.repairs[0].kind == "standard"


def test_a_pinned_release_asking_for_what_cannot_be_had_is_left_to_the_resolver(
    tmp_path: Path,
) -> None:
    attempt = _attempt(tmp_path, IndexSource((), ()), ["torch==2.0.1", "torchvision==0.15.0"])
    missing = diagnose(["  cause: Because there is no version of torch==2.0.0+cu117 and "
                        "torchvision==0.15.0 depends on torch==2.0.0+cu117, we can conclude that "
                        "torchvision==0.15.0 cannot be used."])  # fmt: skip
    assert missing is not None and missing.dependent == "torchvision==0.15.0"
    assert attempt._repair(missing)
    assert attempt.lines == ["torch==2.0.1", "torchvision"]  # the user's torch pin stays
    assert "asks for torch==2.0.0+cu117, which the index does not have" in attempt.repairs[0].reason
    conflict = diagnose(["  cause: Because torchvision==0.13.0 depends on torch==1.12.0 and you "
                         "require torch==2.0.1, we can conclude that your requirements and "
                         "torchvision==0.13.0 are incompatible."])  # fmt: skip
    attempt = _attempt(tmp_path, IndexSource((), ()), ["torch==2.0.1", "torchvision==0.13.0"])
    assert conflict is not None and attempt._repair(conflict)
    assert attempt.lines == ["torch==2.0.1", "torchvision"]
    assert "the other requirements rule out" in attempt.repairs[-1].reason


def test_an_undeclared_companion_comes_at_the_release_built_for_the_pinned_framework() -> None:
    from miner.select.repair.undeclared import _with_companion

    dist, why = _with_companion(["torch==1.0.0", "numpy"], "torchvision", "imported")
    assert dist == "torchvision==0.2.2" and "built for torch 1.0" in why
    assert _with_companion(["torch>=1.0"], "torchvision", "imported") == ("torchvision", "imported")


def test_pip_build_failures_name_the_project_being_collected() -> None:
    lines = ["Collecting opencv-python",
             "  Downloading opencv-python-4.3.0.38.tar.gz (88.0 MB)",
             "    ERROR: Command errored out with exit status 1:",
             "     command: /env/bin/python -c 'import sys, setuptools ... egg_info"]  # fmt: skip
    failure = diagnose(lines)
    assert failure is not None and (failure.kind, failure.name) == ("build", "opencv-python")
    failure = diagnose(["ERROR: Failed building wheel for lmdb"])
    assert failure is not None and (failure.kind, failure.name) == ("build", "lmdb")
    assert diagnose(["Collecting six", "Successfully installed six-1.16.0"]) is None


def test_a_module_the_checkout_ships_anywhere_is_never_installed_from_the_index(
    tmp_path: Path,
) -> None:
    from miner.select.repair.undeclared import shipped_modules

    (tmp_path / "utils" / "camera").mkdir(parents=True)
    (tmp_path / "utils" / "myutil.py").write_text("")
    (tmp_path / "utils" / "camera" / "__init__.py").write_text("")
    assert {"myutil", "camera"} <= shipped_modules(tmp_path)
    assert "numpy" not in shipped_modules(tmp_path)


def test_an_old_torchvision_gets_the_pillow_it_was_written_for() -> None:
    from miner.select.repair.moves import pillow_bound

    bound = pillow_bound(["torch==1.0.0", "torchvision==0.2.2"])
    assert bound is not None and bound[0] == "pillow<7" and "PILLOW_VERSION" in bound[1]
    assert pillow_bound(["torchvision==0.5.0"]) is None
    assert pillow_bound(["torchvision==0.2.2", "Pillow==6.2.0"]) is None  # already pinned
    assert pillow_bound(["torchvision>=0.2"]) is None


def _pin_past_the_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, pin: str, release: Release,
    python: tuple[int, int], as_of: str,
) -> Any:  # fmt: skip
    """An attempt whose `pin` is missing, on an index whose only `release` came after `as_of`,
    once repaired."""
    import miner.select.repair.steps as steps

    monkeypatch.setattr(steps, "releases", lambda source, name, as_of=None: [] if as_of else
                        [release])  # fmt: skip
    monkeypatch.setattr(steps, "ever_released", lambda *args: False)
    attempt = _attempt(tmp_path, IndexSource(), [pin])
    attempt.version, attempt.as_of = python, as_of
    failure = diagnose([
        "error: No solution found when resolving dependencies",
        f"  cause: Because there is no version of {pin} and you require {pin}, we can conclude "
        "that your requirements are unsatisfiable.",
    ])  # fmt: skip
    assert failure is not None and attempt._repair(failure)
    assert not attempt._repair(failure)  # tried once
    return attempt


def test_a_pin_only_the_frameworks_own_index_had_moves_to_the_first_release_after_the_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """torch==0.3.1 (on PyTorch's own index only): the default index has nothing at the commit's
    date, so the first release it has at all, resolved past the date."""
    from datetime import datetime, timezone

    first = Release(Version("1.0.0"), ("torch-1.0.0-cp37-cp37m-manylinux1_x86_64.whl",),
                    datetime(2018, 12, 7, tzinfo=timezone.utc))  # fmt: skip
    attempt = _pin_past_the_date(tmp_path, monkeypatch, "torch==0.3.1", first, (3, 7),
                                 "2018-06-01T00:00:00Z")  # fmt: skip
    assert attempt.lines == ["torch==1.0.0"]
    assert attempt.builder.past_date == ("torch",)
    [repair] = attempt.repairs
    assert (repair.kind, repair.before, repair.after) == ("pin", "torch==0.3.1", "torch==1.0.0")
    assert "1.0.0 is the first after" in repair.reason


def test_a_pin_of_an_authors_fork_moves_to_the_nearest_release_uploaded_after_the_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """torchsample==0.1.3 (the author's fork): the index has only 0.1.0, uploaded after the
    commit's date; no later release exists, so the nearest earlier one, resolved past the date."""
    from datetime import datetime, timezone

    only = Release(Version("0.1.0"), ("torchsample-0.1.0-py3-none-any.whl",),
                   datetime(2019, 6, 1, tzinfo=timezone.utc))  # fmt: skip
    attempt = _pin_past_the_date(tmp_path, monkeypatch, "torchsample==0.1.3", only, (3, 8),
                                 "2018-04-01T00:00:00Z")  # fmt: skip
    assert attempt.lines == ["torchsample==0.1.0"]
    assert attempt.builder.past_date == ("torchsample",)
    assert "0.1.0 is the nearest since" in attempt.repairs[0].reason


def _bz2_sdist(folder: Path, name: str, version: str) -> None:
    """A release whose only file is a `.tar.bz2` sdist (Twisted before 21 published no other)."""
    import io
    import tarfile

    base = f"{name}-{version}"
    setup = f"from setuptools import setup\nsetup(name={name!r}, version={version!r})\n".encode()
    folder.mkdir(parents=True, exist_ok=True)
    with tarfile.open(folder / f"{base}.tar.bz2", "w:bz2") as archive:
        info = tarfile.TarInfo(f"{base}/setup.py")
        info.size = len(setup)
        archive.addfile(info, io.BytesIO(setup))


def test_a_release_uv_cannot_read_moves_to_one_it_can_and_an_unneeded_one_is_dropped(
    tmp_path: Path,
) -> None:
    pythons = _pythons()
    if len(pythons) < 2:
        pytest.skip("needs Python 3.11 and 3.12 under ~/.pyenv/versions")
    index = tmp_path / "index"
    _bz2_sdist(index, "oldtwist", "17.5.0")
    build_wheel(index, "oldtwist", "17.9.0", {"oldtwist.py": "READY = True\n"})
    _bz2_sdist(index, "unused", "1.0")  # nothing imports it, and no release of it can be read
    result = _smoke_on_pythons(tmp_path, index, ["oldtwist==17.5.0", "unused==1.0"],
                               "import oldtwist\nassert oldtwist.READY\n", pythons)  # fmt: skip
    kinds = {r.kind: r for r in result.repairs}
    assert kinds["pin"].after == "oldtwist==17.9.0", [r.summary for r in result.repairs]
    assert "kind uv no longer reads" in kinds["pin"].reason
    assert kinds["drop"].before == "unused==1.0"
    assert "interpreter" not in kinds  # every interpreter reads the same archives
    assert result.stage >= 2, result.evidence


def test_a_name_an_installed_package_imports_moves_its_provider_to_the_importers_era(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # diffusers 0.21.4 imports `cached_download`, which huggingface-hub 0.26 removed: the hub as
    # of diffusers 0.21.4's release, in one step rather than a release line a run.
    from datetime import datetime, timezone

    from miner.select.repair import older, runtime
    from miner.select.repair.envs import Builder

    day = datetime(2023, 10, 5, tzinfo=timezone.utc)
    monkeypatch.setattr(
        older,
        "releases",
        lambda source, name, as_of=None: [
            Release(Version("0.21.4"), ("diffusers-0.21.4-py3-none-any.whl",), day)
        ],
    )
    seen: list[str] = []

    def newest(source: IndexSource, date: str, name: str) -> str:
        seen.append(date)
        return "0.17.3"

    monkeypatch.setattr(older, "newest_release", newest)
    monkeypatch.setattr(Builder, "freeze",
                        lambda self: ["diffusers==0.21.4", "huggingface-hub==0.35.1"])  # fmt: skip
    builder = Builder(tmp_path / "venv", tmp_path, tmp_path / "install.log", {}, 60.0)
    fault = runtime.RuntimeFault("older", Evidence("train.log", 12, "ImportError", "r"),
                                 module="huggingface_hub",
                                 feature="huggingface_hub.cached_download",
                                 importer="diffusers")  # fmt: skip
    era = older._importer_era(fault, "huggingface-hub", "0.35.1", builder, IndexSource())
    assert era is not None and era[0] == "huggingface-hub<=0.17.3"
    assert seen == ["2023-10-05T00:00:00Z"] and "diffusers 0.21.4 imports" in era[1]
    # No importer, or one whose era is no older than what is installed: the release line step.
    assert older._importer_era(replace(fault, importer=""), "huggingface-hub", "0.35.1",
                                 builder, IndexSource()) is None  # fmt: skip
    assert older._importer_era(fault, "huggingface-hub", "0.17.3", builder,
                                 IndexSource()) is None  # fmt: skip


def _recording_builder(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, frozen: list[str]
) -> tuple[Any, list[list[str]]]:
    """A builder whose environment holds `frozen` and whose installs succeed and are recorded,
    for `older_release` (no distribution mapping looked up on the index)."""
    from miner.select.repair import older
    from miner.select.repair.envs import Builder

    monkeypatch.setattr(older, "distribution_on_index", lambda module, source, as_of: None)
    monkeypatch.setattr(Builder, "freeze", lambda self: frozen)
    installed: list[list[str]] = []

    class Done:
        exit_code = 0

    def install(self: Builder, lines: list[str]) -> Done:
        installed.append(lines)
        return Done()

    monkeypatch.setattr(Builder, "install", install)
    return Builder(tmp_path / "venv", tmp_path, tmp_path / "install.log", {}, 60.0), installed


def test_an_importer_too_new_for_a_release_a_repair_held_moves_to_that_releases_era(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # An earlier repair held huggingface-hub at 0.19.4; accelerate 0.32.1 imports what 0.23
    # added: accelerate moves to its release of 0.19.4's era, not the hub further back.
    from datetime import datetime, timezone

    from miner.audit.closure import ImportClosure
    from miner.select.repair import older, runtime
    from miner.select.repair.attempt import EnvironmentBuild

    day = datetime(2023, 11, 17, tzinfo=timezone.utc)
    monkeypatch.setattr(older, "releases", lambda source, name, as_of=None: [
        Release(Version("0.19.4"), ("huggingface_hub-0.19.4-py3-none-any.whl",), day)
    ])  # fmt: skip
    monkeypatch.setattr(older, "newest_release", lambda source, date, name: "0.24.1")
    builder, installed = _recording_builder(
        monkeypatch, tmp_path, ["accelerate==0.32.1", "huggingface-hub==0.19.4"]
    )
    lines = ("diffusers==0.24.0", "accelerate", "huggingface-hub<=0.19.4")
    built = EnvironmentBuild(None, 1.0, "python3.12", (), lines, ImportClosure((), ()))
    fault = runtime.RuntimeFault(
        "older", Evidence("train.log", 22, "ImportError: cannot import name", "r"),
        module="huggingface_hub", importer="accelerate",
        feature="huggingface_hub.split_torch_state_dict_into_shards",
    )  # fmt: skip
    moved = older.older_release(built, fault, builder, {})
    assert moved is not None and moved.lines[-1] == "accelerate<=0.24.1"
    [repair] = moved.repairs
    assert (repair.before, repair.after) == ("accelerate==0.32.1", "accelerate<=0.24.1")
    assert "huggingface-hub 0.19.4 (held)" in repair.reason
    assert installed == [[*built.lines, "accelerate<=0.24.1"]]


def test_an_attribute_a_provider_removed_under_another_package_moves_the_provider(
    tmp_path: Path,
) -> None:
    from miner.select.repair import runtime

    log = tmp_path / "train.log"
    site = "/env/lib/python3.10/site-packages"
    log.write_text(
        "Traceback (most recent call last):\n"
        '  File "train.py", line 3, in <module>\n    import datasets\n'
        f'  File "{site}/datasets/features/features.py", line 634, in <module>\n'
        "    class _ArrayXDExtensionType(pa.PyExtensionType):\n"
        "AttributeError: module 'pyarrow' has no attribute 'PyExtensionType'\n"
    )
    fault = runtime.runtime_fault(log, (3, 10), tmp_path)
    assert fault is not None and fault.kind == "older"
    assert (fault.module, fault.feature, fault.importer) == (
        "pyarrow", "pyarrow.PyExtensionType", "datasets"
    )  # fmt: skip
    # the project's own use of a removed attribute: no installed package to match
    own = tmp_path / "own.log"
    own.write_text('  File "train.py", line 9, in <module>\n'
                   "AttributeError: module 'numpy' has no attribute 'float'\n")  # fmt: skip
    assert runtime.runtime_fault(own, (3, 10), tmp_path) is None


def test_a_project_with_no_release_for_this_python_by_the_date_resolves_past_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """opencv-python for Python 3.6 at a 2017-06 commit: uv finds no version by the date, so the
    project is resolved past it, once; one the index never had is left to the other steps."""
    from datetime import datetime, timezone

    import miner.select.repair.attempt as attempt_module
    import miner.select.repair.steps as steps

    wheel = "opencv_python-3.4.0.12-cp36-cp36m-manylinux1_x86_64.whl"
    later = Release(Version("3.4.0.12"), (wheel,), datetime(2018, 1, 1, tzinfo=timezone.utc))
    monkeypatch.setattr(steps, "releases", lambda source, name, as_of=None: [later])
    monkeypatch.setattr(attempt_module, "distribution_on_index", lambda name, source: None)
    attempt = _attempt(tmp_path, IndexSource(), ["opencv-python"])
    attempt.version, attempt.as_of = (3, 6), "2017-06-28T01:23:20Z"
    failure = diagnose([
        "  cause: Because there are no versions of opencv-python and you require opencv-python, "
        "we can conclude that your requirements are unsatisfiable.",
    ])  # fmt: skip
    assert failure is not None and attempt._repair(failure)
    assert attempt.lines == ["opencv-python==3.4.0.12"]  # the first with a wheel, not today's
    assert attempt.builder.past_date == ("opencv-python",)
    [repair] = attempt.repairs
    assert repair.kind == "pin" and "past the commit's date" in repair.reason
    assert not attempt._repair(failure)  # once
    monkeypatch.setattr(steps, "releases", lambda source, name, as_of=None: [])
    never = _attempt(tmp_path / "b", IndexSource(), ["opencv-python"])
    never.version, never.as_of = (3, 6), "2017-06-28T01:23:20Z"
    assert not never._repair(failure)


def test_a_project_whose_releases_by_the_date_were_all_yanked_resolves_past_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """torchvision at a 2018-01 commit: its 0.1 releases were yanked, so the date allows none."""
    from datetime import datetime, timezone

    import miner.select.repair.attempt as attempt_module
    import miner.select.repair.steps as steps

    wheel = "torchvision-0.2.1-py2.py3-none-any.whl"
    later = Release(Version("0.2.1"), (wheel,), datetime(2018, 4, 24, tzinfo=timezone.utc))
    monkeypatch.setattr(steps, "releases", lambda source, name, as_of=None: [later])
    monkeypatch.setattr(attempt_module, "distribution_on_index", lambda name, source: None)
    attempt = _attempt(tmp_path, IndexSource(), ["torch==1.0.0", "torchvision"])
    attempt.version, attempt.as_of = (3, 6), "2018-01-29T07:17:28Z"
    failure = diagnose([
        "  cause: Because torchvision==0.1.6 was yanked (reason: 0.1.6 is past it's support "
        "date and confuses users on unsupported platforms) and only the following versions of "
        "torchvision are available:",
        "             torchvision==0.1.6", "             torchvision>=0.1.7",
        "         we can conclude that torchvision<0.1.7 cannot be used.",
    ])  # fmt: skip
    assert failure is not None and (failure.kind, failure.name) == ("not_found", "torchvision")
    assert attempt._repair(failure)
    # beside a pinned torch, the release built for it, though yanked (an exact pin installs it)
    assert attempt.lines == ["torch==1.0.0", "torchvision==0.2.2"]
    assert attempt.repairs[-1].kind == "companion"
    assert attempt.builder.past_date == ("torchvision",)  # its release is past the date too
    # that release pins a dependency released after the date too: resolved past it as well
    pinned = diagnose([
        "  cause: Because there is no version of tqdm==4.19.9 and torchvision==0.2.2 depends on "
        "tqdm==4.19.9, we can conclude that torchvision==0.2.2 cannot be used.",
    ])  # fmt: skip
    assert pinned is not None and attempt._repair(pinned)
    assert attempt.builder.past_date == ("torchvision", "tqdm")
    assert attempt.lines == ["torch==1.0.0", "torchvision==0.2.2"]  # the companion stays pinned
    assert "released after the commit's date" in attempt.repairs[-1].reason
    (tmp_path / "b").mkdir()
    alone = _attempt(tmp_path / "b", IndexSource(), ["torchvision"])
    alone.version, alone.as_of = (3, 6), "2018-01-29T07:17:28Z"
    assert alone._repair(failure) and alone.lines == ["torchvision==0.2.1"]


def test_a_library_hugging_face_says_it_requires_is_installed() -> None:
    """transformers names an optional library a tokenizer needs ("requires the protobuf library
    but it was not found"): the same repair as a missing module, by the library's name."""
    import tempfile

    from miner.select.repair import runtime

    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "train.log"
        log.write_text(
            "[rank0]:     raise ImportError(PROTOBUF_IMPORT_ERROR.format(error_message))\n"
            "[rank0]: ImportError: \n"
            "[rank0]:  requires the protobuf library but it was not found in your environment. "
            "Check out the instructions on the\n"
        )
        fault = runtime.runtime_fault(log, (3, 12), Path(folder))
    assert fault is not None and (fault.kind, fault.module) == ("module", "protobuf")
    assert fault.distribution == "protobuf"  # a distribution's name, installed as named
    assert fault.evidence.line == 3 and fault.evidence.rule == "repair.import.runtime"
    # its other words: "Using the `Trainer` with `PyTorch` requires `accelerate>=0.20.1`"
    with tempfile.TemporaryDirectory() as folder:
        log = Path(folder) / "train.log"
        log.write_text(
            "    raise ImportError(\n"
            "ImportError: Using the `Trainer` with `PyTorch` requires `accelerate>=0.20.1`: "
            "Please run `pip install transformers[torch]` or `pip install accelerate -U`\n"
        )
        fault = runtime.runtime_fault(log, (3, 10), Path(folder))
    assert fault is not None and fault.distribution == "accelerate" and fault.evidence.line == 2


def test_an_ancient_release_the_resolver_fell_back_to_gets_a_floor_at_the_date(
    tmp_path: Path,
) -> None:
    # uv passes over pandas 0.13 to 0.24 (metadata it cannot parse) and settles on 0.12, whose
    # sdist does not build: a floor at the date's newest release with a wheel, so the metadata
    # repair takes over from there.
    index = tmp_path / "index"
    for version in ("0.23.4", "0.24.2"):
        build_wheel(index, "pandas", version, {"pandas/__init__.py": ""})
    build_failure = (
        "error: Failed to build `pandas==0.12.0`\n"
        "  cause: The build backend returned an error\n"
        "         error in pandas setup command: use_2to3 is invalid.\n"
    )
    failure = diagnose(build_failure.splitlines())
    assert failure is not None and (failure.kind, failure.version) == ("build", "0.12.0")
    attempt = _attempt(tmp_path, IndexSource((), (str(index),)), ["numpy==1.16.2", "pandas"])
    attempt.version, attempt.as_of = (3, 6), "2019-04-19T00:00:00Z"
    assert attempt._repair(failure)
    assert attempt.lines == ["numpy==1.16.2", "pandas>=0.24.2"]
    assert (attempt.repairs[0].kind, attempt.repairs[0].after) == ("era", "pandas>=0.24.2")
    # a second failure of the same kind goes on to the build repairs
    assert attempt._repair(failure) and attempt.repairs[1].kind == "build"
    # a project that bounds it from above asked for an old line: no floor
    (tmp_path / "b").mkdir()
    bounded = _attempt(tmp_path / "b", IndexSource((), (str(index),)), ["pandas<0.13"])
    bounded.version, bounded.as_of = (3, 6), "2019-04-19T00:00:00Z"
    assert bounded._repair(failure) and bounded.repairs[0].kind == "build"


PINNED_LATE = [
    "error: No solution found when resolving dependencies",
    "  cause: Because there is no version of tensorflow==1.15.5 and you require"
    " tensorflow==1.15.5, we can conclude that your requirements are unsatisfiable.",
    "hint: `tensorflow` was filtered by `exclude-newer` to only include packages uploaded before"
    " 2016-08-17T07:08:16Z. The requested version, v1.15.5, was published at"
    " 2021-01-06T17:16:34.769Z. Consider using `exclude-newer-package` to override the cutoff for"
    " this package.",
]


def test_a_pin_newer_than_the_date_is_let_past_it_not_loosened(tmp_path: Path) -> None:
    # code of 2016 that calls tf.placeholder: the API bound pins the last 1.x, released in 2021
    attempt = _attempt(tmp_path, IndexSource((), ()), ["tensorflow==1.15.5"])
    failure = diagnose(PINNED_LATE)
    assert failure is not None and failure.kind == "uploaded_late"
    assert (failure.name, failure.version) == ("tensorflow", "1.15.5")
    assert attempt._repair(failure)
    assert attempt.builder.past_date == ("tensorflow",)
    assert attempt.lines == ["tensorflow==1.15.5"]


def test_an_undated_local_file_newer_than_a_later_upload_is_not_a_release_of_the_date(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from datetime import datetime, timezone

    from miner.select.repair import index as index_module

    def uploaded(year: int) -> datetime:
        return datetime(year, 1, 1, tzinfo=timezone.utc)

    dated = (("torch-1.2.0-cp27-cp27mu-x.whl", uploaded(2019)),
             ("torch-1.4.0-cp27-cp27mu-x.whl", uploaded(2020)))  # fmt: skip
    monkeypatch.setattr(index_module, "_index_files", lambda index, name: dated)
    monkeypatch.setattr(index_module, "_listed", lambda location: (
        "torch-2.14.1-cp311-cp311-x.whl", "torch-1.1.0-cp27-cp27mu-x.whl"))  # fmt: skip
    source = IndexSource(("https://pypi.example/simple/",), ("/opt/wheels",))
    assert index_module.newest_release(source, "2019-10-01T00:00:00Z", "torch") == "1.2.0"
    kept = [str(r.version) for r in index_module.releases(source, "torch", "2019-10-01")]
    assert kept == ["1.1.0", "1.2.0"]  # 1.1.0 comes before the first later upload
    assert index_module.newest_release(source, "2026-01-01T00:00:00Z", "torch") == "2.14.1"
    # A folder of wheels alone has no dates to go by: all of it counts.
    alone = IndexSource((), ("/opt/wheels",))
    assert index_module.newest_release(alone, "2019-10-01T00:00:00Z", "torch") == "2.14.1"


def test_a_part_the_projects_own_code_imports_moves_its_package_to_the_commits_date(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from miner.codebook import Evidence
    from miner.select.repair import older
    from miner.select.repair.runtime import RuntimeFault

    monkeypatch.setattr(older, "newest_release", lambda source, date, name: (
        "0.4.1" if date.startswith("2018") else "1.4.0"))  # fmt: skip
    fault = RuntimeFault("module", Evidence("train.log", 9, "No module named 'x'", "r"),
                         module="torch", feature="torch.utils.serialization")  # fmt: skip
    source = IndexSource((), ())
    era = older._project_era(fault, "torch", "1.4.0", "2018-06-01T00:00:00Z", source)
    assert era is not None and era[0] == "torch<=0.4.1" and "2018-06-01" in era[1]
    assert older._project_era(fault, "torch", "1.4.0", "2020-03-01T00:00:00Z", source) is None


def test_a_second_release_past_the_date_moves_the_index_to_the_latest_of_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from datetime import datetime, timezone

    from packaging.version import Version

    from miner.select.repair import steps
    from miner.select.repair.index import Release

    uploads = {("tensorflow", "1.15.5"): datetime(2021, 1, 6, tzinfo=timezone.utc),
               ("gast", "0.2.2"): datetime(2019, 1, 1, tzinfo=timezone.utc)}  # fmt: skip
    monkeypatch.setattr(steps, "releases", lambda source, name, as_of=None: [
        Release(Version(v), (f"{n}-{v}-py3-none-any.whl",), t)
        for (n, v), t in uploads.items() if n == name])  # fmt: skip
    attempt = _attempt(tmp_path, IndexSource((), ()), ["tensorflow==1.15.5"])
    attempt.as_of = "2016-08-17T00:00:00Z"
    for name, version in (("tensorflow", "1.15.5"), ("gast", "0.2.2")):
        late = [line.replace("jaxlib", name).replace("0.4.13", version) for line in LATE]
        failure = diagnose(late)
        assert failure is not None and failure.kind == "uploaded_late"
        assert attempt._repair(failure)
    assert attempt.builder.past_date == ("tensorflow",)  # the first, let past the date alone
    assert attempt.builder.as_of == attempt.as_of == "2021-01-06T00:00:00Z"  # then the era
    moved = attempt.repairs[-1]
    assert (moved.kind, moved.after) == ("date", "the index as of 2021-01-06")
    assert "tensorflow 1.15.5, gast 0.2.2" in moved.reason


def test_a_pinned_project_the_index_lacks_is_not_taken_for_a_package_shipping_its_module(
    tmp_path: Path,
) -> None:
    if not pigar_candidates("detectron2"):
        pytest.skip("pigar's database is not installed")
    index = tmp_path / "index"
    for minor in range(12):  # a package with a history of its own that ships a `detectron2`
        build_wheel(index, "alphadetector", f"0.0.{minor}", {"detectron2/__init__.py": ""})
    source = IndexSource((), (str(index),))
    assert distribution_on_index("detectron2", source) is not None  # pigar's pick exists
    missing = diagnose(["  cause: Because detectron2 was not found in the package registry and "
                        "you require detectron2==0.6, we can conclude that ..."])  # fmt: skip
    assert missing is not None and missing.kind == "not_found"
    attempt = _attempt(tmp_path, source, ["detectron2==0.6", "torch"])
    attempt._repair(missing)
    assert not [r for r in attempt.repairs if r.kind == "alias"]
    (tmp_path / "b").mkdir()
    bare = _attempt(tmp_path / "b", source, ["detectron2", "torch"])  # a bare name: an import
    bare._repair(
        diagnose(
            [
                "  cause: Because detectron2 was not found in the package registry "
                "and you require detectron2, we can conclude that ..."
            ]
        )
    )  # type: ignore[arg-type]
    assert [(r.kind, r.after) for r in bare.repairs] == [("alias", "alphadetector")]


def test_a_part_of_a_mapped_package_is_no_placeholder_of_its_dotted_name(tmp_path: Path) -> None:
    from miner.select.repair.imports import namespace_part_on_index

    for minor in range(12):
        build_wheel(tmp_path, "scikit_learn", f"0.{minor}.0", {"sklearn/__init__.py": ""})
        build_wheel(tmp_path, "ruamel.yaml", f"0.17.{minor}", {"ruamel/yaml/__init__.py": ""})
    build_wheel(tmp_path, "sklearn.preprocessing", "0.0.1", {"skp/__init__.py": ""})
    build_wheel(tmp_path, "ruamel.base", "1.0.0", {"ruamel/__init__.py": ""})
    source = IndexSource((), (str(tmp_path),))
    assert namespace_part_on_index("sklearn", "sklearn.preprocessing", source) is None
    assert namespace_part_on_index("ruamel", "ruamel.yaml", source) == ("ruamel.yaml",
                                                                       "its own name")  # fmt: skip


def test_a_module_that_imports_its_namesake_wraps_it_and_does_not_ship_it(tmp_path: Path) -> None:
    from miner.select.repair.undeclared import shipped_modules

    (tmp_path / "models").mkdir()
    (tmp_path / "models" / "darts.py").write_text(
        "from darts import TimeSeries\n", encoding="utf-8"
    )
    (tmp_path / "models" / "gp.py").write_text("import torch\n", encoding="utf-8")
    shipped = shipped_modules(tmp_path)
    assert "darts" not in shipped and "gp" in shipped


def test_a_release_an_api_bound_chose_still_moves_back_for_an_older_api(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    # tensorflow==1.14.0 is miner's choice (the newest before 2.0); the code imports
    # `tensorflow.contrib.data.Iterator`, which only older releases have.
    from miner.audit.closure import ImportClosure
    from miner.select.repair import older, runtime
    from miner.select.repair.attempt import EnvironmentBuild
    from miner.select.repair.records import Repair

    builder, installed = _recording_builder(
        monkeypatch, tmp_path, ["tensorflow==1.14.0", "numpy==1.16.6"]
    )
    evidence = Evidence("train.py", 55, "x = tf.placeholder(tf.float32)", "repair.api_bound")
    bound = Repair("api_bound", "", "tensorflow==1.14.0", "tensorflow 2.0 removed it", evidence)
    built = EnvironmentBuild(None, 1.0, "python3.7", (bound,), ("tensorflow==1.14.0",),
                             ImportClosure((), ()))  # fmt: skip
    fault = runtime.RuntimeFault(
        "older", Evidence("train.log", 4, "ImportError: cannot import name 'Iterator'", "r"),
        module="tensorflow", feature="tensorflow.contrib.data.Iterator",
    )  # fmt: skip
    moved = older.older_release(built, fault, builder, {})
    assert moved is not None and moved.lines == ("tensorflow<1.14",)
    assert installed == [["tensorflow<1.14"]]  # the pin gave way to the bound
    # a pin the project itself wrote still stands: the fault lies elsewhere
    own = EnvironmentBuild(None, 1.0, "python3.7", (), ("tensorflow==1.14.0",),
                           ImportClosure((), ()))  # fmt: skip
    assert older.older_release(own, fault, builder, {}) is None


def test_a_sdist_that_does_not_build_with_no_wheel_by_the_date_takes_the_nearest_past_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """numpy 1.11.1 pinned in 2016, on Python 3.6 (the oldest interpreter at hand): its sdist no
    longer builds and no release of the time has a wheel for 3.6; 1.12.0 has, past the date."""
    from datetime import datetime, timezone

    import miner.select.repair.attempt as attempt_module

    def dated(version: str, files: tuple[str, ...], year: int) -> Release:
        return Release(Version(version), files, datetime(year, 1, 1, tzinfo=timezone.utc))

    wheel = "-cp36-cp36m-manylinux1_x86_64.whl"
    every = [
        dated(
            "1.11.1", ("numpy-1.11.1.tar.gz", "numpy-1.11.1-cp35-cp35m-manylinux1_x86_64.whl"), 2016
        ),
        dated("1.12.0", (f"numpy-1.12.0{wheel}",), 2017),
        dated("1.19.5", (f"numpy-1.19.5{wheel}",), 2021),
    ]

    def listed(source: IndexSource, name: str, as_of: str | None = None) -> list[Release]:
        return [r for r in every if r.uploaded and r.uploaded.year < 2017] if as_of else every

    monkeypatch.setattr(attempt_module, "releases", listed)
    attempt = _attempt(tmp_path, IndexSource(), ["numpy==1.11.1", "scipy==0.18.0"])
    attempt.version, attempt.as_of = (3, 6), "2016-09-01T00:00:00Z"
    failure = diagnose(["error: Failed to build `numpy==1.11.1`",
                        "  cause: The build backend returned an error"])  # fmt: skip
    assert failure is not None and failure.kind == "build"
    assert attempt._repair(failure)
    assert attempt.lines == ["numpy==1.12.0", "scipy==0.18.0"]  # the nearest, not today's
    assert attempt.builder.past_date == ("numpy",)
    [repair] = attempt.repairs
    assert repair.kind == "wheel" and "past the commit's date" in repair.reason
    assert not attempt._repair(failure)  # once


def test_a_feature_four_release_lines_back_still_missing_walks_no_further(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    """accelerate's `DummyOptim`, exported only where deepspeed is installed: each step back a
    full rerun, none of which brings it."""
    from miner.audit.closure import ImportClosure
    from miner.select.repair import older, runtime
    from miner.select.repair.attempt import EnvironmentBuild
    from miner.select.repair.records import Repair

    builder, installed = _recording_builder(monkeypatch, tmp_path, ["accelerate==0.26.1"])
    feature = "accelerate.utils.DummyOptim"
    fault = runtime.RuntimeFault("older", Evidence("train.log", 9, "ImportError", "r"),
                                 module="accelerate", feature=feature)  # fmt: skip

    def walked(steps: int) -> EnvironmentBuild:
        why = f"{feature} is not in accelerate 0.{{}}.0, the release installed"
        repairs = tuple(
            Repair("older", f"accelerate==0.{29 - n}.0", f"accelerate<0.{29 - n}",
                   why.format(29 - n), fault.evidence)
            for n in range(steps)
        )  # fmt: skip
        lines = ("torch", *(r.after for r in repairs))
        return EnvironmentBuild(None, 1.0, "python3.11", repairs, lines, ImportClosure((), ()))

    assert older.older_release(walked(3), fault, builder, {}) is not None  # a line further back
    assert older.older_release(walked(4), fault, builder, {}) is None  # no further
    assert len(installed) == 1
