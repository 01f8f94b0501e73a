"""The lock of an environment that imports: what it records, and that its rebuild script and
`miner experiment` replay the same versions (offline, on a local index)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

from smoke_projects import TINYFIT, build_wheel, train

from miner.experiment.run import _locked_python
from miner.select.manifest import RunSpec
from miner.select.repair import read_lock, rebuild_environment
from miner.select.repair.envs import Builder
from miner.select.sandbox import uv_binary
from miner.select.smoke import SmokeOptions, SmokeTarget, smoke


def _env(tmp_path: Path) -> dict[str, str]:
    return {"PATH": f"{Path(uv_binary()).parent}:/usr/bin:/bin", "UV_OFFLINE": "1",
            "UV_CACHE_DIR": str(tmp_path / "uv-cache"), "UV_PYTHON_DOWNLOADS": "never"}  # fmt: skip


def _smoked(tmp_path: Path) -> tuple[Path, Path]:
    index = tmp_path / "index"
    build_wheel(index, "tinyfit", "0.1", {"tinyfit/__init__.py": TINYFIT})
    build_wheel(index, "oldpin", "1.2.5", {"oldpin.py": "VERSION = '1.2.5'\n"})
    checkout = tmp_path / "repo"
    checkout.mkdir()
    (checkout / "requirements.txt").write_text(
        f"--no-index\n--find-links {index}\ntinyfit==0.1\noldpin==1.2.3\n", encoding="utf-8"
    )
    (checkout / "train.py").write_text("import oldpin\n" + train(), encoding="utf-8")
    target = SmokeTarget("lab/locked", None, None, checkout, ("{python}", "train.py"),
                         (("requirements.txt", "requirements_file"),))  # fmt: skip
    result = smoke(target, SmokeOptions(out_dir=tmp_path / "smoke", timeout=60, env=_env(tmp_path)))
    assert result.outcome == "ok" and result.lock is not None, result.evidence
    return Path(result.lock), index


def _freeze(venv: Path, tmp_path: Path) -> list[str]:
    return Builder(venv, tmp_path, tmp_path / "f.log", _env(tmp_path), 60.0).freeze()


def test_the_lock_records_interpreter_versions_and_repairs(tmp_path: Path) -> None:
    lock_path, index = _smoked(tmp_path)
    data = json.loads(lock_path.read_text())
    assert data["requirements"] == ["oldpin==1.2.5", "tinyfit==0.1"]
    assert data["options"] == ["--no-index", f"--find-links {index}"]
    assert data["python"].count(".") == 2 and Path(data["interpreter"]).exists()
    kinds = [r["kind"] for r in data["repairs"]]
    assert "pin" in kinds and "path" in kinds
    pin = next(r for r in data["repairs"] if r["kind"] == "pin")
    assert (pin["before"], pin["after"]) == ("oldpin==1.2.3", "oldpin==1.2.5")
    folder = lock_path.parent
    assert "uv pip sync" in (folder / "rebuild.sh").read_text()
    docker = (folder / "Dockerfile").read_text()
    assert docker.startswith(f"FROM python:{'.'.join(data['python'].split('.')[:2])}-slim")
    assert "requirements.lock.txt" in docker
    assert read_lock(folder).repairs[0].kind == data["repairs"][0]["kind"]


def test_the_rebuild_script_and_the_experiment_replay_the_same_versions(tmp_path: Path) -> None:
    lock_path, _ = _smoked(tmp_path)
    folder = lock_path.parent
    smoked_env = tmp_path / "smoke" / "envs" / "lab__locked"
    locked = _freeze(smoked_env, tmp_path)
    # The plain uv commands of rebuild.sh.
    script_env = tmp_path / "by-script"
    done = subprocess.run(["sh", str(folder / "rebuild.sh"), str(script_env)], env=_env(tmp_path),
                          capture_output=True, text=True, check=False)  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert _freeze(script_env, tmp_path) == locked
    assert list(script_env.glob("lib/python*/site-packages/miner-checkout.pth"))
    # miner experiment: the smoke run's environment is gone, so it is rebuilt from the lock.
    shutil.rmtree(smoked_env)
    spec = RunSpec(command=("{python}", "train.py"), source=str(tmp_path / "repo"),
                   python=str(smoked_env / "bin" / "python"), lock=str(lock_path))  # fmt: skip
    old = dict(os.environ)
    os.environ.update(_env(tmp_path))
    try:
        python = _locked_python(spec, tmp_path / "experiment")
    finally:
        os.environ.clear()
        os.environ.update(old)
    assert python == str(tmp_path / "experiment" / "env" / "bin" / "python")
    assert _freeze(tmp_path / "experiment" / "env", tmp_path) == locked
    again = rebuild_environment(folder, tmp_path / "again", tmp_path / "a.log", tmp_path,
                                _env(tmp_path))  # fmt: skip
    assert _freeze(again.parent.parent, tmp_path) == locked
