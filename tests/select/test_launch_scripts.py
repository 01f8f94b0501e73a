"""A launch script made ready in the copy: its training in the foreground and on the run's log,
the folders its other output goes to made."""

from __future__ import annotations

from pathlib import Path

from miner.select.launch_scripts import launch_script, prepare_launch_script

SCRIPT = (
    "export PYTHONPATH=`pwd`\necho started > ../log/started\n"
    "python training_ptr_gen/train.py >& ../log/training_log &\n"
)


def _copy(tmp_path: Path, script: str) -> Path:
    copy = tmp_path / "run" / "src"
    copy.mkdir(parents=True)
    (copy / "start_train.sh").write_text(script, encoding="utf-8")
    return copy


def test_the_training_runs_in_the_foreground_onto_the_runs_log(tmp_path: Path) -> None:
    copy = _copy(tmp_path, SCRIPT)
    notes = prepare_launch_script(("bash", "start_train.sh"), copy)
    assert (tmp_path / "run" / "log").is_dir()  # beside the copy, in the run's own folder
    lines = (copy / "start_train.sh").read_text(encoding="utf-8").splitlines()
    assert lines[1:] == ["echo started > ../log/started", "python training_ptr_gen/train.py"]
    assert [n.split(":")[1].strip().split()[0] for n in notes] == ["made", "its", "runs"]


def test_what_a_script_needs_no_help_with_is_left_as_written(tmp_path: Path) -> None:
    script = "python train.py 2>&1 && echo done\ntensorboard --logdir runs &\necho $! > /tmp/p\n"
    copy = _copy(tmp_path, script)
    assert prepare_launch_script(("sh", "start_train.sh"), copy) == []
    assert (copy / "start_train.sh").read_text(encoding="utf-8") == script
    assert launch_script(("{python}", "train.py"), copy) is None
    assert launch_script(("bash", "../outside.sh"), copy) is None
