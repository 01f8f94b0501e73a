from __future__ import annotations

import os
from pathlib import Path

from miner.audit.files import RepoTree, is_vendored


def _write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    return root


def test_docs_follow_the_codebook_what_is_read(tmp_path: Path) -> None:
    tree = RepoTree(
        _write(
            tmp_path,
            {
                "README.md": "See [install](docs/INSTALL.md) and [paper](https://x.org/p.pdf).\n",
                "docs/INSTALL.md": "pip install -r requirements.txt\n",
                "docs/api.rst": "API\n===\n",
                "docs/hardware.txt": "Tested on a GTX 1080.\n",
                "docs/CODEOWNERS.md": "* @someone\n",
                "GETTING_STARTED.md": "Run it.\n",
                "LICENSE.md": "MIT\n",
                "CHANGELOG.md": "v1\n",
                "requirements.txt": "torch\n",
                "data/train.txt": "img1.png 3\n",
                "notes/deep/other.md": "not linked, not under docs/\n",
            },
        )
    )
    assert tree.readme == "README.md"
    assert tree.docs[:2] == ("README.md", "docs/INSTALL.md")
    assert set(tree.docs) == {
        "README.md",
        "docs/INSTALL.md",
        "docs/api.rst",
        "docs/hardware.txt",
        "GETTING_STARTED.md",
    }


def test_a_folder_link_is_a_link_to_its_readme(tmp_path: Path) -> None:
    readme = (
        "- [NLU](examples/NLU/) and [MoE](./ch04/07_moe)\n"
        "- [ROS](https://github.com/someone/net/tree/master/ros)\n"
        "- [upstream](https://github.com/someone/other/tree/main/tools)\n"
        "- [no readme](src)\n"
    )
    tree = RepoTree(
        _write(
            tmp_path / "someone__net",
            {
                "README.md": readme,
                "examples/NLU/README.md": "NLU\n",
                "ch04/07_moe/README.md": "MoE\n",
                "ros/README.md": "ROS\n",
                "src/model.py": "x = 1\n",
                "tools/README.md": "not linked\n",
            },
        )
    )
    assert set(tree.codebook_docs) == {
        "README.md",
        "examples/NLU/README.md",
        "ch04/07_moe/README.md",
        "ros/README.md",
    }


def test_dependency_files_are_named_by_source_kind(tmp_path: Path) -> None:
    tree = RepoTree(
        _write(
            tmp_path,
            {
                "requirements.txt": "numpy\n",
                "tools/requirements-dev.txt": "pytest\n",
                "environment.yml": "name: x\n",
                "setup.py": "",
                "docker/Dockerfile.gpu": "FROM x\n",
                "web/package.json": "{}",
                "CMakeLists.txt": "find_package(Caffe)\n",
                "model.rockspec": "",
            },
        )
    )
    kinds = dict(tree.dependency_files)
    assert kinds == {
        "requirements.txt": "requirements_file",
        "tools/requirements-dev.txt": "requirements_file",
        "environment.yml": "conda_env",
        "setup.py": "setup",
        "docker/Dockerfile.gpu": "dockerfile",
        "web/package.json": "other_manifest",
        "CMakeLists.txt": "other_manifest",
        "model.rockspec": "other_manifest",
    }


def test_hostile_files_are_skipped_or_decoded(tmp_path: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("secret")
    root = _write(
        tmp_path / "repo",
        {
            "weights.bin": b"\x00\x01\x02" * 100,
            "latin1.md": "caf\xe9".encode("latin-1"),
            "utf16.md": "# N\r\nPyTorch".encode("utf-16"),  # a byte-order mark, then NULs
            "big.py": "x = 1\n" * 10,
            ".git/config": "[core]\n",
        },
    )
    os.symlink(outside, root / "escape.md")
    os.symlink(root / "big.py", root / "inside_link.py")
    tree = RepoTree(root, max_bytes=30)
    paths = tree.paths
    assert "escape.md" not in paths and ".git/config" not in paths
    assert "inside_link.py" in paths
    assert tree.read_text("weights.bin") is None
    assert tree.read_text("latin1.md") == "caf\ufffd"
    assert tree.read_text("utf16.md") == "# N\r\nPyTorch"
    assert tree.read_text("big.py") is None  # 60 bytes > cap of 30
    assert tree.read_text("../outside.txt") is None
    assert any("symlink out of the checkout" in w for w in tree.warnings)
    assert any("big.py: larger than" in w for w in tree.warnings)


def test_a_text_file_with_a_stray_run_of_nuls_is_read_without_them(tmp_path: Path) -> None:
    text = "# Net\n\n## Dependencies\n* Torch (http://torch.ch)\n" + "Error rate summary" * 40
    nuls = text[:60].encode() + b"\x00" * 14 + text[60:].encode()
    # compressed data: a NUL now and then, and bytes that are no UTF-8
    binary = bytes(range(256)) * 4
    root = _write(tmp_path / "repo", {"README.md": nuls, "image.png": binary})
    tree = RepoTree(root)
    assert tree.read_text("README.md") == text
    assert tree.read_text("image.png") is None


def test_vendored_folders() -> None:
    assert is_vendored("third_party/caffe/net.py")
    assert is_vendored("src/external/lib.py")
    assert not is_vendored("models/net.py")
    assert not is_vendored("external.py")


def test_the_plain_readme_comes_before_its_variants(tmp_path: Path) -> None:
    files = {"README-MUP.md": "# mup\n", "README.md": "# Net\n", "README_CN.md": "# Net\n"}
    assert RepoTree(_write(tmp_path, files)).readme == "README.md"


def test_a_root_relative_link_is_read_from_the_root(tmp_path: Path) -> None:
    readme = "See [the training guide](/training/README.md#setup) and [docs](/docs/)\n"
    tree = RepoTree(
        _write(
            tmp_path / "someone__net",
            {
                "README.md": readme,
                "training/README.md": "Train\n",
                "docs/README.md": "Docs\n",
                "other/README.md": "not linked\n",
            },
        )
    )
    assert set(tree.codebook_docs) == {"README.md", "training/README.md", "docs/README.md"}


def test_links_under_the_repositorys_new_name_are_its_own(tmp_path: Path) -> None:
    # Renamed from `net` to `net-book`: links under the new name name its own paths.
    readme = (
        "- [Inference](https://github.com/someone/net-book/tree/main/start/inference)\n"
        "- [Use cases](https://github.com/someone/net-book/tree/main/cases/)\n"
        "- [Tools](https://github.com/someone/toolkit/tree/main/tools)\n"
        "- [Scripts](https://github.com/someone/toolkit/tree/main/scripts/data)\n"
        "- [One](https://github.com/someone/single/tree/main/one/two)\n"
    )
    tree = RepoTree(
        _write(
            tmp_path / "someone__net",
            {
                "README.md": readme,
                "start/inference/README.md": "Infer\n",
                "cases/README.md": "Cases\n",
                "tools/README.md": "a folder of the same name, linked in another repository\n",
                "one/two/README.md": "one link alone is no rename\n",
            },
        )
    )
    assert set(tree.codebook_docs) == {
        "README.md",
        "start/inference/README.md",
        "cases/README.md",
    }


def test_reference_and_rst_links_are_links(tmp_path: Path) -> None:
    markdown = "See the [training guide][train].\n\n[train]: training/\n"
    tree = RepoTree(
        _write(tmp_path / "a", {"README.md": markdown, "training/README.md": "Train\n"})
    )
    assert set(tree.codebook_docs) == {"README.md", "training/README.md"}
    rst = (
        "Net\n===\n\nSee `Training <training/>`_ and `setup`_.\n\n"
        ".. _setup: https://github.com/o/net/tree/main/install\n"
    )
    files = {"README.rst": rst, "training/README.rst": "Train\n", "install/README.rst": "In\n"}
    tree = RepoTree(_write(tmp_path / "o__net", files))
    assert set(tree.codebook_docs) == {
        "README.rst",
        "training/README.rst",
        "install/README.rst",
    }


def test_an_escaped_link_names_its_file(tmp_path: Path) -> None:
    readme = "See [getting started](Getting%20Started/Train%20Guide.md).\n"
    files = {"README.md": readme, "Getting Started/Train Guide.md": "Train\n"}
    tree = RepoTree(_write(tmp_path / "a", files))
    assert set(tree.codebook_docs) == {"README.md", "Getting Started/Train Guide.md"}
