"""The clone stage: fast, safe partial clones of every candidate, pinned to a commit.

Blobs above `max_blob` (model weights, data sets, media) are never downloaded and never written:
later stages read docs, dependency files and source, and treat such files as absent. With an
as-of date each repository is pinned to the last commit on its default branch before that date.
Only `miner.clone.git` imports GitPython.
"""

from __future__ import annotations

from miner.clone.batch import (
    CloneEvent,
    CloneJob,
    CloneSummary,
    clone_all,
    clone_one,
    iter_clones,
    plan_jobs,
)
from miner.clone.layout import MARKER, clone_path, read_marker
from miner.clone.options import (
    DEFAULT_MAX_BLOB,
    DEFAULT_MAX_SIZE,
    DEFAULT_TIMEOUT,
    DEFAULT_WORKERS,
    CloneOptions,
    human_bytes,
    parse_as_of,
    parse_size,
)

__all__ = [
    "DEFAULT_MAX_BLOB",
    "DEFAULT_MAX_SIZE",
    "DEFAULT_TIMEOUT",
    "DEFAULT_WORKERS",
    "MARKER",
    "CloneEvent",
    "CloneJob",
    "CloneOptions",
    "CloneSummary",
    "clone_all",
    "clone_one",
    "clone_path",
    "human_bytes",
    "iter_clones",
    "parse_as_of",
    "parse_size",
    "plan_jobs",
    "read_marker",
]
