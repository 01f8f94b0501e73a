"""The variables a smoke run's training gets that depend on its environment's packages."""

from __future__ import annotations

from pathlib import Path

from miner.select.training import wandb_mode


def _venv(root: Path, *folders: str) -> Path:
    site = root / "lib" / "python3.7" / "site-packages"
    site.mkdir(parents=True)
    for name in folders:
        (site / name).mkdir()
    return root


def test_an_old_wandb_is_kept_offline_with_the_mode_it_knows(tmp_path: Path) -> None:
    # wandb before 0.10 knows only `dryrun` and `run`: `disabled` stops it at start-up
    assert wandb_mode(_venv(tmp_path / "a", "wandb-0.8.36.dist-info")) == "dryrun"
    assert wandb_mode(_venv(tmp_path / "b", "wandb-0.9.7-py3.7.egg-info")) == "dryrun"
    assert wandb_mode(_venv(tmp_path / "c", "wandb-0.10.33.dist-info")) == "disabled"
    assert wandb_mode(_venv(tmp_path / "d", "wandb-0.19.1.dist-info")) == "disabled"
    assert wandb_mode(_venv(tmp_path / "e", "numpy-1.26.4.dist-info")) == "disabled"
    assert wandb_mode(tmp_path / "no-venv") == "disabled"
