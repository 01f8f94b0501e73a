"""Replaced by the real detector."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from miner.detect import AuditContext
from miner.models import Label


def classify_hardware(ctx: AuditContext, labels: Mapping[str, Label]) -> Iterable[Label]:
    """Not implemented yet."""
    return []
