"""Framework versions stated as a run's settings: joined to the name by `=` or `+`."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.audit.classify.software import classify_software
from miner.audit.detect import AuditContext
from miner.audit.docs import Documents
from miner.audit.files import RepoTree


def _all_specs(root: Path, readme: str) -> list[tuple[str, str]]:
    root.mkdir(parents=True)
    (root / "README.md").write_text(readme, encoding="utf-8")
    tree = RepoTree(root)
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    list(classify_software(ctx, {}))
    return [(d["name"], d["spec"]) for d in ctx.details["dependencies"]]


def _specs(root: Path, readme: str) -> dict[str, str]:
    return dict(_all_specs(root, readme))


@pytest.mark.parametrize(
    ("text", "name", "spec"),
    [
        (
            "| Setting | Memory |\n| --- | --- |\n"
            "| Training (#GPU=2, batch_size=2, compile=False+PyTorch=2.8.0) | 38.2GB |\n",
            "pytorch",
            "==2.8.0",
        ),
        ("- Run settings: 4 GPUs, fp16, torch==2.1.0, 300 epochs\n", "torch", "==2.1.0"),
        (
            "Timings measured with CUDA 11.8 + TensorFlow 2.12 on one node.\n",
            "tensorflow",
            "==2.12",
        ),
        ("Environment: cuda11.3+pytorch1.12.1\n", "pytorch", "==1.12.1"),
        ("Benchmarks: pytorch 2.1 + CUDA 12.1, one node.\n", "pytorch", "==2.1"),
        (
            "## Requirements\n- Tensorflow (originally has been developed with 1.3 but should work "
            "for later versions as well).\n",
            "tensorflow",
            "1.3",
        ),
    ],
)
def test_a_version_joined_to_the_framework_name_is_stated(
    tmp_path: Path, text: str, name: str, spec: str
) -> None:
    readme = f"# Net\n\nOur model.\n\n## Results\n\n{text}"
    assert _specs(tmp_path / "p", readme).get(name) == spec


@pytest.mark.parametrize(
    "text",
    [
        "We thank the PyTorch team; see torch.nn for the layers (version 2.0 of our code).\n",
        "Trained for 2.5 days with PyTorch and 8.0 GB of memory.\n",
        "Set learning_rate=0.1 and torch_seed=1.0 in the config.\n",
        "- PyTorch 1.12+ and corresponding torchvision\n",
        "- Python 3.8+ PyTorch 1.12+\n",
    ],
)
def test_other_numbers_near_a_framework_are_no_version(tmp_path: Path, text: str) -> None:
    readme = f"# Net\n\nOur model.\n\n## Results\n\n{text}"
    specs = _all_specs(tmp_path / "p", readme)
    assert not any(v.startswith("==") for k, v in specs if "torch" in k)


def test_a_range_bound_on_both_sides_is_read_whole_and_no_tag(tmp_path: Path) -> None:
    # `< 1.11.0;\npython >` is no HTML tag: the Python line after it stays
    readme = (
        "# Net\n\n## 1. Requirements\nPyTorch >= 1.7.0 < 1.11.0;\npython >= 3.7;\nCUDA >= 9.0;\n"
    )
    root = tmp_path / "p"
    specs = _specs(root, readme)
    assert specs["pytorch"] == ">=1.7.0,<1.11.0" and specs["cuda"] == ">=9.0"
    tree = RepoTree(root)
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    list(classify_software(ctx, {}))
    assert [d["spec"] for d in ctx.details["python_versions"]] == [">=3.7"]
