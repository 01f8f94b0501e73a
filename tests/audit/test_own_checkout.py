"""`miner audit .` on miner's own checkout: the rules' source, tests and README quote patterns
of hardware and data; they state no need of this project."""

from __future__ import annotations

from pathlib import Path

from miner.audit.auditor import audit

ROOT = Path(__file__).resolve().parents[2]


def test_miner_s_own_checkout_reports_no_hardware_and_no_data() -> None:
    result = audit(ROOT)
    for field in ("hardware_req", "data_available"):
        assert result.labels[field].value is False, result.labels[field].evidence
