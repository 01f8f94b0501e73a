"""Entry points: the README's training command (continued lines, ./script and bash forms,
placeholders), else a training script chosen from evidence, never a demo or a helper."""

from __future__ import annotations

from pathlib import Path

from miner.select.build import run_section
from miner.select.entry import joined_lines, readme_commands
from miner.select.evidence import scan_checkout

PATHS = frozenset({"train.py", "main.py", "demo.py", "scripts/train_cifar.sh", "run.sh",
                   "tools/train_net.py", "pkg/train.py", "plot_results.py"})  # fmt: skip


def commands(text: str, doc: str = "README.md"):
    return readme_commands(doc, text, PATHS)


def test_continued_lines_are_joined_and_keep_every_argument():
    text = (
        "## Training\n\n```bash\n"
        "CUDA_VISIBLE_DEVICES=0 python train.py \\\n"
        "    --epochs 2 \\\n"
        "    --lr 0.1 > log.txt\n```\n"
    )
    assert joined_lines("a \\\nb\nc") == [(1, "a b"), (3, "c")]
    # a comment after the backslash: the author meant the command to go on
    commented = "python -m pkg.train exp \\  # experiment name\n    --conf c.yaml\n"
    assert joined_lines(commented) == [(1, "python -m pkg.train exp --conf c.yaml")]
    [command] = commands(text)
    assert (command.line, command.script, command.args) == (
        4,
        "train.py",
        ("--epochs", "2", "--lr", "0.1"),
    )
    assert command.runner == "python" and command.placeholders == ()


def test_a_line_that_opens_with_a_code_span_runs_what_is_in_it():
    text = "## Train\n\n```python train.py -e run_001``` (```-e,--exp``` names the experiment)\n"
    [command] = commands(text)
    assert (command.script, command.args) == ("train.py", ("-e", "run_001"))
    # prose around a span further on: the whole line is read first, as before
    [later] = commands("Then run python train.py --lr 0.1 to train (see `--help`).\n")
    assert (later.script, later.args[:2]) == ("train.py", ("--lr", "0.1"))


def test_shell_and_module_forms():
    found = commands(
        "$ bash scripts/train_cifar.sh 4\n"
        "./run.sh --fast\n"
        "python -m pkg.train --type train\n"
        "python3 -u tools/train_net.py --cfg a.yaml\n"
    )
    assert [(c.runner, c.script, c.args) for c in found] == [
        ("shell", "scripts/train_cifar.sh", ("4",)),
        ("shell", "run.sh", ("--fast",)),
        ("module", "pkg/train.py", ("--type", "train")),
        ("python", "tools/train_net.py", ("--cfg", "a.yaml")),
    ]
    assert found[2].module == "pkg.train"


def test_a_shell_script_named_after_its_model_trains_when_it_runs_a_training_script():
    scripts = {
        "scripts/ETT_script/Autoformer_ETTm1.sh": "export CUDA_VISIBLE_DEVICES=0\n\n"
        "python -u run.py \\\n  --is_training 1 \\\n  --data ETTm1\n",
        "scripts/Weather_script/Informer.sh": "# python run.py is the entry\necho weather\n",
        "scripts/plots/Autoformer_figures.sh": "python plot_results.py --all\n",
    }
    paths = PATHS | set(scripts) | {"run.py"}
    text = "".join(f"bash ./{script}\n" for script in scripts)
    found = readme_commands("README.md", text, paths, scripts.get)
    # a comment naming a script runs nothing; a script that only plots trains nothing
    assert [c.script for c in found] == ["scripts/ETT_script/Autoformer_ETTm1.sh"]
    assert readme_commands("README.md", text, paths) == []  # unread, the name decides


def test_a_python_program_without_a_suffix_is_run_with_python():
    files = {"train": "#!/usr/bin/python3\nimport argparse\n", "test": "#!/usr/bin/python3\n",
             "download_dataset": "#!/bin/bash\nwget $1\n", "output": None}  # fmt: skip
    text = ("./download_dataset horse2zebra\n./train --dataroot datasets/horse2zebra/ --cuda\n"
            "./test --dataroot datasets/horse2zebra/\n./output\n")  # fmt: skip
    found = readme_commands("README.md", text, PATHS | set(files), files.get)
    assert [(c.runner, c.script, c.args) for c in found] == [
        ("python", "train", ("--dataroot", "datasets/horse2zebra/", "--cuda")),
    ]  # a shell program and a test are not training; a file that is not there is nothing


def test_help_demos_and_plots_are_never_taken():
    assert commands("python main.py -h\npython train.py --help\n") == []
    assert commands("python demo.py --image x.jpg\npython plot_results.py\n") == []


def test_a_command_inside_prose_is_found():
    [command] = commands("To train, run `python train.py --epochs 3`, then evaluate.")
    assert command.args == ("--epochs", "3")


def test_a_quoted_command_and_absolute_paths():
    [command] = commands('run "python train.py --data_path=/data/tweets.csv --rows 5"\n')
    assert command.args == ("--data_path={run_dir}/stand-in-data/tweets.csv", "--rows", "5")
    assert command.placeholders == ("--data_path=/data/tweets.csv",)


def test_a_path_in_the_authors_home_is_a_placeholder():
    [command] = commands("python train.py --outdir=~/training-runs --data=~/datasets/afhq.zip\n")
    assert command.args == (
        "--outdir={run_dir}/outputs/training-runs", "--data={run_dir}/stand-in-data/afhq.zip"
    )  # fmt: skip
    assert command.placeholders == ("--outdir=~/training-runs", "--data=~/datasets/afhq.zip")


def test_the_readme_command_that_trains_comes_first(tmp_path):
    root = write(tmp_path, {
        "README.md": "python main.py --mode=generate\n\npython main.py --mode=train\n",
        "main.py": "import argparse\n",
    })  # fmt: skip
    assert scan_checkout(root).entry_points[0].args == ("--mode=train",)


def test_a_script_that_fetches_weights_or_data_is_no_training_command(tmp_path):
    readme = (
        "Fetch the teachers:\n\n    sh scripts/fetch_pretrained_teachers.sh\n\n"
        "Then train a student:\n\n    python train_student.py --distill kd --model_s resnet8x4\n"
    )
    root = write(tmp_path, {
        "README.md": readme, "scripts/fetch_pretrained_teachers.sh": "wget http://x/ckpt.pth\n",
        "scripts/get_data.sh": "wget http://x/data.zip\n",
        "train_student.py": "import argparse\nif __name__ == '__main__':\n    loss.backward()\n",
    })  # fmt: skip
    assert scan_checkout(root).entry_points[0].script == "train_student.py"
    from miner.select.entry import is_training_script

    for name in ("fetch_pretrained_teachers.sh", "get_data.sh", "fetch.py"):
        assert not is_training_script(name), name
    assert is_training_script("target_train.py") and is_training_script("budget.py")


def test_a_script_whose_own_statements_train_is_an_entry_point(tmp_path):
    root = write(tmp_path, {
        "FCN.py": "import keras\nfor name in names:\n    model.fit(x, y)\n",
        "layers.py": "def fit_all(model):\n    model.fit(x, y)\n",
    })  # fmt: skip
    assert [e.script for e in scan_checkout(root).entry_points] == ["FCN.py"]


def test_a_packages_modules_are_imported_not_run_and_its_scripts_run_as_modules(tmp_path):
    loop = "import argparse\n\ndef train(args: argparse.Namespace):\n    loss.backward()\n"
    root = write(tmp_path, {
        "lab/__init__.py": "", "lab/tools/__init__.py": "",
        "lab/tools/train.py": loop,  # a module the command-line tool imports
        "lab/platform/__init__.py": "",  # would shadow the standard library's `platform`
        "lab/train_model.py": "import argparse\nfrom lab.tools.train import train\n\n"
                            "if __name__ == '__main__':\n    train(argparse.ArgumentParser()"
                            ".parse_args())\n",
        "scripts/train.py": "import argparse\nif __name__ == '__main__':\n    loss.backward()\n",
        "legacy/brats/train.py": "import argparse\nif __name__ == '__main__':\n    fit()\n",
    })  # fmt: skip
    found = {e.script: e for e in scan_checkout(root).entry_points}
    assert "lab/tools/train.py" not in found and "legacy/brats/train.py" not in found
    assert found["lab/train_model.py"].command() == ("{python}", "-m", "lab.train_model")
    assert found["scripts/train.py"].command() == ("{python}", "scripts/train.py")  # no package


def test_a_root_script_whose_main_trains_the_projects_model_is_an_entry_point(tmp_path):
    run = (
        "from core.model import Model\n\ndef main():\n    model = Model()\n"
        "    model.train(x, y, epochs=2)\n\nif __name__ == '__main__':\n    main()\n"
    )
    root = write(tmp_path, {
        "run.py": run,
        "core/model.py": "class Model:\n    def train(self, x, y, epochs):\n"
                         "        self.m.fit(x, y)\n",
        "serve.py": "if __name__ == '__main__':\n    model.eval()\n    model.train()\n",
    })  # fmt: skip
    assert [(e.kind, e.script) for e in scan_checkout(root).entry_points] == [
        ("main_trains", "run.py")]  # fmt: skip


def test_placeholders_are_kept_and_given_a_run_value_or_dropped_with_their_option():
    [command] = commands(
        "python train.py --data_dir path/to/image/directory --out <path> --epochs 5 YOUR_KEY\n"
    )
    assert command.args == (
        "--data_dir", "{run_dir}/stand-in-data/image", "--out", "{run_dir}/outputs/out",
        "--epochs", "5",
    )  # fmt: skip
    assert command.placeholders == (
        "--data_dir path/to/image/directory",
        "--out <path>",
        "YOUR_KEY",
    )


def test_a_config_placeholder_gets_the_repositorys_smallest_models_config():
    paths = frozenset({
        "train.sh", "main.py", "configs/dat_base.yaml", "configs/dat_tiny.yaml",
        "configs/dat_small.yaml", "configs/_base_/default.yaml", "docs/config.md",
    })  # fmt: skip
    [command] = readme_commands(
        "README.md", "bash train.sh 8 <path-to-config> <experiment-tag>", paths,
        read=lambda path: "python main.py --cfg $2 --tag $3\n",
    )  # fmt: skip
    assert command.args == ("8", "configs/dat_tiny.yaml", "smoke")
    [option] = readme_commands("README.md", "python main.py --cfg path/to/config.yaml", paths)
    assert option.args == ("--cfg", "configs/dat_tiny.yaml")
    # no configuration shipped: the placeholder is left out with its option, as before
    [bare] = readme_commands("README.md", "python main.py --cfg path/to/config.yaml",
                             frozenset({"main.py"}))  # fmt: skip
    assert bare.args == () and bare.placeholders == ("--cfg path/to/config.yaml",)


def test_a_dict_literal_is_a_value_not_a_placeholder():
    [command] = commands(
        "python train.py --config_type_weights='{\"Default\":1.0}' --E0s='{1:-13.66, 6:-1029.2}' "
        "--out {output_dir}\n"
    )
    assert command.args[:4] == (
        "--config_type_weights={\"Default\":1.0}", "--E0s={1:-13.66, 6:-1029.2}", "--out",
        "{run_dir}/outputs/output",
    )  # fmt: skip
    assert command.placeholders == ("--out {output_dir}",)


def test_a_choice_written_out_takes_its_first_alternative():
    [command] = commands(
        "python train.py --type [train|eval] --model res{8,15,26}[-narrow] --split {a,b} [DIR]\n"
    )
    assert command.args == ("--type", "train", "--model", "res8", "--split", "a",
                            "{run_dir}/stand-in-data/data")  # fmt: skip
    assert command.placeholders == ("[DIR]",)
    [written] = commands("python train.py --field enter-field-here --epochs 5\n")
    assert written.args == ("--epochs", "5")
    assert written.placeholders == ("--field enter-field-here",)


def test_a_variables_name_in_capitals_is_a_placeholder_and_other_capitals_are_values():
    [command] = commands("python train.py --batch BATCH_SIZE --gpus NUM_GPUS LMDB_PATH\n")
    assert command.args == ("--batch", "4", "--gpus", "1", "{run_dir}/stand-in-data/lmdb")
    assert command.placeholders == ("--batch BATCH_SIZE", "--gpus NUM_GPUS", "LMDB_PATH")
    [values] = commands("python train.py --loss CROSS_ENTROPY --mode TRAIN --dataset CIFAR10\n")
    assert values.placeholders == ()


def test_a_distributed_launcher_starts_the_script_itself_once():
    text = (
        "```bash\ntorchrun --standalone --nproc_per_node=8 train.py --outdir=runs \\\n"
        "    --cond=1\n```\n"
        "python -m torch.distributed.launch --nproc_per_node 8 --master_port 1234 train.py --x 1\n"
        "accelerate launch --num_processes 2 train.py --lr 1e-4\n"
        "python -m torch.utils.bottleneck train.py\n"
    )
    found = [(c.runner, c.script, c.args) for c in commands(text)]
    assert found == [
        ("python", "train.py", ("--outdir=runs", "--cond=1")),
        ("python", "train.py", ("--x", "1")),
        ("python", "train.py", ("--lr", "1e-4")),
    ]


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


LOOP = "import torch\nif __name__ == '__main__':\n    loss.backward()\n    optimizer.step()\n"


def test_the_readme_command_wins_and_becomes_the_run_command(tmp_path):
    root = write(tmp_path, {
        "README.md": "Train:\n\n    bash scripts/train.sh \\\n      --data path/to/data 8\n",
        "scripts/train.sh": "python fit_model.py \"$@\"\n",
        "fit_model.py": LOOP,
        "train.py": "import argparse\nif __name__ == '__main__':\n    pass\n",
    })  # fmt: skip
    scan = scan_checkout(root)
    first = scan.entry_points[0]
    assert (first.kind, first.script, first.runner) == (
        "readme_command",
        "scripts/train.sh",
        "shell",
    )
    assert first.command() == (
        "bash", "scripts/train.sh", "--data", "{run_dir}/stand-in-data/data", "8"
    )  # fmt: skip
    assert first.placeholders == ("--data path/to/data",)


def test_a_shell_script_that_runs_the_training_script_gives_the_authors_arguments(tmp_path):
    main = "import argparse\nparser = argparse.ArgumentParser()\n" + LOOP
    root = write(tmp_path, {
        "README.md": "We give examples for each dataset in ele.sh and traffic.sh.\n",
        "main.py": main,
        "ele.sh": "python main.py --gpu 3 --data data/electricity.txt --save save/elec.pt\n",
        "traffic.sh": "python main.py --data data/traffic.txt\n",
        "test.sh": "python main.py --mode test\n",
        "lab/run.sh": "# python main.py is the root's\npython fit.py --epochs 1\n",
        "lab/fit.py": LOOP,
        "tools/echo.sh": "echo python main.py\n",
    })  # fmt: skip
    found = [(e.kind, e.script, e.command()) for e in scan_checkout(root).entry_points[:3]]
    assert found == [
        ("run_script", "ele.sh", ("bash", "ele.sh")),
        ("run_script", "traffic.sh", ("bash", "traffic.sh")),
        ("run_script", "lab/run.sh", ("sh", "-c", 'cd lab && exec "$@"', "sh", "bash", "run.sh")),
    ]  # a test script is no training; `echo python main.py` runs nothing


def test_a_readme_command_that_runs_as_written_comes_before_one_that_needs_a_value(tmp_path):
    root = write(tmp_path, {
        "README.md": "## Train\n\n    bash ./scripts/ECL/iTransformer.sh\n",
        "scripts/README.md": "    python -u run.py --is_training 1 --model $model_name\n",
        "scripts/ECL/iTransformer.sh": "python -u run.py --is_training 1 --model iTransformer\n",
        "run.py": "import argparse\n" + LOOP,
    })  # fmt: skip
    first = scan_checkout(root).entry_points[0]
    assert (first.kind, first.script) == ("readme_command", "scripts/ECL/iTransformer.sh")


def test_a_worked_example_comes_before_the_template_it_follows(tmp_path):
    root = write(tmp_path, {
        "README.md": (
            "```bash\n# Train a model: <path>/run.config; <path>/net.config\n"
            "python run_exp.py --path <path> --train\n\n"
            "# Train on a CPU\n"
            "python run_exp.py --path Exp/proxyless_cpu --train --net proxyless_cpu\n```\n"
        ),
        "run_exp.py": "import argparse\n" + LOOP,
    })  # fmt: skip
    first, second = scan_checkout(root).entry_points[:2]
    assert first.command() == (
        "{python}", "run_exp.py", "--path", "Exp/proxyless_cpu", "--train", "--net",
        "proxyless_cpu",
    )  # fmt: skip
    assert second.placeholders == ("--path <path>",)


def test_a_launch_scripts_device_count_and_port_keep_their_places(tmp_path):
    root = write(tmp_path, {
        "README.md": "## Training\n\n```bash\nsh scripts/train.sh <num_gpu> <port>\n```\n",
        "scripts/train.sh": "python -m torch.distributed.launch --nproc_per_node=$1 "
                            "--master_port=$2 unimatch.py --port $2\n",
        "unimatch.py": "import argparse\n" + LOOP,
    })  # fmt: skip
    first = scan_checkout(root).entry_points[0]
    assert first.command()[-3:] == ("scripts/train.sh", "1", "29500")
    assert first.placeholders == ("<num_gpu>", "<port>")


def test_without_a_readme_command_a_training_script_never_a_demo(tmp_path):
    root = write(tmp_path, {
        "demo.py": LOOP, "webcam_demo.py": LOOP, "preprocess.py": LOOP, "plot.py": LOOP,
        "serve.py": LOOP, "learner.py": LOOP,
    })  # fmt: skip
    scan = scan_checkout(root)
    assert [(e.script, e.kind) for e in scan.entry_points] == [("learner.py", "training_loop")]


def test_the_manifest_runs_the_module_form(tmp_path):
    from miner.select.rank import assess

    root = write(tmp_path, {
        "README.md": "python -m utils.train --type train --n_epochs 3\n",
        "utils/__init__.py": "", "utils/train.py": LOOP,
    })  # fmt: skip
    row = {"repo_id": 1, "full_name": "a/b", "commit_sha": "0" * 40}
    candidate = assess(row, str(root), scan_checkout(root), {})
    assert run_section(candidate).command == (
        "{python}",
        "-m",
        "utils.train",
        "--type",
        "train",
        "--n_epochs",
        "3",
    )


def test_a_script_that_opens_a_window_is_never_the_entry_point(tmp_path):
    gui = "import tkinter as tk\nimport argparse\nroot = tk.Tk()\n" + LOOP
    root = write(tmp_path, {
        "README.md": "python trainer.py\n\npython train.py --field total\n",
        "trainer.py": gui, "train.py": "import argparse\n" + LOOP,
        "viewer.py": "from PyQt5 import QtWidgets\n" + LOOP,
    })  # fmt: skip
    scan = scan_checkout(root)
    assert [e.script for e in scan.entry_points][:1] == ["train.py"]
    assert not [e for e in scan.entry_points if e.script in ("trainer.py", "viewer.py")]


def test_a_sub_projects_readme_command_starts_in_its_folder(tmp_path):
    root = write(tmp_path, {
        "README.md": "Two versions; see each folder.\n",
        "det_pytorch/README.md": "Train:\n\n    python tools/train.py -c configs/det.yml\n",
        "det_pytorch/tools/train.py": LOOP, "det_pytorch/configs/det.yml": "lr: 0.1\n",
    })  # fmt: skip
    first = scan_checkout(root).entry_points[0]
    assert (first.kind, first.script, first.folder) == (
        "readme_command", "det_pytorch/tools/train.py", "det_pytorch")  # fmt: skip
    assert first.command() == ("sh", "-c", 'cd det_pytorch && exec "$@"', "sh", "{python}",
                               "tools/train.py", "-c", "configs/det.yml")  # fmt: skip
    # A command whose paths are the root's keeps the root.
    root_relative = commands("python pkg/train.py --lr 1", doc="docs/TRAINING.md")
    assert root_relative[0].folder == ""


def test_a_script_that_trains_then_tests_is_a_training_script():
    from miner.select.entry import is_training_script

    for name in ("deeplab_train_test.py", "train_test.py", "train_and_eval.py", "train_val.py"):
        assert is_training_script(name), name
    for name in ("test_train.py", "demo_train_test.py", "eval.py", "preprocess_train.py"):
        assert not is_training_script(name), name
    paths = frozenset({"experiments/deeplab_train_test.py"})
    found = readme_commands("README.md", "python experiments/deeplab_train_test.py --cfg a.yaml",
                            paths)  # fmt: skip
    assert [(c.script, c.args) for c in found] == [
        ("experiments/deeplab_train_test.py", ("--cfg", "a.yaml"))]  # fmt: skip


CONSOLE_MODULE = (
    "import argparse, sys\n"
    "def main():\n"
    "    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--name')\n"
    "    parser.add_argument('--max_num_epochs', type=int)\n"
    "    args = parser.parse_args()\n"
    "    print('prog', sys.argv[0], 'name', args.name, 'epochs', args.max_num_epochs)\n"
    "    return 0\n"
)


def test_a_console_script_the_project_declares_runs_its_function(tmp_path):
    import subprocess
    import sys

    root = write(tmp_path, {
        "README.md": "Use the `mace_run_train` script.\n\n```sh\nmace_run_train \\\n"
                     "  --name=MACE --max_num_epochs=2\n```\n"
                     "Evaluate with `mace_eval_configs --configs=x.xyz`.\n",
        "pyproject.toml": '[project]\nname = "mace-torch"\n[project.scripts]\n'
                          'mace_run_train = "mace.cli.run_train:main"\n'
                          'mace_eval_configs = "mace.cli.eval_configs:main"\n',
        "mace/__init__.py": "", "mace/cli/__init__.py": "",
        "mace/cli/run_train.py": CONSOLE_MODULE, "mace/cli/eval_configs.py": CONSOLE_MODULE,
    })  # fmt: skip
    first = scan_checkout(root).entry_points[0]
    assert (first.kind, first.script, first.runner) == (
        "readme_command", "mace/cli/run_train.py", "console"
    )  # fmt: skip
    command = first.command()
    assert command[:2] == ("{python}", "-c")
    assert command[3:] == ("--name=MACE", "--max_num_epochs=2")
    ran = subprocess.run([sys.executable, *command[1:]], cwd=root, capture_output=True, text=True)
    assert ran.stdout.split() == ["prog", "mace_run_train", "name", "MACE", "epochs", "2"]
    assert ran.returncode == 0


def test_console_scripts_are_read_from_each_kind_of_packaging(tmp_path):
    from miner.select.console_scripts import console_scripts

    files = {
        "setup.py": "from setuptools import setup\nsetup(name='x', entry_points={\n"
                    "    'console_scripts': [\n"
                    "        'nnUNetv2_train = nnunetv2.run.run_training:run_training_entry',\n"
                    "        'bad entry']})\n",
        "setup.cfg": "[options.entry_points]\nconsole_scripts =\n"
                     "    litgpt = litgpt.__main__:main\n",
    }  # fmt: skip
    assert console_scripts(files.get) == {
        "nnUNetv2_train": "nnunetv2.run.run_training:run_training_entry",
        "litgpt": "litgpt.__main__:main",
    }
    assert console_scripts({"pyproject.toml": "not [ toml"}.get) == {}


def test_a_console_script_trains_by_its_name_or_its_sub_command(tmp_path):
    scripts = {"litgpt": "litgpt.__main__:main", "serve-model": "pkg.serve:main",
               "pkg-train": "other.train:main"}  # fmt: skip
    paths = frozenset({"litgpt/__main__.py", "pkg/serve.py"})
    text = ("litgpt finetune microsoft/phi-2 --data JSON\nlitgpt chat microsoft/phi-2\n"
            "serve-model --port 80\npkg-train --epochs 1\nlitgpt finetune --help\n")  # fmt: skip
    found = readme_commands("README.md", text, paths, None, scripts)
    # a chat, a server, a module outside the checkout and a help request are no training
    assert [(c.line, c.script, c.args[0]) for c in found] == [(1, "litgpt/__main__.py", "finetune")]


def test_an_optional_option_in_usage_notation_is_left_out():
    from miner.select.entry import command_words

    line = "python main.py recognition -c config/train.yaml [--work_dir <work folder>]"
    assert command_words(line) == ["python", "main.py", "recognition", "-c", "config/train.yaml"]
    # a bracketed value is a placeholder, not an optional option
    assert command_words("python train.py [imagenet-folder]") == ["python", "train.py",
                                                                   "[imagenet-folder]"]  # fmt: skip


def test_a_remark_in_words_after_a_command_is_no_argument():
    from miner.select.entry import command_words

    assert command_words("python main.py --cuda (use GPUs or not)") == [
        "python", "main.py", "--cuda"
    ]  # fmt: skip
    # one word in parentheses, or quoted, or shell syntax, is left as written
    assert command_words("python train.py --lr 0.1 (default)")[-1] == "(default)"
    assert command_words('python a.py --x "(a b)"')[-1] == "(a b)"


def test_a_command_whose_options_turn_training_off_is_not_the_training_command():
    text = (
        "For training, `python main.py`\n\n"
        "For testing, `python main.py --is_train False --stride 21`\n"
    )
    assert [c.args for c in commands(text)] == [()]
    for evaluating in (
        "python main.py --mode=test",
        "python train.py --phase test --name x",
        "python main.py -k cpn --evaluate pretrained.bin",
        "python train.py --eval --resume ckpt.pth",
        "python main.py --do_train 0",
    ):
        assert commands(f"```\n{evaluating}\n```\n") == [], evaluating
    kept = "python train.py --mode train --test_interval 5 --is_train True\n"
    assert len(commands(f"```\n{kept}```\n")) == 1


def test_a_job_handed_to_a_clusters_scheduler_is_not_the_training_command():
    paths = frozenset({"main.py", "run_with_submitit.py", "tools/slurm_train.sh", "tools/train.py"})
    text = (
        "```\npython run_with_submitit.py --model deit_base --data-path /path/to/imagenet\n"
        "sh tools/slurm_train.sh partition job configs/a.py\n"
        "python -m torch.distributed.launch --nproc_per_node=8 main.py --model deit_small\n```\n"
    )
    assert [c.script for c in readme_commands("README.md", text, paths)] == ["main.py"]


def test_a_command_for_a_script_in_a_sub_projects_folder_runs_there():
    # DuReader: "wrapped in `paddle/run.sh`", then `sh run.sh --train --pass_num 5` at the root
    paths = frozenset({"paddle/run.sh", "paddle/run.py", "tensorflow/run.py", "utils/a.py"})
    text = ("All these procedures have been wrapped in `paddle/run.sh`.\n\n"
            "```\nsh run.sh --para_extraction\n```\n```\nsh run.sh --prepare\n```\n"
            "```\nsh run.sh --train --pass_num 5\n```\n"
            "```\npython run.py --train --algo BIDAF\n```\n")  # fmt: skip
    shell = {"paddle/run.sh": "python paragraph_extraction.py train\npython run.py --train $@\n"}
    found = readme_commands("README.md", text, paths, shell.get)
    # the data steps' modes are not training; `run.py` is in two folders: neither is taken
    assert [(c.script, c.args, c.folder) for c in found] == [
        ("paddle/run.sh", ("--train", "--pass_num", "5"), "paddle")
    ]
    # ... or after `cd` to it; a folder the document never names is not guessed at
    cd = "1. `cd paddle`\n2. `sh run.sh --train`\n"
    assert [c.folder for c in readme_commands("README.md", cd, paths, shell.get)] == ["paddle"]
    assert readme_commands("README.md", "```\nsh run.sh --train\n```\n", paths, shell.get) == []
    # a shell script there that runs no Python training is not taken (a latency test)
    assert readme_commands("README.md", cd, paths, {"paddle/run.sh": "./bench 1 2\n"}.get) == []
    # nor a command a sentence says evaluates
    said = "`cd paddle` then run the evaluation of our model via `sh run.sh --train`.\n"
    assert readme_commands("README.md", said, paths, shell.get) == []
    # a generation script and Hydra's `test=True` are not training
    hydra = "```\npython train.py test=True checkpoint=a.pth\nbash run_generate.sh\n```\n"
    assert readme_commands("README.md", hydra, frozenset({"train.py", "run_generate.sh"})) == []


def test_a_command_whose_script_name_says_nothing_trains_when_its_options_say_so():
    paths = frozenset({"src/structbilty.py", "src/tagger.py"})
    text = (
        "```\npython src/structbilty.py --dynet-mem 1500 --train data/da-ud-train.conllu\n"
        "python src/tagger.py --model da --test data/da-ud-test.conllu\n"
        "python src/tagger.py --mode train --epochs 3\n```\n"
    )
    assert [(c.script, c.args[:2]) for c in readme_commands("README.md", text, paths)] == [
        ("src/structbilty.py", ("--dynet-mem", "1500")),
        ("src/tagger.py", ("--mode", "train")),
    ]


def test_a_launcher_that_starts_a_module_runs_that_module():
    paths = frozenset({"src/language_modeling/train.py", "src/eval/run_eval.py"})
    text = (
        "```bash\naccelerate launch \\\n    --mixed_precision bf16 \\\n    --num_processes 8 \\\n"
        "    -m \\\n    src.language_modeling.train \\\n"
        "    --config config/language_modeling/pretrain.yaml \\\n```\n"
    )
    (found,) = readme_commands("README.md", text, paths)
    assert (found.script, found.module, found.args) == (
        "src/language_modeling/train.py",
        "src.language_modeling.train",
        ("--config", "config/language_modeling/pretrain.yaml"),
    )


def test_a_command_written_in_html_runs_with_its_italic_values_as_placeholders():
    text = (
        "<b>Training on new data:</b><br />\n"
        "<code>python3 train.py -train <i>dataset_path</i> -iterations "
        "<i>number of training iterations</i></code>\n"
    )
    paths = PATHS | {"dataset.csv", "results/summary.csv"}
    [command] = readme_commands("README.md", text, paths)
    # the one file the repository ships that the placeholder names; one iteration
    assert (command.script, command.args) == (
        "train.py",
        ("-train", "dataset.csv", "-iterations", "1"),
    )
    assert command.placeholders == (
        "-train <dataset_path>",
        "-iterations <number_of_training_iterations>",
    )


def test_a_sub_project_command_takes_its_own_python_config_and_drops_an_option_left_empty():
    text = ("bash dist_train.sh <CONFIG_PATH> <NUM_GPUS> --work-dir <SAVE_PATH> "
            "--options model.pretrained=<PRETRAIN_MODEL>\n")  # fmt: skip
    paths = frozenset({"seg/dist_train.sh", "seg/train.py", "seg/configs/_base_/models/up.py",
                       "seg/configs/hornet/upernet_hornet_small_512.py",
                       "seg/configs/hornet/upernet_hornet_tiny_512.py",
                       "det/configs/hornet/mask_rcnn_hornet_tiny.py"})  # fmt: skip
    scripts = {"seg/dist_train.sh": "python -m torch.distributed.launch $(dirname $0)/train.py\n"}
    [command] = readme_commands("seg/README.md", text, paths, scripts.get)
    # the folder's own configuration (OpenMMLab's are Python), named from that folder
    assert command.folder == "seg"
    assert command.args == ("configs/hornet/upernet_hornet_tiny_512.py", "1",
                            "--work-dir", "{run_dir}/outputs/save")  # fmt: skip
