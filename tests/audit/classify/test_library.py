"""exclude = library: installed under the project's own name and imported, or presented as one."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.audit.classify.library import library_evidence
from miner.audit.detect import AuditContext
from miner.audit.docs import Documents
from miner.audit.files import RepoTree
from miner.codebook import Evidence


def _library(
    tmp_path: Path, files: dict[str, str], trains: bool = False, name: str = "owner__tool"
) -> list[Evidence]:
    root = tmp_path / name
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    tree = RepoTree(root)
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    blocks = [b for b in ctx.docs.blocks if b.path == tree.readme and b.kind != "code"]
    return library_evidence(ctx, blocks, trains)


PACKAGE = {"seg_anything/__init__.py": "", "seg_anything/model.py": "import torch\n"}


@pytest.mark.parametrize(
    "install",
    [
        "pip install git+https://github.com/owner/seg-anything.git",
        "pip install -U seg-anything",
        'pip install "seg_anything[extra]" --no-build-isolation',
        "pip install --upgrade --no-deps git+https://github.com/owner/seg-anything.git@v1.0",
    ],
)
def test_installed_under_its_own_name_and_imported(tmp_path: Path, install: str) -> None:
    readme = f"# SAM\n\nSegment things.\n\n```\n{install}\n```\n\n```python\n"
    readme += "from seg_anything import Predictor\n```\n"
    found = _library(tmp_path, {"README.md": readme, **PACKAGE}, name="owner__sam")
    assert [e.rule for e in found] == ["exclude.library_install", "exclude.library_import"]


def test_a_pip_package_kept_in_a_sub_folder_of_its_own_is_the_projects(tmp_path: Path) -> None:
    files = {
        "rwkv_pip_package/pyproject.toml": '[project]\nname = "rwkv"\n',
        "rwkv_pip_package/src/rwkv/__init__.py": "", "rwkv_pip_package/src/rwkv/model.py": "",
        "README.md": "# ChatRWKV\n\nChat with it.\n\n```python\n"
                     "from rwkv.model import RWKV  # pip install rwkv\n```\n",
    }  # fmt: skip
    found = _library(tmp_path, files, name="owner__ChatRWKV")
    assert [e.rule for e in found] == ["exclude.library_install", "exclude.library_import"]
    # without that package, the same README imports another project's library
    other = {k: v for k, v in files.items() if not k.startswith("rwkv_pip_package/")}
    assert _library(tmp_path / "b", other, name="owner__ChatRWKV") == []


def test_an_editable_install_of_the_checkout_is_not_publishing(tmp_path: Path) -> None:
    readme = "# Eval\n\n```\npip install -e seg-anything\n```\n\n```python\n"
    readme += "from seg_anything import run\n```\n"
    assert _library(tmp_path, {"README.md": readme, **PACKAGE}) == []


def test_a_readme_that_sends_its_reader_to_import_the_package_in_their_own_code(
    tmp_path: Path,
) -> None:
    setup = {"setup.py": "from setuptools import setup\nsetup(name='seg_anything')\n"}
    inline = (
        "# minSeg\n\n## Installation\n\nIf you want to `import seg_anything` into your project:\n"
    )
    found = _library(tmp_path / "a", {"README.md": inline, **PACKAGE, **setup})
    assert [e.rule for e in found] == ["exclude.library_own_use", "exclude.library_import"]
    custom = (
        "# Bench\n\n## The loader alone\n\nFor writing custom CIFAR-10 experiments, use the "
        "loader independently.\n\n```\nimport seg_anything\nloader = seg_anything.Loader()\n```\n"
    )
    assert _library(tmp_path / "b", {"README.md": custom, **PACKAGE, **setup})
    # no packaging to install it with, another package imported, or a paper's trained model
    assert _library(tmp_path / "c", {"README.md": inline, **PACKAGE}) == []
    other = inline.replace("import seg_anything", "import torch")
    assert _library(tmp_path / "d", {"README.md": other, **PACKAGE, **setup}) == []
    paper = "# SimNet\n\nThe official implementation of our paper.\n\n" + inline[9:]
    assert _library(tmp_path / "e", {"README.md": paper, **PACKAGE, **setup}, trains=True) == []


def test_a_paper_s_trained_model_that_can_be_installed_is_kept(tmp_path: Path) -> None:
    readme = (
        "# SimNet\n\nThis repository contains the code and pre-trained models for our paper "
        "SimNet.\n\n```\npip install seg-anything\n```\n\n```python\n"
        "from seg_anything import Predictor\n```\n"
    )
    files = {"README.md": readme, **PACKAGE}
    assert _library(tmp_path / "a", files, trains=True) == []
    assert _library(tmp_path / "b", files, trains=False) != []  # a model release: reused


def test_the_package_metadata_calls_it_a_library(tmp_path: Path) -> None:
    readme = "# Cast\n\n```\npip install git+https://github.com/owner/seg_anything.git\n```\n"
    setup = 'setup(name="seg_anything", description="This is Lab\'s library to run models")\n'
    found = _library(tmp_path, {"README.md": readme, "setup.py": setup, **PACKAGE})
    assert found[-1].rule == "exclude.library_description" and found[-1].path == "setup.py"


def test_a_project_that_calls_itself_this_library(tmp_path: Path) -> None:
    readme = (
        "# NeoX\n\nThis repository records [Lab](https://example.org)'s library for training "
        "large language models.\n"
    )
    assert _library(tmp_path / "a", {"README.md": readme})[0].rule == "exclude.library_self"
    paper = "# Net\n\nOur framework is simple. This repository contains the code of Net.\n"
    assert _library(tmp_path / "b", {"README.md": paper}) == []


def test_a_toolkit_that_hands_over_a_studys_code_and_data_is_a_project(tmp_path: Path) -> None:
    study = (
        "# Voice Activity Detection Toolkit\nThis toolkit provides the voice activity detection "
        "(VAD) code and our recorded dataset.\n"
    )
    assert _library(tmp_path / "a", {"README.md": study}) == []
    tool = "# VAD\nThis toolkit provides fast voice activity detection for your own apps.\n"
    assert _library(tmp_path / "b", {"README.md": tool})[0].rule == "exclude.library_self"


def test_a_conda_channel_install_and_a_package_page_badge(tmp_path: Path) -> None:
    conda = "# Tool\n\nA toolkit for segmentation.\n\n```\n"
    conda += "conda install -c conda-forge seg-anything\n```\n"
    found = _library(tmp_path / "a", {"README.md": conda, **PACKAGE})
    assert found[0].text == "conda install -c conda-forge seg-anything"
    badge = (
        "# Tool\n\n[![PyPI](https://img.shields.io/pypi/v/seg-anything.svg)]"
        "(https://pypi.org/project/seg-anything/)\n\nA library for segmentation.\n"
    )
    found = _library(tmp_path / "b", {"README.md": badge, **PACKAGE})
    assert [e.rule for e in found] == ["exclude.library_pypi", "exclude.library_description"]
    other = badge.replace("seg-anything", "torch")
    assert _library(tmp_path / "c", {"README.md": other, **PACKAGE}) == []


@pytest.mark.parametrize(
    "sentence",
    [
        "[23/12/12] We supported fine-tuning the latest model in our framework.",
        "If you use this library or find the documentation useful, please cite:",
        "The library supports a modular implementation of each component.",
    ],
)
def test_a_published_package_its_authors_call_their_library(tmp_path: Path, sentence: str) -> None:
    readme = (
        "# Tool\n\n![PyPI](https://img.shields.io/pypi/v/seg-anything)\n\n## Install\n\n"
        f"```\npip install seg-anything\n```\n\n## Usage\n\nRun it.\n\n## Train\n\nTrain it.\n\n"
        f"## More\n\n{sentence}\n"
    )
    found = _library(tmp_path, {"README.md": readme, **PACKAGE}, trains=True)
    assert found[-1].rule == "exclude.library_self"


@pytest.mark.parametrize(
    "sentence",
    [
        "We trained on one GPU with the PyTorch framework and the Hugging Face library.",
        "Our framework-agnostic loss is simple.",
        "Built on [Base](https://example.org), a library for segmentation.",
    ],
)
def test_other_libraries_and_unpublished_projects_are_not_self_presentation(
    tmp_path: Path, sentence: str
) -> None:
    readme = (
        "# Tool\n\n```\npip install seg-anything\n```\n\n## Usage\n\nRun it.\n\n## Train\n\n"
        f"Train it.\n\n## More\n\n{sentence}\n"
    )
    assert _library(tmp_path / "a", {"README.md": readme, **PACKAGE}, trains=True) == []
    local = "# Tool\n\n```\npip install -e .\n```\n\nIf you use this library, please cite.\n"
    assert _library(tmp_path / "b", {"README.md": local, **PACKAGE}, trains=True) == []


TEMPLATE_SETUP = '''from setuptools import Command, setup

DESCRIPTION = "Text-to-audio generation"


class UploadCommand(Command):
    """Support setup.py upload."""

    description = "Build and publish the package."

    def run(self):
        pass


setup(
    name="seg_anything",
    description = DESCRIPTION,
)
'''


def test_a_setup_command_s_description_is_not_the_package_s(tmp_path: Path) -> None:
    readme = "# Gen\n\n```\npip install git+https://github.com/owner/seg_anything.git\n```\n"
    files = {"README.md": readme, "setup.py": TEMPLATE_SETUP, **PACKAGE}
    assert _library(tmp_path / "a", files) == []
    own = TEMPLATE_SETUP.replace('"Text-to-audio generation"', '"A library for generation"')
    own = own.replace("description = DESCRIPTION", 'description = "A library for generation"')
    found = _library(tmp_path / "b", {**files, "setup.py": own})
    assert found[-1].rule == "exclude.library_description" and found[-1].line == 17


def test_an_open_platform_for_training_is_not_a_library(tmp_path: Path) -> None:
    readme = (
        "# Chat\n\nChat is an open platform for training, serving, and evaluating chatbots.\n\n"
        "```\npip3 install seg_anything\n```\n"
    )
    assert _library(tmp_path / "a", {"README.md": readme, **PACKAGE}, trains=True) == []
    toolkit = readme.replace("an open platform", "an open toolkit")
    assert _library(tmp_path / "b", {"README.md": toolkit, **PACKAGE}, trains=True) != []
    engine = readme.replace(
        "an open platform for training, serving, and evaluating chatbots",
        "a generalized decision intelligence engine for PyTorch and JAX",
    )
    assert _library(tmp_path / "c", {"README.md": engine, **PACKAGE}, trains=True) != []


def test_a_library_introduced_past_a_banner_and_named_by_a_setup_variable(tmp_path: Path) -> None:
    readme = (
        '<p align="center"><img src="logo.png"/></p>\n\n## Supercharge your training\n\n'
        "### [Website] - [Docs]\n\n# Welcome\n\n"
        "Composer is an open-source deep learning training library by MosaicML.\n\n"
        "```bash\npip install mosaicml\n```\n"
    )
    setup = (
        "import os\nfrom setuptools import setup\n"
        "package_name = os.environ.get('COMPOSER_PACKAGE_NAME', 'mosaicml')\n"
        "setup(name=package_name, version='1.0')\n"
    )
    files = {"README.md": readme, "setup.py": setup, "composer/__init__.py": ""}
    found = _library(tmp_path, files, name="mosaicml__composer")
    assert [e.rule for e in found][:1] == ["exclude.library_install"], found
    assert found[0].text == "pip install mosaicml"


def test_a_library_introduced_inside_an_html_block(tmp_path: Path) -> None:
    readme = (
        '<h1 align="center">Adapters</h1>\n<p>Adapters is an easy-to-use framework that'
        " integrates adapters into language models.</p>\n\n# Setup\n\nRun it.\n"
    )
    files = {"README.md": readme, "setup.py": "from setuptools import setup\nsetup()\n"}
    found = _library(tmp_path, files)
    assert [e.rule for e in found] == ["exclude.library_self"], found
