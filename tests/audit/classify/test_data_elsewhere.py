"""data_available: data prepared by another repository's instructions, tables read from the web."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.audit.classify.data_sources import data_evidence
from miner.audit.detect import AuditContext
from miner.audit.detect.sources import code_index
from miner.audit.docs import Documents
from miner.audit.files import RepoTree

TORCH = "import torch\nimport torch.nn as nn\n"


def _rules(tmp_path: Path, files: dict[str, str]) -> list[str]:
    root = tmp_path / "owner__net"
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(content, encoding="utf-8")
    tree = RepoTree(root)
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    return [e.rule for e in data_evidence(ctx, code_index(ctx))]


@pytest.mark.parametrize(
    "sentence",
    [
        "* This repo is a modification on the [Base repo](https://github.com/lab/base). "
        "Installation and preparation follow that repo.",
        "Please follow [Base](https://github.com/lab/base) to prepare the datasets.",
        "Prepare ImageNet as in [the Base repository](https://github.com/lab/base#data).",
        "Data preparation is the same as in [Base](https://gitlab.com/lab/base).",
    ],
)
def test_another_repository_s_instructions_prepare_the_data(tmp_path: Path, sentence: str) -> None:
    readme = f"# Net\n\nOur model.\n\n{sentence}\n"
    assert _rules(tmp_path, {"README.md": readme, "train.py": TORCH}) == ["data_available.link"]


@pytest.mark.parametrize(
    "sentence",
    [
        "* This repo is a modification on the [Base repo](https://github.com/lab/base). "
        "Installation follows that repo.",
        "Please follow [Base](https://github.com/lab/base) to prepare the environment.",
        "Prepare the environment as in [Base](https://github.com/lab/base).",
        "Installation and preparation follow the [docs](https://docs.example.org/install).",
    ],
)
def test_installing_as_another_repository_does_is_no_data(tmp_path: Path, sentence: str) -> None:
    readme = f"# Net\n\nOur model.\n\n{sentence}\n"
    assert _rules(tmp_path, {"README.md": readme, "train.py": TORCH}) == []


@pytest.mark.parametrize(
    ("sentence", "rules"),
    [
        (
            "2. Download images of ChestX-ray14 from this [released page](https://box.example.org"
            "/v/xray) and decompress them to the directory images.",
            ["data_available.link"],
        ),
        (
            "Download the videos from [here](https://example.org/clips.zip).",
            ["data_available.link"],
        ),
        ("Download the docker images from [the hub](https://hub.example.org/net).", []),
        ("Download example images from [here](https://example.org/examples.zip).", []),
        (
            "Download the COCO images from [the site](https://example.org/coco).",
            ["data_available.link"],
        ),
        ("You can download the seed images of the banner [here](https://example.org/seeds).", []),
    ],
)
def test_downloaded_images_are_data(tmp_path: Path, sentence: str, rules: list[str]) -> None:
    readme = f"# Net\n\nOur model.\n\n## Usage\n\n{sentence}\n"
    assert _rules(tmp_path, {"README.md": readme, "train.py": TORCH}) == rules


@pytest.mark.parametrize(
    ("sentence", "rules"),
    [
        ("The training set is on [Dropbox](https://www.dropbox.com/s/abc/train.zip).", ["link"]),
        ("Download the dataset from [this page](https://nihcc.app.box.com/v/xray).", ["link"]),
        ("The dataset news are posted on [X](https://x.com/lab).", []),
    ],
)
def test_box_hosts_are_not_x(tmp_path: Path, sentence: str, rules: list[str]) -> None:
    readme = f"# Net\n\nOur model.\n\n{sentence}\n"
    found = _rules(tmp_path, {"README.md": readme, "train.py": TORCH})
    assert found == [f"data_available.{r}" for r in rules]


def test_a_table_read_from_the_web_in_code_is_data(tmp_path: Path) -> None:
    code = (
        TORCH
        + 'import pandas as pd\ndf = pd.read_parquet(\n    "https://host.example/sales/train.parquet"\n)\n'
    )
    files = {"README.md": "# Net\n", "finetune.py": code}
    assert _rules(tmp_path / "a", files) == ["data_available.loader"]
    local = code.replace("https://host.example/sales/", "data/")
    assert _rules(tmp_path / "b", {"README.md": "# Net\n", "finetune.py": local}) == []
    quoted = TORCH + '# df = pd.read_csv("https://host.example/train.csv")\n'
    assert _rules(tmp_path / "c", {"README.md": "# Net\n", "finetune.py": quoted}) == []


LOADER = TORCH + "from torchvision import datasets\nds = datasets.CIFAR10('data', download=True)\n"


@pytest.mark.parametrize(
    "path", ["analyze/probe/src/loaders.py", "notebooks/study.py", "visualization/plot_set.py"]
)
def test_a_dataset_fetched_for_analysis_or_figures_is_not_training_data(
    tmp_path: Path, path: str
) -> None:
    assert _rules(tmp_path, {"README.md": "# Net\n", "train.py": TORCH, path: LOADER}) == []


@pytest.mark.parametrize("path", ["data/loaders.py", "src/datasets.py", "train.py"])
def test_a_dataset_fetched_by_the_project_s_code_is_data(tmp_path: Path, path: str) -> None:
    files = {"README.md": "# Net\n", "model.py": TORCH, path: LOADER}
    assert _rules(tmp_path, files) == ["data_available.loader"]


@pytest.mark.parametrize(
    ("section", "found"),
    [
        ("### Option 1: download the processed data\n\ndownload https://x.org/d\n", True),
        # under a heading that names the data, a link to download is the data's
        ("### Option 1: the processed data\n\ndownload https://drive.google.com/d\n", True),
        # a sentence that downloads no link, or downloads weights
        ("### Option 1: the processed data\n\nSee https://drive.google.com/d for scores.\n", False),
        ("### Download the data\n\nSee https://drive.google.com/d for our results.\n", False),
        ("### Download the data\n\nDownload the weights from https://drive.google.com/d\n", False),
    ],
)
def test_a_link_under_a_heading_that_announces_the_data_download(
    tmp_path: Path, section: str, found: bool
) -> None:
    readme = f"# Net\n\nOur model.\n\n## Preparation for CNN/Dailymail\n\n{section}"
    rules = _rules(tmp_path, {"README.md": readme, "train.py": TORCH})
    assert rules == (["data_available.link"] if found else [])


@pytest.mark.parametrize(
    ("sentence", "rules"),
    [
        (
            "[Fashion-mnist](https://github.com/zalandoresearch/fashion-mnist) is a recently "
            "proposed dataset that would serve as a replacement for MNIST.",
            ["data_available.link"],
        ),
        ("[KITTI](https://example.org/kitti) is a driving benchmark.", ["data_available.link"]),
        ("[Net](https://github.com/lab/net) is a recently proposed model.", []),
        ("The [paper](https://arxiv.org/abs/1) is on the dataset of our lab.", []),
    ],
)
def test_a_link_the_sentence_calls_a_dataset(
    tmp_path: Path, sentence: str, rules: list[str]
) -> None:
    readme = f"# Net\n\nOur model.\n\n## Results\n\n{sentence}\n"
    assert _rules(tmp_path, {"README.md": readme, "train.py": TORCH}) == rules


@pytest.mark.parametrize(
    ("heading", "rules"),
    [
        (
            "### Step 1: Download TRAFFIC-A data from [a drive](https://drive.example.com/f?id=1)",
            ["data_available.link"],
        ),
        (
            "## Get the corpus from [our mirror](https://files.example.org/corpus/) ##",
            ["data_available.link"],
        ),
        (
            "### Step 1: Download the pretrained weights from [a drive](https://drive.example.com/w)",
            [],
        ),
        ("## Paper [arXiv](https://arxiv.org/abs/1234.5678)", []),
    ],
)
def test_a_heading_that_links_the_data_is_read(
    tmp_path: Path, heading: str, rules: list[str]
) -> None:
    readme = f"# Net\n\nOur model.\n\n## Data Preparation\n\n{heading}\n\nThen process it.\n"
    assert _rules(tmp_path, {"README.md": readme, "train.py": TORCH}) == rules


def test_a_data_folder_s_readme_the_readme_names_links_the_data(tmp_path: Path) -> None:
    readme = "# Net\n\n## Training\n\n1. Go to *datasets* directory and follow the README\n"
    steps = ("# Dataset\n\n## PASCAL VOC 2012\n1. Visit [this](https://github.com/lab/fcn/tree/"
             "master/data/pascal), download SBD and PASCAL VOC 2012\n")  # fmt: skip
    files = {"README.md": readme, "train.py": TORCH, "datasets/README.md": steps}
    assert _rules(tmp_path / "a", files) == ["data_available.link"]
    # the folder's README unnamed by the README: not read
    unnamed = {**files, "README.md": "# Net\n\n## Training\n\nRun train.py.\n"}
    assert _rules(tmp_path / "b", unnamed) == []
