"""`status`: where a study's annotation stands, round by round."""

from __future__ import annotations

from pathlib import Path

from miner.annotate.auditlog import verify_log
from miner.annotate.layers import imported_layers
from miner.annotate.layout import Layout
from miner.annotate.prepare import read_manifest
from miner.annotate.reconcile import current_resolutions
from miner.annotate.sheets import read_sheet


def study_status(root: Path) -> list[str]:
    """Lines describing every round, the consensus and the audit log."""
    layout = Layout(root)
    rounds = layout.rounds()
    if not rounds:
        return [f"no rounds prepared in {root}: run `miner annotate prepare --annotator NAME`"]
    lines = []
    for name in rounds:
        manifest = read_manifest(layout, name)
        sheets = sorted(manifest.get("sheets", {}))
        layers = imported_layers(root, name)
        lines.append(
            f"round {name}: {len(manifest['repos'])} repositories, codebook"
            f" {manifest['codebook_version']}; sheets: {', '.join(sheets) or '-'};"
            f" imported: {', '.join(layers) or '-'}"
        )
        conflicts = layout.conflicts(name)
        if conflicts.exists():
            total = len(read_sheet(conflicts).rows)
            decided = len(current_resolutions(root, name))
            lines.append(f"  conflicts: {total} listed, {decided} decided ({conflicts})")
    if layout.consensus.exists():
        rows = len(read_sheet(layout.consensus).rows)
        lines.append(f"consensus: {rows} repositories ({layout.consensus})")
    lines.append(f"audit log: {verify_log(layout.audit_log)} entries, hash chain intact")
    return lines
