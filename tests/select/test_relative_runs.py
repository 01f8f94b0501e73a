"""A script that imports relatively runs as a module, from the folder its package needs."""

from __future__ import annotations

import subprocess
import sys

from miner.select.evidence import scan_checkout
from miner.select.relative_runs import relative_import

TRAIN = (
    "import sys\n\n"
    "from .models import Net\n\n"
    "if __name__ == '__main__':\n"
    "    print('loss', Net().loss(), sys.argv[1:])\n"
)
MODELS = "class Net:\n    def loss(self):\n        return 0.5\n"


def _run(argv: tuple[str, ...], cwd) -> subprocess.CompletedProcess[str]:  # type: ignore[no-untyped-def]
    argv = tuple(sys.executable if word == "{python}" else word for word in argv)
    return subprocess.run(argv, cwd=cwd, capture_output=True, text=True, timeout=60, check=False)


def test_only_the_imports_the_module_always_runs_count():
    assert relative_import("import os\nfrom . import utils\nfrom ..core import x\n") == (
        2, 3, "from ..core import x")  # fmt: skip
    guarded = "try:\n    from .models import Net\nexcept ImportError:\n    from models import Net\n"
    assert relative_import(guarded) is None  # the script form has its fallback
    assert relative_import("def f():\n    from .models import Net\n") is None
    assert relative_import("if True:\n    from .models import Net\n")[:2] == (1, 2)  # type: ignore[index]
    assert relative_import("print 'python 2'\n") is None


def test_a_readme_command_whose_script_imports_relatively_runs_as_a_module(tmp_path, make_checkout):
    files = {
        "README.md": "# Algo\n\n## Training\n\n```\npython algo/train.py --epochs 1\n```\n",
        "algo/train.py": TRAIN,  # no __init__.py: a namespace package
        "algo/models.py": MODELS,
    }
    root = make_checkout(tmp_path / "repo", files)
    entry = scan_checkout(root).entry_points[0]
    assert (entry.kind, entry.runner, entry.module) == ("readme_command", "module", "algo.train")
    assert entry.evidence[-1].rule == "relative_import_module"
    assert entry.evidence[-1].line == 3
    ran = _run(entry.command(), root)
    assert ran.returncode == 0, ran.stderr
    assert "loss 0.5 ['--epochs', '1']" in ran.stdout
    # as the README writes it, the run ends at the import
    as_written = _run(("{python}", "algo/train.py", "--epochs", "1"), root)
    assert "relative import" in as_written.stderr


def test_two_levels_up_start_at_the_root_when_the_sub_project_is_too_shallow(
    tmp_path, make_checkout
):  # type: ignore[no-untyped-def]
    files = {
        "README.md": "# Lab\n\nSee [algorithm](algorithm/README.md).\n",
        "algorithm/README.md": "# Training\n\n```\npython cls/train.py\n```\n",
        "algorithm/cls/train.py": "from ..core.models import Net\nprint('loss', Net().loss())\n",
        "algorithm/core/models.py": MODELS,
    }
    root = make_checkout(tmp_path / "repo", files)
    entry = scan_checkout(root).entry_points[0]
    assert (entry.runner, entry.module, entry.folder) == ("module", "algorithm.cls.train", "")
    ran = _run(entry.command(), root)
    assert ran.returncode == 0, ran.stderr
    assert "loss 0.5" in ran.stdout


def test_a_script_without_relative_imports_or_beyond_the_root_runs_as_written(
    tmp_path, make_checkout
):  # type: ignore[no-untyped-def]
    files = {
        "README.md": "# A\n\n```\npython train.py\npython tools/train_net.py\n```\n",
        "train.py": "from ..x import y\nprint('loss', 1)\n",  # beyond the checkout: nothing fits
        "tools/train_net.py": "import torch\nprint('loss', 1)\n",
    }
    root = make_checkout(tmp_path / "repo", files)
    runs = {e.script: (e.runner, e.module) for e in scan_checkout(root).entry_points}
    assert runs["train.py"] == ("python", "")
    assert runs["tools/train_net.py"] == ("python", "")
