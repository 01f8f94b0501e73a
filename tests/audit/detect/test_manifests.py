"""Frameworks named by dependency files, with versions; setup.py is read, never run."""

from __future__ import annotations

from pathlib import Path

from detect_snippets import write

from miner.audit.detect.manifests import declared_frameworks, framework_of_package
from miner.audit.files import RepoTree


def _declared(root: Path, files: dict[str, str | bytes]) -> tuple[set[tuple[str, str]], list[str]]:
    warnings: list[str] = []
    found = declared_frameworks(RepoTree(write(root, files)), warnings)
    return {(d.framework, d.spec) for d in found}, warnings


def test_package_names_map_to_frameworks() -> None:
    assert framework_of_package("tensorflow-gpu") == "tensorflow"
    assert framework_of_package("Keras") == "keras"
    assert framework_of_package("torch") == "pytorch"
    assert framework_of_package("mxnet-cu101") == "mxnet"
    assert framework_of_package("@tensorflow/tfjs") == "tensorflowjs"
    assert framework_of_package("numpy") is None
    assert framework_of_package("cudnn") is None  # a conda package, not Lua Torch
    assert framework_of_package("nn", lua=True) == "torch7"


def test_requirements_with_pins_extras_markers_and_eggs(tmp_path: Path) -> None:
    found, _ = _declared(
        tmp_path,
        {
            "requirements.txt": (
                "# deps\nnumpy\ntensorflow-gpu==1.4.0\ntorch >= 1.0.0 ; python_version > '3'\n"
                "-r other.txt\ngit+https://github.com/keras-team/keras.git#egg=keras\n"
            ),
        },
    )
    assert found == {("tensorflow", "==1.4.0"), ("pytorch", ">=1.0.0"), ("keras", "")}


def test_setup_py_is_parsed_not_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed"
    setup = (
        "import os\n"
        f"open({str(marker)!r}, 'w').write('ran')\n"
        "from setuptools import setup\n"
        "REQUIRED = ['torch==1.7.1', 'numpy']\n"
        "setup(name='x', install_requires=REQUIRED, extras_require={'tf': ['tensorflow>=2.3']})\n"
    )
    found, warnings = _declared(tmp_path / "repo", {"setup.py": setup})
    assert found == {("pytorch", "==1.7.1"), ("tensorflow", ">=2.3")}
    assert not marker.exists() and not warnings


def test_a_malformed_setup_py_warns_and_is_read_as_text(tmp_path: Path) -> None:
    found, warnings = _declared(tmp_path, {"setup.py": "setup(install_requires=['keras==2.2.4'\n"})
    assert ("keras", "==2.2.4") in found
    assert any("setup.py does not parse" in w for w in warnings)


def test_conda_env_docker_cmake_rockspec_package_json(tmp_path: Path) -> None:
    found, _ = _declared(
        tmp_path,
        {
            "environment.yml": "dependencies:\n  - python=3.6\n  - pytorch=1.4.0\n  - cudnn\n"
            "  - pip:\n    - keras==2.2.4\n",
            "docker/Dockerfile": "FROM tensorflow/tensorflow:1.15.0-gpu-py3\n"
            "RUN pip install mxnet-cu101==1.5.0 && conda install -c pytorch torchvision\n"
            'RUN pip install chainer==5.0.0 && echo "done"\n',
            "cpp/CMakeLists.txt": "find_package(Caffe REQUIRED)\nfind_package(OpenCV)\n",
            "crnn-1.0.rockspec": 'dependencies = { "torch >= 7.0", "nn" }\n',
            "web/package.json": '{"dependencies": {"@tensorflow/tfjs": "^1.2.0", "regl": "1"}}',
        },
    )
    assert {
        ("pytorch", "=1.4.0"), ("tensorflow", "==1.15.0"), ("mxnet", "==1.5.0"),
        ("pytorch", ""), ("caffe", ""), ("torch7", ">=7.0"), ("torch7", ""),
        ("tensorflowjs", "^1.2.0"), ("chainer", "==5.0.0"),
    } <= found  # fmt: skip


def test_malformed_package_json_warns(tmp_path: Path) -> None:
    found, warnings = _declared(tmp_path, {"package.json": '{"dependencies": {'})
    assert found == set() and any("package.json" in w for w in warnings)


def test_vendored_manifests_do_not_count(tmp_path: Path) -> None:
    found, _ = _declared(tmp_path, {"third_party/lib/requirements.txt": "torch==1.0\n"})
    assert found == set()
