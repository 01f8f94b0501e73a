"""What the start-up hook did in a run: the stand-in data sets it served, the loaders it could
not stand in for, and the uses of the CPU shim; and the environment that turns it on.

`hooks/sitecustomize.py` writes one JSON report per Python process to the report folder; a run's
assistance is the union of its processes' reports.
"""

from __future__ import annotations

import json
import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

HOOK_DIR = Path(__file__).with_name("hooks")
REPORT_DIR = "standins"
STAND_IN = "stand-in data"
STAND_IN_WEIGHTS = "stand-in weights"
CPU_SHIM = "cpu shim"
HF_OFFLINE = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")


@dataclass(frozen=True)
class ServedData:
    """One stand-in served: the loader, its split, array shapes and dtypes, classes, and why
    the real loader failed."""

    loader: str
    split: str
    arrays: tuple[tuple[str, tuple[int, ...], str], ...]
    classes: int
    reason: str
    note: str = ""

    def text(self) -> str:
        """One line: loader (split): name shape dtype, ...; N classes; why."""
        shapes = ", ".join(
            f"{name} {'x'.join(map(str, shape)) or '-'} {dtype}"
            for name, shape, dtype in self.arrays
        )
        classes = f"; {self.classes} classes" if self.classes else ""
        note = f"; {self.note}" if self.note else ""
        return f"{self.loader} ({self.split}): {shapes}{classes}{note} [real: {self.reason}]"


@dataclass(frozen=True)
class Assists:
    """Everything the hook reported for one run."""

    served: tuple[ServedData, ...] = ()
    declined: tuple[str, ...] = ()  # "loader: why" for data no stand-in covers
    shim: tuple[tuple[str, int], ...] = ()  # (kind of rewrite, times)
    errors: tuple[str, ...] = ()  # patches that failed (the loader then ran unpatched)
    fetched: tuple[str, ...] = ()  # loaders that got their data in the data step
    weights: tuple[str, ...] = ()  # "loader: checkpoint [real: why]" left at random initialisation
    builtins: tuple[tuple[str, int], ...] = ()  # (name a profiler puts in builtins, uses)

    @property
    def labels(self) -> tuple[str, ...]:
        """'stand-in data', 'stand-in weights' and/or 'cpu shim', for what the run used."""
        used = ((STAND_IN, self.served), (STAND_IN_WEIGHTS, self.weights), (CPU_SHIM, self.shim))
        return tuple(label for label, present in used if present)

    def evidence(self) -> tuple[str, ...]:
        """One line per stand-in served, per declined loader and per kind of shim rewrite."""
        lines = [f"stand-in: {s.text()}" for s in self.served]
        lines += [f"stand-in weights: {w}" for w in self.weights]
        lines += [f"no stand-in: {d}" for d in self.declined]
        lines += [f"cpu shim: {kind} x{n}" for kind, n in self.shim]
        lines += [f"hook error: {e}" for e in self.errors]
        lines += [f"data step: {loader} downloaded" for loader in self.fetched]
        lines += [f"builtin: {name} (a profiler's decorator, left as the function) x{n}"
                  for name, n in self.builtins]  # fmt: skip
        return tuple(lines)


def assist_env(
    base: Mapping[str, str], report_dir: Path, stand_ins: bool, cpu_shim: bool, files: Path,
    claim_gpu: bool = False,
) -> dict[str, str]:  # fmt: skip
    """The variables that load the hook into a child (first on PYTHONPATH; it runs a
    sitecustomize further down too): stand-ins and/or the shim (`claim_gpu`: its second level,
    which shows the CPU as a GPU), reports to `report_dir`, stand-in files under `files`. Empty
    when neither is asked for."""
    if not (stand_ins or cpu_shim):
        return {}
    path = base.get("PYTHONPATH", "")
    env = {
        "PYTHONPATH": os.pathsep.join(p for p in (str(HOOK_DIR), path) if p),
        "MINER_STANDINS": "1" if stand_ins else "0",
        "MINER_CPU_SHIM": "1" if cpu_shim else "0",
        "MINER_CPU_SHIM_CLAIM": "1" if cpu_shim and claim_gpu else "0",
        "MINER_STANDIN_REPORT": str(report_dir),
        "MINER_STANDIN_FILES": str(files),
    }
    if stand_ins:  # a blocked Hub download fails at once instead of retrying for half a minute
        env.update({name: base.get(name, "1") for name in HF_OFFLINE})
    return env


def _served(entry: Mapping[str, Any]) -> ServedData:
    arrays = tuple(
        (str(name), tuple(int(s) for s in facts.get("shape") or ()), str(facts.get("dtype", "")))
        for name, facts in (entry.get("arrays") or {}).items()
    )
    return ServedData(
        loader=str(entry.get("loader", "")),
        split=str(entry.get("split", "")),
        arrays=arrays,
        classes=int(entry.get("classes") or 0),
        reason=str(entry.get("reason", "")),
        note=str(entry.get("note", "")),
    )


def read_assists(report_dir: Path) -> Assists:
    """The union of the per-process reports in `report_dir` (none: nothing was used)."""
    served: list[ServedData] = []
    declined: list[str] = []
    errors: list[str] = []
    shim: dict[str, int] = {}
    builtins: dict[str, int] = {}
    fetched: list[str] = []
    weights: list[str] = []
    for path in sorted(report_dir.glob("*.json")) + sorted(report_dir.glob("fetch/*.json")):
        try:
            report = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            continue
        served += [_served(e) for e in report.get("served") or () if isinstance(e, dict)]
        declined += [f"{d.get('loader')}: {d.get('reason')}" for d in report.get("declined") or ()]
        errors += [f"{e.get('module')}: {e.get('error')}" for e in report.get("errors") or ()]
        fetched += [str(loader) for loader in report.get("fetched") or ()]
        weights += [
            f"{w.get('loader')}: {w.get('weights')} [real: {w.get('reason')}]"
            for w in report.get("weights") or ()
            if isinstance(w, dict)
        ]
        for kind, times in (report.get("shim") or {}).items():
            shim[str(kind)] = shim.get(str(kind), 0) + int(times)
        for name, times in (report.get("builtins") or {}).items():
            builtins[str(name)] = builtins.get(str(name), 0) + int(times)
    unique = tuple(dict.fromkeys(served))  # a loader called again serves the same stand-in
    return Assists(
        unique, tuple(dict.fromkeys(declined)), tuple(sorted(shim.items())),
        tuple(dict.fromkeys(errors)), tuple(dict.fromkeys(fetched)),
        tuple(dict.fromkeys(weights)), tuple(sorted(builtins.items())),
    )  # fmt: skip


def outcome_label(outcome: str, assists: tuple[str, ...] | str) -> str:
    """'ok (stand-in data)' for a pass that needed help; the outcome itself otherwise."""
    labels = assists.split("; ") if isinstance(assists, str) else assists
    labels = tuple(label for label in labels if label)
    return f"{outcome} ({', '.join(labels)})" if outcome == "ok" and labels else outcome


def stand_in_refusal(document: Mapping[str, Any]) -> str | None:
    """Why an experiment should not run a manifest whose smoke run passed only on stand-in
    data or stand-in weights (None when it did not)."""
    smoke = document.get("smoke") or {}
    assists = smoke.get("assists") or ()
    if smoke.get("outcome") != "ok" or not {STAND_IN, STAND_IN_WEIGHTS} & set(assists):
        return None
    served = [line for line in smoke.get("assist_evidence") or () if line.startswith("stand-in")]
    what = f" ({served[0]})" if served else ""
    kind = " and ".join(k for k in (STAND_IN, STAND_IN_WEIGHTS) if k in assists)
    return (
        f"its smoke run trained only on {kind}{what}; supply the real files, or give "
        "--stand-in-data to run the experiment on the stand-in"
    )
