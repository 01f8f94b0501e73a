"""Deterministic kernels reach the child: each framework's knobs, asserted from inside it.

PyTorch is the real library. TensorFlow and JAX are not installed here, so the tests build a
small stand-in package of each (with the distribution metadata the runner reads versions from):
what is checked is that the runner's environment and start-up hook reach the child's process,
which is the part miner owns.
"""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

from miner.experiment.determinism import deterministic_env, version_tuple
from miner.experiment.run import run_experiment
from miner.experiment.settings import parse_settings

REPORT = """
import json, os, sys
import {module}
print(json.dumps({{"state": {state}, "env": {{k: os.environ.get(k) for k in {names!r}}}}}))
"""
KNOBS = ["CUBLAS_WORKSPACE_CONFIG", "TF_DETERMINISTIC_OPS", "TF_CUDNN_DETERMINISTIC", "XLA_FLAGS"]
FAKE_TF = """
__version__ = "{version}"
class _Experimental:
    enabled = False
    def enable_op_determinism(self):
        _Experimental.enabled = True
    def is_op_determinism_enabled(self):
        return _Experimental.enabled
class config:
    experimental = _Experimental()
"""


def _package(root: Path, module: str, dist: str, version: str, body: str) -> None:
    (root / module).mkdir(parents=True)
    (root / module / "__init__.py").write_text(textwrap.dedent(body))
    info = root / f"{dist}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")


def _child_view(tmp_path, python, manifest_for, module, state, env=None):
    """Run `import module` under control and impl; what the child saw, per setting."""
    code = REPORT.format(module=module, state=state, names=KNOBS)
    manifest = manifest_for("knobs", command=[python, "-c", code], env=env or {})
    events = run_experiment(manifest, tmp_path / "runs", (1,), parse_settings("control,impl"), 1)
    seen = {}
    for event in events:
        record = event.record
        assert record.status == "ok", (Path(record.run_dir) / "stderr.log").read_text()
        log = (Path(record.run_dir) / "stdout.log").read_text()
        seen[record.setting] = (json.loads(log), record)
    return seen


def test_pytorch_knobs_inside_the_child(torch_installed, tmp_path, python, manifest_for):
    state = (
        "[torch.are_deterministic_algorithms_enabled(), torch.backends.cudnn.deterministic, "
        "torch.backends.cudnn.benchmark]"
    )
    seen = _child_view(tmp_path, python, manifest_for, "torch", state)
    control, record = seen["control"]
    assert control["state"] == [True, True, False]
    assert control["env"]["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    (report,) = [r for r in record.determinism["reports"] if r["frameworks"]]
    assert report["frameworks"]["torch"]["applied"][0] == "torch.use_deterministic_algorithms(True)"
    assert record.determinism["env"]["CUBLAS_WORKSPACE_CONFIG"] == ":4096:8"
    assert record.as_row()["determinism_applied"] == "torch=on"
    impl, record = seen["impl"]
    assert impl["state"][0] is False and impl["env"]["CUBLAS_WORKSPACE_CONFIG"] is None
    assert record.as_row()["determinism_applied"] == "torch=off"


def test_tensorflow_call_or_variable_by_version(tmp_path, python, manifest_for):
    new, old = tmp_path / "tf2.12", tmp_path / "tf2.0"
    _package(new, "tensorflow", "tensorflow", "2.12.0", FAKE_TF.format(version="2.12.0"))
    _package(old, "tensorflow", "tensorflow", "2.0.0", "__version__ = '2.0.0'\n")
    state = "tensorflow.config.experimental.is_op_determinism_enabled()"
    seen = _child_view(tmp_path / "a", python, manifest_for, "tensorflow", state,
                       {"PYTHONPATH": str(new)})  # fmt: skip
    control, record = seen["control"]
    assert control["state"] is True and control["env"]["TF_DETERMINISTIC_OPS"] == "1"
    assert control["env"]["TF_CUDNN_DETERMINISTIC"] is None  # only before 2.1
    tf = next(r for r in record.determinism["reports"] if r["frameworks"])["frameworks"]
    assert tf["tensorflow"]["applied"] == ["tf.config.experimental.enable_op_determinism()"]
    assert seen["impl"][0]["state"] is False
    seen = _child_view(tmp_path / "b", python, manifest_for, "tensorflow", "None",
                       {"PYTHONPATH": str(old)})  # fmt: skip
    control, record = seen["control"]
    assert control["env"]["TF_CUDNN_DETERMINISTIC"] == "1"
    assert control["env"]["TF_DETERMINISTIC_OPS"] is None
    tf = next(r for r in record.determinism["reports"] if r["frameworks"])["frameworks"]
    assert tf["tensorflow"]["deterministic"] is True  # through the variable: 2.0 has no call


def test_jax_flags_only_with_jaxlib(tmp_path, python, manifest_for):
    fake = tmp_path / "jax"
    _package(fake, "jax", "jax", "0.4.30", "__version__ = '0.4.30'\n")
    _package(fake, "jaxlib", "jaxlib", "0.4.30", "__version__ = '0.4.30'\n")
    seen = _child_view(tmp_path, python, manifest_for, "jax", "None", {"PYTHONPATH": str(fake)})
    control, record = seen["control"]
    assert control["env"]["XLA_FLAGS"] == "--xla_gpu_deterministic_ops=true"
    jax = next(r for r in record.determinism["reports"] if r["frameworks"])["frameworks"]["jax"]
    assert jax["deterministic"] is True
    assert seen["impl"][0]["env"]["XLA_FLAGS"] is None


def test_knobs_by_version():
    assert version_tuple("2.13.0+cpu") == (2, 13, 0) and version_tuple(None) == ()
    assert "XLA_FLAGS" not in deterministic_env({})  # XLA aborts on flags it does not know
    assert deterministic_env({"jaxlib": "0.1.75"})["XLA_FLAGS"] == (
        "--xla_gpu_deterministic_reductions"
    )
    assert deterministic_env({"tensorflow": "2.5.0"}).get("TF_CUDNN_DETERMINISTIC") is None


def test_the_hook_keeps_the_projects_own_sitecustomize(tmp_path, python, manifest_for):
    own = tmp_path / "own"
    own.mkdir()
    (own / "sitecustomize.py").write_text("import os\nos.environ['OWN_SITE'] = 'ran'\n")
    code = "import os; print(os.environ.get('OWN_SITE'))"
    manifest = manifest_for("chain", command=[python, "-c", code], env={"PYTHONPATH": str(own)})
    (event,) = run_experiment(manifest, tmp_path / "runs", (1,), parse_settings("control"), 1)
    assert (Path(event.record.run_dir) / "stdout.log").read_text().strip() == "ran"
