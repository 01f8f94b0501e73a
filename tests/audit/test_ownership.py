"""Whose words a line is: quoted patterns, news, grants and bundled projects do not vote."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.audit.classify.data_sources import data_evidence
from miner.audit.classify.hardware import find_hardware
from miner.audit.detect import AuditContext
from miner.audit.detect.sources import code_index
from miner.audit.docs import Documents, parse_markdown
from miner.audit.files import RepoTree
from miner.audit.ownership import (
    about_others,
    borrowed_folders,
    copied_trees,
    foreign_trees,
    library_copies,
    link_entries,
    link_list,
    quoted,
)


def _tree(root: Path, files: dict[str, str]) -> RepoTree:
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(content, encoding="utf-8")
    return RepoTree(root)


def _fields(text: str) -> set[str]:
    return {h.field for h in find_hardware(parse_markdown("README.md", text))}


def _data(root: Path, files: dict[str, str]) -> list[str]:
    tree = _tree(root, files)
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    return [e.rule for e in data_evidence(ctx, code_index(ctx))]


def test_a_quoted_name_after_a_verb_of_use_is_stated_not_shown() -> None:
    used = 'It has been tested on a Lambda Labs "1x A100 (40 GB SXM4)" instance.'
    assert not quoted(used, used.index("A100"), used.index("A100") + 4)
    rules = 'names a tested or required device model (GPU: "GTX 1080 Ti", "Tesla V100")'
    assert quoted(rules, rules.index("Tesla"), rules.index("Tesla") + 5)
    claim = 'Yes when the README says "trained on 8 V100 GPUs".'
    assert quoted(claim, claim.index("V100"), claim.index("V100") + 4)


def test_quoted_spans_are_inside_double_quotes_or_shown_markdown() -> None:
    text = 'Counts: "16GB RAM" and `[COCO](https://cocodataset.org)`; we use 16GB RAM.'
    assert quoted(text, text.index("16GB"), text.index("16GB") + 4)
    assert quoted(text, text.index("https"), text.index("https") + 5)
    assert not quoted(text, text.rindex("16GB"), text.rindex("16GB") + 4)


CATALOGUE = "\n".join(
    f'- Sizes tied to memory: "{n}GB RAM", "a {n} GB server", "Tesla V100", "RTX 3090".'
    for n in (16, 32, 64)
)


def test_a_page_quoting_device_patterns_by_the_dozen_is_a_catalogue() -> None:
    assert _fields(f"# Rules\n\n{CATALOGUE}\n\nThe rules also name a GTX 1080 Ti.\n") == set()


def test_a_single_quoted_device_is_still_not_a_statement_but_prose_is() -> None:
    assert _fields('# Tool\n\nSet `--gpu` to a name such as "V100".\n') == set()
    own = "# Tool\n\nWe trained on one V100. Our server has 64GB RAM.\n"
    assert _fields(own) == {"hw_gpu", "hw_memory"}


@pytest.mark.parametrize(
    "sentence",
    [
        "[2024/05] X-Serve now runs our model on an A100.",
        "🔥 News: trained on 64 A100 GPUs by our friends.",
        "This work was supported by the NSF grant 123 and a donation of an RTX 3090 fund.",
    ],
)
def test_news_items_and_grants_are_about_others(sentence: str) -> None:
    assert about_others(sentence)
    assert _fields(f"# Tool\n\n{sentence}\n") == set()


@pytest.mark.parametrize(
    "sentence",
    ["We trained on an A100 in 2024.", "Training takes 2 days on 8 V100 GPUs (see update.md)."],
)
def test_own_statements_are_not_about_others(sentence: str) -> None:
    assert not about_others(sentence)
    assert _fields(f"# Tool\n\n{sentence}\n") == {"hw_gpu"}


BUNDLED = {
    "README.md": "# Detector\n\nOur detector.\n",
    "train.py": "import torch\n",
    "third/segtool/setup.py": "from setuptools import setup\nsetup(name='segtool')\n",
    "third/segtool/LICENSE": "MIT\n",
    "third/segtool/README.md": "# segtool\n\nTested on a Tesla V100 with 32GB RAM.\n",
}


def test_a_tree_with_its_own_packaging_and_licence_under_another_name_is_foreign(
    tmp_path: Path,
) -> None:
    root = tmp_path / "owner__detector"
    tree = _tree(root, BUNDLED)
    assert foreign_trees(tree) == ("third/segtool",)
    docs = Documents(tree)
    assert {b.path for b in docs.blocks} == {"README.md"}


def test_a_sub_package_of_the_project_itself_is_its_own(tmp_path: Path) -> None:
    files = dict(BUNDLED)
    files["third/segtool/setup.py"] = "from setuptools import setup\nsetup(name='detector-core')\n"
    assert foreign_trees(_tree(tmp_path / "owner__detector", files)) == ()
    del files["third/segtool/LICENSE"]
    files["third/segtool/setup.py"] = BUNDLED["third/segtool/setup.py"]
    assert foreign_trees(_tree(tmp_path / "other__detector", files)) == ()


def test_copied_code_is_a_licensed_sub_folder_or_an_unnamed_nested_project(
    tmp_path: Path,
) -> None:
    copied = {
        "src/face/arcface/README.md": "# Distributed face recognition training\n",
        "src/face/arcface/requirement.txt": "mxnet\n",
        "src/face/arcface/train.py": "import mxnet\n",
        "utils/nms/LICENSE": "MIT\n",
        "src/docs/README.md": "# Notes\n",  # a README alone is documentation, not a project
    }
    tree = _tree(tmp_path / "owner__detector", {**BUNDLED, **copied})
    assert copied_trees(tree) == ("src/face/arcface/", "third/segtool/", "utils/nms/")
    named = {**BUNDLED, **copied, "README.md": "# Detector\n\nFaces come from arcface/.\n"}
    assert "src/face/arcface/" not in copied_trees(_tree(tmp_path / "owner__named", named))


def test_a_deep_learning_library_copied_into_a_folder_is_not_the_projects(tmp_path: Path) -> None:
    files = {
        "annotator/uniformer/mmcv/__init__.py": "",
        "annotator/uniformer/mmcv/runner/hooks/optimizer.py": "runner.outputs['loss'].backward()\n",
        "annotator/uniformer/mmseg/apis/train.py": "import torch\n",  # no __init__ at its top
        "examples/keras/mnist.py": "import keras\n",  # a framework's examples, no package
        "embodied/jax/__init__.py": "",  # the project's own code for a framework
        "mmcv_custom/checkpoint.py": "import torch\n",  # the project's own name for its code
        "train.py": "import torch\n",
    }
    tree = _tree(tmp_path / "owner__video-zero", files)
    assert library_copies(tree) == {"annotator/uniformer/mmcv/", "annotator/uniformer/mmseg/"}
    assert "annotator/uniformer/mmcv/" in copied_trees(tree)
    index = code_index(AuditContext(tree=tree, docs=Documents(tree)))
    own = {f.path for f in index.own()}
    assert "train.py" in own and "examples/keras/mnist.py" in own
    assert not any(p.startswith("annotator/uniformer/") for p in own)
    # the library's own repository keeps its package
    assert library_copies(_tree(tmp_path / "owner__mmsegmentation-fork", {
        "tools/mmseg/train.py": "import torch\n"})) == set()  # fmt: skip


@pytest.mark.parametrize(
    "source",
    [
        '"""Fetch data with `tfds.load(name)` or wget."""\n',
        'PATTERN = r"\\b(?:wget|curl)\\b"\n',
        'TOOLS = ("wget", "curl", "gdown")\n',
        "# os.system('wget http://host/data.zip')\n",
    ],
)
def test_fetches_named_in_docstrings_patterns_and_comments_are_no_download(
    tmp_path: Path, source: str
) -> None:
    assert _data(tmp_path, {"README.md": "# T\n", "download_data.py": source}) == []


@pytest.mark.parametrize(
    "source",
    [
        'import os\nos.system("wget http://host/data.zip")\n',
        'import subprocess\nsubprocess.run(["wget", URL])\n',
        "import urllib.request\nurllib.request.urlretrieve(URL, 'data.zip')\n",
    ],
)
def test_fetch_calls_and_command_strings_download(tmp_path: Path, source: str) -> None:
    files = {"README.md": "# T\n", "download_data.py": source}
    assert _data(tmp_path, files) == ["data_available.download_script"]


def test_make_in_a_sentence_is_no_command(tmp_path: Path) -> None:
    readme = "# T\n\nA comment does not make data_available yes.\n\n```\nmake data\n```\n"
    assert _data(tmp_path, {"README.md": readme}) == ["data_available.command"]
    assert _data(tmp_path / "b", {"README.md": readme.split("```")[0]}) == []


@pytest.mark.parametrize(
    "command",
    [
        "huggingface-cli download Org/Model-14B --local-dir ./Model-14B",
        "hf download Org/Model-7B",
        "wget https://host.example/model_final.pth",
    ],
)
def test_model_downloads_are_weights_not_data(tmp_path: Path, command: str) -> None:
    readme = f"# T\n\n## Data\n\n```\n{command}\n```\n"
    assert _data(tmp_path, {"README.md": readme}) == []


@pytest.mark.parametrize(
    "command",
    [
        "huggingface-cli download Org/corpus --repo-type dataset --local-dir data",
        "wget https://host.example/train_images.zip",
    ],
)
def test_dataset_downloads_are_data(tmp_path: Path, command: str) -> None:
    readme = f"# T\n\n## Data\n\n```\n{command}\n```\n"
    assert _data(tmp_path, {"README.md": readme}) == ["data_available.command"]


def test_the_readme_is_the_project_s_own_page_whatever_its_first_heading() -> None:
    text = "### Used by [Lab](https://lab.example)\n\n## Hardware\n\nWe trained on one A100.\n"
    assert {h.field for h in find_hardware(parse_markdown("README.md", text))} == {"hw_gpu"}
    assert find_hardware(parse_markdown("docs/adoption.md", text)) == []


def test_a_linked_log_is_no_documentation_but_a_folder_in_inline_code_is(tmp_path: Path) -> None:
    files = {
        "README.md": "# T\n\nSee [the log](logs/run.txt), [notes](NOTES.txt) and `v1`.\n",
        "logs/run.txt": "step 1 peak memory 31563 MiB\n",
        "NOTES.txt": "Notes.\n",
        "v1/README.md": "# V1\n",
    }
    docs = _tree(tmp_path, files).codebook_docs
    assert "logs/run.txt" not in docs and "v1/README.md" in docs and "NOTES.txt" in docs


def test_a_data_folder_inside_a_python_package_is_its_resources(tmp_path: Path) -> None:
    blob = "x" * 60_000
    files = {"README.md": "# T\n", "pkg/__init__.py": "", "pkg/data/table.csv": blob}
    assert _data(tmp_path / "a", files) == []
    files = {"README.md": "# T\n", "data/train.csv": blob}
    assert _data(tmp_path / "b", files) == ["data_available.in_repository"]


def test_a_data_package_keeps_its_data(tmp_path: Path) -> None:
    blob = "x" * 60_000
    files = {"README.md": "# T\n", "datasets/__init__.py": "", "datasets/data/train.csv": blob}
    assert _data(tmp_path, files) == ["data_available.in_repository"]


def test_downloading_an_installer_is_not_data(tmp_path: Path) -> None:
    readme = "# T\n\n## Data\n\n```\nwget https://host.example/install_deps.sh\n```\n"
    assert _data(tmp_path, {"README.md": readme}) == []


def test_downloading_a_library_from_its_host_is_not_data(tmp_path: Path) -> None:
    readme = "# T\n\n## Data\n\n```\nwget https://download.pytorch.org/libtorch/libtorch.zip\n```\n"
    assert _data(tmp_path, {"README.md": readme}) == []


def test_an_install_step_under_a_quick_start_heading_is_not_data(tmp_path: Path) -> None:
    readme = (
        "# T\n\n## Quick start\n\n### Install dependencies\n\n"
        "```\nwget https://host.example/tools.zip\n```\n"
    )
    assert _data(tmp_path / "a", {"README.md": readme}) == []
    data = readme.replace("Install dependencies", "Get the images")
    assert _data(tmp_path / "b", {"README.md": data}) == ["data_available.command"]


RELEASE = {
    "README.md": "# Emitter\n\nOur model.\n",
    "train.py": "import torch\n",
    "prep/clips/yt/vidtool-1.1.0/setup.py": "from setuptools import setup\nsetup(name='vidtool')\n",
    "prep/clips/yt/vidtool-1.1.0/LICENSE": "MIT\n",
    "prep/clips/yt/vidtool-1.1.0/benchmark/data/rows.json": "x" * 60_000,
    "prep/clips/yt/vidtool-1.1.0/vidtool/reader.py": "import requests\nr = requests.get(url)\n",
}


def test_an_unpacked_release_of_another_tool_is_foreign_however_deep(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "owner__emitter", RELEASE)
    assert foreign_trees(tree) == ("prep/clips/yt/vidtool-1.1.0",)
    # Deep packaging without a release's name is not taken for a copy.
    plain = {k.replace("vidtool-1.1.0", "vidtool"): v for k, v in RELEASE.items()}
    assert foreign_trees(_tree(tmp_path / "owner__other", plain)) == ()


def test_a_bundled_project_s_data_and_downloads_are_not_this_project_s(tmp_path: Path) -> None:
    files = dict(RELEASE)
    files["prep/clips/yt/vidtool-1.1.0/download_data.py"] = 'import os\nos.system("wget URL")\n'
    assert _data(tmp_path / "a" / "owner__emitter", files) == []
    own = {k.replace("prep/clips/yt/vidtool-1.1.0/", ""): v for k, v in files.items()}
    own["README.md"] = RELEASE["README.md"]
    assert set(_data(tmp_path / "b" / "owner__emitter", own)) == {
        "data_available.in_repository",
        "data_available.download_script",
    }


FORK = {
    "README.md": "# Detector10\n\nOur detector.\n",
    "pyproject.toml": '[project]\nname = "visionlib"\n',
    "visionlib/__init__.py": "",
    "docs/guides/pi.md": "# Pi\n\n| RAM | 2GB, 4GB or 8GB LPDDR4 |\n\nTested on a Tesla V100.\n",
    "docs/models/detector10.md": "# Detector10\n\nWe trained Detector10 on 8 A100 GPUs.\n",
}


def test_a_fork_s_library_docs_are_the_library_s_but_its_own_pages_count(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "lab__detector10", FORK)
    paths = {b.path for b in Documents(tree).blocks}
    assert paths == {"README.md", "docs/models/detector10.md"}


def test_a_project_packaged_under_its_own_name_keeps_its_docs(tmp_path: Path) -> None:
    files = dict(FORK, **{"pyproject.toml": '[project]\nname = "detector10-core"\n'})
    tree = _tree(tmp_path / "lab__detector10", files)
    assert "docs/guides/pi.md" in {b.path for b in Documents(tree).blocks}


def _awesome_list(entries: int) -> str:
    items = "\n".join(
        f"- [Tool{n}](https://github.com/o/tool{n}) - Serves models fast on an A100 with "
        f"[its data](https://example.org/data{n})."
        for n in range(entries)
    )
    row = "| 2017-06 | [Attention Is All You Need](https://x.org/1) |"
    table = f"| Date | Paper |\n|---|---|\n{row}"
    return f"# Awesome Things\n\nA curated list.\n\n## Tools\n\n{items}\n\n## Papers\n\n{table}\n"


def test_an_awesome_list_s_entries_speak_for_the_works_they_link() -> None:
    text = _awesome_list(25)
    assert link_list(text)
    entries = link_entries(text)
    assert len(entries) == 26  # 25 list items and the table row that links its paper
    assert 7 in entries and 2 not in entries  # the entries, not the introduction


def test_a_document_with_a_few_links_is_no_link_list() -> None:
    assert link_entries(_awesome_list(5)) == frozenset()


def test_the_docs_leave_out_a_link_list_s_entries_but_keep_its_prose(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "someone__awesome-things", {"README.md": _awesome_list(25)})
    blocks = Documents(tree).blocks
    assert [b.text for b in blocks if b.kind in ("list_item", "table_row")] == ["Date | Paper"]
    assert "A curated list." in {b.text for b in blocks}
    assert _fields(_awesome_list(25)) == {"hw_gpu"}  # parsed alone, an entry would vote
    assert not {h.field for h in find_hardware(blocks)}


BORROWED = {
    "README.md": "# Mamba Vision\n\nOur backbone.\n",
    "classify/train.py": "import torch\n",
    "detect/readme.md": (
        "## Origins\n\n`configs/` and `tools/` are copied from "
        "https://github.com/lab/detlib: version 3.3.0\n"
    ),
    "detect/configs/base.py": "model = dict(type='Det')\n",
    "detect/tools/misc/download_dataset.py": 'import os\nos.system("wget URL")\n',
}


def test_folders_a_readme_says_were_copied_are_another_repository_s(tmp_path: Path) -> None:
    tree = _tree(tmp_path / "a" / "owner__vision", BORROWED)
    assert borrowed_folders(tree) == ("detect/configs/", "detect/tools/")
    assert _data(tmp_path / "a" / "owner__vision", BORROWED) == []
    own = {**BORROWED, "detect/readme.md": "## Detection\n\nOur `tools/` train it.\n"}
    assert borrowed_folders(_tree(tmp_path / "b" / "owner__vision", own)) == ()
    assert _data(tmp_path / "b" / "owner__vision", own) == ["data_available.download_script"]


def test_a_component_named_for_a_repository_borrowed_from(tmp_path: Path) -> None:
    readme = (
        "# Sound Gen\n\n## Reference\n\nPart of the code is borrowed from the following repos.\n"
        "\n> https://github.com/lab/Encoder\n\n> https://github.com/lab/basenet\n"
    )
    files = {"README.md": readme, "soundgen/encoder/train.py": "", "basenet/x.py": ""}
    # A top-level folder named for one is the code base the project builds on and trains.
    assert borrowed_folders(_tree(tmp_path / "owner__sound-gen", files)) == ("soundgen/encoder/",)
