"""The stage hook's `step` mark: an optimisation step noticed without a printed loss, under real
PyTorch and under module layouts shaped like Keras's and TensorFlow 1's (their classes and call
signatures, written out here because neither library is a test dependency)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from miner.select.ladder import HOOK_DIR, ProgressWatch


def marks_of(tmp_path: Path, script: str, extra_path: Path | None = None) -> list[str]:
    """Run `script` with the stage hook loaded; the marks it wrote, `STAGE DETAIL` each."""
    marks = tmp_path / "stages.txt"
    (tmp_path / "train.py").write_text(script, encoding="utf-8")
    path = [str(HOOK_DIR)] + ([str(extra_path)] if extra_path else [])
    env = {**os.environ, "MINER_SMOKE_MARKS": str(marks), "PYTHONPATH": os.pathsep.join(path)}
    done = subprocess.run(
        [sys.executable, "train.py"], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    if not marks.exists():
        return []
    return [" ".join(line.split(" ", 2)[::2]) for line in marks.read_text().splitlines()]


TORCH_LOOP = """
import torch
model = torch.nn.Linear(3, 1)
class Clipped(torch.optim.SGD):  # a project's own optimizer overriding step
    def step(self, closure=None):
        return super().step(closure)
optimizer = {optimizer}
x, y = torch.randn(8, 3), torch.randn(8, 1)
for _ in range({steps}):
    optimizer.zero_grad()
    torch.nn.functional.mse_loss(model(x), y).backward()
    optimizer.step()
"""


@pytest.mark.parametrize(
    "optimizer, called",
    [
        ("torch.optim.Adam(model.parameters())", "Adam.step"),
        ("Clipped(model.parameters(), lr=0.1)", "Clipped.step"),
    ],
)
def test_a_silent_pytorch_loop_marks_its_first_step(tmp_path, optimizer, called):
    pytest.importorskip("torch")
    marks = marks_of(tmp_path, TORCH_LOOP.format(optimizer=optimizer, steps=3))
    assert marks == [f"step {called}"]


def test_an_optimizer_that_never_steps_marks_nothing(tmp_path):
    pytest.importorskip("torch")
    script = TORCH_LOOP.format(optimizer="torch.optim.Adam(model.parameters())", steps=0)
    assert marks_of(tmp_path, script) == []


def write_modules(root: Path, modules: dict[str, str]) -> Path:
    for dotted, text in modules.items():
        parts = dotted.split(".")
        for depth in range(1, len(parts)):
            init = root.joinpath(*parts[:depth], "__init__.py")
            init.parent.mkdir(parents=True, exist_ok=True)
            init.touch()
        root.joinpath(*parts[:-1], parts[-1] + ".py").write_text(text, encoding="utf-8")
    return root


# Keras 2.3's CallbackList: fit calls _call_batch_hook('train', 'end', ...), predict 'predict'.
KERAS_CALLBACKS = """
class CallbackList:
    def _call_batch_hook(self, mode, hook, batch, logs=None):
        return None
    def on_batch_end(self, batch, logs=None):
        self._call_batch_hook('train', 'end', batch, logs)
"""


def test_a_keras_training_batch_end_is_a_step_and_a_prediction_is_not(tmp_path):
    modules = write_modules(tmp_path / "lib", {"keras.callbacks": KERAS_CALLBACKS})
    predict = "from keras.callbacks import CallbackList\n" + (
        "CallbackList()._call_batch_hook('predict', 'end', 0)\n"
    )
    assert marks_of(tmp_path, predict, modules) == []
    fit = "from keras.callbacks import CallbackList\nCallbackList().on_batch_end(0)\n"
    assert marks_of(tmp_path, fit, modules) == ["step CallbackList._call_batch_hook"]


# TensorFlow 1: minimize() returns apply_gradients' op; Session.run(fetches, feed_dict).
TF1 = {
    "tensorflow.python.training.optimizer": """
class Op:
    def __init__(self, name):
        self.name = name
class Optimizer:
    def apply_gradients(self, grads_and_vars, name=None):
        return Op(name or 'Adam')
""",
    "tensorflow.python.client.session": """
class BaseSession:
    def run(self, fetches, feed_dict=None, options=None, run_metadata=None):
        return fetches
""",
}


def test_a_tensorflow_1_run_of_the_train_op_is_a_step(tmp_path):
    modules = write_modules(tmp_path / "lib", TF1)
    script = (
        "from tensorflow.python.training.optimizer import Optimizer, Op\n"
        "from tensorflow.python.client.session import BaseSession\n"
        "train_op = Optimizer().apply_gradients([])\n"
        "session = BaseSession()\n"
        "session.run(Op('loss:0'), feed_dict={'x': [1]})\n"  # an evaluation: data, no step
        "session.run([Op('loss:0'), train_op], {'x': [1]})\n"
    )
    marks = marks_of(tmp_path, script, modules)
    assert marks == ["data BaseSession.run", "step Session.run of an apply_gradients op"]


def test_the_watch_stops_on_the_mark_without_a_log_line(tmp_path):
    log, marks = tmp_path / "train.log", tmp_path / "stages.txt"
    log.write_text("Epoch 1/10\n")
    marks.write_text("args 1.0 ArgumentParser.parse_known_args\n")
    watch = ProgressWatch(log, marks)
    assert not watch()
    with marks.open("a") as fh:
        fh.write("step 2.0 Adam.step\n")
    assert watch() and watch.mark == (2, "step 2.0 Adam.step") and watch.line is None


def test_a_module_imported_after_the_arguments_were_parsed_keeps_the_stage() -> None:
    from miner.select.ladder import Marks, stage_reached

    started = Marks(at={"args": 3.0}, detail={"args": "ArgumentParser.parse_known_args"})
    assert stage_reached("import", started, True, False, False) == 3
    assert stage_reached("import", Marks(), True, False, False) == 1
    assert stage_reached("install", Marks(), True, False, False) == 1
