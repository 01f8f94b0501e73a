"""Each lint code on a fixture project: fires when its requirement is missing, silent otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_projects import COMPLETE_README, TRAIN, write_project

from miner.lint import RULES, lint


def codes(root: Path) -> list[str]:
    return [f.code for f in lint(root).findings]


def test_a_project_that_states_everything_is_silent(tmp_path: Path) -> None:
    assert lint(write_project(tmp_path / "p")).findings == ()


def test_gpu_code_without_a_stated_gpu(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("Trained on one NVIDIA RTX 3090 (24 GB)", "Trained")
    launcher = "python -m torch.distributed.launch --nproc_per_node=8 train.py --fp16\n"
    root = write_project(tmp_path / "p", {"README.md": readme, "scripts/run.sh": launcher})
    (finding,) = [f for f in lint(root).findings if f.code == "MNR101"]
    assert finding.path == "README.md"
    assert "8 GPUs (from the launcher)" in finding.fix and "batch size 64" in finding.fix
    assert any(e.path == "train.py" and "cuda" in e.text for e in finding.evidence)
    assert any(e.path == "scripts/run.sh" for e in finding.evidence)


def test_cpu_only_code_needs_no_gpu_statement(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace(
        "Trained on one NVIDIA RTX 3090 (24 GB)", "Trained on a laptop"
    )
    train = TRAIN.replace('"cuda" if torch.cuda.is_available() else "cpu"', '"cpu"')
    root = write_project(tmp_path / "p", {"README.md": readme, "train.py": train})
    assert "MNR101" not in codes(root)


def test_a_cpu_claim_contradicted_by_hard_coded_cuda(tmp_path: Path) -> None:
    readme = COMPLETE_README + "\nNo GPU required: it trains on a CPU in minutes.\n"
    hard = TRAIN.replace(
        '    device = "cuda" if torch.cuda.is_available() else "cpu"\n', ""
    ).replace(".to(device)", ".cuda()")
    root = write_project(tmp_path / "p", {"README.md": readme, "train.py": hard})
    (finding,) = [f for f in lint(root).findings if f.code == "MNR102"]
    assert finding.path == "train.py" and "cuda()" in finding.evidence[0].text
    assert finding.evidence[1].path == "README.md"
    # the same claim over code with a CPU fallback is no contradiction
    assert "MNR102" not in codes(write_project(tmp_path / "q", {"README.md": readme}))
    # and hard-coded CUDA without the claim is left to MNR101
    assert "MNR102" not in codes(write_project(tmp_path / "r", {"train.py": hard}))


def test_no_requirements_at_all(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- torch==2.1.0, see requirements.txt\n", "")
    root = write_project(tmp_path / "p", {"README.md": readme, "requirements.txt": None})
    assert "MNR201" in codes(root)
    assert "MNR201" not in codes(write_project(tmp_path / "q"))


def test_framework_listed_without_a_version(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"requirements.txt": "torch\nnumpy\n"})
    (finding,) = [f for f in lint(root).findings if f.code == "MNR202"]
    assert (finding.path, finding.line) == ("requirements.txt", 1)
    assert "torch==<version>" in finding.fix


def test_framework_missing_from_the_dependency_file(tmp_path: Path) -> None:
    root = write_project(tmp_path / "p", {"requirements.txt": "numpy==1.26.0\n"})
    (finding,) = [f for f in lint(root).findings if f.code == "MNR202"]
    assert "no dependency file lists it" in finding.message


@pytest.mark.parametrize(
    ("pin", "line", "fires"),
    [
        ("torch==1.4.0", "model = torch.compile(model)", True),
        ("torch>=1.4,<1.9", "with torch.inference_mode():", True),
        ("torch==2.1.0", "model = torch.compile(model)", False),
        ("torch>=1.4", "model = torch.compile(model)", False),
        ("torch==1.4.0", "def compile(model):  # torch.compile( in a comment", False),
    ],
)
def test_framework_versions_that_lack_an_api_the_code_calls(
    tmp_path: Path, pin: str, line: str, fires: bool
) -> None:
    train = TRAIN.replace("    optimizer = torch.optim", f"    {line}\n    optimizer = torch.optim")
    train = train.replace(":\n    optimizer", ":\n        pass\n    optimizer")
    root = write_project(tmp_path / "p", {"requirements.txt": pin + "\n", "train.py": train})
    found = [f for f in lint(root).findings if f.code == "MNR203"]
    assert bool(found) is fires
    if fires:
        assert found[0].path == "train.py" and pin in found[0].message


def test_tensorflow_1_code_under_a_tensorflow_2_pin(tmp_path: Path) -> None:
    code = (
        "import tensorflow as tf\nx = tf.placeholder(tf.float32, [None, 4])\nsess = tf.Session()\n"
    )
    compat = "import tensorflow.compat.v1 as tf\nx = tf.placeholder(tf.float32, [None, 4])\n"
    for name, text, fires in (("v1", code, True), ("compat", compat, False)):
        root = write_project(
            tmp_path / name,
            {"requirements.txt": "tensorflow>=2.4\n", "train.py": None, "model.py": text},
        )
        assert ("MNR203" in codes(root)) is fires, name


def test_python_version(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "")
    assert "MNR204" in codes(write_project(tmp_path / "p", {"README.md": readme}))
    pyproject = '[project]\nname = "t"\nrequires-python = ">=3.9"\n'
    stated = write_project(tmp_path / "q", {"README.md": readme, "pyproject.toml": pyproject})
    assert "MNR204" not in codes(stated)
    conda = "name: t\ndependencies:\n  - python=3.8\n  - pytorch=1.7\n"
    env = write_project(tmp_path / "r", {"README.md": readme, "environment.yml": conda})
    assert "MNR204" not in codes(env)


def test_data_source_unstated(tmp_path: Path) -> None:
    readme = COMPLETE_README.split("## Data")[0] + "## Training\n\n    python train.py\n"
    root = write_project(tmp_path / "p", {"README.md": readme, "prepare_data.py": None})
    assert "MNR301" in codes(root)


def test_seed_never_set(tmp_path: Path) -> None:
    train = "\n".join(line for line in TRAIN.splitlines() if "seed(" not in line)
    (finding,) = [
        f
        for f in lint(write_project(tmp_path / "p", {"train.py": train})).findings
        if f.code == "MNR401"
    ]
    assert finding.path == "train.py" and "torch.manual_seed" in finding.fix


def test_threads_left_default_where_numbers_are_claimed_reproducible(tmp_path: Path) -> None:
    train = TRAIN.replace("    torch.set_num_threads(args.threads)\n", "")
    root = write_project(tmp_path / "p", {"train.py": train})
    (finding,) = [f for f in lint(root).findings if f.code == "MNR402"]
    assert finding.path == "README.md" and "reproduce" in finding.evidence[0].text
    quiet = COMPLETE_README.replace("; we reproduce the paper's accuracy (99.1 %) this way", "")
    assert "MNR402" not in codes(
        write_project(tmp_path / "q", {"README.md": quiet, "train.py": train})
    )


def test_every_code_is_documented_and_reached_by_a_test() -> None:
    here = Path(__file__).read_text(encoding="utf-8")
    for rule in RULES:
        assert f'"{rule.code}"' in here, rule.code


def test_requirements_in_a_requirements_folder_are_a_dependency_file(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        {"requirements.txt": None, "requirements/base.txt": "torch>=2.0.1\nnumpy\n"},
    )
    assert "MNR202" not in codes(root)
    unpinned = write_project(
        tmp_path / "q", {"requirements.txt": None, "requirements/base.txt": "torch\nnumpy\n"}
    )
    (finding,) = [f for f in lint(unpinned).findings if f.code == "MNR202"]
    assert finding.path == "requirements/base.txt" and "is listed without" in finding.message


def test_deterministic_kernels_are_not_a_seed(tmp_path: Path) -> None:
    train = "\n".join(line for line in TRAIN.splitlines() if "seed(" not in line)
    kernels = train.replace(
        "    torch.set_num_threads",
        "    torch.backends.cudnn.deterministic = True\n    torch.set_num_threads",
    )
    assert "MNR401" in codes(write_project(tmp_path / "p", {"train.py": kernels}))
    seeded = kernels.replace(
        "    torch.set_num_threads",
        "    rng = np.random.RandomState(args.seed)\n    torch.set_num_threads",
    )
    assert "MNR401" not in codes(write_project(tmp_path / "q", {"train.py": seeded}))
