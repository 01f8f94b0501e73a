"""`import`: a validated sheet becomes an immutable layer `<annotator>@<round>`.

The layer is the normalised sheet, written read-only with its SHA-256 in the audit log; the file
the annotator returned is kept byte for byte beside it. Loading a layer re-checks its hash, so a
layer edited after import is refused rather than silently used.
"""

from __future__ import annotations

import shutil
import stat
from dataclasses import dataclass
from pathlib import Path

from miner.annotate.auditlog import last_event, log_event
from miner.annotate.layout import DEFAULT_ROUND, Layout, layer_name, sha256_file
from miner.annotate.prepare import read_manifest
from miner.annotate.sheets import SHEET_COLUMNS, read_sheet, write_csv
from miner.annotate.validate import validate_sheet
from miner.errors import SheetError


@dataclass(frozen=True)
class ImportResult:
    """What `import` stored."""

    layer: str
    path: Path
    rows: int
    sha256: str
    source_sha256: str
    warnings: tuple[str, ...]
    already: bool = False


def import_layer(
    root: Path, annotator: str, source: Path, round_name: str = DEFAULT_ROUND
) -> ImportResult:
    """Validate `source` against the round and store it as the annotator's immutable layer."""
    layout = Layout(root)
    name = layer_name(annotator, round_name)
    manifest = read_manifest(layout, round_name)
    target = layout.layer(annotator, round_name)
    source_hash = sha256_file(source) if source.is_file() else ""
    if target.exists():
        earlier = last_event(layout.audit_log, "import", layer=name)
        if earlier and earlier.get("source_sha256") == source_hash:
            return ImportResult(
                name,
                target,
                int(earlier.get("rows", 0)),
                str(earlier["sha256"]),
                source_hash,
                (),
                already=True,
            )
        raise SheetError(
            f"layer {name} was already imported from another file; layers are immutable:"
            " prepare a new round (e.g. `miner annotate prepare --annotator"
            f" {annotator} --round {round_name}-2 --repos-from {round_name}`) and import it there"
        )
    checked = validate_sheet(read_sheet(source), manifest)
    write_csv(target, checked.rows, SHEET_COLUMNS)
    target.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    original = layout.original(annotator, round_name, source.suffix.lower() or ".csv")
    original.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(source, original)
    original.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
    digest = sha256_file(target)
    prefilled = bool(manifest.get("sheets", {}).get(annotator, {}).get("prefill", False))
    log_event(
        layout.audit_log,
        "import",
        layer=name,
        annotator=annotator,
        round=round_name,
        source=str(source),
        source_sha256=source_hash,
        path=str(target.relative_to(root)),
        sha256=digest,
        rows=len(checked.rows),
        prefilled=prefilled,
        warnings=list(checked.warnings),
    )
    return ImportResult(name, target, len(checked.rows), digest, source_hash, checked.warnings)


def load_layer(root: Path, annotator: str, round_name: str = DEFAULT_ROUND) -> list[dict[str, str]]:
    """The rows of an imported layer, after checking its hash against the audit log."""
    layout = Layout(root)
    name = layer_name(annotator, round_name)
    path = layout.layer(annotator, round_name)
    record = last_event(layout.audit_log, "import", layer=name)
    if not path.exists() or record is None:
        known = ", ".join(imported_layers(root, round_name)) or "none"
        raise SheetError(
            f"no imported layer {name} (imported in round {round_name}: {known}); run"
            f" `miner annotate import {annotator} FILE --round {round_name}`"
        )
    if sha256_file(path) != record["sha256"]:
        raise SheetError(f"{path} changed after it was imported (SHA-256 differs from the log)")
    return [cells for _, cells in read_sheet(path).rows]


def imported_layers(root: Path, round_name: str | None = None) -> list[str]:
    """Annotators with an imported layer in `round_name` (every layer name when None)."""
    folder = Layout(root).root / "layers"
    names = sorted(p.stem for p in folder.glob("*@*.csv"))
    if round_name is None:
        return names
    return [n.split("@", 1)[0] for n in names if n.split("@", 1)[1] == round_name]


def was_prefilled(root: Path, annotator: str, round_name: str) -> bool:
    """True when the annotator's sheet showed the machine labels (not blind)."""
    record = last_event(Layout(root).audit_log, "import", layer=layer_name(annotator, round_name))
    return bool(record and record.get("prefilled"))
