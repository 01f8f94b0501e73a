"""The device factor (`cpu`, `cuda`, `cuda:N`) and the accelerator facts recorded with a run.

A CPU run hides every GPU (CUDA_VISIBLE_DEVICES=""), so a project that picks CUDA when it can
still trains on the CPU; a `cuda:N` run sees only GPU N, which the project then calls cuda:0.
The `{device}` placeholder and MINER_DEVICE give the project `cpu` or `cuda`.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from miner.errors import ExperimentError

_DEVICE = re.compile(r"^(cpu|cuda)(?::(\d+))?$")
_PROBE = """
import importlib.util, json, shutil, subprocess, sys
out = {}
smi = shutil.which("nvidia-smi")
if smi:
    try:
        text = subprocess.run(
            [smi, "--query-gpu=index,name,driver_version,memory.total", "--format=csv,noheader"],
            capture_output=True, text=True, timeout=30).stdout
        out["gpus"] = [dict(zip(("index", "name", "driver", "memory"),
                                (c.strip() for c in line.split(","))))
                       for line in text.splitlines() if line.strip()]
    except Exception as exc:
        out["nvidia_smi_error"] = str(exc)
wanted = sys.argv[1] == "1" or bool(out.get("gpus"))
if wanted and importlib.util.find_spec("torch") is not None:
    import torch
    facts = {"version": torch.__version__, "cuda": torch.version.cuda,
             "cuda_available": torch.cuda.is_available(),
             "device_count": torch.cuda.device_count() if torch.cuda.is_available() else 0}
    if facts["cuda_available"]:
        facts["cudnn"] = torch.backends.cudnn.version()
        facts["devices"] = [
            {"index": i, "name": torch.cuda.get_device_name(i),
             "capability": ".".join(map(str, torch.cuda.get_device_capability(i)))}
            for i in range(torch.cuda.device_count())]
    out["torch"] = facts
print(json.dumps(out))
"""


def parse_devices(text: str) -> tuple[str, ...]:
    """'cpu' or 'cpu,cuda:0' -> the devices, validated, in order without repeats."""
    found: list[str] = []
    for part in (p.strip().lower() for p in text.split(",")):
        if not part:
            continue
        match = _DEVICE.match(part)
        if not match or (match.group(1) == "cpu" and match.group(2)):
            raise ExperimentError(f"--device: {part!r} is not cpu, cuda or cuda:N")
        name = part if match.group(1) == "cpu" else f"cuda:{match.group(2) or 0}"
        if name not in found:
            found.append(name)
    if not found:
        raise ExperimentError("--device: give cpu, cuda or cuda:N")
    return tuple(found)


def device_env(device: str) -> dict[str, str]:
    """The child's variables for a device: which GPUs it sees and what it should ask for."""
    if device == "cpu":
        return {"CUDA_VISIBLE_DEVICES": "", "MINER_DEVICE": "cpu"}
    return {"CUDA_VISIBLE_DEVICES": device.split(":")[1], "MINER_DEVICE": "cuda"}


def device_slug(device: str) -> str:
    """'' for cpu (configuration names stay as before), else e.g. 'cuda0'."""
    return "" if device == "cpu" else device.replace(":", "")


def probe_accelerators(
    python: str, env: Mapping[str, str], cwd: Path, cuda: bool = False
) -> dict[str, Any]:
    """GPUs, driver (nvidia-smi), CUDA and cuDNN (torch, when the run's interpreter has it).

    torch is imported (about a second) only when a GPU is there or `cuda` runs are asked for.
    """
    try:
        done = subprocess.run(
            [python, "-c", _PROBE, "1" if cuda else "0"], env=dict(env), cwd=str(cwd),
            capture_output=True, text=True, timeout=120, check=False,
        )  # fmt: skip
        return dict(json.loads(done.stdout))
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        return {"error": f"accelerator probe failed: {exc}"}


def gpu_count(facts: Mapping[str, Any]) -> int:
    """GPUs the probe saw (torch's count when it has one, else nvidia-smi's rows)."""
    torch_facts = facts.get("torch") or {}
    if torch_facts.get("cuda_available"):
        return int(torch_facts.get("device_count") or 0)
    if torch_facts:
        return 0  # torch is there but sees no GPU: a CUDA run could not use one
    return len(facts.get("gpus") or [])


def check_devices(devices: tuple[str, ...], facts: Mapping[str, Any]) -> None:
    """A CUDA device that is not there is one error line before any run starts."""
    wanted = [d for d in devices if d != "cpu"]
    if not wanted:
        return
    count = gpu_count(facts)
    torch_facts = facts.get("torch") or {}
    if count == 0:
        why = "nvidia-smi found no GPU" if "gpus" in facts else "no nvidia-smi"
        if torch_facts:
            why += f"; torch {torch_facts.get('version')} sees no CUDA device"
        raise ExperimentError(f"--device {wanted[0]}: no CUDA GPU on this machine ({why})")
    for device in wanted:
        if int(device.split(":")[1]) >= count:
            raise ExperimentError(f"--device {device}: only {count} GPU(s) here (0-{count - 1})")


def accelerator_for(device: str, facts: Mapping[str, Any]) -> dict[str, Any]:
    """What a run on `device` ran on: GPU name, driver, CUDA and cuDNN versions (CPU: {})."""
    if device == "cpu":
        return {}
    index = int(device.split(":")[1])
    torch_facts = facts.get("torch") or {}
    gpus = facts.get("gpus") or []
    devices = torch_facts.get("devices") or []
    out: dict[str, Any] = {"device": device}
    if index < len(devices):
        out.update(name=devices[index].get("name"), capability=devices[index].get("capability"))
    if index < len(gpus):
        out.setdefault("name", gpus[index].get("name"))
        out.update(driver=gpus[index].get("driver"), memory=gpus[index].get("memory"))
    out.update(cuda=torch_facts.get("cuda"), cudnn=torch_facts.get("cudnn"))
    return {k: v for k, v in out.items() if v is not None}
