"""Framework versions read from dependency files: a Docker image's tag is a version only where
the image is tagged by one."""

from __future__ import annotations

from pathlib import Path

from miner.audit.files import RepoTree
from miner.select.versions import version_specs


def test_a_docker_image_tag_is_a_version_unless_it_is_a_release_month(tmp_path: Path) -> None:
    (tmp_path / "Dockerfile").write_text("FROM pytorch/pytorch:1.9.0-cuda11.1-cudnn8-runtime\n")
    (tmp_path / "docker").mkdir()
    (tmp_path / "docker" / "Dockerfile").write_text("FROM nvcr.io/nvidia/pytorch:22.10-py3\n")
    found = {(v.package, v.spec, v.evidence.path) for v in version_specs(RepoTree(tmp_path))}
    assert ("pytorch", "==1.9.0", "Dockerfile") in found
    assert not [v for v in found if v[2] == "docker/Dockerfile"]


def test_poetry_entries_with_one_constraint_per_platform(tmp_path: Path) -> None:
    (tmp_path / "pyproject.toml").write_text(
        '[tool.poetry.dependencies]\npython = "^3.10"\ntorch = [\n'
        '  {version = "2.1.0", markers = "sys_platform == \'darwin\'"},\n'
        '  {version = "2.1.0+cpu", markers = "sys_platform == \'linux\'"},\n]\n'
        'jax = {version = "0.4.20", extras = ["cpu"]}\nnumpy = true\n'
    )
    found = {(v.package, v.spec) for v in version_specs(RepoTree(tmp_path))}
    assert ("torch", "==2.1.0") in found and ("jax", "==0.4.20") in found
