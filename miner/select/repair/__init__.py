"""Deterministic environment repair for smoke runs, and the locks that replay what worked.

A smoke run hands its install plan to `build_environment`; each change it makes is a `Repair`
with its reason and evidence (`torch==0.4.0 -> torch==0.4.1: 0.4.0 was never on the index`). An
environment whose entry point imports gets a lock (`locked`), which `rebuild_environment`
replays for `miner experiment`. All candidates share one package cache (`package_cache`).
"""

from __future__ import annotations

import os
import shutil
import subprocess
from collections.abc import Mapping
from pathlib import Path

from miner.errors import DiskFull
from miner.select.repair.attempt import BuildRequest, EnvironmentBuild
from miner.select.repair.engine import build_environment
from miner.select.repair.envs import Builder
from miner.select.repair.lock import Lock, lock_of, read_lock, rebuild_environment, write_lock
from miner.select.repair.records import Repair

__all__ = [
    "MIN_FREE_BYTES", "BuildRequest", "EnvironmentBuild", "Lock", "Repair", "build_environment",
    "cache_dir", "ensure_disk_room", "locked", "package_cache", "package_cache_env", "read_lock",
    "rebuild_environment", "write_lock",
]  # fmt: skip


def locked(
    built: EnvironmentBuild, venv: Path, logs: Path, work: Path, env: dict[str, str]
) -> Path:
    """Write the lock of the environment `built` made in `venv` under `logs/lock/`."""
    builder = Builder(venv, work, logs / "install.log", env, 600.0, built.as_of, built.options,
                      built.python2)  # fmt: skip
    return write_lock(logs / "lock", lock_of(builder, built.interpreter, built.repairs))


def cache_dir(env: Mapping[str, str] | None = None) -> Path:
    """Where uv keeps its package cache for `env` (`uv cache dir`)."""
    from miner.select.sandbox import uv_binary

    env = dict(os.environ if env is None else env)
    try:
        done = subprocess.run([uv_binary(), "cache", "dir"], capture_output=True, text=True,
                              timeout=60, check=False, env=env)  # fmt: skip
        if done.returncode == 0 and done.stdout.strip():
            return Path(done.stdout.strip())
    except (OSError, subprocess.TimeoutExpired):
        pass
    return Path(env.get("UV_CACHE_DIR") or Path.home() / ".cache" / "uv")


def package_cache(env: Mapping[str, str] | None = None) -> tuple[Path, int]:
    """Where the package cache every candidate shares is, and how many bytes it holds."""
    path = cache_dir(env)
    size = 0
    for root, _, files in os.walk(path):
        for name in files:
            try:
                size += os.lstat(os.path.join(root, name)).st_size
            except OSError:
                pass
    return path, size


# Room a smoke run wants before it starts: a copy of the checkout and one environment (a CPU
# PyTorch or TensorFlow with its companions takes 2 to 4 GiB unpacked, the downloads again in the
# cache, which environments share). Candidates side by side want it each.
MIN_FREE_BYTES = 4 * 1024**3


def ensure_disk_room(env: Mapping[str, str], folder: Path, need: int = MIN_FREE_BYTES) -> str:
    """Make sure the disks of the package cache and of `folder` (a study's smoke output) have
    `need` bytes free, and say what was done to get there: first the cache is pruned of what no
    environment uses (`uv cache prune`); where that is not enough, the environments of the
    candidates whose runs have ended (`folder/envs/<slug>` beside a `folder/<slug>/smoke.json`;
    their locks rebuild them) are removed and the package cache is emptied (`uv cache clean`,
    which waits for installs that use it), since environments and cache share their files. An
    unattended run of many candidates goes on instead of stopping half-way; where even that
    is not enough, it stops with one line before a build fails."""
    cache = cache_dir(env)
    places = [p for p in (cache, folder) if p.exists() or p.parent.exists()]

    def short() -> list[tuple[Path, int]]:
        out = []
        for place in places:
            free = shutil.disk_usage(place if place.exists() else place.parent).free
            if free < need:
                out.append((place, free))
        return out

    if not short():
        return ""
    _uv_cache(env, "prune")
    if not short():
        return f"the disk was short of {need / 1024**3:.0f} GiB free: `uv cache prune` freed it"
    done = []
    if removed := _ended_environments(folder):
        done.append(f"the environments of {removed} ended runs removed (their locks rebuild them)")
    if _uv_cache(env, "clean"):
        done.append("the package cache emptied (`uv cache clean`)")
    still = short()
    if still:
        place, free = still[0]
        raise DiskFull(
            f"only {free / 1024**3:.1f} GiB free at {place} (a smoke run needs "
            f"{need / 1024**3:.0f} GiB) after `uv cache prune`"
            f"{''.join(', ' + d for d in done)}: free disk space and run it again"
        )
    return f"the disk was short of {need / 1024**3:.0f} GiB free: " + ", ".join(done or ["freed"])


def _uv_cache(env: Mapping[str, str], command: str) -> bool:
    """Run `uv cache <command>` (prune, clean); whether it succeeded."""
    from miner.select.sandbox import uv_binary

    try:
        done = subprocess.run([uv_binary(), "cache", command], capture_output=True,
                              timeout=1800, check=False, env=dict(env))  # fmt: skip
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _ended_environments(folder: Path) -> int:
    """Remove the environments under `folder/envs/` of the runs that have ended (their
    `smoke.json` is written); how many. A run in progress has none yet and keeps its own."""
    envs = folder / "envs"
    removed = 0
    for venv in sorted(envs.iterdir()) if envs.is_dir() else ():
        if venv.is_dir() and (folder / venv.name / "smoke.json").is_file():
            shutil.rmtree(venv, ignore_errors=True)
            removed += 1
    return removed


def package_cache_env(base: dict[str, str], out_dir: Path) -> dict[str, str]:
    """The install's environment with uv's cache named once, so that every candidate, and the
    tools a build runs through `uv tool run`, share it (kept where the user set it)."""
    del out_dir  # the cache outlives any one study's output folder
    if base.get("UV_CACHE_DIR"):
        return dict(base)
    return {**base, "UV_CACHE_DIR": str(cache_dir(base))}
