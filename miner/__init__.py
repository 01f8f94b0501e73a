"""miner: mine GitHub deep-learning projects and audit their requirements, with evidence.

The public Python API: each stage's entry points, in pipeline order. The stages load on first
use, so `import miner` (and `miner --help`) stays fast.
"""

from __future__ import annotations

__version__ = "0.1.0"

# name -> the stage package (or module) that defines it, in pipeline order
_ENTRY_POINTS = {
    "Settings": "miner.config",
    "load_settings": "miner.config",
    "MinerError": "miner.errors",
    "Store": "miner.store",
    "run_search": "miner.search",
    "SearchFilters": "miner.search",
    "clone_all": "miner.clone",
    "CloneOptions": "miner.clone",
    "audit": "miner.audit",
    "analyze": "miner.audit",
    "prepare_sheets": "miner.annotate",
    "import_layer": "miner.annotate",
    "agreement": "miner.annotate",
    "score": "miner.annotate",
    "load_consensus": "miner.annotate",
    "write_report": "miner.report",
    "ReportOptions": "miner.report",
    "select_candidates": "miner.select.selection",
    "SelectOptions": "miner.select.selection",
    "smoke_selected": "miner.select.selected",
    "SmokeOptions": "miner.select.smoke",
    "run_experiment": "miner.experiment.run",
}

__all__ = ["__version__", *_ENTRY_POINTS]


def __getattr__(name: str) -> object:
    if name in _ENTRY_POINTS:
        import importlib

        return getattr(importlib.import_module(_ENTRY_POINTS[name]), name)
    raise AttributeError(f"module 'miner' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
