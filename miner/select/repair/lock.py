"""A replayable environment: the lock of an environment whose entry point imports, and the
scripts that rebuild it.

`<dir>/lock.json` records the interpreter, the exact versions (`uv pip freeze`), the index
options and date, and every repair with its evidence; `requirements.lock.txt` is the freeze
(what came from the checkout itself left out: the run's copy provides it through the path);
`rebuild.sh` is the plain uv commands and `Dockerfile` the same on the matching python image.
`rebuild_environment` replays the lock into a new folder, which `miner experiment` runs in.
"""

from __future__ import annotations

import json
import shlex
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from miner.errors import ExperimentError
from miner.select.pythons import interpreter_version
from miner.select.repair.envs import VIRTUALENV_PY2, Builder, python2_interpreters
from miner.select.repair.records import Repair

LOCK_VERSION = 1
LOCAL = ("file://", "-e ")


@dataclass(frozen=True)
class Lock:
    """What a lock says."""

    python: str  # "3.7.16"
    interpreter: str  # the path the environment was made from
    requirements: tuple[str, ...]
    options: tuple[str, ...]
    repairs: tuple[Repair, ...]
    local: tuple[str, ...] = ()
    python2: bool = False
    as_of: str | None = None

    def as_dict(self) -> dict[str, Any]:
        """lock.json's content."""
        return {
            "lock_version": LOCK_VERSION,
            "python": self.python,
            "interpreter": self.interpreter,
            "python2": self.python2,
            "as_of": self.as_of,
            "options": list(self.options),
            "requirements": list(self.requirements),
            "local": list(self.local),
            "repairs": [r.as_dict() for r in self.repairs],
            "written_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        }


def read_lock(folder: Path) -> Lock:
    """The lock in `folder` (one ExperimentError line when it is missing or broken)."""
    try:
        data = json.loads((folder / "lock.json").read_text(encoding="utf-8"))
        return Lock(
            str(data["python"]), str(data["interpreter"]), tuple(data["requirements"]),
            tuple(data.get("options") or ()), tuple(Repair.of(r) for r in data["repairs"]),
            tuple(data.get("local") or ()), bool(data.get("python2")), data.get("as_of"),
        )  # fmt: skip
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ExperimentError(f"{folder}: no readable lock.json ({exc})") from None


def write_lock(folder: Path, lock: Lock) -> Path:
    """Write lock.json, requirements.lock.txt, rebuild.sh and Dockerfile into `folder`."""
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lock.json").write_text(json.dumps(lock.as_dict(), indent=2) + "\n", "utf-8")
    body = "".join(f"{ln}\n" for ln in (*lock.options, *lock.requirements))
    (folder / "requirements.lock.txt").write_text(body, encoding="utf-8")
    (folder / "rebuild.sh").write_text(_script(lock), encoding="utf-8")
    (folder / "rebuild.sh").chmod(0o755)
    (folder / "Dockerfile").write_text(_dockerfile(lock), encoding="utf-8")
    return folder / "lock.json"


def lock_of(builder: Builder, interpreter: str, repairs: tuple[Repair, ...]) -> Lock:
    """The lock of the environment `builder` made from `interpreter`."""
    frozen = builder.freeze()
    local = tuple(ln for ln in frozen if any(m in ln for m in LOCAL))
    version = _full_version(builder)
    return Lock(
        version, interpreter, tuple(ln for ln in frozen if ln not in local), builder.options,
        repairs, local, builder.python2, builder.as_of,
    )  # fmt: skip


def _full_version(builder: Builder) -> str:
    try:
        text = (builder.venv / "pyvenv.cfg").read_text(encoding="utf-8")
    except OSError:
        return ""
    for line in text.splitlines():
        key, _, value = line.partition("=")
        if key.strip() in ("version_info", "version"):
            return value.strip()
    return ""


def _short(python: str) -> str:
    return ".".join(python.split(".")[:2]) or "3"


def _script(lock: Lock) -> str:
    python = _short(lock.python)
    lines = [
        "#!/bin/sh",
        "# Rebuild the environment this lock describes: ./rebuild.sh [FOLDER]",
        "set -eu",
        'here=$(cd "$(dirname "$0")" && pwd)',
        'env=${1:-"$here/env"}',
    ]
    # The interpreter the smoke run used where it is still there, else any of its version.
    lines.append(f'py={shlex.quote(lock.interpreter)}; [ -x "$py" ] || py={python}')
    if lock.python2:
        lines += [
            f'uv tool run --from \'{VIRTUALENV_PY2}\' virtualenv -p "$py" "$env"',
            '"$env/bin/python" -m pip install --no-deps -r "$here/requirements.lock.txt"',
        ]
    else:
        lines += [
            'uv venv --python "$py" "$env"',
            'uv pip sync --python "$env/bin/python" "$here/requirements.lock.txt"',
        ]
    lines.append(
        'site=$("$env/bin/python" -c \'import sysconfig; print(sysconfig.get_paths()["purelib"])\')'
    )
    lines.append(f"printf '%s' {shlex.quote(_hook())} > \"$site/miner-checkout.pth\"")
    return "\n".join(lines) + "\n"


def _hook() -> str:
    from miner.select.repair.envs import PATH_HOOK

    return PATH_HOOK


def _dockerfile(lock: Lock) -> str:
    python = _short(lock.python)
    head = [f"FROM python:{python}-slim", "WORKDIR /env", "COPY requirements.lock.txt ."]
    if lock.python2:
        body = ["RUN pip install --no-deps -r requirements.lock.txt"]
    else:
        body = ["RUN pip install uv && uv pip install --system -r requirements.lock.txt"]
    return "\n".join([*head, *body, "WORKDIR /work", "ENV PYTHONPATH=/work:/work/src", ""])


def rebuild_environment(folder: Path, venv: Path, log: Path, work: Path,
                        env: dict[str, str], timeout: float = 1800.0) -> Path:  # fmt: skip
    """Make the locked environment again in `venv`; its interpreter's path."""
    lock = read_lock(folder)
    interpreter = _interpreter(lock)
    builder = Builder(venv, work, log, env, timeout, None, lock.options, lock.python2)
    made = builder.make(interpreter)
    if made.exit_code != 0:
        raise ExperimentError(f"{folder}: cannot make a Python {lock.python} environment "
                              f"(see {log})")  # fmt: skip
    if lock.requirements and not builder.restore(list(lock.requirements)):
        raise ExperimentError(f"{folder}: the locked versions did not install (see {log})")
    builder.add_path_hook()
    return builder.python


def _interpreter(lock: Lock) -> str:
    if Path(lock.interpreter).exists():
        return lock.interpreter
    if lock.python2:
        found = python2_interpreters()
        if found:
            return found[0]
    wanted = tuple(int(p) for p in _short(lock.python).split("."))
    for candidate in (f"python{_short(lock.python)}",):
        if interpreter_version(candidate) == wanted:
            return candidate
    return _short(lock.python)  # uv finds (or fetches) a matching interpreter
