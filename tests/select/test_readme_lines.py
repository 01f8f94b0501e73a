"""A README's lines as a shell reads them: HTML's markup gone, its variables replaced."""

from __future__ import annotations

from miner.select.entry import readme_commands
from miner.select.readme_lines import ShellVariables, html_unmarked


def test_assignments_alone_on_their_line_hold_until_assigned_again():
    variables = ShellVariables()
    assert variables.observe("data_dir=data/ATIS_samples")
    assert variables.observe("max_len=50  # max length for train/valid/test sequence")
    assert variables.observe("export OUT=${data_dir}/runs")  # made of another variable
    assert variables.observe("STAMP=$(date +%s)")  # runs a command: left out
    assert not variables.observe("CUDA_VISIBLE_DEVICES=0 python train.py")  # an environment
    assert not variables.observe("python train.py --lr=0.1")
    line = "python run.py --data $data_dir --len ${max_len} --out $OUT --tag $STAMP --x $other"
    assert variables.expand(line) == (
        "python run.py --data data/ATIS_samples --len 50 --out data/ATIS_samples/runs "
        "--tag $STAMP --x $other"
    )
    variables.observe("data_dir=data/full")
    assert variables.expand("--data $data_dir") == "--data data/full"


def test_a_readme_command_takes_the_values_its_block_assigned():
    text = (
        "**Usage**:\n```bash\ndata_dir=data/ATIS_samples\nmodel_dir=model_tmp\n"
        "task=joint  # available options: intent; tagging; joint\n\n"
        "python run_multi-task_rnn.py --data_dir $data_dir \\\n"
        "      --train_dir   $model_dir\\\n      --task $task\n```\n"
    )
    paths = frozenset({"run_multi-task_rnn.py", "data/ATIS_samples/train/train.seq.in"})
    [command] = readme_commands("README.md", text, paths)
    assert command.args == ("--data_dir", "data/ATIS_samples", "--train_dir", "model_tmp",
                            "--task", "joint")  # fmt: skip
    assert command.placeholders == ()
    # unassigned, a variable is still a placeholder the run fills
    [unassigned] = readme_commands("README.md", "python run_multi-task_rnn.py --data_dir $d\n",
                                   paths)  # fmt: skip
    assert unassigned.placeholders == ("--data_dir $d",)


def test_html_markup_goes_and_an_italic_value_is_a_placeholder():
    line = "<code>python3 train.py -train <i>dataset path</i> <b>now</b></code>"
    assert html_unmarked(line) == "python3 train.py -train <dataset_path> now"
    assert html_unmarked("python train.py --size <N>") == "python train.py --size <N>"
