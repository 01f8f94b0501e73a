"""A line sits under every heading above it; paths named in prose are links."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from miner.audit.classify.data_sources import data_evidence
from miner.audit.classify.doc_requirements import doc_requirements
from miner.audit.classify.hardware import find_hardware
from miner.audit.detect import AuditContext
from miner.audit.detect.sources import code_index
from miner.audit.docs import Documents, parse_markdown, parse_plain
from miner.audit.files import RepoTree


def _tree(root: Path, files: dict[str, str]) -> RepoTree:
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(content, encoding="utf-8")
    return RepoTree(root)


def _data(root: Path, readme: str) -> list[str]:
    tree = _tree(root, {"README.md": readme})
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    return [e.rule for e in data_evidence(ctx, code_index(ctx))]


NESTED = """# Tool

Intro.

## Installation
### Linux
- torch 1.7

## Data
**Pascal VOC**

```bash
wget http://host.example/VOCtrainval.tar
```
"""


def test_markdown_blocks_carry_their_heading_path_without_the_title() -> None:
    blocks = parse_markdown("README.md", NESTED)
    item = next(b for b in blocks if b.text == "torch 1.7")
    assert item.section == "linux"
    assert item.trail == ("installation", "linux")
    assert item.heading_path == "installation > linux"
    code = next(b for b in blocks if b.kind == "code")
    assert code.trail == ("data", "pascal voc")
    intro = next(b for b in blocks if b.text == "Intro.")
    assert intro.trail == ()  # the title sits above everything and is no section


def test_a_second_top_level_heading_makes_the_first_no_title() -> None:
    blocks = parse_markdown("README.md", "# Setup\n- numpy\n# Data\n- x\n")
    assert next(b for b in blocks if b.text == "numpy").trail == ("setup",)


def test_rest_heading_levels_follow_underline_characters() -> None:
    text = "Install\n=======\n\nGPU\n---\n\nSome text.\n\nData\n====\n\nMore.\n"
    blocks = parse_plain("README.rst", text)
    assert next(b for b in blocks if b.text == "Some text.").trail == ("install", "gpu")
    assert next(b for b in blocks if b.text == "More.").trail == ("data",)


def test_from_deepest_reads_the_path_from_the_deepest_match_down() -> None:
    block = next(b for b in parse_markdown("README.md", NESTED) if b.text == "torch 1.7")
    assert block.from_deepest(re.compile("install")) == "installation > linux"
    assert block.from_deepest(re.compile("data")) == ""
    assert block.any_heading(re.compile("install")) and not block.any_heading(re.compile("gpu"))


def test_a_list_under_an_install_heading_of_any_depth_names_requirements() -> None:
    found = doc_requirements(parse_markdown("README.md", NESTED), frozenset())
    assert [d.name for f in found for d in f.deps] == ["torch"]


TITLED_ITEMS = """# GANs

## Usage

- Prerequisites

    - PyTorch 1.1
    - tensorboardX

- Datasets

    - CelebA should be prepared by yourself

Train with `python train.py`.
"""


def test_a_list_item_that_titles_a_nested_list_heads_its_items() -> None:
    blocks = parse_markdown("README.md", TITLED_ITEMS)
    torch = next(b for b in blocks if b.text == "PyTorch 1.1")
    assert torch.trail == ("usage", "prerequisites") and torch.section == "prerequisites"
    celeba = next(b for b in blocks if b.text.startswith("CelebA"))
    assert celeba.trail == ("usage", "datasets")
    after = next(b for b in blocks if b.text.startswith("Train with"))
    assert after.trail == ("usage",) and after.section == "usage"  # the titled list has ended
    found = doc_requirements(blocks, frozenset())
    assert [(f.evidence.line, f.evidence.text) for f in found][:1] == [(7, "PyTorch 1.1")]
    # a long first item over a sub-list is an item, not a title
    plain = parse_markdown("README.md", "# T\n\n## Usage\n\n- Train the model on your data\n\n"
                           "    - PyTorch 1.1\n")  # fmt: skip
    assert next(b for b in plain if b.text == "PyTorch 1.1").trail == ("usage",)


def test_a_list_under_install_then_a_data_heading_names_no_requirements() -> None:
    text = "# Tool\n\n## Installation\n### Dataset files\n- torch 1.7\n"
    assert doc_requirements(parse_markdown("README.md", text), frozenset()) == []


def test_a_download_under_a_dataset_name_below_a_data_heading_is_data(tmp_path: Path) -> None:
    assert _data(tmp_path, NESTED) == ["data_available.command"]


def test_a_download_under_evaluation_then_data_is_not_training_data(tmp_path: Path) -> None:
    readme = NESTED.replace("## Data\n", "## Evaluation\n### Data\n")
    assert _data(tmp_path, readme) == []


def test_a_bare_size_under_hardware_then_training_is_memory() -> None:
    text = "# Tool\n\n## Hardware\n### Training\n\n- 64 GB\n"
    assert {h.field for h in find_hardware(parse_markdown("README.md", text))} == {"hw_memory"}


def test_a_bare_size_under_results_then_training_is_no_memory() -> None:
    text = "# Tool\n\n## Results\n### Training\n\n- 64 GB\n"
    assert find_hardware(parse_markdown("README.md", text)) == []


def test_a_device_under_other_projects_then_any_heading_is_not_ours() -> None:
    text = "# Tool\n\n## Related projects\n### Fast variant\n\nTrained on a Tesla V100.\n"
    assert find_hardware(parse_markdown("README.md", text)) == []
    own = text.replace("Related projects", "Training")
    assert {h.field for h in find_hardware(parse_markdown("README.md", own))} == {"hw_gpu"}


@pytest.mark.parametrize(
    "sentence",
    [
        "See `tf/README.md` for the TensorFlow version.",
        "The TensorFlow version is described in tf/README.md.",
        "The TensorFlow code lives in `tf/`.",
        "Each folder has its own README with its requirements.",
    ],
)
def test_paths_named_in_prose_are_followed_like_links(tmp_path: Path, sentence: str) -> None:
    files = {"README.md": f"# Tool\n\n{sentence}\n", "tf/README.md": "# TF\n", "x/a.py": ""}
    assert "tf/README.md" in _tree(tmp_path, files).codebook_docs


@pytest.mark.parametrize(
    "sentence",
    [
        "The TensorFlow code lives in tf.",
        "Run `python tf/train.py`.",
        "Each folder holds one experiment.",
    ],
)
def test_words_that_name_no_doc_path_link_nothing(tmp_path: Path, sentence: str) -> None:
    files = {"README.md": f"# Tool\n\n{sentence}\n", "tf/README.md": "# TF\n"}
    assert "tf/README.md" not in _tree(tmp_path, files).codebook_docs


def test_a_text_file_named_in_prose_is_data_not_docs(tmp_path: Path) -> None:
    files = {"README.md": "# T\n\nThe names are in `names.txt`.\n", "names.txt": "emma\nolivia\n"}
    assert "names.txt" not in _tree(tmp_path, files).codebook_docs


@pytest.mark.parametrize(
    ("sentence", "rules"),
    [
        ("The model was trained on [LAION-400M](https://laion.example/laion-400m/).", ["link"]),
        ("Our encoder is fine-tuned on the [Places](http://places.example/) images.", ["link"]),
        ("The model was trained on [8 GPUs](https://docs.example/multi-gpu).", []),
        ("Weights trained on [our data](https://huggingface.co/org/model) are released.", []),
        ("We thank [LAION](https://laion.example/) for their support.", []),
        (
            "We provide the **subset of [Objaverse](https://objaverse.example/)** used to train "
            "the model.",
            ["link"],
        ),
        ("The split of [Objaverse](https://objaverse.example/) we used for evaluation.", []),
    ],
)
def test_a_link_right_after_trained_on_is_the_data(
    tmp_path: Path, sentence: str, rules: list[str]
) -> None:
    found = _data(tmp_path, f"# Tool\n\n## Method\n\n{sentence}\n")
    assert found == [f"data_available.{r}" for r in rules]


def test_a_dataset_link_under_a_train_heading_is_the_data(tmp_path: Path) -> None:
    sentence = (
        "Configs prefixed `musdb_` are examples for [MUSDB18 dataset](https://sigsep.example/)."
    )
    assert _data(tmp_path / "a", f"# T\n\n## How to: Train\n\n{sentence}\n") == [
        "data_available.link"]  # fmt: skip
    assert _data(tmp_path / "b", f"# T\n\n## Results\n\n{sentence}\n") == []
    tool = ("For training, install [accelerate](https://github.com/huggingface/accelerate) and "
            "make your own dataset into a json file.")  # fmt: skip
    assert _data(tmp_path / "c", f"# T\n\n## How to Train\n\n{tool}\n") == []


@pytest.mark.parametrize(
    ("readme", "rules"),
    [
        (
            "## Input data preparation\n\nPlease prepare the input data using "
            "[numpy](https://numpy.example/). Two files go under `input_data`.\n",
            [],
        ),
        (
            "## Training\n\n- If your dataset has music, remove it using software such as "
            "[Vocal Remover](https://remover.example/). A model is recommended. [^1]\n\n"
            "[^1]: https://howto.example/remover\n",
            [],
        ),
        (
            "## Training\n\nDownload the dataset from [this page](https://data.example/set.zip).\n",
            ["link"],
        ),
    ],
)
def test_a_tool_a_step_uses_and_a_footnote_are_no_data_links(
    tmp_path: Path, readme: str, rules: list[str]
) -> None:
    assert _data(tmp_path, f"# T\n\nIntro.\n\n{readme}") == [f"data_available.{r}" for r in rules]


def test_the_sets_an_evaluation_page_links_are_test_sets(tmp_path: Path) -> None:
    page = "# Evaluation\n\nSee [the dataset](https://huggingface.co/datasets/cais/mmlu).\n"
    files = {"README.md": "# T\n\nRead [the evaluation](doc/eval.md).\n", "doc/eval.md": page}
    tree = _tree(tmp_path, files)
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    assert data_evidence(ctx, code_index(ctx)) == []


def test_a_line_labelling_its_link_as_the_dataset_links_the_data(tmp_path: Path) -> None:
    for line in (
        "数据集: [alpaca](https://data.example/alpaca)",
        "Dataset: [MUSDB](https://x.example/x)",
    ):
        assert _data(tmp_path / line[:3], f"# T\n\nIntro.\n\n{line}\n") == ["data_available.link"]


def test_a_long_heading_naming_predictions_is_a_task_not_an_inference_section(
    tmp_path: Path,
) -> None:
    readme = ("# T\n\nIntro.\n\n## Examples\n\n### Cell boundary predictions for lightsheet "
              "images of lateral roots\n\nThe data can be downloaded from the following OSF "
              "project:\n* training set: https://osf.io/9x3g2/\n")  # fmt: skip
    assert _data(tmp_path / "a", readme) == ["data_available.link"]
    short = readme.replace("### Cell boundary predictions for lightsheet images of lateral roots",
                           "### Predictions")  # fmt: skip
    assert _data(tmp_path / "b", short) == []
