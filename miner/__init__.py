"""miner: mine GitHub deep-learning projects and audit their requirements, with evidence."""

from __future__ import annotations

__version__ = "0.1.0"

from miner.codebook import CODEBOOK_VERSION, FIELD_NAMES, Evidence  # noqa: E402
from miner.config import Settings, load_settings  # noqa: E402
from miner.errors import MinerError  # noqa: E402
from miner.models import AuditResult, Checkout, Label, RepoMeta  # noqa: E402
from miner.store import Store  # noqa: E402

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
]
