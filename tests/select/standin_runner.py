"""Run a small script in a real child process with the stand-in hook loaded and no network (a
new network namespace where the OS allows it, and proxies that refuse every connection)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from miner.select.sandbox import network_cut_prefix
from miner.select.standins.assists import Assists, assist_env, read_assists

REFUSED = "http://127.0.0.1:9"  # the discard port: nothing listens, the connection is refused


def importable(module: str, python: str = sys.executable) -> bool:
    """True when `python` can import `module` (checked in a child: a broken install counts)."""
    env = {**os.environ, "KERAS_BACKEND": "torch"}  # Keras 3 without TensorFlow
    argv = [python, "-c", f"import {module}"]
    done = subprocess.run(argv, capture_output=True, env=env, check=False)
    return done.returncode == 0


def need(module: str, python: str = sys.executable) -> None:
    """Skip the test, saying why, when `module` cannot be imported here."""
    if not importable(module, python):
        pytest.skip(f"{module} is not importable by {python}")


def run_hooked(
    script: str,
    tmp_path: Path,
    stand_ins: bool = True,
    cpu_shim: bool = False,
    python: str = sys.executable,
    extra_env: dict[str, str] | None = None,
    timeout: float = 600,
) -> tuple[dict, Assists, str]:
    """Run `script` (it prints one JSON line prefixed 'RESULT ') hooked; its result, what the
    hook reported, and the whole output."""
    work = tmp_path / "work"
    work.mkdir(exist_ok=True)
    (work / "script.py").write_text(script, encoding="utf-8")
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    base = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    proxies = dict.fromkeys(("HTTP_PROXY", "HTTPS_PROXY", "http_proxy", "https_proxy"), REFUSED)
    env = {
        **base, **proxies, "HOME": str(home), "NO_PROXY": "", "no_proxy": "",
        "KERAS_BACKEND": "torch", "CUDA_VISIBLE_DEVICES": "",
    }  # fmt: skip
    report = tmp_path / "report"
    env.update(assist_env(env, report, stand_ins, cpu_shim, tmp_path / "files"))
    env.update(extra_env or {})
    argv = [*(network_cut_prefix() or ()), python, "script.py"]
    done = subprocess.run(
        argv, cwd=work, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    output = done.stdout + done.stderr
    lines = [line for line in done.stdout.splitlines() if line.startswith("RESULT ")]
    result = json.loads(lines[-1][7:]) if lines else {}
    result["_exit"] = done.returncode
    return result, read_assists(report), output
