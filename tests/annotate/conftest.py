"""Fixtures of the annotation tests."""

from __future__ import annotations

from pathlib import Path

import pytest
from annotate_study import Study, make_study


@pytest.fixture
def study(tmp_path: Path) -> Study:
    """A study folder: store, six cloned and audited repositories, their checkouts."""
    return make_study(tmp_path)
