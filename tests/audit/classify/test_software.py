"""Software requirements: every dependency-file kind, the README rules, and hostile manifests."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.audit.classify.installs import install_commands
from miner.audit.classify.software import classify_software
from miner.audit.detect import AuditContext
from miner.audit.docs import Documents, parse_markdown
from miner.audit.files import RepoTree
from miner.models import Label


def _write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def _classify(root: Path, files: dict[str, str | bytes]) -> tuple[dict[str, Label], AuditContext]:
    tree = RepoTree(_write(root, files))
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    labels = {label.field: label for label in classify_software(ctx, {})}
    return labels, ctx


def _names(ctx: AuditContext) -> set[str]:
    return {d["name"].lower() for d in ctx.details["dependencies"]}


# Each dependency-file kind: (files, expected source kind, expected rule, packages it lists).
FILE_KINDS = {
    "requirements": (
        {"requirements.txt": "# pinned\nnumpy==1.16  # fast\n--index-url https://x\ntorch>=1.7\n"},
        "requirements_file", "software.requirements_file", {"numpy", "torch"},
    ),
    "requirements_include": (
        {"requirements.txt": "-r requirements/base.txt\n", "requirements/base.txt": "scipy\n"},
        "requirements_file", "software.requirements_file", {"scipy"},
    ),
    "requirements_subfolder_markers_wheel": (
        {"tools/requirements-dev.txt": "scipy==1.4.1; python_version >= '3'\n"
         "https://download.pytorch.org/whl/torch-1.0.0-cp36-linux_x86_64.whl\n"},
        "requirements_file", "software.requirements_file", {"scipy", "torch"},
    ),
    "conda_env": (
        {"environment.yml": "name: x\nchannels: [pytorch]\ndependencies:\n  - python=3.7\n"
         "  - pytorch::pytorch=1.6\n  - pip\n  - pip:\n    - tqdm==4.0\n"},
        "conda_env", "software.conda_env", {"pytorch", "tqdm"},
    ),
    "conda_env_pip_options": (
        {"environment.yml": "name: x\ndependencies:\n  - pip:\n"
         "    - jax[tpu]==0.4.14 -f https://storage.googleapis.com/jax-releases/libtpu.html\n"
         "    - flax==0.7.4 --hash=sha256:0123\n"},
        "conda_env", "software.conda_env", {"jax", "flax"},
    ),
    "setup_py_list": (
        {"setup.py": "from setuptools import setup\nsetup(name='x', install_requires=['keras>=2',"
         " 'h5py'], extras_require={'gpu': ['cupy']})\n"},
        "setup", "software.setup_py", {"keras", "h5py", "cupy"},
    ),
    "setup_py_variable": (
        {"setup.py": "import setuptools\nDEPS = ['numpy']\nDEPS += ['x']\nREQ = DEPS + ['scipy']\n"
         "setuptools.setup(name='x', install_requires=REQ)\n"},
        "setup", "software.setup_py", {"numpy", "scipy"},
    ),
    "setup_py_reads_requirements": (
        {"setup.py": "from setuptools import setup\n\ndef reqs():\n"
         "    return open('reqs/requirements.in').read().splitlines()\n\n"
         "setup(name='x', install_requires=reqs())\n",
         "reqs/requirements.in": "pandas\n"},
        {"setup", "requirements_file"}, "software.setup_py", {"pandas"},
    ),
    "setup_py_table": (
        {"setup.py": "from setuptools import setup\n_deps = ['accelerate==1.4.0', 'trl>=0.18',"
         " 'pytest']\ndeps = {re.sub('[=<>].*', '', x): x for x in _deps}\n"
         "install_requires = [deps['accelerate'], deps['trl']]\n"
         "setup(name='x', install_requires=install_requires)\n"},
        "setup", "software.setup_py", {"accelerate", "trl"},
    ),
    "setup_py_table_extras": (
        {"setup.py": "from setuptools import setup\n_deps = ['accelerate==1.4.0', 'torch==2.1.0']"
         "\ndeps = {re.sub('[=<>].*', '', x): x for x in _deps}\n\n\ndef deps_list(*pkgs):\n"
         "    return [deps[pkg] for pkg in pkgs]\n\n\nextras = {}\n"
         "extras['torch'] = deps_list('torch')\ninstall_requires = [deps['accelerate']]\n"
         "setup(name='x', extras_require=extras, install_requires=install_requires)\n"},
        "setup", "software.setup_py", {"accelerate", "torch"},
    ),
    "setup_py_kwargs": (
        {"setup.py": "from setuptools import setup\nconfig = dict(install_requires=['tqdm'])\n"
         "setup(name='x', **config)\n"},
        "setup", "software.setup_py", {"tqdm"},
    ),
    "setup_py_python2": (
        {"setup.py": "from setuptools import setup\nprint 'building'\n"
         "setup(name='x',\n      install_requires=['theano', 'lasagne'])\n"},
        "setup", "software.setup_py", {"theano", "lasagne"},
    ),
    "setup_cfg": (
        {"setup.cfg": "[metadata]\nname = x\n[options]\ninstall_requires =\n    numpy\n"
         "    torch>=1.4\n"},
        "setup", "software.setup_cfg", {"numpy", "torch"},
    ),
    "pyproject_pep621": (
        {"pyproject.toml": '[project]\nname = "x"\ndependencies = ["numpy>=1.20"]\n'
         '[project.optional-dependencies]\ndev = ["pytest"]\n'},
        "setup", "software.pyproject", {"numpy", "pytest"},
    ),
    "pyproject_dependency_groups": (
        {"pyproject.toml": '[project]\nname = "x"\n\n[dependency-groups]\n'
         'train = ["torch>=2.1", {include-group = "dev"}]\ndev = ["pytest"]\n'},
        "setup", "software.pyproject", {"torch", "pytest"},
    ),
    "pyproject_uv_and_hatch": (
        {"pyproject.toml": '[project]\nname = "x"\n\n[tool.uv]\ndev-dependencies = ["ruff"]\n\n'
         '[tool.hatch.envs.train]\ndependencies = ["lightning>=2"]\n'},
        "setup", "software.pyproject", {"ruff", "lightning"},
    ),
    "pyproject_poetry": (
        {"pyproject.toml": '[tool.poetry]\nname = "x"\n[tool.poetry.dependencies]\n'
         'python = "^3.8"\ntorch = "^1.9"\n'},
        "poetry", "software.poetry", {"torch"},
    ),
    "pyproject_poetry_per_platform": (
        {"pyproject.toml": '[tool.poetry]\nname = "x"\n[tool.poetry.dependencies]\n'
         'torch = [\n  {version = "2.1.0", markers = "sys_platform == \'darwin\'"},\n'
         '  {version = "2.1.0+cpu", markers = "sys_platform == \'linux\'"},\n]\n'},
        "poetry", "software.poetry", {"torch"},
    ),
    "pipfile": (
        {"Pipfile": '[packages]\ntensorflow = ">=2.0.0"\nscipy = "*"\n[dev-packages]\n'},
        "pipfile", "software.pipfile", {"tensorflow", "scipy"},
    ),
    "pipfile_lock": (
        {"Pipfile.lock": '{"default": {"numpy": {"version": "==1.19.0"}}, "develop": {}}'},
        "pipfile", "software.pipfile_lock", {"numpy"},
    ),
    "poetry_lock": (
        {"poetry.lock": '[[package]]\nname = "torch"\nversion = "1.9.0"\n'},
        "poetry", "software.poetry_lock", {"torch"},
    ),
    "dockerfile": (
        {"docker/Dockerfile.gpu": "FROM tensorflow/tensorflow:1.15.0-gpu\nRUN apt-get update && "
         "apt-get install -y --no-install-recommends \\\n    liblmdb-dev git\n"
         "RUN pip install -r requirements.txt && pip install opencv-python==4.1\n"},
        "dockerfile", "software.dockerfile", {"tensorflow", "liblmdb-dev", "git", "opencv-python"},
    ),
    "dockerfile_framework_by_publisher_and_clone": (
        {"docker/Dockerfile": "FROM mxnet/python:1.4.1_gpu_cu100_mkl_py3\n"
         "RUN git clone --single-branch --branch v1.2.0 --recursive "
         "https://github.com/pytorch/pytorch\n"},
        "dockerfile", "software.dockerfile", {"mxnet", "torch"},
    ),
    "docker_compose": (
        {"docker-compose.yml": "services:\n  app:\n    image: pytorch/pytorch:1.7.0-cuda11.0\n"},
        "dockerfile", "software.docker_compose", {"pytorch"},
    ),
    "install_script": (
        {"install.sh": "#!/bin/bash\n# pip install ignored-in-comment\nsudo apt-get install -y "
         "libopenblas-dev\npip3 install --upgrade theano\nluarocks install nn\n"},
        "other_manifest", "software.install_script", {"libopenblas-dev", "theano", "nn"},
    ),
    "binder_post_build": (
        {"postBuild": "#!/bin/bash\nconda install pytorch=0.2.0 cuda80=1.0-0 -c soumith\n"},
        "other_manifest", "software.install_script", {"pytorch", "cuda80"},
    ),
    "script_found_by_content": (
        {"tools/setup1.sh": "echo 'try: pip install nothing'\nsudo pip install theano-lstm\n"},
        "other_manifest", "software.install_script", {"theano-lstm"},
    ),
    "windows_script": (
        {"do_bin.cmd": "@echo off\n%DST%Scripts\\pip.exe install tensorflow%GPU%==1.8.0\n"},
        "other_manifest", "software.install_script", {"tensorflow"},
    ),
    "rockspec": (
        {"crnn-scm-1.rockspec": 'package = "crnn"\ndependencies = {\n  "lua >= 5.1",\n'
         '  "torch >= 7.0",\n  "nn"\n}\n'},
        "other_manifest", "software.rockspec", {"torch", "nn"},
    ),
    "package_json": (
        {"package.json": '{"dependencies": {}, "devDependencies": {"regl": "^1.0.0"}}'},
        "other_manifest", "software.package_json", {"regl"},
    ),
    "cmake": (
        {"src/CMakeLists.txt": "cmake_minimum_required(VERSION 3.0)\n# find_package(Ignored)\n"
         "find_package(OpenCV 3.0 REQUIRED)\nFIND_PACKAGE(Caffe)\n"},
        "other_manifest", "software.cmake_find_package", {"opencv", "caffe"},
    ),
    "requirements_folder": (
        {"requirements/pt2.txt": "torch>=2.0.1\neinops\n"},
        "requirements_file", "software.requirements_file", {"torch", "einops"},
    ),
    "conda_env_any_name": (
        {"environment/e4e_env.yaml": "name: e4e\nchannels:\n  - conda-forge\ndependencies:\n"
         "  - pytorch=1.3.1\n  - pip:\n    - lpips==0.1.3\n"},
        "conda_env", "software.conda_env", {"pytorch", "lpips"},
    ),
    "cog_yaml": (
        {"cog.yaml": "build:\n  gpu: true\n  python_version: '3.8'\n  python_packages:\n"
         "    - torch==1.8.0\n    - timm==0.4.12\npredict: predict.py:Predictor\n"},
        "other_manifest", "software.cog", {"torch", "timm"},
    ),
    "r_description": (
        {"DESCRIPTION": "Package: deepr\nVersion: 0.1\nDepends: R (>= 3.5)\n"
         "Imports: keras (>= 2.2),\n    tensorflow\n"},
        "other_manifest", "software.r_description", {"keras", "tensorflow"},
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", FILE_KINDS, ids=list(FILE_KINDS))
def test_each_dependency_file_kind_lists_its_packages(tmp_path: Path, case: str) -> None:
    files, kind, rule, packages = FILE_KINDS[case]
    labels, ctx = _classify(tmp_path, files)
    assert labels["dependency_file"].value is True
    assert labels["software_req"].value is True
    assert labels["software_req_sources"].value == frozenset(
        {kind} if isinstance(kind, str) else kind
    )
    assert rule in {e.rule for e in labels["dependency_file"].evidence}
    assert packages <= _names(ctx)
    assert all(d["source"].count(":") == 1 for d in ctx.details["dependencies"])


NOT_LISTING = {
    "empty_requirements": {"requirements.txt": ""},
    "comment_only_requirements": {"requirements.txt": "# numpy\n\n# torch\n"},
    "project_itself_only": {"requirements.txt": "-e .\n"},
    "interpreter_only": {"environment.yml": "dependencies:\n  - python=3.6\n"},
    "setup_without_requirements": {"setup.py": "from setuptools import setup\nsetup(name='x')\n"},
    "build_system_only": {"pyproject.toml": '[build-system]\nrequires = ["setuptools", "wheel"]\n'},
    "os_image_only": {"Dockerfile": "FROM ubuntu:18.04\nCMD bash\n"},
    "empty_package_json": {"pkg/package.json": '{"name": "x", "version": "1.0.0"}'},
    "not_an_r_description": {"DESCRIPTION": "A model that segments cells.\n"},
    "script_that_only_trains": {"train.sh": "python train.py --epochs 10\n"},
    "training_config_yaml": {"configs/train.yaml": "name: run1\nmodel:\n  dependencies: []\n"},
    "ci_workflow": {".github/workflows/ci.yml": "name: CI\njobs:\n  dependencies:\n  - run: x\n"},
    "cog_without_packages": {"cog.yaml": "build:\n  gpu: true\npredict: predict.py:Predictor\n"},
}


@pytest.mark.parametrize("case", NOT_LISTING, ids=list(NOT_LISTING))
def test_files_that_list_no_package_do_not_count(tmp_path: Path, case: str) -> None:
    labels, _ = _classify(tmp_path, NOT_LISTING[case])
    assert labels["dependency_file"].value is False
    assert labels["software_req"].value is False
    assert labels["software_req_sources"].value == frozenset()


def test_setup_py_is_never_executed(tmp_path: Path) -> None:
    marker = tmp_path / "executed.txt"
    setup = (
        "import pathlib\n"
        f"pathlib.Path({str(marker)!r}).write_text('ran')\n"
        "from setuptools import setup\n"
        "setup(name='x', install_requires=['numpy'])\n"
    )
    labels, ctx = _classify(tmp_path / "repo", {"setup.py": setup})
    assert labels["dependency_file"].value is True
    assert "numpy" in _names(ctx)
    assert not marker.exists()


MALFORMED = {
    "environment.yml": "dependencies:\n  - numpy\n  - [unclosed\n",
    "package.json": '{"dependencies": {"regl": ',
    "setup.cfg": "[options\ninstall_requires = numpy\n",
    "pyproject.toml": "[project\ndependencies = [\n",
    "Pipfile.lock": "{not json",
}


@pytest.mark.parametrize("name", MALFORMED)
def test_malformed_manifests_warn_and_the_audit_goes_on(tmp_path: Path, name: str) -> None:
    labels, ctx = _classify(tmp_path, {name: MALFORMED[name], "requirements.txt": "torch\n"})
    assert any(w.startswith(name) for w in ctx.warnings)
    assert labels["dependency_file"].value is True  # the good file still counts
    assert "torch" in _names(ctx)


def test_malformed_conda_env_still_yields_its_listed_packages(tmp_path: Path) -> None:
    labels, ctx = _classify(tmp_path, {"environment.yml": MALFORMED["environment.yml"]})
    assert labels["software_req_sources"].value == frozenset({"conda_env"})
    assert "numpy" in _names(ctx)


def test_hostile_inputs_never_raise(tmp_path: Path) -> None:
    labels, _ = _classify(
        tmp_path,
        {
            "requirements.txt": b"\x00\x01binary\x00" * 50,
            "a/requirements.txt": "-r ../b/requirements.txt\n",
            "b/requirements.txt": "-r ../a/requirements.txt\n",  # an include loop
            "setup.py": "setup(install_requires=" + "[" * 500 + "]" * 500 + ")\n",
            "Dockerfile": "RUN \\\n",
            "README.md": "## Requirements\n\n" + "- x\n" * 3 + "\x00\ud7ff",
        },
    )
    assert set(labels) == {"software_req", "dependency_file", "software_req_sources",
                           "versions_pinned"}  # fmt: skip


README_POSITIVE = {
    "requirements_list": "# Net\n\n## Requirements\n- numpy\n- PyTorch 1.4\n",
    "dependencies_paragraph": "## Dependencies\nKeras (Tensorflow backend), Numpy.\n",
    "unknown_package_in_requirement_list": "### Requirement\n1. Pdollar toolbox: https://x.org\n",
    "requires_sentence": "This project requires TensorFlow 1.4 and Python 3.5.\n",
    "install_sentence": "To use please install PyTorch and OpenCV (for video).\n",
    "installing_a_named_package": "First follow the instructions for installing Sonnet.\n",
    "tested_with_version": "The code is tested on PyTorch 0.4.0.\n",
    "pip_in_code_block": "## Usage\n```bash\npip install torch torchvision\n```\n",
    "conda_in_prose": "Get it with `conda install -c conda-forge yacs` first.\n",
    "bold_pseudo_heading": "**Setup**\n* TensorFlow, version r1.2\n",
    "html_heading_and_list": "<h1>Requirements:</h1>\n\n<ul><li>Keras 2</li><li>numpy</li></ul>\n",
    "requirement_code_block": "## Requirements\n```\nnetworkx          2.4\ntqdm  4.28.1\n```\n",
    "chinese_instruction": "本实验基于MobileNet，因此需要给caffe添加新的layer。\n",
    "linked_install_doc": "See [install](docs/INSTALL.md).\n",
    "unknown_package_with_version": "## Requirements\n- tushare 0.7.4\n",
    "unknown_item_beside_known_ones": "## Dependencies\n- numpy\n- texttable\n",
    "inline_label": "Environment: Python 3.6, PyTorch 1.0, CUDA 9.0\n",
    "package_named_before_requirement": "[PyTorch](https://pytorch.org) is the only requirement.\n",
    "package_named_before_required": "NumPy and SciPy are required.\n",
    "runnable_with_version": "The code should be directly runnable with PyTorch v1.0.0 or above.\n",
    "requirements_table": "## Requirements\n| Package | Version |\n|---|---|\n| torch | 1.4 |\n",
    "version_joined_by_a_hyphen": "It is tested with pytorch-1.0.\n",
    "ported_to_a_version": "I've further simplified the code to pytorch 1.5, torchvision 0.6.\n",
    "experiments_under_a_list": "We conducted experiments under\n\n- python 3.6.9\n"
    "- pytorch 1.2.0, torchvision 0.4.0, cuda10\n",
    "requisite_heading": "## Requisite\n\n* Python >= 3.6\n* PyTorch >= 1.1\n* lmdb\n",
    "we_use_for_the_experiments": "We use PyTorch 1.9.0 and mmcv 1.3.9 for the experiments.\n",
    "tested_over_a_version": "The code is tested with Tensorflow over ver1.0 on Windows 10.\n",
    "tested_over_versions": "The code has been tested over PyTorch 0.4.1 and 1.0.0 versions.\n",
    "framework_image_in_prose": "We used the 'nvcr.io/nvidia/pytorch:19.10-py3' image.\n",
    "version_on_a_line_of_its_own": "## Setting up the env\n\n**PyTorch 2.0**\n"
    "Please refer to the list.\n",
    "framework_image_pulled": "```\ndocker pull tensorflow/tensorflow:1.15.0-gpu\n```\n",
}
README_NEGATIVE = {
    "implemented_in": "This is a PyTorch implementation of FastNet.\n",
    "a_tensorflow_implementation_of": "A TensorFlow implementation of the paper, with Keras.\n",
    "uses_a_library": "For features we make use of the LibROSA library in python.\n",
    "requirements_without_packages": (
        "## Requirements\nRequirements are identical to the original repo.\n"
    ),
    "project_itself": "```\ngit clone https://github.com/me/fastnet\ncd fastnet\npip install -e .\n"
    "pip install fastnet\n```\n",
    "package_before_the_verb": "Create the lmdb files as caffe requires.\n",
    "negated_tested": "Not tested with TensorFlow 2.0, but it should work.\n",
    "negated_need": "You do not need to install TensorFlow for inference.\n",
    "platform_only_list": "## Requirements\n- Python 3.6\n- Linux\n- NVIDIA GPU\n- None\n",
    "pip_install_in_prose_without_package": "Then run pip install to get things going.\n",
    "tested_without_version": "It was developed with TensorFlow in mind.\n",
    "test_requirements": "## Test requirement\nTests should be\n\n- thorough, covering cases.\n",
    "data_requirements": "## Dataset requirements\n- Image\n- Label\n",
    "table_header_only": "## Requirements\n| Package | Version |\n|---|---|\n",
    "package_not_required": "PyTorch is not required for the demo.\n",
    "runnable_without_version": "The notebook is runnable with PyTorch on a laptop.\n",
    "files_of_the_project": "## Packages\n- `models/`: the networks\n- train.py: training\n",
    "ported_without_version": "The model was ported to PyTorch from the Lua original.\n",
    "we_use_to_build": "We use PyTorch 1.9 to build the model, as in the paper.\n",
    "cuda_image": "We ran it in the nvidia/cuda:11.8.0-devel-ubuntu22.04 image.\n",
    "version_in_a_sentence_of_a_setup_section": "## Installation\n\nPyTorch 2.0 made "
    "this easy to write.\n",
    "label_without_version": "## Setting up the env\n\n**PyTorch**\nPlease refer to the list.\n",
    "untagged_image": "We ran it in the pytorch/pytorch:latest image.\n",
}


@pytest.mark.parametrize("case", README_POSITIVE, ids=list(README_POSITIVE))
def test_readme_statements_of_required_software(tmp_path: Path, case: str) -> None:
    files = {"README.md": README_POSITIVE[case], "docs/INSTALL.md": "pip install scikit-learn\n"}
    if case != "linked_install_doc":
        files.pop("docs/INSTALL.md")
    labels, _ = _classify(tmp_path / "fastnet", files)
    assert labels["software_req"].value is True
    assert labels["dependency_file"].value is False
    assert labels["software_req_sources"].value == frozenset({"readme"})
    assert labels["software_req"].evidence[0].rule.startswith("software.readme_")


@pytest.mark.parametrize("case", README_NEGATIVE, ids=list(README_NEGATIVE))
def test_readme_statements_that_are_not_requirements(tmp_path: Path, case: str) -> None:
    labels, _ = _classify(tmp_path / "fastnet", {"README.md": README_NEGATIVE[case]})
    assert labels["software_req"].value is False, labels["software_req"].evidence


COMMANDS = {
    "pip install lmdb first.": [("pip", "lmdb", "")],
    "brew install ffmpeg sox (Mac OS X) or apt-get install sox": [
        ("apt", "ffmpeg", ""), ("apt", "sox", ""), ("apt", "sox", ""),
    ],
    "conda create -n tf tensorflow-gpu==1.14.0 && conda install -c conda-forge yacs": [
        ("conda", "tensorflow-gpu", "==1.14.0"), ("conda", "yacs", ""),
    ],
    "pip.exe install tensorflow%GPU%==1.8.0 -r requirements.txt": [
        ("pip", "tensorflow", "==1.8.0"),
    ],
    "pip install -e . && python setup.py install": [],
    "npm install": [],
    "Then run pip install to get things going": [],
}  # fmt: skip


@pytest.mark.parametrize("line", COMMANDS)
def test_install_commands_name_packages_not_prose(line: str) -> None:
    assert [(c.manager, c.name, c.spec) for c in install_commands(line)] == COMMANDS[line]


def test_bold_and_html_titles_open_sections() -> None:
    blocks = parse_markdown("README.md", "**Setup**\n* a\n\n<h2>Hardware:</h2>\n\nText.\n")
    assert [(b.kind, b.text, b.section) for b in blocks] == [
        ("heading", "Setup", "setup"),
        ("list_item", "a", "setup"),
        ("heading", "Hardware:", "hardware"),
        ("paragraph", "Text.", "hardware"),
    ]


def test_unlinked_subfolder_readme_is_not_read_but_a_linked_one_is(tmp_path: Path) -> None:
    sub = {"tools/README.md": "## Requirements\n- numpy\n"}
    labels, _ = _classify(tmp_path / "a", {"README.md": "# A\nRun it.\n", **sub})
    assert labels["software_req"].value is False
    linked = {"README.md": "# A\nSee [tools](tools/README.md).\n", **sub}
    labels, _ = _classify(tmp_path / "b", linked)
    assert labels["software_req"].value is True


PINNED = {
    "framework_version_in_prose": ({"README.md": "Requires TensorFlow 1.4.\n"}, True),
    "cuda_version": ({"README.md": "## Requirements\n- CUDA 10.1\n"}, True),
    "python_version_alone": ({"README.md": "## Requirements\n- Python 3.6\n- numpy\n"}, False),
    "unpinned_file": ({"requirements.txt": "numpy\ntorch\n"}, False),
    "pinned_file": ({"requirements.txt": "torch>=1.7\n"}, True),
    "framework_image_tag": ({"Dockerfile": "FROM pytorch/pytorch:1.7.0-cuda11.0\n"}, True),
    "switches_set_in_the_shell": (
        {"README.md": "## Train\n\nSetting the environment variables gpu=0 cudnn=0 forces CPU.\n"},
        False,
    ),
    "a_version_after_one_equals_sign": ({"README.md": "## Requirements\n- cudnn=7.6\n"}, True),
    "a_version_after_what_it_is_for": (
        {"README.md": "## Requirements\n- Opencv (for tools/lane_evaluation), version 2.4.8\n"},
        True,
    ),
    "a_version_the_package_must_be": (
        {"README.md": "## Install\n\nPython must be 3.10 or greater, and torch must be v2.0.\n"},
        True,
    ),
    "a_setting_that_must_be_a_number": (
        {"README.md": "## Train\n\nThe batch size must be 4 for this model.\n"},
        False,
    ),
}


@pytest.mark.parametrize("case", PINNED, ids=list(PINNED))
def test_versions_pinned(tmp_path: Path, case: str) -> None:
    files, expected = PINNED[case]
    labels, _ = _classify(tmp_path, files)
    assert labels["versions_pinned"].value is expected
    assert bool(labels["versions_pinned"].evidence) is expected


def test_every_field_is_emitted_on_an_empty_folder(tmp_path: Path) -> None:
    labels, ctx = _classify(tmp_path, {})
    assert {k: v.value for k, v in labels.items()} == {
        "software_req": False,
        "dependency_file": False,
        "software_req_sources": frozenset(),
        "versions_pinned": False,
    }
    assert ctx.details["dependencies"] == []


def test_dependency_details_name_spec_and_source(tmp_path: Path) -> None:
    _, ctx = _classify(tmp_path, {"requirements.txt": "\nnumpy==1.16\n"})
    assert ctx.details["dependencies"] == [
        {"name": "numpy", "spec": "==1.16", "source": "requirements.txt:2"}
    ]


def _awesome_list(entries: int) -> str:
    papers = "".join(
        f"- [Paper {i}](https://arxiv.org/abs/2101.{i:05d}) - A deep model.\n"
        for i in range(entries)
    )
    return (
        "# Awesome Deep Learning\n\nA curated list of papers, libraries and courses.\n\n"
        f"## Papers\n\n{papers}\n## Libraries\n\n"
        "- [PyTorch](https://pytorch.org) - Tensors and dynamic neural networks.\n"
        "- [Keras](https://keras.io) - Deep learning for humans.\n\n"
        "## Courses\n\n- [CS231n](https://cs231n.stanford.edu) - Requires numpy.\n"
    )


def test_awesome_and_reading_lists_state_no_requirements(tmp_path: Path) -> None:
    labels, _ = _classify(tmp_path / "list", {"README.md": _awesome_list(30)})
    assert labels["software_req"].value is False, labels["software_req"].evidence
    # a project README linking a few papers still states its requirements
    labels, _ = _classify(tmp_path / "project", {"README.md": _awesome_list(5)})
    assert labels["software_req"].value is True
    # and a list that ships a dependency file still has one
    files = {"README.md": _awesome_list(30), "requirements.txt": "mkdocs\n"}
    labels, _ = _classify(tmp_path / "site", files)
    assert labels["software_req"].value is True


def test_a_readme_of_many_links_still_states_its_python(tmp_path: Path) -> None:
    readme = _awesome_list(30) + "\n## Quickstart\n\nYou will need Python 3.9 or later.\n"
    labels, ctx = _classify(tmp_path, {"README.md": readme})
    assert labels["software_req"].value is False  # the entries' packages stay out
    (python,) = ctx.details["python_versions"]
    assert python["spec"] == ">=3.9" and python["source"].startswith("README.md:")


def _notebook(*cells: str) -> str:
    import json

    code = [{"cell_type": "code", "source": c, "metadata": {}, "outputs": []} for c in cells]
    return json.dumps({"cells": code, "metadata": {}, "nbformat": 4, "nbformat_minor": 5})


def test_installs_in_a_notebook_that_runs_the_model_state_requirements(tmp_path: Path) -> None:
    colab = _notebook(
        "!pip install -q diffusers==0.21.0 transformers\n%pip install -e .\n",
        "import torch\nfrom diffusers import StableDiffusionPipeline\n",
    )
    labels, ctx = _classify(tmp_path / "demo", {"demo.ipynb": colab})
    assert labels["software_req"].value is True
    assert labels["dependency_file"].value is False
    assert labels["versions_pinned"].value is True
    evidence = labels["software_req"].evidence[0]
    assert evidence.rule == "software.notebook_install" and evidence.line > 0
    assert {"diffusers", "transformers"} <= _names(ctx)


def test_installs_in_a_notebook_that_runs_no_network_state_none(tmp_path: Path) -> None:
    recorder = _notebook("!pip install pyaudio\n", "import pyaudio\nimport wave\n")
    labels, _ = _classify(tmp_path / "demo", {"AudioRecorder.ipynb": recorder})
    assert labels["software_req"].value is False
    own = _notebook("!pip install demo\n", "import torch\n")
    labels, _ = _classify(tmp_path / "demo2" / "demo", {"run.ipynb": own})
    assert labels["software_req"].value is False


@pytest.mark.parametrize(
    ("sentence", "name", "spec"),
    [
        ("Tested with pytorch1.13 on Ubuntu.", "pytorch", "1.13"),
        ("We used PyTorch (1.4) for all experiments.", "pytorch", "1.4"),
        ("Verified on TensorFlow 1.15.", "tensorflow", "1.15"),
        ("Requires TensorFlow 1.4+.", "tensorflow", ">=1.4"),
        ("Requires TensorFlow 1.4 or later.", "tensorflow", ">=1.4"),
        ("I use Python 2.7 and Pytorch 0.3.", "pytorch", "0.3"),
    ],
)
def test_version_statements_in_prose(tmp_path: Path, sentence: str, name: str, spec: str) -> None:
    _, ctx = _classify(tmp_path, {"README.md": f"# Net\n\n{sentence}\n"})
    assert {"name": name, "spec": spec, "source": "README.md:3"} in ctx.details["dependencies"]


def test_a_list_after_a_test_environment_lead_in(tmp_path: Path) -> None:
    readme = (
        "# Net\n\n## Some issues to know\n\n1. The test environment is\n    - Python 3.5.2\n"
        "    - Keras 2.1.5\n    - tensorflow 1.6.0\n"
    )
    labels, ctx = _classify(tmp_path, {"README.md": readme})
    assert labels["software_req"].value is True
    assert {("keras", "2.1.5"), ("tensorflow", "1.6.0")} <= {
        (d["name"], d["spec"]) for d in ctx.details["dependencies"]
    }


def test_versions_labelled_in_a_list_of_the_environment_results_came_from(tmp_path: Path) -> None:
    readme = (
        "# Reward\n\n**Note:** The experimental results are produced in an environment that "
        "satisfies:\n- (NVIDIA) Driver Version: 515.86.01\n- CUDA Version: 11.7\n"
        "- `torch` Version: 1.12.1+cu113\n"
    )
    _, ctx = _classify(tmp_path, {"README.md": readme})
    assert ("torch", "1.12.1") in {(d["name"], d["spec"]) for d in ctx.details["dependencies"]}
    # "PyTorch tested on 1.4.0, 1.5.0": the versions after the name and the verb
    _, ctx = _classify(
        tmp_path / "t",
        {
            "README.md": "# Net\n\n## Requirements\n\n- "
            "[PyTorch](https://pytorch.org/) tested on 1.4.0, 1.5.0\n"
        },
    )
    assert ("pytorch", "1.4.0") in {(d["name"], d["spec"]) for d in ctx.details["dependencies"]}
    # a local version's "+cu113" is a build, not "or later"; "1.4+" still is
    _, ctx = _classify(tmp_path / "p", {"README.md": "# Net\n\nRequires PyTorch 1.4+.\n"})
    assert ("pytorch", ">=1.4") in {(d["name"], d["spec"]) for d in ctx.details["dependencies"]}


def test_a_list_after_a_sentence_that_asks_for_it_names_requirements(tmp_path: Path) -> None:
    readme = (
        "# Stacked hourglass\n\nTo run this code, make sure the following are installed:\n\n"
        "- [Torch7](https://github.com/torch/torch7)\n- hdf5\n- cudnn\n\n## Getting started\n"
    )
    labels, ctx = _classify(tmp_path, {"README.md": readme})
    assert labels["software_req"].value is True
    assert {"torch7", "hdf5", "cudnn"} <= {d["name"].lower() for d in ctx.details["dependencies"]}
    # a list after a sentence that asks for nothing is no requirement
    plain = readme.replace("make sure the following are installed", "see the following results")
    labels, _ = _classify(tmp_path / "p", {"README.md": plain})
    assert labels["software_req"].value is False


@pytest.mark.parametrize(
    ("text", "spec"),
    [
        ("- Python 3.8", "3.8"),
        ("Tested with python3.7 and CUDA 11.", "3.7"),
        ("Python (>=3.9) is needed.", ">=3.9"),
        ("* Python (version == 2.7)", "==2.7"),
        ("Install python (either 2 or 3) requirements: `pip install -r requirements.txt`", "2"),
        ("Python 3.6+ and PyTorch.", ">=3.6"),
        ("- Python 3", "3"),
        ("-Python 3, although 2 might work.", "3"),
        ("Install it with --python3.8 set.", None),
        ("Run `python3 train.py --epochs 3`.", None),
        ("Then python3 main.py trains it.", None),
        # a comment in a code block is prose; the commands beside it state nothing
        ("```bash\n# Works only wih Python 3.\npython3 main.py --env-name Pong\n```", "3"),
        ("```bash\npython3 main.py --env-name Pong\n```", None),
        ("```bash\n#!/usr/bin/env python3\n# run: python3 main.py\n```", None),
        # the Python an environment is made with, as the tool's option or argument
        ("```bash\nuv venv smol_venv --python 3.11\n```", "3.11"),
        ("```bash\nvirtualenv -p python3.8 env\n```", "3.8"),
        ("```bash\npyenv install 3.10.4\n```", "3.10"),
        # a step into an environment's package folder assumes its Python; a quoted run does not
        ("```Shell\ncp wads/*.wad ../venv/lib/python2.7/site-packages/doom_py/\n```", "2.7"),
        (
            "```bash\nexport LD_LIBRARY_PATH=/opt/conda/lib/python3.8/site-packages/nvidia\n```",
            "3.8",
        ),
        ('```\n  File "/env/lib/python3.8/site-packages/mmengine/config.py", line 18\n```', None),
        (
            "```\n/env/lib/python3.10/site-packages/x/flash.py:211: FutureWarning: renamed\n```",
            None,
        ),
        ("    Requirement already satisfied: numpy in /usr/lib/python3.6/dist-packages", None),
    ],
)
def test_python_versions_stated(tmp_path: Path, text: str, spec: str | None) -> None:
    _, ctx = _classify(tmp_path, {"README.md": f"# Net\n\n{text}\n"})
    found = [d["spec"] for d in ctx.details["python_versions"]]
    assert found[:1] == ([spec] if spec else [])


def test_python_version_of_an_environment_file_under_any_name(tmp_path: Path) -> None:
    env = "name: t\nchannels:\n  - defaults\ndependencies:\n  - python=3.8\n  - numpy=1.2\n"
    _, ctx = _classify(tmp_path, {"README.md": "# Net\n", "conda/net.yaml": env})
    assert ctx.details["python_versions"][0]["spec"] == "=3.8"
    assert ctx.details["dependency_files"] == {"conda/net.yaml": "conda_env"}


def test_python_version_of_a_dockerfile_line_that_ends_in_a_message(tmp_path: Path) -> None:
    docker = ('FROM nvidia/cuda:11.7.1-devel-ubuntu22.04\n'
              'RUN conda create -n net python=3.8 && echo "source activate net" > ~/.bashrc\n'
              'RUN echo "pip install torch==1.0 if you like"\n')  # fmt: skip
    _, ctx = _classify(tmp_path, {"README.md": "# Net\n", "docker/Dockerfile": docker})
    assert [d["spec"] for d in ctx.details["python_versions"]] == ["=3.8"]
    assert "torch" not in _names(ctx)


def test_a_requirement_list_the_readme_names_by_path_states_the_software(tmp_path: Path) -> None:
    readme = ("# Rec\n\n## Environment\n\nEnvironment requirements can be found in "
              "`.src/t5/environment_t5.txt` and `src/t5/classes.txt`\n")  # fmt: skip
    files = {"README.md": readme, "train.py": "import torch\n",
             "src/t5/environment_t5.txt": "python==3.9.7\ntorch==1.8.1+cu111\ntqdm\n",
             "src/t5/classes.txt": "cat\ndog\nbird\n"}  # fmt: skip
    labels, ctx = _classify(tmp_path, files)
    assert labels["software_req"].value is True and labels["dependency_file"].value is False
    assert labels["versions_pinned"].value is True
    assert [d["spec"] for d in ctx.details["python_versions"]] == ["==3.9.7"]
    assert {"torch", "tqdm"} <= _names(ctx) and "cat" not in _names(ctx)
    assert labels["software_req"].evidence[0].rule == "software.named_list"


NBDEV_SETUP = """from configparser import ConfigParser
import setuptools

config = ConfigParser(delimiters=['='])
config.read('settings.ini')
cfg = config['DEFAULT']
requirements = cfg.get('requirements', '').split()
setuptools.setup(name=cfg['lib_name'], install_requires=requirements)
"""


def test_an_nbdev_settings_file_the_setup_script_reads(tmp_path: Path) -> None:
    settings = (
        "[DEFAULT]\nlib_name = tts\nmin_python = 3.8\n"
        "requirements = vocos speechbrain<1.0 \\\n               torch>=2 torchaudio\n"
    )
    files = {"README.md": "# TTS\n", "setup.py": NBDEV_SETUP, "settings.ini": settings}
    labels, ctx = _classify(tmp_path / "p", files)
    assert labels["software_req"].value is True
    assert {"vocos", "speechbrain", "torch", "torchaudio"} <= _names(ctx)
    torch = next(d for d in ctx.details["dependencies"] if d["name"] == "torch")
    assert torch["spec"] == ">=2" and torch["source"] == "settings.ini:5"
    labels, _ = _classify(tmp_path / "q", {**files, "setup.py": "import setuptools\n"})
    assert labels["software_req"].value is False  # a settings file nothing reads lists nothing


@pytest.mark.parametrize(
    ("line", "found"),
    [
        ("FROM mxnet/python:1.4.1_gpu_cu100_mkl_py3", ("mxnet", "1.4.1")),
        ("FROM pytorch/pytorch:1.3-cuda10.1-cudnn7-runtime", ("pytorch", "1.3")),
        ("FROM python:3.8-slim", None),
        ("FROM ubuntu:18.04", None),
    ],
)
def test_a_framework_image_by_its_name_or_its_publisher(line: str, found: object) -> None:
    from miner.audit.classify.manifests import image_dependency

    assert image_dependency(line.split()[1]) == found


def test_a_framework_built_from_its_repository_at_a_release_tag() -> None:
    from miner.audit.classify.manifests import cloned_framework

    clone = "RUN git clone --single-branch --branch v1.2.0 --recursive https://github.com/pytorch/pytorch"
    assert cloned_framework(clone) == ("torch", "1.2.0")
    assert cloned_framework("git clone https://github.com/pytorch/pytorch") is None  # no tag
    assert cloned_framework("git clone -b 22.04-dev https://github.com/NVIDIA/apex") is None


def test_a_setup_list_filtered_under_a_condition_keeps_its_packages(tmp_path: Path) -> None:
    setup = (
        "from setuptools import setup\nimport re\ntry:\n    import torch\n"
        "    dev = 'dev' in torch.__version__\nexcept ImportError:\n    dev = False\n"
        "install_requires = [\n    'torch',\n]\nif dev:\n"
        "    install_requires = [r for r in install_requires if 'torch' != r]\n"
        "setup(name='radam', install_requires=install_requires)\n"
    )
    _, ctx = _classify(tmp_path, {"README.md": "# RAdam\n", "setup.py": setup})
    assert [d["name"] for d in ctx.details["dependencies"]] == ["torch"]


def test_a_framework_image_pins_the_framework(tmp_path: Path) -> None:
    readme = "We used the 'nvcr.io/nvidia/pytorch:19.10-py3' image for our experiments.\n"
    labels, ctx = _classify(tmp_path / "rawnet", {"README.md": readme})
    assert labels["versions_pinned"].value is True
    (evidence,) = labels["software_req"].evidence
    assert (evidence.line, evidence.text, evidence.rule) == (
        1,
        "nvcr.io/nvidia/pytorch:19.10-py3",
        "software.readme_image",
    )
    assert [(d["name"], d["spec"]) for d in ctx.details["dependencies"]] == [("pytorch", "==19.10")]
