"""miner: mine GitHub deep-learning projects and audit their requirements, with evidence.

The public Python API: each stage's entry points, in pipeline order. The stages load on first
use, so `import miner` (and `miner --help`) stays fast. (No `from __future__ import annotations`
here: it would leave an `annotations` name in the module.)
"""

__version__ = "0.1.0"

# name -> the stage package (or module) that defines it, in pipeline order. "module:attribute"
# where the public name differs: `audit_folder` is miner.audit's `audit`, since `miner.audit` is
# the audit stage's package (importing it makes `miner.audit` that package, not the function).
_ENTRY_POINTS = {
    "Settings": "miner.config",
    "load_settings": "miner.config",
    "MinerError": "miner.errors",
    "Store": "miner.store",
    "run_search": "miner.search",
    "SearchFilters": "miner.search",
    "clone_all": "miner.clone",
    "CloneOptions": "miner.clone",
    "audit_folder": "miner.audit:audit",
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

        module, _, attribute = _ENTRY_POINTS[name].partition(":")
        return getattr(importlib.import_module(module), attribute or name)
    raise AttributeError(f"module 'miner' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(__all__)
