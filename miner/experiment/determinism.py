"""Deterministic kernels per framework, applied from outside the project's code.

Two kinds of knobs exist. Environment variables must be set before the framework starts; the
runner puts them in the child's environment, chosen by the versions the run's interpreter has:

- PyTorch: `CUBLAS_WORKSPACE_CONFIG=:4096:8` (cuBLAS reproducible since CUDA 10.2);
- TensorFlow: `TF_DETERMINISTIC_OPS=1` (2.1 and later), `TF_CUDNN_DETERMINISTIC=1` (1.14-2.0);
- JAX: `XLA_FLAGS=--xla_gpu_deterministic_ops=true` (jaxlib 0.3 and later;
  `--xla_gpu_deterministic_reductions` before), added only when jaxlib is installed because XLA
  aborts on a flag it does not know.

Calls must run inside the child after the framework is imported: `torch.use_deterministic_algorithms
(True)` (1.8+, `torch.set_deterministic` in 1.7) with `cudnn.deterministic=True` and
`cudnn.benchmark=False`, and TensorFlow's `tf.config.experimental.enable_op_determinism()` (2.8+).
The directory `hooks/` holds a `sitecustomize` that Python runs at start-up when the directory is on
PYTHONPATH: it registers an import hook that makes those calls right after the project imports the
framework, and writes what it applied, read back from the framework, to `determinism/<pid>.json`
in the run folder. The hook is installed in every run, so nondeterministic settings record the
framework's defaults the same way.
"""

from __future__ import annotations

import json
import os
import re
from collections.abc import Mapping
from pathlib import Path
from typing import Any

HOOK_DIR = Path(__file__).with_name("hooks")
REPORT_DIR = "determinism"
CUBLAS = ":4096:8"


def version_tuple(text: str | None) -> tuple[int, ...]:
    """'2.13.0+cpu' -> (2, 13, 0); '' or None -> ()."""
    if not text:
        return ()
    return tuple(int(p) for p in re.findall(r"\d+", text.split("+")[0])[:3])


def deterministic_env(libraries: Mapping[str, str]) -> dict[str, str]:
    """Environment knobs of deterministic kernels for the installed framework versions."""
    env = {"CUBLAS_WORKSPACE_CONFIG": CUBLAS}
    tf = version_tuple(libraries.get("tensorflow") or libraries.get("tensorflow-cpu"))
    if not tf or tf >= (2, 1):
        env["TF_DETERMINISTIC_OPS"] = "1"
    if not tf or tf < (2, 1):
        env["TF_CUDNN_DETERMINISTIC"] = "1"
    jaxlib = version_tuple(libraries.get("jaxlib"))
    if jaxlib:
        env["XLA_FLAGS"] = (
            "--xla_gpu_deterministic_ops=true"
            if jaxlib >= (0, 3)
            else "--xla_gpu_deterministic_reductions"
        )
    return env


def hook_env(
    base: Mapping[str, str], deterministic: bool, libraries: Mapping[str, str], run_dir: Path
) -> dict[str, str]:
    """The variables a run's child gets for the hook and, when asked, deterministic kernels."""
    path = base.get("PYTHONPATH", "")
    env = {
        "PYTHONPATH": os.pathsep.join(p for p in (str(HOOK_DIR), path) if p),
        "MINER_DETERMINISTIC": "1" if deterministic else "0",
        "MINER_DETERMINISM_REPORT": str(run_dir / REPORT_DIR),
    }
    if deterministic:
        knobs = deterministic_env(libraries)
        if "XLA_FLAGS" in knobs and base.get("XLA_FLAGS"):
            knobs["XLA_FLAGS"] = f"{base['XLA_FLAGS']} {knobs['XLA_FLAGS']}"
        env.update(knobs)
    return env


def read_reports(run_dir: Path) -> list[dict[str, Any]]:
    """What the hook applied and read back, one report per Python process of the run."""
    reports = []
    for path in sorted((run_dir / REPORT_DIR).glob("*.json")):
        try:
            reports.append(json.loads(path.read_text(encoding="utf-8")))
        except (OSError, ValueError):
            continue
    return reports


def summarize(reports: list[dict[str, Any]]) -> str:
    """One cell for runs.csv, e.g. 'torch=on' or 'torch=off tensorflow=on'; '' when none."""
    states: dict[str, bool] = {}
    for report in reports:
        for name, facts in (report.get("frameworks") or {}).items():
            on = bool(facts.get("deterministic"))
            states[name] = states.get(name, True) and on
    return " ".join(f"{k}={'on' if v else 'off'}" for k, v in sorted(states.items()))
