"""A launch script made ready in the copy: its log folders made, its training in the foreground."""

from __future__ import annotations

from pathlib import Path

from miner.select.launch_scripts import launch_script, prepare_launch_script

SCRIPT = "export PYTHONPATH=`pwd`\npython training_ptr_gen/train.py >& ../log/training_log &\n"


def _copy(tmp_path: Path, script: str) -> Path:
    copy = tmp_path / "run" / "src"
    copy.mkdir(parents=True)
    (copy / "start_train.sh").write_text(script, encoding="utf-8")
    return copy


def test_the_log_folder_is_made_and_the_training_runs_in_the_foreground(tmp_path: Path) -> None:
    copy = _copy(tmp_path, SCRIPT)
    notes = prepare_launch_script(("bash", "start_train.sh"), copy)
    assert (tmp_path / "run" / "log").is_dir()  # beside the copy, in the run's own folder
    assert (copy / "start_train.sh").read_text(encoding="utf-8").splitlines()[1] == (
        "python training_ptr_gen/train.py >& ../log/training_log"
    )
    assert [n.split(":")[1].strip().split()[0] for n in notes] == ["made", "runs"]


def test_what_a_script_needs_no_help_with_is_left_as_written(tmp_path: Path) -> None:
    kept = (
        "mkdir -p logs\npython train.py > logs/train.log 2>&1 && echo done\n"
        "python serve.py >/dev/null &\ntensorboard --logdir runs &\necho $! > /tmp/pid\n"
    )
    copy = _copy(tmp_path, kept.replace("mkdir -p logs\n", ""))
    (copy / "logs").mkdir()
    notes = prepare_launch_script(("sh", "start_train.sh"), copy)
    assert [n for n in notes if "foreground" in n] == [
        "launch script: runs its training in the foreground, not with a trailing & "
        "(start_train.sh:2)"
    ]  # a Python run's `&` goes; tensorboard's stays; `2>&1` and absolute targets are no folders
    assert "tensorboard --logdir runs &" in (copy / "start_train.sh").read_text(encoding="utf-8")
    assert launch_script(("{python}", "train.py"), copy) is None
    assert launch_script(("bash", "../outside.sh"), copy) is None
