"""Fixtures of the report tests: the small study of report_study.py, built fresh per test."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from report_study import build_store, write_consensus

from miner.store import Store


@pytest.fixture
def study(tmp_path: Path) -> Path:
    """A study folder with data/miner.db and annotations/consensus.csv."""
    build_store(tmp_path / "data" / "miner.db").close()
    write_consensus(tmp_path / "annotations" / "consensus.csv")
    return tmp_path


@pytest.fixture
def store(study: Path) -> Iterator[Store]:
    """The test study's store, open."""
    opened = Store(study / "data" / "miner.db")
    yield opened
    opened.close()
