"""The parts of a smoke run: what gets installed, which Python, how a log is classified."""

from __future__ import annotations

import glob
import os
import sys
from pathlib import Path

import pytest

from miner.select.installs import chosen_files, cpu_build, install_plan
from miner.select.outcomes import classify_training, install_failure
from miner.select.pythons import interpreter_version, python_for, pythons_in_order


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def test_install_plan_reads_every_kind_of_dependency_file(tmp_path):
    root = write(
        tmp_path / "repo",
        {
            "requirements.txt": "# deps\nnumpy>=1.16  # arrays\n-r extra.txt\n-e .\n",
            "extra.txt": "tensorflow-gpu==1.15.0\ntorch==1.4.0+cu101\n",
            "requirements-dev.txt": "pytest\n",
            "environment.yml": "dependencies:\n  - python=3.7\n  - pip:\n    - tqdm==4.40\n",
            "setup.py": "from setuptools import setup\nsetup(install_requires=['scipy>=1.2'])\n",
            "pyproject.toml": '[tool.poetry.dependencies]\npython = "^3.7"\nrich = "^10.1"\n',
        },
    )
    files = (
        ("requirements.txt", "requirements_file"), ("requirements-dev.txt", "requirements_file"),
        ("environment.yml", "conda_env"), ("setup.py", "setup"), ("pyproject.toml", "poetry"),
    )  # fmt: skip
    assert ("requirements-dev.txt", "requirements_file") not in chosen_files(files)
    plan = install_plan(root, files, "tensorflow", "tensorflow-gpu==1.15.0")
    assert plan.lines == (
        "numpy>=1.16", "tensorflow==1.15.0", "torch==1.4.0", f"-e {root.resolve()}",
        "tqdm==4.40", "scipy>=1.2", "rich>=10.1",
    )  # fmt: skip
    assert [(e.path, e.line) for e in plan.sources][:3] == [
        ("requirements.txt", 2), ("extra.txt", 1), ("extra.txt", 2)
    ]  # fmt: skip
    assert any("tensorflow-gpu==1.15.0 -> tensorflow==1.15.0" in n for n in plan.notes)


def test_a_poetry_dependency_with_one_table_per_platform_is_planned(tmp_path):
    toml = (
        '[tool.poetry.dependencies]\npython = "^3.10"\ntorch = [\n'
        '  {version = "2.1.0", markers = "sys_platform == \'darwin\'"},\n'
        '  {version = "^2.1", markers = "sys_platform == \'linux\'"},\n]\nrich = "^10.1"\n'
    )
    root = write(tmp_path / "repo", {"pyproject.toml": toml})
    plan = install_plan(root, (("pyproject.toml", "poetry"),), "pytorch", None)
    assert plan.lines == ("torch==2.1.0", "rich>=10.1")


def test_the_stated_framework_version_is_added_when_no_file_names_it(tmp_path):
    freeze = (
        "numpy\n../outside\n-e /home/author/compressai\n~/lib/\n"
        "olefile @ file:///home/conda/feedstock_root/build_artifacts/olefile_16/work\n"
    )
    root = write(tmp_path / "repo", {"requirements.txt": freeze})
    plan = install_plan(
        root, (("requirements.txt", "requirements_file"),), "pytorch", "pytorch=1.7.1"
    )
    # nothing is installed from outside the copy; a build elsewhere is the project's on the index
    assert plan.lines == ("numpy", "olefile", "torch==1.7.1")
    assert plan.sources[-1].rule == "smoke.framework_version"
    assert install_plan(root, (), "pytorch", None).lines == ()


def test_a_repository_of_several_projects_installs_the_entry_scripts_own(tmp_path):
    root = write(
        tmp_path / "repo",
        {
            "model-v1/requirements.txt": "transformers==4.28.1\n",
            "model-v2/requirements.txt": "transformers==4.37.2\n",
            "model-v2/pyproject.toml": '[project]\nname = "v2"\ndependencies = ["peft"]\n',
            "model-v1/pipeline/train.py": "import transformers\n",
        },
    )
    files = (
        ("model-v1/requirements.txt", "requirements_file"),
        ("model-v2/requirements.txt", "requirements_file"), ("model-v2/pyproject.toml", "poetry"),
    )  # fmt: skip
    plan = install_plan(root, files, entry="model-v1/pipeline/train.py")
    assert plan.lines == ("transformers==4.28.1",)
    # With no entry script, or one that no project folder holds, every project's files count.
    assert len(chosen_files(files)) == 3
    assert len(chosen_files(files, "tools/train.py")) == 3
    # A dependency file at the root is the project of an entry script anywhere below it.
    root_files = (("requirements.txt", "requirements_file"), *files)
    assert chosen_files(root_files, "src/train.py") == [("requirements.txt", "requirements_file")]
    # A GPU variant that is the only file of its kind is installed (as CPU builds).
    gpu_only = (("gpu_requirements.txt", "requirements_file"), ("requirements-dev.txt",
                "requirements_file"))  # fmt: skip
    assert chosen_files(gpu_only) == [("gpu_requirements.txt", "requirements_file")]


def test_an_accelerator_extra_is_left_out_of_the_cpu_build():
    assert cpu_build("jax[cuda12]==0.4.29") == (
        "jax==0.4.29", "jax[cuda12]==0.4.29 -> jax==0.4.29 (CPU build)")  # fmt: skip
    assert cpu_build("jax[cuda12_pip,cpu]>=0.4")[0] == "jax[cpu]>=0.4"
    assert cpu_build("jax[tpu]")[0] == "jax"
    assert cpu_build("ray[tune]==2.9") == ("ray[tune]==2.9", None)
    assert cpu_build("mxnet-cu80==0.12.0b20171027")[0] == "mxnet==0.12.0b20171027"


def test_a_python_of_the_commits_time(tmp_path):
    this = sys.executable
    assert python_for((), "2019-01-01") is None
    assert python_for((this,), "2015-01-01") == this
    assert python_for((this, "/no/such/python"), None) == this
    # Only one interpreter runs: it is the one, whatever the date.
    assert python_for(("/no/such/python", this), "2016-01-01") == this


def log(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "train.log"
    path.write_text(text, encoding="utf-8")
    return path


def test_logs_are_classified_by_the_exception_line(tmp_path):
    traceback = 'Traceback (most recent call last):\n  File "train.py", line 3\n'
    cases = {
        "ImportError: libcudart.so.10.0: cannot open shared object file": "needs_gpu",
        "OSError: libgfortran.so.3: cannot open shared object file: No such file": "import",
        "ModuleNotFoundError: No module named 'cv2'": "import",
        "FileNotFoundError: [Errno 2] No such file or directory: 'data/train.csv'": "needs_data",
        "FileNotFoundError: [Errno 2] No such file or directory: 'pretrained/vgg16.pth'": (
            "needs_weights"
        ),
        # a checkpoint's suffix on a file whose name says it holds data
        "FileNotFoundError: [Errno 2] No such file or directory: 'QM9_data.pt'": "needs_data",
        "OSError: Unable to open file: No such file or directory: 'data/train.h5'": "needs_data",
        "FileNotFoundError: [Errno 2] No such file or directory: 'ckpt/test_model.pth'": (
            "needs_weights"
        ),
        # TensorFlow's words for a checkpoint it cannot open
        "tensorflow.python.framework.errors_impl.OpError: ./models/parsers/amount/best.data-"
        "00000-of-00001; No such file or directory": "needs_weights",
        "SyntaxError: Missing parentheses in call to 'print'. Did you mean print(x)?": "python2",
        "NameError: name 'xrange' is not defined": "python2",
        "TabError: inconsistent use of tabs and spaces in indentation": "python2",
        "ModuleNotFoundError: No module named 'cPickle'": "python2",
        "urllib.error.URLError: <urlopen error [Errno 101] Network is unreachable>": "data",
        "AssertionError: Torch not compiled with CUDA enabled": "needs_gpu",
        "RuntimeError: ProcessGroupNCCL is only supported with GPUs, no GPUs found!": "needs_gpu",
        "ValueError: Unknown CUDA arch (0.0) or GPU not supported": "needs_gpu",
        "pytorch_lightning.utilities.exceptions.MisconfigurationException: You requested GPUs: "
        "[0, 1, 2, 3]": "needs_gpu",
        "ValueError: Attempting to start raylet with 1 GPUs, but CUDA_VISIBLE_DEVICES contains "
        "[].": "needs_gpu",
        "lightning_fabric.utilities.exceptions.MisconfigurationException: No supported gpu "
        "backend found!": "needs_gpu",
        "ValueError: operands could not be broadcast together": "runtime",
        "ValueError: No audio files found in 'corpus'.": "needs_data",
        "AssertionError: datasets should not be an empty iterable": "needs_data",
        "RuntimeError: Setting file /x/stand-in-data/train.csv doesn't exist. Check "
        "opt.train-list and opt.val-list.": "needs_data",
        "RuntimeError: radarPNG is not found! You can download the radarPNG using `bash "
        "download_radar_png.bash`": "needs_data",
        "Exception: Did not find any audio files in specified directory": "needs_data",
        "OSError: No such file: /tmp/src/data/datasets/SQuAD-v1.1-dev.json": "needs_data",
        "RuntimeError: Found 0 images in subfolders of: data/train": "needs_data",
        "OSError: ../data/movie/ratings_final.txt not found.": "needs_data",
        "OSError: [Errno 28] No space left on device": "runtime",
        "ValueError: num_samples should be a positive integer value, but got num_samples=0": (
            "needs_data"
        ),
    }
    for line, outcome in cases.items():
        got, evidence = classify_training(
            log(tmp_path, traceback + line + "\n"), 1, False, 60, None
        )
        assert (got, evidence.text, evidence.line) == (outcome, line[:200], 3), line
    nltk = (
        traceback
        + "LookupError: \n"
        + "*" * 70
        + "\n  Resource \x1b[93mcmudict\x1b[0m not found.\n"
        "  Please use the NLTK Downloader to obtain the resource:\n\n  >>> import nltk\n"
        "  >>> nltk.download('cmudict')\n"
    )  # an NLTK corpus, downloaded on first use
    assert classify_training(log(tmp_path, nltk), 1, False, 60, None)[0] == "data"
    usage = (
        "usage: train.py [-h] --data DATA [--epochs EPOCHS]\n"
        "train.py: error: the following arguments are required: --data\n"
    )
    got, evidence = classify_training(log(tmp_path, usage), 2, False, 60, None)
    assert (got, evidence.line, evidence.rule) == ("usage", 2, "smoke.usage")
    assert evidence.text == "train.py: error: the following arguments are required: --data"
    click = (
        "Usage: train.py [OPTIONS]\nTry 'train.py --help' for help.\n\n"
        "Error: Missing option '--outdir'.\n"
    )  # click's words
    got, evidence = classify_training(log(tmp_path, click), 2, False, 60, None)
    assert (got, evidence.text) == ("usage", "Error: Missing option '--outdir'.")
    weights = (
        'Downloading: "https://download.pytorch.org/models/resnet18-5c106cde.pth" to /h/x.pth\n'
        + traceback
        + "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure>\n"
    )
    got, evidence = classify_training(log(tmp_path, weights), 1, False, 60, None)
    assert (got, evidence.line) == ("needs_weights", 1)
    checked = (
        'ERROR: The path "quick_test/ali" specified in the field "lab_folder" of the config file'
        " does not exists! \n"
    )  # a project that checks its own data and exits 0
    got, evidence = classify_training(log(tmp_path, checked), 0, False, 60, None)
    assert (got, evidence.line) == ("needs_data", 1)
    chatter = "loading the config\nerror rate table written\n"
    got, evidence = classify_training(log(tmp_path, chatter), 0, False, 60, None)
    assert evidence.rule == "smoke.runtime.no_progress"
    missing = "loading graphs\ninput directory not found\n"  # DeepInf checks and exits 0
    got, evidence = classify_training(log(tmp_path, missing), 0, False, 60, None)
    assert (got, evidence.line) == ("needs_data", 2)
    asked = "RuntimeWarning: compiletime version 3.5\nPlease indicate max sequence length. Exit\n"
    got, evidence = classify_training(log(tmp_path, asked), 0, False, 60, None)
    assert (got, evidence.line, evidence.rule) == ("usage", 2, "smoke.usage.asked")
    output = (
        traceback + "    with open('results/log.txt', 'w') as fh:\n"
        "FileNotFoundError: [Errno 2] No such file or directory: 'results/log.txt'\n"
    )
    got, evidence = classify_training(log(tmp_path, output), 1, False, 60, None)
    assert (got, evidence.rule) == ("runtime", "smoke.runtime.output_folder")
    missing = "python: can't open file 'train.py': [Errno 2] No such file or directory\n"
    assert classify_training(log(tmp_path, missing), 2, False, 60, None)[0] == "runtime"
    memory = traceback + (
        "RuntimeError: [enforce fail at alloc_cpu.cpp:124] err == 0. DefaultCPUAllocator: can't "
        "allocate memory: you tried to allocate 67108864 bytes. Error code 12\n"
    )
    got, evidence = classify_training(log(tmp_path, memory), 1, False, 60, None)
    assert (got, evidence.rule) == ("runtime", "smoke.runtime.memory")
    hub = traceback + (
        "    encoder = torch.hub.load('facebookresearch/dinov2', 'dinov2_vitb14')\n"
        "RuntimeError: It looks like there is no internet connection and the repo could not be "
        "found in the cache (/h/.cache/torch/hub)\n"
    )
    got, evidence = classify_training(log(tmp_path, hub), 1, False, 60, None)
    assert (got, evidence.line) == ("needs_weights", 3)
    shell = (
        "logging to logs/ucf101_rgb_split1.log\n"
        "tee: logs/ucf101_rgb_split1.log: No such file or directory\n"
        "scripts/train_tsn.sh: line 14: mpirun: command not found\n"
    )  # a shell script: tee's log folder is an output; the program the machine lacks decides
    got, evidence = classify_training(log(tmp_path, shell), 127, False, 60, None)
    assert (got, evidence.line) == ("runtime", 3)


def test_a_step_line_names_its_loss_in_any_spelling():
    from miner.select.ladder import STEP

    steps = ["Epoch: 0002 Iter: 0001 train_loss= 36.88084 val_roc= 0.61", "val_acc: 0.93",
             "12/50 [=====>....] - loss: 0.6931", "step 3 loss 0.2500"]  # fmt: skip
    assert all(STEP.search(line) for line in steps)
    assert not any(STEP.search(s) for s in ["loss_fn = 3.0", "closs 0.5", "Epoch 1/10"])


def test_a_printed_list_of_settings_is_no_step(tmp_path):
    from miner.select.ladder import shows_step

    settings = [
        "Namespace(is_training=1, loss='MSE', lradj='type1', learning_rate=0.001)",
        "args: {'loss': 'mse', 'dropout': 0.1}",
        "Config(lr=0.001, loss='ce', wd=0.05)",
        '    "class_name": "training.loss.StyleGAN2Loss",',  # a JSON dump of the options
        '    "r1_gamma": 8.2',
    ]
    steps = ["epoch=1, step=10, loss=0.5231, lr=0.001", "{'loss': 0.6931, 'epoch': 0.01}"]
    assert not any(shows_step(line) for line in settings)
    assert all(shows_step(line) for line in steps)
    printed = log(tmp_path, settings[0] + "\nTraceback (most recent call last):\n"
                  "RuntimeError: DefaultCPUAllocator: can't allocate memory\n")  # fmt: skip
    assert classify_training(printed, 1, False, 60, None)[0] == "runtime"
    # a run stopped at its bound after printing its options in JSON took no step
    dumped = log(tmp_path, 'Training options:\n{\n  "loss_kwargs": {\n' + settings[3] + "\n}\n")
    assert classify_training(dumped, None, True, 120, None)[0] == "timeout"


def test_progress_decides_ok_and_timeout(tmp_path):
    trained = log(tmp_path, "loading\nEpoch 1/10\n12/50 [=====>....] - loss: 0.6931\n")
    outcome, evidence = classify_training(trained, None, True, 60, None)
    assert (outcome, evidence.line) == ("ok", 3)
    silent = log(tmp_path, "loading data\n")
    assert classify_training(silent, None, True, 60, None)[0] == "timeout"
    assert classify_training(silent, 0, False, 60, None)[0] == "runtime"
    assert classify_training(silent, 0, False, 60, "model.pt")[0] == "ok"
    assert classify_training(silent, -9, False, 60, None)[1].text.startswith("killed by signal 9")


def test_a_progress_bar_of_the_training_loop_past_its_first_iteration_is_a_step(tmp_path):
    from miner.select.ladder import ProgressWatch, shows_step

    bars = [
        "Inner Epoch Loop:  10%|\u2589         | 92/937 [01:49<16:00,  1.14s/it]",
        "Epoch 0:   3%|\u258e         | 12/400 [00:05<02:40,  2.41it/s]",
        "Training: 100%|##########| 5/5 [00:01<00:00,  4.1it/s]",
    ]
    not_steps = [
        "Epoch 0:   0%|          | 0/400 [00:00<?, ?it/s]",  # before the first iteration
        "Downloading: 10%|#         | 5/50 [00:01<00:10]",
        "Evaluating: 10%|#         | 5/50 [00:01<00:10]",
        "100%|##########| 5/5 [00:01<00:00,  4.1it/s]",  # a bar that names no loop
    ]
    assert all(shows_step(line) for line in bars)
    assert not any(shows_step(line) for line in not_steps)
    # tqdm redraws its bar on one line with carriage returns; the watch reads each redraw
    drawn = tmp_path / "train.log"
    drawn.write_text("Model: G\r" + not_steps[0] + "\r" + bars[0] + "\r", encoding="utf-8")
    watch = ProgressWatch(drawn)
    assert watch() and watch.line == bars[0]
    assert classify_training(drawn, None, True, 120, None)[0] == "ok"


def test_a_crash_a_logger_caught_is_read_though_the_process_exited_0(tmp_path):
    caught = log(tmp_path, (
        "2026-11-27 | INFO | args: Namespace(batch_size=4)\n"
        "2026-11-27 | ERROR | An error has been caught in function 'launch'\n"
        "Traceback (most recent call last):\n"
        '  File "tools/train.py", line 110, in <module>\n'
        + "            │    └ <yolox.core.trainer.Trainer object at 0x7f4b>\n" * 80
        + '    File "yolox/core/trainer.py", line 293, in resume_train\n'
        '      ckpt = torch.load(ckpt_file, map_location=self.device)["model"]\n'
        "FileNotFoundError: [Errno 2] No such file or directory: 'pretrained/yolox_x.pth'\n"
    ))  # fmt: skip
    outcome, evidence = classify_training(caught, 0, False, 60, None)
    assert (outcome, evidence.line) == ("needs_weights", 87)
    # a traceback printed and recovered from early on is not how the run ended
    recovered = log(tmp_path, "Traceback (most recent call last):\nValueError: x\nretrying\n"
                              "epoch done\nbye\nall finished\n")  # fmt: skip
    assert classify_training(recovered, 0, False, 60, None)[1].rule == "smoke.runtime.no_progress"


def test_install_failures_name_the_reason(tmp_path):
    path = tmp_path / "install.log"
    path.write_text(
        "error: No solution found when resolving dependencies:\n"
        "  ╰─▶ Because torch==1.4.0 has no wheels with a matching Python ABI tag and you require "
        "torch==1.4.0, we can conclude that your requirements are unsatisfiable.\n"
    )
    evidence = install_failure(path, False, 60)
    assert evidence.rule == "smoke.install.no_wheel" and evidence.line == 2
    path.write_text("   Updating https://github.com/a/b\nerror: Git operation failed\n"
                    "  fatal: unable to access: Could not resolve host: github.com\n")  # fmt: skip
    assert install_failure(path, False, 60).rule == "smoke.install.unreachable"
    assert install_failure(path, True, 60).text == "install killed after 60 s"


def fake_python(folder: Path, major: int, minor: int) -> str:
    """A stand-in interpreter that only answers the version query."""
    path = folder / f"python{major}.{minor}"
    path.write_text(f"#!/bin/sh\necho {major} {minor}\n")
    path.chmod(0o755)
    return str(path)


def test_interpreters_are_tried_from_the_commits_time_then_older_then_newer(tmp_path):
    py36, py37, py38, py311 = (fake_python(tmp_path, 3, m) for m in (6, 7, 8, 11))
    choices = (py311, py36, py38, py37)
    assert python_for(choices, "2016-05-01T00:00:00Z") == py36  # none a year old: the oldest
    assert python_for(choices, "2019-08-01T00:00:00+02:00") == py37
    assert python_for(choices, "2021-02-16T16:03:23+02:00") == py38
    assert pythons_in_order(choices, "2021-02-16") == [py38, py37, py36, py311]
    assert pythons_in_order(choices, None) == [py311, py38, py37, py36]


def test_a_full_disk_stops_the_run_instead_of_blaming_the_project(tmp_path):
    import pytest

    from miner.errors import DiskFull
    from miner.select.smoke import _refuse_full_disk
    from miner.select.smoke_records import SmokeTarget

    log = tmp_path / "install.log"
    target = SmokeTarget("lab/big", None, None, tmp_path, ("{python}", "train.py"), ())
    log.write_text("error: Failed to build `numpy==1.16.0`\n")
    _refuse_full_disk(target, log)  # a project's own failure: recorded as `install`
    log.write_text("OSError: [Errno 28] No space left on device: '/root/.cache/uv/x'\n")
    with pytest.raises(DiskFull, match="lab/big"):
        _refuse_full_disk(target, log)


def test_a_build_that_filled_the_disk_on_its_way_stops_the_run_too(tmp_path, monkeypatch):
    import sys

    import pytest

    from miner.errors import DiskFull
    from miner.select import smoke as smoking
    from miner.select.repair.attempt import EnvironmentBuild
    from miner.select.smoke_records import SmokeOptions, SmokeTarget

    checkout = tmp_path / "checkout"
    checkout.mkdir()
    (checkout / "train.py").write_text("import json\nprint('loss: 0.5')\n", encoding="utf-8")

    def built(target, venv, lines, logs, work, base, options, copy):
        # a repair's install ran out of disk, and the build went on without the package
        (logs / "install.log").write_text(
            "miner: repair older: torch==2.9.1 -> torch<2.9\n"
            "  cause: failed to write to file `/root/.cache/uv/x`: No space left on device\n",
            encoding="utf-8",
        )
        closure = smoking.import_closure(copy, "train.py")
        return EnvironmentBuild(None, 0.0, sys.executable, (), (), closure)

    monkeypatch.setattr(smoking, "install_environment", built)
    monkeypatch.setattr(smoking, "ensure_disk_room", lambda env, folder, need=0: "")
    target = SmokeTarget("lab/big", None, None, checkout, ("{python}", "train.py"), ())
    options = SmokeOptions(out_dir=tmp_path / "out", fetch_blobs=False)
    with pytest.raises(DiskFull, match="lab/big"):
        smoking.smoke(target, options)


def test_an_assert_that_its_data_folder_exists_needs_data(tmp_path):
    traceback = (
        'Traceback (most recent call last):\n  File "train.py", line 124, in main\n'
        '  File "data/MPII/ref.py", line 13, in <module>\n'
        "    assert os.path.exists(img_dir)\nAssertionError\n"
    )
    got, evidence = classify_training(log(tmp_path, traceback), 1, False, 60, None)
    assert (got, evidence.text, evidence.rule) == (
        "needs_data",
        "assert os.path.exists(img_dir)",
        "smoke.needs_data.assert",
    )
    other = traceback.replace("os.path.exists(img_dir)", "len(batch) == 4")
    assert classify_training(log(tmp_path, other), 1, False, 60, None)[0] == "runtime"


def test_an_assert_that_asks_for_a_gpu_needs_one(tmp_path):
    traceback = 'Traceback (most recent call last):\n  File "tools/train.py", line 112\n'
    for code in (
        "assert num_gpu <= torch.cuda.device_count()",
        "assert(torch.cuda.is_available())",
    ):
        text = traceback + f"    {code}\n" + "AssertionError\n"
        got, evidence = classify_training(log(tmp_path, text), 1, False, 60, None)
        assert (got, evidence.line, evidence.text) == ("needs_gpu", 3, code)
    divided = (
        traceback + "    local_rank = rank % num_gpus\nZeroDivisionError: integer modulo by zero\n"
    )
    got, evidence = classify_training(log(tmp_path, divided), 1, False, 60, None)
    assert (got, evidence.text) == ("needs_gpu", "local_rank = rank % num_gpus")
    by_batch = traceback + "    mean = total / count\nZeroDivisionError: division by zero\n"
    assert classify_training(log(tmp_path, by_batch), 1, False, 60, None)[0] == "runtime"
    other = traceback + "    assert username is not None\nAssertionError\n"
    got, evidence = classify_training(log(tmp_path, other), 1, False, 60, None)
    assert (got, evidence.text) == ("runtime", "AssertionError")


def test_a_cuda_extension_built_at_run_time_on_a_cpu_machine_needs_a_gpu(tmp_path):
    frames = (
        'Traceback (most recent call last):\n  File "models/stylegan2/op/fused_act.py", line 9\n'
        '    fused = load(\n  File "torch/utils/cpp_extension.py", line 1626, in '
        "_get_cuda_arch_flags\n"
    )
    built = frames + "    arch_list[-1] += '+PTX'\nIndexError: list index out of range\n"
    got, evidence = classify_training(log(tmp_path, built), 1, False, 60, None)
    assert (got, evidence.rule) == ("needs_gpu", "smoke.needs_gpu.extension")
    ptx = frames + "ValueError: Unknown CUDA arch (0.0+PTX) or GPU not supported\n"
    assert classify_training(log(tmp_path, ptx), 1, False, 60, None)[0] == "needs_gpu"
    no_toolkit = frames + "OSError: CUDA_HOME environment variable is not set.\n"
    assert classify_training(log(tmp_path, no_toolkit), 1, False, 60, None)[0] == "needs_gpu"
    indexed = frames + "    first = items[-1]\nIndexError: list index out of range\n"
    assert classify_training(log(tmp_path, indexed), 1, False, 60, None)[0] == "runtime"


def test_a_package_built_only_for_cuda_needs_a_gpu_and_gets_no_repair(tmp_path):
    from miner.select.repair.runtime import runtime_fault

    traceback = 'Traceback (most recent call last):\n  File "train.py", line 8, in <module>\n'
    for module in ("tinycudann", "diff_gaussian_rasterization", "flash_attn.flash_attn_interface"):
        text = traceback + f"ModuleNotFoundError: No module named '{module}'\n"
        got, evidence = classify_training(log(tmp_path, text), 1, False, 60, None)
        assert (got, evidence.line) == ("needs_gpu", 3), module
        assert runtime_fault(log(tmp_path, text), (3, 10), tmp_path) is None, module
    other = traceback + "ModuleNotFoundError: No module named 'tinycudann_helpers'\n"
    assert classify_training(log(tmp_path, other), 1, False, 60, None)[0] == "import"


def test_tensorflow_1s_missing_input_file_is_data(tmp_path):
    text = (
        'Traceback (most recent call last):\n  File "train.py", line 8, in <module>\n'
        "ValueError: Failed to find file: ./data/cityscapes/leftImg8bit/train/a.png.\n"
    )
    assert classify_training(log(tmp_path, text), 1, False, 60, None)[0] == "needs_data"


def test_a_hub_tokenizer_or_config_that_could_not_load_needs_weights(tmp_path):
    traceback = 'Traceback (most recent call last):\n  File "tutorial_train.py", line 3\n'
    for what in ("tokenizer", "config"):
        text = traceback + (
            f"OSError: Can't load {what} for 'openai/clip-vit-large-patch14'. If you were trying "
            "to load it from 'https://huggingface.co/models', make sure you don't have a local "
            "directory with the same name.\n"
        )
        got, evidence = classify_training(log(tmp_path, text), 1, False, 60, None)
        assert (got, evidence.line) == ("needs_weights", 3), what
    for words in (
        "OSError: Incorrect path_or_model_id: '/root/phi-2'. Please provide either the path to "
        "a local folder or the repo_id of a model on the Hub.",
        "OSError: ckpt/llama-7b is not a local folder and is not a valid model identifier listed "
        "on 'https://huggingface.co/models'",
    ):
        text = traceback + words + "\n"
        got, evidence = classify_training(log(tmp_path, text), 1, False, 60, None)
        assert (got, evidence.line) == ("needs_weights", 3), words
    own = traceback + "OSError: Can't load the list of classes from labels.txt\n"
    assert classify_training(log(tmp_path, own), 1, False, 60, None)[0] == "runtime"


def test_a_download_answered_by_stand_in_weights_does_not_make_a_data_failure_need_weights(
    tmp_path,
):
    text = (
        'Downloading: "https://download.pytorch.org/models/resnet18-5c106cde.pth" to /h/x.pth\n'
        "miner: stand-in weights (random initialisation) for https://download.pytorch.org/"
        "models/resnet18-5c106cde.pth: URLError: <urlopen error [Errno 101]>\n"
        'Traceback (most recent call last):\n  File "train.py", line 3\n'
        "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure>\n"
    )
    got, evidence = classify_training(log(tmp_path, text), 1, False, 60, None)
    assert (got, evidence.line) == ("data", 5)


def test_the_version_of_a_python_2_interpreter_is_read(tmp_path):
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/2.7.*/bin/python")))
    if not found:
        pytest.skip("needs a Python 2.7 under ~/.pyenv/versions")
    assert interpreter_version(found[-1]) == (2, 7)
    assert interpreter_version(sys.executable) == sys.version_info[:2]


def test_a_launchers_worker_failure_is_read_from_the_workers_own_exception(tmp_path):
    worker = ('Traceback (most recent call last):\n  File "train.py", line 9, in init_dist\n'
              '    raise RuntimeError("No GPUs available for training.")\n'
              "RuntimeError: No GPUs available for training.\n")  # fmt: skip
    launcher = ("E1126 13:46:57 api.py:869] failed (exitcode: 1) local_rank: 0\n"
                'Traceback (most recent call last):\n  File "bin/torchrun", line 10\n'
                "torch.distributed.elastic.multiprocessing.errors.ChildFailedError: \n"
                "train FAILED\n")  # fmt: skip
    got, evidence = classify_training(log(tmp_path, worker + launcher), 1, False, 60, None)
    assert (got, evidence.line) == ("needs_gpu", 4)
    assert evidence.text == "RuntimeError: No GPUs available for training."
    data = worker.replace(
        "RuntimeError: No GPUs available for training.",
        "FileNotFoundError: [Errno 2] No such file or directory: 'data/a.csv'",
    )
    got, evidence = classify_training(log(tmp_path, data + launcher), 1, False, 60, None)
    assert (got, evidence.line) == ("needs_data", 4)
    got, _ = classify_training(log(tmp_path, launcher), 1, False, 60, None)
    assert got == "runtime"  # the launcher's own report when the worker said nothing


def test_a_short_disk_is_pruned_then_freed_of_ended_runs_then_refused(tmp_path, monkeypatch):
    import collections
    import shutil as real_shutil

    import miner.select.repair as repair
    from miner.errors import DiskFull

    env = {**os.environ, "UV_CACHE_DIR": str(tmp_path / "uv-cache")}
    (tmp_path / "uv-cache").mkdir()
    usage = collections.namedtuple("usage", "total used free")
    frees = iter([100 * 2**30, 100 * 2**30])
    monkeypatch.setattr(repair.shutil, "disk_usage", lambda p: usage(0, 0, next(frees)))
    assert repair.ensure_disk_room(env, tmp_path) == ""  # room enough: nothing done
    frees = iter([2**30, 2**30, 100 * 2**30, 100 * 2**30])  # short, then freed by the prune
    note = repair.ensure_disk_room(env, tmp_path)
    assert "uv cache prune" in note
    # still short: the environments of ended runs go, then the package cache is emptied
    for slug, ended in (("a__ended", True), ("b__running", False)):
        (tmp_path / "envs" / slug / "lib").mkdir(parents=True)
        (tmp_path / slug).mkdir()
        if ended:
            (tmp_path / slug / "smoke.json").write_text("{}", encoding="utf-8")
    (tmp_path / "uv-cache" / "archive-v0").mkdir(parents=True)
    (tmp_path / "uv-cache" / "archive-v0" / "torch.whl").write_bytes(b"x" * 1024)
    frees = iter([2**30, 2**30, 2**30, 2**30, 100 * 2**30, 100 * 2**30])
    monkeypatch.setattr(repair.shutil, "disk_usage", lambda p: usage(0, 0, next(frees)))
    note = repair.ensure_disk_room(env, tmp_path)
    assert "the environments of 1 ended runs removed" in note and "cache emptied" in note
    assert not (tmp_path / "envs" / "a__ended").exists()
    assert (tmp_path / "envs" / "b__running" / "lib").is_dir()  # a run in progress keeps its own
    assert not (tmp_path / "uv-cache" / "archive-v0" / "torch.whl").exists()
    monkeypatch.setattr(repair.shutil, "disk_usage", lambda p: usage(0, 0, 2**30))
    with pytest.raises(DiskFull, match=r"only 1\.0 GiB free at .*cache emptied"):
        repair.ensure_disk_room(env, tmp_path)
    assert real_shutil.disk_usage(tmp_path).free > 0


def test_a_script_that_waits_for_an_idle_gpu_needs_one(tmp_path: Path) -> None:
    waiting = (
        "scripts/run.sh: line 6: nvidia-smi: command not found\n"
        "No GPU available at the moment. Retrying in 1 minute.\n"
    ) * 2
    got, evidence = classify_training(log(tmp_path, waiting), None, True, 120, None)
    assert (got, evidence.line, evidence.rule) == ("needs_gpu", 1, "smoke.needs_gpu.waits")
    # one probe that finds nothing, then a long silent step: the time bound, not a GPU
    once = "nvidia-smi: command not found\nloading 4,000,000 points...\n"
    assert classify_training(log(tmp_path, once), None, True, 120, None)[0] == "timeout"


def test_nvidia_smi_under_the_claim_shows_one_idle_gpu(tmp_path: Path) -> None:
    import subprocess

    from miner.select.launchers import launcher_folder

    assert not (launcher_folder(tmp_path) / "nvidia-smi").exists()
    smi = launcher_folder(tmp_path, claim_gpu=True) / "nvidia-smi"

    def ask(*args: str) -> str:
        return subprocess.run([str(smi), *args], capture_output=True, text=True,
                              check=True).stdout  # fmt: skip

    query = "--query-gpu=index,memory.used"
    assert ask(query, "--format=csv,noheader,nounits") == "0, 0\n"
    assert ask(query, "--format=csv") == "index, memory.used\n0, 0 MiB\n"
    assert ask("-L").startswith("GPU 0: ")
    assert "GPU 0 is the CPU" in ask()
    assert not (launcher_folder(tmp_path) / "nvidia-smi").exists()  # gone once the claim is


def test_an_archive_a_blocked_download_left_empty_is_data(tmp_path: Path) -> None:
    crash = (
        "downloading data and tokenizing (1-2 min)\nTraceback (most recent call last):\n"
        '  File "main.py", line 126, in <module>\n'
        "    with zipfile.ZipFile('data_raw/data.zip', 'r') as zip_ref:\n"
        "zipfile.BadZipFile: File is not a zip file\n"
    )
    got, evidence = classify_training(log(tmp_path, crash), 1, False, 120, None)
    assert (got, evidence.line) == ("data", 5)


def test_a_blocked_download_a_checkpointer_announced_needs_weights(tmp_path: Path) -> None:
    crash = (
        "fcos_core.utils.checkpoint INFO: Loading checkpoint from "
        "catalog://ImageNetPretrained/MSRA/R-50\n"
        "Traceback (most recent call last):\n"
        '  File "torch/hub.py", line 425, in download_url_to_file\n'
        "urllib.error.URLError: <urlopen error [Errno -3] Temporary failure in name resolution>\n"
    )
    got, evidence = classify_training(log(tmp_path, crash), 1, False, 120, None)
    assert (got, evidence.line) == ("needs_weights", 1)


def test_an_output_parent_is_made_once_inside_the_copy_only(tmp_path):
    from miner.select.output_parents import OUTPUT_FOLDER_RULE, make_output_parent

    copy = tmp_path / "copy"
    copy.mkdir()
    made: set[str] = set()
    line = "FileNotFoundError: [Errno 2] No such file or directory: 'ckpt/exp1/model.pt'"
    assert make_output_parent("smoke.needs_data", line, copy, made) == ""
    assert make_output_parent(OUTPUT_FOLDER_RULE, line, copy, made).startswith(
        "output folder: made ckpt/exp1/,"
    )
    assert (copy / "ckpt" / "exp1").is_dir()
    assert make_output_parent(OUTPUT_FOLDER_RULE, line, copy, made) == ""  # once per folder
    outside = "FileNotFoundError: [Errno 2] No such file or directory: '../../out/log.txt'"
    assert make_output_parent(OUTPUT_FOLDER_RULE, outside, copy, made) == ""
    assert not (tmp_path.parent / "out").exists()


def test_a_clean_up_that_slips_while_handling_the_crash_gives_way_to_the_crash(tmp_path):
    # latent-diffusion's `main.py`: `finally: if trainer.global_rank == 0`, `trainer` unbound
    crash = (
        'Traceback (most recent call last):\n  File "main.py", line 480, in <module>\n'
        "    model = instantiate_from_config(config.model)\n"
        '  File "site-packages/taming/modules/losses/lpips.py", line 28, in load_from_pretrained\n'
        '    ckpt = get_ckpt_path(name, "taming/modules/autoencoder/lpips")\n'
        "requests.exceptions.ConnectionError: HTTPSConnectionPool(host='heibox.uni-heidelberg.de',"
        " port=443): Max retries exceeded with url: /f/6075/?dl=1\n"
        "During handling of the above exception, another exception occurred:\n"
        'Traceback (most recent call last):\n  File "main.py", line 514, in <module>\n'
        "    if trainer.global_rank == 0:\n"
    )
    text = crash + "NameError: name 'trainer' is not defined\n"
    got, evidence = classify_training(log(tmp_path, text), 1, False, 60, None)
    assert (got, evidence.rule) == ("needs_weights", "smoke.needs_weights")
    assert "get_ckpt_path" in evidence.text
    # The first exception's own words decide, not the slip after it.
    config = (
        'Traceback (most recent call last):\n  File "main.py", line 610, in <module>\n'
        "    model = instantiate_from_config(config.model)\n"
        "omegaconf.errors.ConfigAttributeError: Missing key model\n    full_key: model\n"
        "During handling of the above exception, another exception occurred:\n"
        'Traceback (most recent call last):\n  File "main.py", line 820, in <module>\n'
        "    if trainer.global_rank == 0:\nNameError: name 'trainer' is not defined\n"
    )
    got, evidence = classify_training(log(tmp_path, config), 1, False, 60, None)
    assert (got, evidence.line) == ("runtime", 4), evidence
    # A handler that raises an error of its own kind reports the crash itself.
    text = crash + "RuntimeError: the model could not be built\n"
    assert classify_training(log(tmp_path, text), 1, False, 60, None)[0] == "runtime"
    # A NameError with no crash before it is the project's own.
    alone = 'Traceback (most recent call last):\n  File "main.py", line 3\n'
    alone += "NameError: name 'trainer' is not defined\n"
    assert classify_training(log(tmp_path, alone), 1, False, 60, None)[0] == "runtime"
