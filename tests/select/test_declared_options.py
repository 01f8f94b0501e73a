"""The options a script declares, read with `ast`: argparse, click and absl alike."""

from __future__ import annotations

from miner.select.cpu_options import declared_cpu_option
from miner.select.declared_options import constant, declared_options

SOURCE = """
import argparse, click
from absl import flags
parser = argparse.ArgumentParser()
parser.add_argument('-b', '--Batch-Size', type=int, default=64, help='per GPU')
parser.add_argument('data')
@click.option('--device', default='cuda')
def main(device): pass
flags.DEFINE_integer('batch_size', 128, 'Batch size.')
flags.DEFINE_bool('use_gpu', True, 'Run on a GPU.')
print('nothing else is an option', {'default': 3})
"""


def test_each_parser_gives_its_spellings_default_and_form():
    options = declared_options(SOURCE)
    assert [(o.spellings, o.absl, o.define, constant(o.default)) for o in options] == [
        (("-b", "--Batch-Size"), False, "", 64),
        (("--device",), False, "", "cuda"),
        (("--batch_size",), True, "DEFINE_integer", 128),
        (("--use_gpu",), True, "DEFINE_bool", True),
    ]  # a positional argument is no option
    first = options[0]
    assert (first.longest, first.names(), first.help, first.line) == (
        "--Batch-Size", {"batch_size"}, "per GPU", 5,
    )  # fmt: skip


def test_an_absl_flag_with_help_text_keeps_its_default():
    # the help string is the third argument; the default, a bool, the second
    option = declared_cpu_option("flags.DEFINE_bool('use_gpu', True, 'Run on a GPU.')\n")
    assert option is not None and option.words == ("--use_gpu=false",)


def test_python_2_source_declares_nothing():
    assert declared_options("print 'python 2'\nparser.add_argument('--lr')\n") == ()
