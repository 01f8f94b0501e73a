"""The smoke ladder on fixture projects: each stage S0..S6 reached, and each outcome of its own
(python2, no_entry, usage, needs_gpu, needs_weights, needs_data, README placeholders)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from smoke_projects import TINYFIT, build_wheel, train

from miner.codebook import Evidence
from miner.select.smoke import SmokeOptions, SmokeResult, SmokeTarget, smoke

ARGS = (
    "import argparse\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('--data', required=True)\n"
    "args = parser.parse_args()\n"
)
# A required argument no run can make up (a configuration file): `usage` stands.
CONFIG_ARGS = ARGS.replace("'--data', required=True", "'--cfg', required=True")
LOOP = (
    "import tinyfit\n"
    "model = tinyfit.Model(seed=1)\n"
    "step = 0\n"
    "while True:\n"
    "    step += 1\n"
    "    print(f'step {step} loss {model.step([1.0], [2.0], lr=0.001):.4f}')\n"
)
# A loop that prints nothing: the optimizer's step is the evidence (the hook's `step` mark).
SILENT = "import torch\noptimizer = torch.optim.SGD([1.0])\nwhile True:\n    optimizer.step()\n"
# The modules of PyTorch the stage hook watches, shaped as PyTorch has them.
TORCH = {
    "torch/__init__.py": "from torch import optim\n",
    "torch/optim/__init__.py": "from torch.optim.sgd import SGD\n",
    "torch/optim/optimizer.py": "class Optimizer:\n    def __init__(self, params):\n"
    "        self.params = params\n",
    "torch/optim/sgd.py": "from torch.optim.optimizer import Optimizer\n"
    "class SGD(Optimizer):\n    def step(self, closure=None):\n        return None\n",
}
# name -> (files, command, expected outcome, expected stage)
LADDER: dict[str, tuple[dict[str, str], tuple[str, ...], str, int]] = {
    "no-entry": ({}, ("{python}", "train.py"), "no_entry", -1),
    "python2": ({"train.py": "import model\n", "model.py": "print 'loading'\n"},
                ("{python}", "train.py"), "python2", -1),
    "pinned": ({"requirements.txt": "tinyfit==9.9\n", "train.py": train()},
               ("{python}", "train.py"), "install", 0),
    "undeclared": ({"train.py": "import tensorflow\n"}, ("{python}", "train.py"), "import", 1),
    "usage": ({"train.py": CONFIG_ARGS + train()}, ("{python}", "train.py"), "usage", 2),
    "csv-missing": ({"train.py": ARGS + "open(args.data + '/train.csv').read()\n"},
                    ("{python}", "train.py", "--data", "data"), "needs_data", 3),
    "crash-after-data": (
        {"data/points.csv": "0,0\n1,2\n", "train.py": ARGS + "rows = open(args.data).read()\n"
         "raise ValueError('shapes (3,) and (4,) not aligned')\n"},
        ("{python}", "train.py", "--data", "data/points.csv"), "runtime", 4),
    "step": ({"requirements.txt": "tinyfit==0.1\n", "train.py": LOOP},
             ("{python}", "train.py"), "ok", 5),
    "silent-step": ({"requirements.txt": "torch==0.0.1\n", "train.py": SILENT},
                    ("{python}", "train.py"), "ok", 5),
    "fits": ({"requirements.txt": "tinyfit==0.1\n", "train.py": train()},
             ("{python}", "train.py"), "ok", 6),
    "weights": ({"train.py": "open('pretrained/resnet50.pth', 'rb').read()\n"},
                ("{python}", "train.py"), "needs_weights", 3),
    # a folder outside the copy is not made: the run stops writing into it
    "output-folder": ({"train.py": "open('/nonexistent-miner-out/log.txt', 'w').write('x')\n"},
                      ("{python}", "train.py"), "runtime", 3),
}  # fmt: skip


@pytest.fixture(scope="module")
def wheels(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("wheels")
    build_wheel(folder, "tinyfit", "0.1", {"tinyfit/__init__.py": TINYFIT})
    build_wheel(folder, "torch", "0.0.1", TORCH)
    return folder


def run(
    tmp_path: Path, wheels: Path, files: dict[str, str], command: tuple[str, ...], **extra
) -> SmokeResult:
    checkout = tmp_path / "checkout"
    for rel, text in files.items():
        if rel == "requirements.txt":
            text = f"--no-index\n--find-links {wheels}\n" + text
        (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
        (checkout / rel).write_text(text, encoding="utf-8")
    checkout.mkdir(exist_ok=True)
    env = {**os.environ, "UV_OFFLINE": "1", "UV_CACHE_DIR": str(tmp_path / "uv-cache")}
    until = extra.pop("until", "step")
    stand_ins = extra.pop("stand_in_data", True)
    target = SmokeTarget(
        full_name="lab/ladder", repo_id=1, commit_sha="0" * 40, checkout=checkout,
        command=command, weights=("*.pt",),
        environment_files=(("requirements.txt", "requirements_file"),)
        if "requirements.txt" in files else (),
        **extra,
    )  # fmt: skip
    options = SmokeOptions(
        out_dir=tmp_path / "smoke", timeout=60, env=env, until=until, stand_in_data=stand_ins
    )
    seen: list[str] = []
    result = smoke(target, options, on_stage=lambda name, stage: seen.append(stage))
    assert [s for s in seen if s != "start"] == sorted(set(seen)), seen  # in order, once each
    return result


@pytest.mark.parametrize("name", sorted(LADDER))
def test_each_fixture_stops_at_its_stage(name, tmp_path, wheels):
    files, command, outcome, stage = LADDER[name]
    result = run(tmp_path, wheels, files, command, until="end" if name == "fits" else "step")
    assert (result.outcome, result.stage) == (outcome, stage), result.evidence
    stored = json.loads(Path(result.log_dir, "smoke.json").read_text())
    assert stored["stage"] == (f"S{stage}" if stage >= 0 else "-")
    assert set(result.stage_seconds) == {f"S{i}" for i in range(stage + 1)}
    assert all(seconds >= 0 for seconds in result.stage_seconds.values())
    assert result.as_row()["stage"] == stage


def test_each_outcome_names_its_evidence(tmp_path, wheels):
    files, command, *_ = LADDER["usage"]
    usage = run(tmp_path / "u", wheels, files, command)
    assert usage.evidence.text.endswith("error: the following arguments are required: --cfg")
    files, command, *_ = LADDER["python2"]
    py2 = run(tmp_path / "p", wheels, files, command)
    assert (py2.evidence.path, py2.evidence.line, py2.evidence.text) == (
        "model.py",
        1,
        "print 'loading'",
    )
    files, command, *_ = LADDER["output-folder"]
    output = run(tmp_path / "o", wheels, files, command)
    assert output.evidence.rule == "smoke.runtime.output_folder"


def test_a_folder_the_run_saves_into_is_made_in_the_copy_and_the_run_trains(tmp_path, wheels):
    # git keeps no empty folder: `weights/` is missing from a fresh copy, and os.mkdir of its
    # sub-folder fails as a missing path would
    save = "import os\nos.mkdir('weights/run320/')\nopen('weights/run320/log.txt', 'w')\n"
    files = {"requirements.txt": "tinyfit==0.1\n", "train.py": save + LOOP}
    result = run(tmp_path, wheels, files, ("{python}", "train.py"))
    assert (result.outcome, result.stage) == ("ok", 5), result.evidence
    assert any(n.startswith("output folder: made weights/,") for n in result.notes), result.notes
    assert not (tmp_path / "checkout" / "weights").exists()  # the checkout itself is untouched


def test_the_first_step_stops_the_run(tmp_path, wheels):
    files, command, *_ = LADDER["step"]
    result = run(tmp_path, wheels, files, command)
    assert result.outcome == "ok" and result.evidence.rule == "smoke.ok.step"
    assert result.evidence.text.startswith("step ") and result.train_seconds < 60
    marks = Path(result.log_dir, "stages.txt")
    assert not marks.exists() or "args" not in marks.read_text()


def test_a_silent_first_step_stops_the_run_with_the_mark_as_evidence(tmp_path, wheels):
    files, command, *_ = LADDER["silent-step"]
    result = run(tmp_path, wheels, files, command)
    assert (result.evidence.path, result.evidence.rule) == ("stages.txt", "smoke.ok.step_mark")
    assert result.evidence.text == "an optimisation step returned: SGD.step"
    assert result.train_seconds < 60


def test_readme_placeholders_mark_the_run_as_needing_data(tmp_path, wheels):
    files, _, *_ = LADDER["usage"]
    readme = Evidence("README.md", 12, "python train.py --cfg path/to/config.yaml",
                      "readme_command")  # fmt: skip
    result = run(
        tmp_path, wheels, files, ("{python}", "train.py"),
        placeholders=("--cfg path/to/config.yaml",), entry_evidence=readme,
    )  # fmt: skip
    assert result.outcome == "needs_data"
    assert (result.evidence.path, result.evidence.line) == ("README.md", 12)
    assert result.evidence.rule == "smoke.needs_data.placeholder"
    assert "--cfg path/to/config.yaml" in result.evidence.text
    assert any("required: --cfg" in note for note in result.notes)
    assert result.stage == 2


def test_hard_coded_cuda_needs_a_gpu(tmp_path, wheels):
    files = {"requirements.txt": "tinyfit==0.1\n",
             "train.py": "import tinyfit\ntinyfit.Model().cuda()\n"}  # fmt: skip
    result = run(tmp_path, wheels, files, ("{python}", "train.py"))
    assert (result.outcome, result.stage) == ("needs_gpu", 3)


NO_CUDA = (
    "import argparse\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('--no-cuda', action='store_true', help='disables CUDA training')\n"
    "args = parser.parse_args()\n"
    "import tinyfit\n"
    "model = tinyfit.Model(seed=1)\n"
    "if not args.no_cuda:\n"
    "    model = model.cuda()\n"
    "for step in range(3):\n"
    "    print(f'step {step} loss {model.step([1.0], [2.0]):.4f}')\n"
)


def test_a_script_with_its_own_cpu_option_trains_on_the_cpu_with_it(tmp_path, wheels):
    files = {"requirements.txt": "tinyfit==0.1\n", "main.py": NO_CUDA}
    result = run(tmp_path, wheels, files, ("{python}", "main.py"))
    assert (result.outcome, result.stage) == ("ok", 6)  # its three steps end
    assert "cpu option: --no-cuda (declared at main.py:3)" in result.notes
    assert not any(note.startswith("cpu shim") for note in result.notes)


def test_a_command_that_changes_into_an_examples_folder_imports_the_roots_package(tmp_path, wheels):
    files = {
        "requirements.txt": "tinyfit==0.1\n", "fitpkg/__init__.py": "RATE = 0.1\n",
        "examples/voc/train.py": "import fitpkg\n" + LOOP,
    }  # fmt: skip
    command = ("sh", "-c", 'cd examples/voc && exec "$@"', "sh", "{python}", "train.py")
    result = run(tmp_path, wheels, files, command)
    assert result.outcome == "ok", result.evidence


BF16 = (
    "import argparse\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('--bf16', default='False')\n"
    "args = parser.parse_args()\n"
    "if args.bf16 == 'True':\n"
    '    raise ValueError("Your setup doesn\'t support bf16/gpu. You need to assign use_cpu if "\n'
    '                     "you want to train the model on CPU.")\n'
) + LOOP


def test_a_half_precision_switch_a_cpu_refuses_is_dropped(tmp_path, wheels):
    files = {"requirements.txt": "tinyfit==0.1\n", "sft.py": BF16}
    result = run(tmp_path, wheels, files, ("{python}", "sft.py", "--bf16", "True"))
    assert result.outcome == "ok", result.evidence
    assert "cpu precision: full precision on the CPU (--bf16 True)" in result.notes


def test_a_nested_projects_root_holding_the_imported_package_is_on_the_path(tmp_path, wheels):
    files = {
        "requirements.txt": "tinyfit==0.1\n", "OCR-master/GOT/__init__.py": "",
        "OCR-master/GOT/model.py": "RATE = 0.1\n",
        "OCR-master/GOT/train/train.py": "from GOT.model import RATE\n" + LOOP,
    }  # fmt: skip
    result = run(tmp_path, wheels, files, ("{python}", "OCR-master/GOT/train/train.py"))
    assert result.outcome == "ok", result.evidence
    assert "path: OCR-master on sys.path (a nested project's root)" in result.notes


def test_a_package_is_no_projects_root_and_its_subpackages_shadow_nothing(tmp_path, wheels):
    files = {
        "requirements.txt": "tinyfit==0.1\n", "setup.py": "from setuptools import setup\n",
        "dinov2/__init__.py": "", "dinov2/logging/__init__.py": "import dinov2.run\n",
        "dinov2/run/__init__.py": "",
        "dinov2/run/train/train.py": "import logging\nlogging.NullHandler()\n"
        "import dinov2.logging\n" + LOOP,
    }  # fmt: skip
    result = run(tmp_path, wheels, files, ("{python}", "dinov2/run/train/train.py"))
    assert result.outcome == "ok", result.evidence
    assert not [n for n in result.notes if n.startswith("path: dinov2 on sys.path")]


def test_a_project_a_folder_installs_is_on_the_path_as_its_install_would_put_it(tmp_path, wheels):
    files = {
        "requirements.txt": "tinyfit==0.1\n",
        "torchlight/setup.py": "from setuptools import setup\n",
        "torchlight/torchlight/__init__.py": "def import_class(name):\n    return name\n",
        "main.py": "import torchlight\nfrom torchlight import import_class\n" + LOOP,
    }  # fmt: skip
    result = run(tmp_path, wheels, files, ("{python}", "main.py"))
    assert result.outcome == "ok", result.evidence
    assert "path: torchlight on sys.path (a nested project's root)" in result.notes


GIT_HASH = (
    "import subprocess\n"
    "commit = subprocess.check_output(['git', 'log', '-n', '1', '--pretty=%h']).decode().strip()\n"
    "print('commit', commit)\n"
) + LOOP


def test_code_that_logs_its_git_commit_runs_in_a_copy_made_a_repository(tmp_path, wheels):
    files = {"requirements.txt": "tinyfit==0.1\n", "train.py": GIT_HASH}
    result = run(tmp_path, wheels, files, ("{python}", "train.py"))
    assert result.outcome == "ok", result.evidence
    assert any(note.startswith("git: the copy made a repository") for note in result.notes)
    assert not (tmp_path / "checkout" / ".git").exists()  # the checkout itself is untouched


OUTPUT_ARGS = (
    "import argparse, os\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('--outdir', required=True)\n"
    "args = parser.parse_args()\n"
    "open(os.path.join(args.outdir, 'log.txt'), 'w').write('started')\n"
)


def test_a_required_output_folder_is_given_one_and_the_run_trains(tmp_path, wheels):
    files = {"requirements.txt": "tinyfit==0.1\n", "train.py": OUTPUT_ARGS + LOOP}
    result = run(tmp_path, wheels, files, ("{python}", "train.py"))
    assert (result.outcome, result.stage) == ("ok", 5), result.evidence
    assert "--outdir" in result.command and "/outputs/outdir" in result.command
    assert any("--outdir given an output folder of the run" in n for n in result.notes)
    assert Path(result.log_dir, "outputs", "outdir", "log.txt").read_text() == "started"


CHOICE_ARGS = (
    "import argparse\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('--task', choices=['m4', 'kcg', 'dummy'], required=True)\n"
    "args = parser.parse_args()\n"
    "assert args.task == 'dummy', args.task\n"
)


def test_a_required_choice_is_given_the_toy_one_its_parser_lists(tmp_path, wheels):
    files = {"requirements.txt": "tinyfit==0.1\n", "train.py": CHOICE_ARGS + LOOP}
    result = run(tmp_path, wheels, files, ("{python}", "train.py"))
    assert (result.outcome, result.stage) == ("ok", 5), result.evidence
    assert result.command.endswith("--task dummy"), result.command
    assert any("--task given a choice its parser lists: dummy" in n for n in result.notes)


def test_a_required_data_path_gets_a_stand_in_path_and_needs_data_without_a_loader(
    tmp_path, wheels
):
    files = {"train.py": ARGS.replace("'--data'", "'--data_root'")
             + "open(args.data_root + '/train.csv').read()\n"}  # fmt: skip
    result = run(tmp_path, wheels, files, ("{python}", "train.py"))
    assert (result.outcome, result.stage) == ("needs_data", 3), result.evidence
    assert "stand-in-data/data-root/train.csv" in result.evidence.text
    assert "required: --data_root" in Path(result.log_dir, "train.1.log").read_text()
    assert any("--data_root given a stand-in data path" in n for n in result.notes)


def test_a_readme_output_placeholder_is_a_folder_that_exists(tmp_path, wheels):
    files = {"requirements.txt": "tinyfit==0.1\n",
             "train.py": OUTPUT_ARGS.replace("required=True", "default=None") + LOOP}  # fmt: skip
    command = ("{python}", "train.py", "--outdir", "{run_dir}/outputs/output")
    result = run(tmp_path, wheels, files, command, placeholders=("--outdir <OUTPUT_DIR>",))
    assert (result.outcome, result.stage) == ("ok", 5), result.evidence
    assert Path(result.log_dir, "outputs", "output", "log.txt").exists()


SLURM_SCRIPT = (
    "#!/bin/bash\n"
    "PARTITION=$1\n"
    "srun -p ${PARTITION} --job-name=fit --gres=gpu:8 --ntasks 8 --ntasks-per-node=8 \\\n"
    "    --kill-on-bad-exit=1 --quotatype reserved python -u train.py --lr 0.001\n"
)
SLURM_TRAIN = (
    "import os, subprocess, sys\n"
    "rank, world = int(os.environ['SLURM_PROCID']), int(os.environ['SLURM_NTASKS'])\n"
    "host = subprocess.getoutput('scontrol show hostname ' + os.environ['SLURM_NODELIST'])\n"
    "print('rank', rank, 'of', world, 'on', host, 'args', sys.argv[1:])\n"
) + LOOP


LAUNCHED_TRAIN = (
    "import os, sys\n"
    "rank, world = int(os.environ['RANK']), int(os.environ['WORLD_SIZE'])\n"
    "local = int(os.environ['LOCAL_RANK'])\n"
    "address = os.environ['MASTER_ADDR'] + ':' + os.environ['MASTER_PORT']\n"
    "print('worker', rank, 'of', world, 'local', local, 'at', address)\n"
) + LOOP


def test_a_command_written_for_a_distributed_launcher_runs_as_its_one_worker(tmp_path, wheels):
    files = {"requirements.txt": "tinyfit==0.1\n", "train.py": LAUNCHED_TRAIN}
    written = "torchrun --nnodes=1 --nproc_per_node=8 train.py --lr 0.1"
    evidence = Evidence("README.md", 12, written, "smoke.entry.readme")
    result = run(tmp_path, wheels, files, ("{python}", "train.py", "--lr", "0.1"),
                 entry_evidence=evidence)  # fmt: skip
    assert (result.outcome, result.stage) == ("ok", 5), result.evidence
    log = Path(result.log_dir, "train.log").read_text()
    assert "worker 0 of 1 local 0 at 127.0.0.1:" in log
    assert any(n.startswith("launcher: the README's command starts through") for n in result.notes)
    # Without a launcher in the README's command, nothing of the kind is set.
    plain = run(tmp_path / "plain", wheels, files, ("{python}", "train.py"),
                entry_evidence=Evidence("README.md", 12, "python train.py", "r"))  # fmt: skip
    assert plain.outcome != "ok" and "KeyError: 'RANK'" in Path(
        plain.log_dir, "train.log").read_text()  # fmt: skip


LAUNCHER_SCRIPT = (
    "#!/bin/bash\n"
    "deepspeed --include localhost:0,1 --master_port 29511 train.py --deepspeed ds.json \\\n"
    "    --lr 0.1\n"
    "torchrun --nproc_per_node=4 --standalone train.py --lr 0.2\n"
)
LOCAL_RANK_TRAIN = (
    "import argparse, os\n"
    "parser = argparse.ArgumentParser()\n"
    "parser.add_argument('--lr'); parser.add_argument('--deepspeed')\n"
    "parser.add_argument('--local_rank', type=int, default=-1)\n"
    "args = parser.parse_args()\n"
    "print('lr', args.lr, 'local_rank', args.local_rank, 'world', os.environ['WORLD_SIZE'],"
    " 'port', os.environ['MASTER_PORT'])\n"
) + LOOP


@pytest.mark.parametrize(
    ("script", "train", "argv", "printed"),
    [
        # srun on a machine without SLURM: its command runs once, as task 0 of 1
        (SLURM_SCRIPT, SLURM_TRAIN, ("bash", "train.sh", "dev"),
         "rank 0 of 1 on localhost args ['--lr', '0.001']"),
        # deepspeed's own launcher stops where there is no GPU; its stand-in runs the script
        (LAUNCHER_SCRIPT, LOCAL_RANK_TRAIN, ("bash", "train.sh"),
         "lr 0.1 local_rank 0 world 1 port 29511"),
    ],
)  # fmt: skip
def test_a_launcher_inside_a_script_runs_its_command_once_here(
    tmp_path, wheels, script, train, argv, printed
):
    files = {"requirements.txt": "tinyfit==0.1\n", "train.sh": script, "train.py": train}
    result = run(tmp_path, wheels, files, argv)
    assert (result.outcome, result.stage) == ("ok", 5), result.evidence
    assert printed in Path(result.log_dir, "train.log").read_text()


READS_ETT = (
    "import csv\n"
    "rows = list(csv.reader(open('./data/ETT/ETTh1.csv')))\n"
    "assert rows[0][-1] == 'OT' and len(rows) > 14400, 'Informer borders'\n"
)


def test_a_public_data_set_missing_at_its_path_gets_stand_in_files_and_the_run_trains(
    tmp_path, wheels
):
    files = {"requirements.txt": "tinyfit==0.1\n", "train.py": READS_ETT + LOOP}
    result = run(tmp_path, wheels, files, ("{python}", "train.py"))
    assert (result.outcome, result.stage, result.qualifier) == ("ok", 5, "stand-in data")
    assert "No such file or directory: './data/ETT/ETTh1.csv'" in Path(
        result.log_dir, "train.1.log").read_text()  # fmt: skip
    assert any(n.startswith("stand-in files: 1 written at data/ETT/ETTh1.csv after") for n
               in result.notes)  # fmt: skip
    assert any(line.startswith("stand-in: files: ETTh1.csv") for line in result.assist_evidence)


def test_without_stand_in_data_a_missing_public_data_set_stays_needs_data(tmp_path, wheels):
    files = {"requirements.txt": "tinyfit==0.1\n", "train.py": READS_ETT + LOOP}
    result = run(tmp_path, wheels, files, ("{python}", "train.py"), stand_in_data=False)
    assert (result.outcome, result.stage) == ("needs_data", 3)
    assert not any("stand-in files" in n for n in result.notes)


def test_each_data_set_a_script_missed_on_its_way_gets_stand_in_files(tmp_path, wheels):
    # one training command per data set, each failing for its file and the script going on
    read = "import sys\nprint(len(open('./data/ETT/' + sys.argv[1]).read()))\n"
    check = (
        "import os\nnames = ('ETTh1.csv', 'ETTm1.csv')\n"
        "assert all(os.path.exists('./data/ETT/' + n) for n in names), 'a data set is missing'\n"
    )
    script = "python read.py ETTh1.csv\npython read.py ETTm1.csv\npython train.py\n"
    files = {"requirements.txt": "tinyfit==0.1\n", "read.py": read, "train.py": check + LOOP,
             "run.sh": script}  # fmt: skip
    result = run(tmp_path, wheels, files, ("bash", "run.sh"))
    assert (result.outcome, result.stage, result.qualifier) == ("ok", 5, "stand-in data")
    written = [n for n in result.notes if n.startswith("stand-in files:")]
    assert [n.split(" after ")[0] for n in written] == [
        "stand-in files: 1 written at data/ETT/ETTh1.csv",
        "stand-in files: 1 written at data/ETT/ETTm1.csv",
    ]  # both in one rerun
    assert not Path(result.log_dir, "train.2.log").exists()
