"""The entry script's own CPU option, read with `ast` and given to the command."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.select.cpu_options import (
    cpu_rerun,
    declared_cpu_option,
    on_the_cpu,
    without_mixed_precision,
)

PARSER = "import argparse\nparser = argparse.ArgumentParser()\n"


@pytest.mark.parametrize(
    ("declaration", "words"),
    [
        ("parser.add_argument('--no-cuda', action='store_true', help='Use CPU')", ("--no-cuda",)),
        ("parser.add_argument('--no_cuda', action='store_true')", ("--no_cuda",)),
        ("parser.add_argument('--cpu', action='store_true')", ("--cpu",)),
        ("parser.add_argument('--device', type=str, default='cuda:0')", ("--device", "cpu")),
        (
            "parser.add_argument('--device', default=None, help='cuda, cuda:1, cpu')",
            ("--device", "cpu"),
        ),
        ("parser.add_argument('--cuda', default=True, type=str2bool)", ("--cuda", "False")),
        ("parser.add_argument('--use_gpu', default=True, type=bool)", ("--use_gpu", "")),
        (
            "parser.add_argument('--gpu_ids', default='0', help='ids: 0,1. use -1 for CPU')",
            ("--gpu_ids", "-1"),
        ),
        ("parser.add_argument('--cuda', action='store_true')", ()),
        ("flags.DEFINE_boolean('use_gpu', True, 'whether to use gpu')", ("--use_gpu=false",)),
        ("tf.app.flags.DEFINE_bool('cpu_only', False, 'cpu')", ("--cpu_only=true",)),
    ],
)
def test_an_option_that_keeps_the_script_on_the_cpu_is_read(declaration, words):
    option = declared_cpu_option(PARSER + declaration + "\n")
    assert option is not None and option.words == words and option.line == 3


@pytest.mark.parametrize(
    "declaration",
    [
        "parser.add_argument('--gpu', type=int, default=0, help='GPU id to use.')",
        "parser.add_argument('--gpu', '-g', type=int, default=-1)",  # the CPU already
        "parser.add_argument('--device', type=int, default=0)",
        "parser.add_argument('--cuda', default=False, type=str2bool)",
        "parser.add_argument('--batch-size', type=int, default=64)",
        "flags.DEFINE_boolean('use_gpu', False, 'whether to use gpu')",
    ],
)
def test_options_that_do_not_choose_the_cpu_are_left_alone(declaration):
    assert declared_cpu_option(PARSER + declaration + "\n") is None


def test_code_that_does_not_parse_has_no_option():
    assert declared_cpu_option("print 'python 2'\n") is None


def test_the_command_is_given_the_option_or_loses_its_gpu_value(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(PARSER + "parser.add_argument('--device', default='cuda')\n")
    command = ("{python}", "train.py", "--device", "cuda:1", "--epochs", "3")
    changed, note = on_the_cpu(command, script)
    assert changed == ("{python}", "train.py", "--epochs", "3", "--device", "cpu")
    assert note == "cpu option: --device cpu (declared at train.py:3)"
    changed, _ = on_the_cpu(("{python}", "train.py", "--device=cuda"), script)
    assert changed == ("{python}", "train.py", "--device", "cpu")


def test_a_gpu_switch_the_command_turns_on_is_dropped(tmp_path: Path):
    script = tmp_path / "main.py"
    script.write_text(PARSER + "parser.add_argument('--cuda', action='store_true')\n")
    changed, note = on_the_cpu(("{python}", "main.py", "--cuda", "--lr", "0.1"), script)
    assert changed == ("{python}", "main.py", "--lr", "0.1")
    assert note == "cpu option: without --cuda (declared at main.py:3)"


def test_nothing_changes_without_an_option_or_a_python_script(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(PARSER + "parser.add_argument('--lr', type=float)\n")
    command = ("{python}", "train.py")
    assert on_the_cpu(command, script) == (command, "")
    assert on_the_cpu(("bash", "train.sh"), tmp_path / "train.sh") == (("bash", "train.sh"), "")
    assert on_the_cpu(command, None) == (command, "")
    with_option = ("{python}", "train.py", "--no_cuda")
    script.write_text(PARSER + "parser.add_argument('--no_cuda', action='store_true')\n")
    assert on_the_cpu(with_option, script) == (with_option, "")


@pytest.mark.parametrize(
    ("command", "expected"),
    [
        (
            ("{python}", "sft.py", "--bf16", "True", "--lr", "1e-4"),
            ("{python}", "sft.py", "--lr", "1e-4"),
        ),
        (("{python}", "sft.py", "--fp16", "--tf32=True"), ("{python}", "sft.py")),
        (
            ("{python}", "train.py", "--precision", "16-mixed"),
            ("{python}", "train.py", "--precision", "32"),
        ),
        (
            ("accelerate", "launch", "--mixed_precision=bf16", "t.py"),
            ("accelerate", "launch", "--mixed_precision=no", "t.py"),
        ),
    ],
)
def test_half_precision_is_dropped_for_a_cpu_run(command, expected):
    changed, note = without_mixed_precision(command)
    assert changed == expected and note.startswith("cpu precision: full precision on the CPU")


def test_a_command_in_full_precision_is_left_alone():
    command = ("{python}", "train.py", "--precision", "32", "--epochs", "1")
    assert without_mixed_precision(command) == (command, "")


def test_each_cpu_rerun_is_tried_once(tmp_path: Path):
    script = tmp_path / "train.py"
    script.write_text(PARSER + "parser.add_argument('--no_cuda', action='store_true')\n")
    tried: set[str] = set()
    command = ("{python}", "train.py", "--bf16", "True")
    assert cpu_rerun("needs_gpu", "no NVIDIA driver", command, script, tried) == (
        (*command, "--no_cuda"),
        "cpu option: --no_cuda (declared at train.py:3)",
    )
    assert cpu_rerun("needs_gpu", "no NVIDIA driver", command, script, tried) is None
    message = "ValueError: Your setup doesn't support bf16/gpu. You need to assign use_cpu"
    assert cpu_rerun("runtime", message, command, script, tried) == (
        ("{python}", "train.py"),
        "cpu precision: full precision on the CPU (--bf16 True)",
    )
    assert cpu_rerun("runtime", message, command, script, tried) is None
    assert cpu_rerun("runtime", "KeyError: 'x'", command, script, set()) is None


def test_half_precision_inside_the_shell_script_the_command_runs_is_dropped(tmp_path: Path):
    script = tmp_path / "run_sft.sh"
    script.write_text(
        "torchrun --nproc_per_node 8 supervised_finetuning.py \\\n"
        "    --model_name_or_path Qwen/Qwen2.5-0.5B \\\n    --bf16 True \\\n"
        "    --fp16 \\\n    --num_train_epochs 1\n",
        encoding="utf-8",
    )
    message = "ValueError: Your setup doesn't support bf16/gpu. You need to assign use_cpu"
    command = ("bash", "run_sft.sh")
    rerun = cpu_rerun("runtime", message, command, script, set())
    assert rerun == (command, "cpu precision: full precision on the CPU (--bf16 True; --fp16, "
                              "in run_sft.sh)")  # fmt: skip
    text = script.read_text(encoding="utf-8")
    assert "--bf16" not in text and "--fp16" not in text and "--num_train_epochs 1" in text
