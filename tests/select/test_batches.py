"""The small batch a smoke run asks for: options in the command, config overrides, and the
entry script's own default."""

from __future__ import annotations

from pathlib import Path

from miner.select.batches import SMALL_BATCH, declared_batch_options, small_batch

ARGPARSE = """
import argparse
parser = argparse.ArgumentParser()
parser.add_argument('-b', '--batch-size', default=256, type=int, help='mini-batch size')
parser.add_argument('--test-batch-size', default=1000, type=int)
parser.add_argument('--epochs', default=90, type=int)
"""
CLICK = """
import click
@click.command()
@click.option('--outdir', required=True)
@click.option('--batch', help='Total batch size', type=int, default=512, show_default=True)
def main(**kwargs):
    pass
"""
ABSL = """
from absl import flags
flags.DEFINE_integer('batch_size', 128, 'Batch size.')
flags.DEFINE_integer('eval_batch_size', 1000, 'Eval batch size.')
"""


def _script(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "train.py"
    path.write_text(text, encoding="utf-8")
    return path


def test_batch_options_in_the_command_are_lowered() -> None:
    command = ("{python}", "main.py", "--arch", "A0", "--batch-size", "32", "--epochs", "300")
    words, notes = small_batch(command, None)
    assert words == ("{python}", "main.py", "--arch", "A0", "--batch-size", "4", "--epochs", "300")
    assert notes == ("batch: --batch-size 32 -> 4",)
    words, _ = small_batch(("{python}", "t.py", "--per_device_train_batch_size=16",
                            "--per_device_eval_batch_size=64"), None)  # fmt: skip
    assert words == ("{python}", "t.py", "--per_device_train_batch_size=4",
                     "--per_device_eval_batch_size=64")  # fmt: skip


def test_config_overrides_are_lowered() -> None:
    yacs = ("{python}", "main.py", "--opts", "TRAIN.EPOCHS", "300", "DATA.BATCH_SIZE", "128")
    assert small_batch(yacs, None)[0][-1] == "4"
    assert (
        small_batch(("{python}", "tools/train.py", "SOLVER.IMS_PER_BATCH", "16"), None)[0][-1]
        == "4"
    )
    hydra = (
        "{python}",
        "train.py",
        "experiment=cifar",
        "data.batch_size=64",
        "trainer.max_epochs=5",
    )
    words, notes = small_batch(hydra, None)
    assert words[3] == "data.batch_size=4" and words[4] == "trainer.max_epochs=5"
    assert notes == ("batch: data.batch_size 64 -> 4",)


def test_small_batches_and_other_options_are_left_alone() -> None:
    command = ("{python}", "train.py", "--batch_size", "2", "--batchnorm", "1", "--bs_scale", "8")
    assert small_batch(command, None) == (command, ())
    assert small_batch(("{python}", "train.py", "--batch_size", "auto"), None)[0][-1] == "auto"


def test_a_short_option_counts_where_the_script_declares_it(tmp_path: Path) -> None:
    script = _script(tmp_path, ARGPARSE)
    words, notes = small_batch(("{python}", "train.py", "-b", "512", "data/imagenet"), script)
    assert words == ("{python}", "train.py", "-b", "4", "data/imagenet")
    assert notes == ("batch: -b 512 -> 4",)


def test_the_scripts_default_is_passed_when_the_command_gives_none(tmp_path: Path) -> None:
    words, notes = small_batch(
        ("{python}", "train.py", "--epochs", "2"), _script(tmp_path, ARGPARSE)
    )
    assert words[-2:] == ("--batch-size", str(SMALL_BATCH))
    assert "the script's default is 256" in notes[0]
    words, _ = small_batch(("{python}", "train.py", "--outdir=o"), _script(tmp_path, CLICK))
    assert words[-2:] == ("--batch", "4")
    words, _ = small_batch(("{python}", "train.py"), _script(tmp_path, ABSL))
    assert words[-1] == "--batch_size=4"


def test_nothing_is_added_to_a_shell_script_or_where_the_default_is_small(tmp_path: Path) -> None:
    script = _script(tmp_path, ARGPARSE)
    assert small_batch(("bash", "train.sh"), script) == (("bash", "train.sh"), ())
    small = _script(tmp_path, ARGPARSE.replace("default=256", "default=2"))
    assert small_batch(("{python}", "train.py"), small) == (("{python}", "train.py"), ())
    assert small_batch(("{python}", "train.py"), tmp_path / "missing.py")[1] == ()


def test_declared_options_are_read_without_running_the_script() -> None:
    options = declared_batch_options(ARGPARSE + "\nraise SystemExit('never run')\n")
    assert [(o.spellings, o.default) for o in options] == [(("-b", "--batch-size"), 256)]
    assert declared_batch_options("print 'python 2'") == ()


def test_the_batch_is_small_per_device_asked_for() -> None:
    command = ("{python}", "train.py", "--outdir=o", "--gpus=8", "--batch=32", "--mirror=1")
    assert small_batch(command, None) == (command, ())  # 4 per device already
    one = ("{python}", "train.py", "--outdir=o", "--gpus=1", "--batch=32", "--mirror=1")
    assert small_batch(one, None)[0][4] == "--batch=4"
    ids = ("{python}", "train.py", "--gpu_ids", "0,1", "--batch_size", "64")
    assert small_batch(ids, None)[0][-1] == "8"
