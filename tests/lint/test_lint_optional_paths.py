"""Code training never runs by default: opt-in GPU backends, self-tests, seeds under aliases."""

from __future__ import annotations

from pathlib import Path

from lint_projects import COMPLETE_README, TRAIN, write_project

from miner.lint import LintOptions, lint

NO_GPU_README = COMPLETE_README.replace(
    "Trained on one NVIDIA RTX 3090 (24 GB) in about ten minutes.", ""
)
CPU_TRAIN = TRAIN.replace('"cuda" if torch.cuda.is_available() else "cpu"', '"cpu"')
BACKEND = """import torch
from torch import nn


class ValueNet:
    def __init__(self, size, use_gpu=False):
        self.use_gpu = use_gpu
        if self.use_gpu:
            self.net = nn.Linear(size, 1).cuda()
        else:
            self.net = nn.Linear(size, 1)

    def value(self, x):
        return self.net(x.cuda() if self.use_gpu else x)
"""


def codes(root: Path) -> list[str]:
    """Every code's findings, opt-in codes too."""
    return [f.code for f in lint(root, LintOptions(select=("MNR",))).findings]


def test_a_gpu_backend_behind_a_flag_that_defaults_to_false(tmp_path: Path) -> None:
    readme = NO_GPU_README + "\nTo train on a GPU, set use_gpu=True in value_net.py.\n"
    files = {"README.md": readme, "train.py": CPU_TRAIN, "value_net.py": BACKEND}
    assert "MNR101" not in codes(write_project(tmp_path / "p", files))
    # turned on by the training code, or by the documented command: the GPU is used
    caller = CPU_TRAIN.replace(
        "    model = Net()", "    net = ValueNet(8, use_gpu=True)\n    model = Net()"
    )
    turned_on = {**files, "train.py": caller}
    assert "MNR101" in codes(write_project(tmp_path / "q", turned_on))
    flag = BACKEND.replace("use_gpu", "cuda")
    passed = {**files, "value_net.py": flag, "README.md": readme + "\n    python train.py --cuda\n"}
    assert "MNR101" in codes(write_project(tmp_path / "r", passed))
    # a flag that defaults to True is the default path
    default_on = {**files, "value_net.py": BACKEND.replace("use_gpu=False", "use_gpu=True")}
    assert "MNR101" in codes(write_project(tmp_path / "s", default_on))


SWITCH_TRAIN = (
    "import argparse\n\nimport torch\n\nparser = argparse.ArgumentParser()\n"
    "parser.add_argument('--use-cuda', action='store_true', default=False, help='Use the GPU')\n"
    "args = parser.parse_args()\nmodel = torch.nn.Linear(4, 1)\nif args.use_cuda:\n"
    "    model = model.cuda()\nopt = torch.optim.SGD(model.parameters(), lr=0.1)\n"
    "loss = model(torch.ones(2, 4)).sum()\nloss.backward()\nopt.step()\n"
)


def test_a_gpu_switch_that_is_off_unless_given(tmp_path: Path) -> None:
    readme = NO_GPU_README + "\n    python train.py\n"
    files = {"README.md": readme, "train.py": SWITCH_TRAIN}
    assert "MNR101" not in codes(write_project(tmp_path / "p", files))
    given = {**files, "README.md": NO_GPU_README + "\n    python train.py --use-cuda\n"}
    assert "MNR101" in codes(write_project(tmp_path / "q", given))
    script = {**files, "run.sh": "python train.py --use-cuda --epochs 3\n"}
    assert "MNR101" in codes(write_project(tmp_path / "r", script))


def test_a_switch_declared_in_one_file_and_tested_in_another(tmp_path: Path) -> None:
    arguments = (
        "import argparse\n\ndef get_args():\n    parser = argparse.ArgumentParser()\n"
        "    parser.add_argument('--cuda', action='store_true', help='use the gpu')\n"
        "    return parser.parse_args()\n"
    )
    agent = SWITCH_TRAIN.replace("parser.add_argument('--use-cuda', action='store_true', "
                                 "default=False, help='Use the GPU')\n", "")  # fmt: skip
    agent = agent.replace("if args.use_cuda:", "if self.args.cuda:")
    offered = NO_GPU_README + "\nIf you want to use GPU, just add the flag `--cuda`.\n"
    files = {"README.md": offered, "arguments.py": arguments, "train.py": agent}
    assert "MNR101" not in codes(write_project(tmp_path / "p", files))
    command = {**files, "README.md": NO_GPU_README + "\n    python train.py --cuda\n"}
    assert "MNR101" in codes(write_project(tmp_path / "q", command))


UNSEEDED = (
    TRAIN.replace("    torch.manual_seed(args.seed)\n", "")
    .replace("    random.seed(args.seed)\n", "")
    .replace("    np.random.seed(args.seed)\n", "")
)


def test_a_random_module_seeded_under_another_name(tmp_path: Path) -> None:
    train = UNSEEDED.replace("import random\n", "import random\n\nfrom pairs import Pairs\n")
    for n, binding in enumerate(
        (
            "import random\n\nsample_random = random.Random()\nsample_random.seed(123456)\n",
            "import random as rnd\n\nrnd.seed(7)\n",
            "import numpy as np\n\nstate = np.random.RandomState()\nstate.seed(3)\n",
        )
    ):
        dataset = binding + "\n\nclass Pairs:\n    pass\n"
        files = {"train.py": train, "pairs.py": dataset}
        assert "MNR401" not in codes(write_project(tmp_path / f"p{n}", files))
    unseeded = "import random\n\nsample_random = random.Random()\n\n\nclass Pairs:\n    pass\n"
    files = {"train.py": train, "pairs.py": unseeded}
    assert "MNR401" in codes(write_project(tmp_path / "q", files))


def test_a_helper_s_self_test_is_not_the_training_it_cites(tmp_path: Path) -> None:
    helper = (
        "import torch\n\n\ndef warmup(lr, step):\n    return lr * min(1.0, step / 100)\n\n\n"
        "if __name__ == '__main__':\n\n    class Net(torch.nn.Module):\n        pass\n\n"
        "    optimizer = torch.optim.SGD(Net().parameters(), lr=0.01)\n"
        "    print(warmup(0.01, 5))\n"
    )
    # the trainer builds its model from a library; the helper's self-test defines one
    start, end = UNSEEDED.index("class Net"), UNSEEDED.index("def main")
    train = UNSEEDED[:start] + "def Net():\n    return nn.Linear(1, 10)\n\n\n" + UNSEEDED[end:]
    train = train.replace(
        "import random\n", "import random\n\nfrom utils.lr_helper import warmup\n"
    )
    files = {"train.py": None, "tools/train_net.py": train, "utils/lr_helper.py": helper}
    root = write_project(tmp_path / "p", files)
    (finding,) = [f for f in lint(root).findings if f.code == "MNR401"]
    assert finding.path == "tools/train_net.py"
