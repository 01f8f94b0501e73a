"""The fake GitHub API (tests/fakes/github_api.py), loaded by path so no package is needed."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

_NAME = "miner_fake_github_api"
_PATH = Path(__file__).resolve().parents[1] / "fakes" / "github_api.py"

if _NAME not in sys.modules:
    _spec = importlib.util.spec_from_file_location(_NAME, _PATH)
    assert _spec is not None and _spec.loader is not None
    _module = importlib.util.module_from_spec(_spec)
    sys.modules[_NAME] = _module  # dataclasses look their module up while the file executes
    _spec.loader.exec_module(_module)

fake = sys.modules[_NAME]
FakeClock = fake.FakeClock
FakeGitHub = fake.FakeGitHub
FakeRepo = fake.FakeRepo
Fault = fake.Fault
Drift = fake.Drift
make_population = fake.make_population
GITHUB_API_PATH = _PATH
