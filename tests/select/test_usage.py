"""What a run that stopped for its arguments asks for: required values, placeholder outcomes."""

from __future__ import annotations

from pathlib import Path

from miner.codebook import Evidence
from miner.select.ladder import Marks
from miner.select.smoke_records import SmokeTarget
from miner.select.training import Training
from miner.select.usage import placeholder_outcome, required_values


def _training(outcome: str, text: str) -> Training:
    return Training(outcome, Evidence("train.log", 7, text, f"smoke.{outcome}"), 2, 1.0, True,
                    "python train.py", Marks(), None, False, False, False)  # fmt: skip


def _target(command: tuple[str, ...], placeholders: tuple[str, ...] = ()) -> SmokeTarget:
    readme = Evidence("README.md", 12, "python train.py --data path/to/data", "readme_command")
    return SmokeTarget("lab/p", 1, None, Path("."), command, placeholders=placeholders,
                       entry_evidence=readme)  # fmt: skip


def test_required_outputs_are_made_up_for_a_python_script_only():
    usage = _training("usage", "train.py: error: the following arguments are required: --outdir")
    [filled] = required_values(_target(("{python}", "train.py")), usage)
    assert filled.option == "--outdir" and filled.value.startswith("{run_dir}/outputs")
    assert required_values(_target(("bash", "train.sh")), usage) == ()


def test_placeholders_explain_a_stop_for_data_and_a_checkpoint_argument_needs_weights():
    notes: list[str] = []
    missing = _training("needs_data", "FileNotFoundError: 'path/to/data/train.csv'")
    target = _target(("{python}", "train.py"), ("--data path/to/data",))
    outcome, evidence = placeholder_outcome(target, missing, notes)
    assert outcome == "needs_data" and (evidence.path, evidence.line) == ("README.md", 12)
    assert evidence.rule == "smoke.needs_data.placeholder" and notes[0].startswith("needs_data:")
    resume = _training("usage", "error: the following arguments are required: --actual_resume")
    assert placeholder_outcome(_target(("{python}", "train.py")), resume, [])[0] == "needs_weights"
    crash = _training("runtime", "KeyError: 'model'")
    assert placeholder_outcome(target, crash, []) == ("runtime", crash.evidence)


def test_placeholders_the_run_filled_as_well_as_a_user_explain_no_stop():
    usage = _training("usage", "train.py: error: the following arguments are required: --lr")
    filled = _target(("bash", "train.sh", "1", "29500"), ("<num_gpu>", "<port>", "--out <dir>"))
    assert placeholder_outcome(filled, usage, []) == ("usage", usage.evidence)
    both = _target(("bash", "train.sh", "1"), ("<num_gpu>", "--data=<path>"))
    outcome, evidence = placeholder_outcome(both, usage, [])
    assert outcome == "needs_data" and evidence.text.startswith("placeholders --data=<path> in:")
