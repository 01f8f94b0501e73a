"""The dual-annotator workflow: blind sheets, strict import into immutable layers, agreement,
conflicts, resolution into a consensus layer, and scoring any labels against any truth."""

from __future__ import annotations

from miner.annotate.agreement import AgreementReport, agreement
from miner.annotate.conflicts import ConflictsResult, write_conflicts
from miner.annotate.labelsfile import LabelsTable, read_labels
from miner.annotate.layers import ImportResult, import_layer, load_layer
from miner.annotate.prepare import PrepareResult, prepare_sheets
from miner.annotate.reconcile import (
    ConsensusResult,
    build_consensus,
    load_consensus,
    resolve_from_file,
    resolve_interactive,
)
from miner.annotate.review import ReviewResult, review
from miner.annotate.score import ScoreReport, load_source, score

__all__ = [
    "AgreementReport",
    "ConflictsResult",
    "ConsensusResult",
    "ImportResult",
    "LabelsTable",
    "PrepareResult",
    "ReviewResult",
    "ScoreReport",
    "agreement",
    "build_consensus",
    "import_layer",
    "load_consensus",
    "load_layer",
    "load_source",
    "prepare_sheets",
    "read_labels",
    "resolve_from_file",
    "resolve_interactive",
    "review",
    "score",
    "write_conflicts",
]
