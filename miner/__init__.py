"""miner: mine GitHub deep-learning projects and audit their requirements, with evidence.

The public Python API. Each stage's entry point is importable from here; the heavier ones are
loaded on first use, so `import miner` (and `miner --help`) stays fast.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

__version__ = "0.1.0"

from miner.codebook import CODEBOOK_VERSION, FIELD_NAMES, Evidence  # noqa: E402
from miner.config import Settings, load_settings  # noqa: E402
from miner.errors import MinerError  # noqa: E402
from miner.models import AuditResult, Checkout, Label, RepoMeta  # noqa: E402
from miner.store import Store  # noqa: E402

# name -> module that defines it, one entry per stage's entry points
_LAZY = {
    "run_search": "miner.search",
    "SearchFilters": "miner.slicing",
    "clone_all": "miner.clone",
    "CloneOptions": "miner.clone",
    "audit": "miner.analyse",
    "analyze": "miner.analyse",
    "prepare_sheets": "miner.annotate",
    "import_layer": "miner.annotate",
    "agreement": "miner.annotate",
    "score": "miner.annotate",
    "load_consensus": "miner.annotate.reconcile",
    "write_report": "miner.report",
    "ReportOptions": "miner.report",
    "select_candidates": "miner.select.selection",
    "SelectOptions": "miner.select.selection",
    "run_experiment": "miner.experiment.run",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'miner' has no attribute {name!r}")


__all__ = [
    "CODEBOOK_VERSION",
    "FIELD_NAMES",
    "AuditResult",
    "Checkout",
    "Evidence",
    "Label",
    "MinerError",
    "RepoMeta",
    "Settings",
    "Store",
    "load_settings",
    "__version__",
    *_LAZY,
]
