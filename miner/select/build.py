"""Turn an assessed Candidate into its manifest document (see miner.select.manifest)."""

from __future__ import annotations

from typing import Any

from miner.select.evidence import EntryPoint
from miner.select.manifest import MANIFEST_VERSION, NUMBER, RunSpec
from miner.select.rank import Candidate
from miner.select.snippets import SEED_SNIPPETS, snippet_kind

_SPLIT = r"(?i)\b(?:test|val|valid|validation|eval)?[ _-]?"
METRIC_PATTERNS = {
    "accuracy": _SPLIT + rf"acc(?:uracy)?\b[^0-9\n]{{0,20}}{NUMBER}",
    "loss": _SPLIT + rf"loss\b[^0-9\n]{{0,20}}{NUMBER}",
}
WEIGHT_GLOBS = (
    "**/*.pt", "**/*.pth", "**/*.ckpt", "**/*.ckpt.*", "**/*.h5", "**/*.hdf5", "**/*.keras",
    "**/*.pb", "**/*.npz", "**/*.params", "**/*.msgpack", "**/*.safetensors",
)  # fmt: skip
TIMEOUTS = {"low": 3600.0, "medium": 4 * 3600.0, "high": 24 * 3600.0}
NO_ENTRY = "raise SystemExit('miner select found no training entry point: edit run.command')"


def _ev_list(items: Any) -> list[dict[str, Any]]:
    return [e.as_dict() for e in items]


def _entry(entry: EntryPoint) -> dict[str, Any]:
    return {
        "script": entry.script,
        "args": list(entry.args),
        "kind": entry.kind,
        "runner": entry.runner,
        "placeholders": list(entry.placeholders),
        "evidence": _ev_list(entry.evidence),
    }


def run_section(candidate: Candidate) -> RunSpec:
    """The runnable part: the entry point run in a fresh copy of the checkout per run."""
    scan = candidate.scan
    if scan.entry_points:
        command: tuple[str, ...] = scan.entry_points[0].command()
    else:
        command = ("{python}", "-c", NO_ENTRY)
    return RunSpec(
        command=command,
        workdir="copy",
        source=candidate.checkout,
        seed_args=("--seed", "{seed}") if scan.seed_argument is not None else (),
        seed=0,
        metric_patterns=dict(METRIC_PATTERNS),
        weights=WEIGHT_GLOBS,
        timeout=TIMEOUTS.get(str(candidate.cost.get("level")), TIMEOUTS["medium"]),
    )


def manifest_document(candidate: Candidate, rank: int) -> dict[str, Any]:
    """The whole candidate manifest: identity, evidence, snippets, cost and the run section."""
    scan = candidate.scan
    spec = candidate.version_spec
    tf1 = any(e.rule == "tensorflow1" for e in (*scan.seed_sites, *scan.thread_hooks))
    kind = snippet_kind(candidate.framework, spec.major if spec else None, tf1)
    owner_repo = candidate.full_name
    return {
        "manifest_version": MANIFEST_VERSION,
        "name": owner_repo,
        "rank": rank,
        "score": candidate.score,
        "repo": {
            "id": candidate.repo_id,
            "full_name": owner_repo,
            "commit_sha": candidate.commit_sha,
            "url": f"https://github.com/{owner_repo}/tree/{candidate.commit_sha}",
            "checkout": candidate.checkout,
            "commit_date": candidate.commit_date,
        },
        "selection_reasons": [r.as_dict() for r in candidate.reasons],
        "framework": {
            "primary": candidate.framework,
            "frameworks": [f for f in candidate.labels.get("frameworks", "").split(";") if f],
            "version_spec": f"{spec.package}{spec.spec}" if spec else None,
            "version_source": spec.source if spec else None,
            "version_evidence": spec.evidence.as_dict() if spec else None,
            "all_version_specs": [s.as_dict() for s in scan.versions[:20]],
        },
        "environment_files": [{"path": p, "kind": k} for p, k in scan.environment_files],
        "entry_point": _entry(scan.entry_points[0]) if scan.entry_points else None,
        "entry_point_alternatives": [_entry(e) for e in scan.entry_points[1:6]],
        "seeds": {
            "sites": _ev_list(scan.seed_sites[:20]),
            "option": scan.seed_argument.as_dict() if scan.seed_argument else None,
            "snippet_kind": kind,
            "snippet": SEED_SNIPPETS[kind],
        },
        "threads": {
            "hooks": _ev_list(scan.thread_hooks[:20]),
            "note": "the runner sets OMP/MKL/OpenBLAS/TF thread variables and MINER_NUM_THREADS; "
            "the seeds snippet applies MINER_NUM_THREADS in code",
        },
        "dataset": {
            "data_available_label": candidate.labels.get("data_available") or None,
            "label_evidence": _ev_list(candidate.label_evidence.get("data_available", ())),
            "acquisition": _ev_list(scan.dataset[:15]),
        },
        "cpu_support": candidate.cpu,
        "cost": candidate.cost,
        "metric_source": {
            "sites": _ev_list(scan.metric_sites[:15]),
            "patterns": dict(METRIC_PATTERNS),
            "note": "patterns match the last accuracy/loss printed; adjust run.metric_patterns or "
            "set run.metrics_file after checking the sites",
        },
        "exclusion_reasons": _exclusions(candidate),
        "labels": {k: v for k, v in candidate.labels.items() if k not in ("repo_id", "full_name")},
        "warnings": list(scan.warnings[:20]),
        "run": run_section(candidate).as_dict(),
    }


def _exclusions(candidate: Candidate) -> list[dict[str, Any]]:
    """Why this candidate might be left out: codebook exclusions and unmet key criteria."""
    out: list[dict[str, Any]] = [
        {"reason": f"codebook exclude: {value}",
         "evidence": _ev_list(candidate.label_evidence.get("exclude", ()))}
        for value in candidate.exclusions
    ]  # fmt: skip
    for reason in candidate.reasons:
        if not reason.met and reason.criterion in ("training_code", "data_available", "cpu",
                                                    "entry_point"):  # fmt: skip
            out.append({"reason": f"{reason.criterion}: {reason.detail}", "evidence": []})
    return out
