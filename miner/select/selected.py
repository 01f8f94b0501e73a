"""The manifests of the latest `miner select`, and smoke runs of them (`miner smoke`)."""

from __future__ import annotations

import csv
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miner.errors import ConfigError
from miner.select.manifest import Manifest, load_manifest, write_manifest
from miner.select.smoke import SmokeOptions, SmokeResult, SmokeTarget, smoke

if TYPE_CHECKING:
    from miner.store import Store

SELECTION_CSV = "selection.csv"


def selected_manifests(folder: Path) -> list[Path]:
    """The manifests `miner select` last wrote into `folder`, best first (from selection.csv;
    without it, every manifest file in the folder by name)."""
    if not folder.is_dir():
        raise ConfigError(f"{folder}: no such folder of manifests (run `miner select` first)")
    table = folder / SELECTION_CSV
    if table.is_file():
        with table.open(encoding="utf-8", newline="") as fh:
            paths = [Path(row["manifest"]) for row in csv.DictReader(fh) if row.get("manifest")]
        return [p if p.is_absolute() else folder / p.name for p in paths]
    return sorted(p for p in folder.iterdir() if p.suffix in (".yaml", ".yml", ".json"))


def load_selected(folder: Path, names: tuple[str, ...] = ()) -> list[Manifest]:
    """The selected manifests, only those of `names` (OWNER/NAME, any case) when given."""
    manifests = [load_manifest(p) for p in selected_manifests(folder)]
    if not names:
        return manifests
    wanted = {n.lower(): n for n in names}
    chosen = [m for m in manifests if m.name.lower() in wanted]
    missing = sorted(set(wanted) - {m.name.lower() for m in chosen})
    if missing:
        known = ", ".join(m.name for m in manifests) or "none"
        raise ConfigError(
            f"no manifest for {', '.join(wanted[n] for n in missing)} in {folder} (selected: "
            f"{known})"
        )
    return chosen


def smoke_selected(
    folder: Path,
    options: SmokeOptions,
    names: tuple[str, ...] = (),
    store: Store | None = None,
    on_smoke: Callable[[SmokeResult], None] | None = None,
    on_stage: Callable[[str, str], None] | None = None,
) -> list[SmokeResult]:
    """Smoke-test the selected manifests (or those of `names`), record each outcome in the store
    and in its manifest (`smoke`, `runnable`, `run.python`)."""
    results = []
    for manifest in load_selected(folder, names):
        result = smoke_manifest(manifest, options, store, on_stage)
        results.append(result)
        if on_smoke is not None:
            on_smoke(result)
    return results


def smoke_manifest(
    manifest: Manifest,
    options: SmokeOptions,
    store: Store | None = None,
    on_stage: Callable[[str, str], None] | None = None,
) -> SmokeResult:
    """Smoke-test one manifest; the outcome goes to the store and into the manifest."""
    if on_stage is not None:
        on_stage(manifest.name, "start")
    result = smoke(SmokeTarget.of(manifest.document), options, on_stage)
    if store is not None:
        store.save_smoke(result.as_row())
    assert manifest.path is not None
    fmt = "json" if manifest.path.suffix == ".json" else "yaml"
    write_manifest(mark_manifest(manifest.document, result.as_dict()), manifest.path, fmt)
    return result


def smoke_section(row: Mapping[str, Any]) -> dict[str, Any]:
    """A stored smoke run (a smoke_runs row) as the manifest's `smoke` section."""
    return {
        "outcome": row["outcome"],
        "evidence": {
            "path": row["evidence_path"],
            "line": row["evidence_line"],
            "text": row["evidence_text"],
            "rule": row["rule"],
        },
        "exit_code": row["exit_code"],
        "install_seconds": row["install_seconds"],
        "train_seconds": row["train_seconds"],
        "seconds": row["seconds"],
        "timeout": row["timeout"],
        "network_cut": bool(row["network_cut"]),
        "python": row["python"],
        "command": row["command"],
        "log_dir": row["log_dir"],
        "environment": row["environment"],
        "smoked_at": row["smoked_at"],
        "assists": [a for a in str(_get(row, "assists")).split("; ") if a],
        "assist_evidence": str(_get(row, "assist_evidence")).splitlines(),
    }


def _get(row: Mapping[str, Any], name: str) -> Any:
    try:
        return row[name] or ""
    except (KeyError, IndexError):  # a row stored before the column existed
        return ""


def mark_manifest(document: dict[str, Any], section: dict[str, Any]) -> dict[str, Any]:
    """The manifest with its smoke section, `runnable`, and (when it passed) the Python of the
    environment it passed in as `run.python`."""
    updated = dict(document)
    updated["runnable"] = section["outcome"] == "ok"
    updated["smoke"] = section
    run = dict(updated.get("run") or {})
    python = Path(str(section.get("environment") or "")) / "bin" / "python"
    if updated["runnable"] and section.get("environment") and python.exists():
        run["python"] = str(python)
    else:
        run.pop("python", None)
    if section.get("lock"):
        run["lock"] = section["lock"]  # the experiment rebuilds from it what the smoke run used
    else:
        run.pop("lock", None)
    updated["run"] = run
    return updated
