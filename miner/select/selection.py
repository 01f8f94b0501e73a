"""`miner select` as a library call: assess every audited clone, filter, rank, pick, write."""

from __future__ import annotations

import csv
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miner.errors import ConfigError
from miner.select.build import manifest_document
from miner.select.evidence import scan_checkout
from miner.select.manifest import slugify, write_manifest
from miner.select.rank import Candidate, assess, diversify, meets, rank
from miner.select.selected import mark_manifest, smoke_section
from miner.select.smoke import SmokeOptions, SmokeResult, SmokeTarget, smoke

if TYPE_CHECKING:
    from miner.store import Store

DEFAULT_REQUIRE = ("training_code", "entry_point")
LABEL_EVIDENCE = ("training_code", "data_available", "exclude", "primary_framework")


@dataclass(frozen=True)
class SelectOptions:
    """How many to pick, what they must have, what to vary, and where manifests go."""

    out_dir: Path
    n: int = 5
    require: tuple[str, ...] = DEFAULT_REQUIRE
    diversify: tuple[str, ...] = ()
    fmt: str = "yaml"
    include_excluded: bool = False
    smoke: SmokeOptions | None = None  # smoke-test every eligible candidate before picking
    smoke_again: bool = False  # also those smoke-tested before at the same commit
    max_candidates: int | None = None  # smoke-test at most this many (in rank order)


@dataclass(frozen=True)
class Skipped:
    """A repository not considered, and why."""

    full_name: str
    reason: str


@dataclass(frozen=True)
class Selection:
    """The picked candidates (in pick order), everything assessed, and the files written."""

    picked: tuple[Candidate, ...]
    assessed: tuple[Candidate, ...]
    eligible: int
    skipped: tuple[Skipped, ...]
    manifests: tuple[Path, ...]
    table: Path | None
    warnings: tuple[str, ...] = field(default_factory=tuple)
    smoked: tuple[SmokeResult, ...] = ()  # the smoke runs of this call
    outcomes: dict[str, str] = field(default_factory=dict)  # full name -> latest smoke outcome
    smoke_rows: tuple[dict[str, Any], ...] = ()  # the stored smoke runs of eligible candidates


def assess_store(
    store: Store, progress: Callable[[str], None] | None = None
) -> tuple[list[Candidate], list[Skipped]]:
    """Assess every successfully audited repository whose checkout is on disk."""
    from miner.export import table_frame

    labels = store.labels_frame()
    if labels.empty:
        raise ConfigError("no audited repositories in the store: run `miner analyze` first")
    clones = table_frame(store, "clones")
    cloned = {
        int(r["repo_id"]): r for r in clones.to_dict("records") if r.get("status") == "cloned"
    }
    candidates: list[Candidate] = []
    skipped: list[Skipped] = []
    for row in labels.to_dict("records"):
        name = str(row["full_name"])
        if progress:
            progress(name)
        clone = cloned.get(int(row["repo_id"]))
        if clone is None or not clone.get("path"):
            skipped.append(Skipped(name, "not cloned"))
            continue
        # Relative paths are relative to the store's folder, wherever the command runs from.
        path = store.checkout_path(str(clone["path"]))
        if not path.is_dir():
            skipped.append(Skipped(name, f"checkout missing at {path}"))
            continue
        if clone.get("commit_sha") and clone["commit_sha"] != row["commit_sha"]:
            skipped.append(Skipped(name, "checkout is at another commit than the audit"))
            continue
        evidence = {
            f: tuple(store.evidence_for(int(row["repo_id"]), str(row["commit_sha"]), f))
            for f in LABEL_EVIDENCE
        }
        candidate = assess(row, str(path.resolve()), scan_checkout(path), evidence)
        candidates.append(replace(candidate, commit_date=clone.get("commit_date") or None))
    return candidates, skipped


def select_candidates(
    store: Store,
    options: SelectOptions,
    progress: Callable[[str], None] | None = None,
    on_smoke: Callable[[SmokeResult], None] | None = None,
    on_stage: Callable[[str, str], None] | None = None,
) -> Selection:
    """Rank the store's candidates, smoke-test them if asked, pick `n` (passing candidates
    first, diversely if asked) and write one manifest each."""
    if options.n < 1:
        raise ConfigError(f"--n {options.n}: pick at least one candidate")
    if options.fmt not in ("yaml", "json"):
        raise ConfigError(f"--format {options.fmt!r}: choose yaml or json")
    candidates, skipped = assess_store(store, progress)
    eligible = eligible_candidates(candidates, skipped, options.require, options.include_excluded)
    smoked = smoke_candidates(
        store, rank(eligible), options.smoke, on_smoke, options.smoke_again,
        options.max_candidates, on_stage,
    )  # fmt: skip
    sections = {c.full_name: _stored_smoke(store, c) for c in eligible}
    passing = [c for c in eligible if (sections[c.full_name] or {"outcome": ""})["outcome"] == "ok"]
    picked = diversify(passing, options.n, options.diversify)
    rest = [c for c in eligible if c not in passing]
    picked += diversify(rest, options.n - len(picked), options.diversify)
    manifests = []
    for position, candidate in enumerate(picked, start=1):
        path = options.out_dir / f"{slugify(candidate.full_name)}.{options.fmt}"
        document = manifest_document(candidate, position)
        row = sections[candidate.full_name]
        if row is not None:
            document = mark_manifest(document, smoke_section(row))
        manifests.append(write_manifest(document, path, options.fmt))
    outcomes = {name: str(row["outcome"]) for name, row in sections.items() if row is not None}
    table = write_selection_csv(picked, manifests, options.out_dir, outcomes) if picked else None
    return Selection(
        picked=tuple(picked),
        assessed=tuple(rank(candidates)),
        eligible=len(eligible),
        skipped=tuple(skipped),
        manifests=tuple(manifests),
        table=table,
        smoked=tuple(smoked),
        outcomes=outcomes,
        smoke_rows=tuple(row for row in sections.values() if row is not None),
    )


def eligible_candidates(
    candidates: list[Candidate],
    skipped: list[Skipped],
    require: tuple[str, ...] = DEFAULT_REQUIRE,
    include_excluded: bool = False,
) -> list[Candidate]:
    """The candidates neither excluded by the codebook nor lacking a required criterion (the
    others are added to `skipped` with the reason)."""
    eligible = []
    for candidate in candidates:
        if candidate.exclusions and not include_excluded:
            skipped.append(
                Skipped(candidate.full_name, f"excluded: {', '.join(candidate.exclusions)}")
            )
            continue
        missing = meets(candidate, require)
        if missing:
            skipped.append(Skipped(candidate.full_name, f"lacks {', '.join(missing)}"))
            continue
        eligible.append(candidate)
    return eligible


def _stored_smoke(store: Store, candidate: Candidate) -> dict[str, Any] | None:
    row = store.smoke_outcome(candidate.repo_id, candidate.commit_sha)
    return None if row is None else dict(row)


def smoke_candidates(
    store: Store,
    ranked: list[Candidate],
    options: SmokeOptions | None,
    on_smoke: Callable[[SmokeResult], None] | None = None,
    again: bool = False,
    limit: int | None = None,
    on_stage: Callable[[str, str], None] | None = None,
) -> list[SmokeResult]:
    """Smoke-test each candidate in rank order (none without options; at most `limit`),
    storing each outcome; those tested before at the same commit are skipped unless `again`,
    so a run resumes."""
    if options is None:
        return []
    results: list[SmokeResult] = []
    for candidate in ranked:
        if limit is not None and len(results) >= limit:
            break
        if not again and store.smoke_outcome(candidate.repo_id, candidate.commit_sha):
            continue
        results.append(smoke_candidate(store, options, candidate, on_smoke, on_stage))
    return results


def smoke_candidate(
    store: Store,
    options: SmokeOptions,
    candidate: Candidate,
    on_smoke: Callable[[SmokeResult], None] | None = None,
    on_stage: Callable[[str, str], None] | None = None,
) -> SmokeResult:
    """Smoke-test one candidate from its manifest document and store the attempt."""
    result = smoke_one(options, candidate, on_stage)
    store.save_smoke(result.as_row())
    if on_smoke is not None:
        on_smoke(result)
    return result


def smoke_one(
    options: SmokeOptions,
    candidate: Candidate,
    on_stage: Callable[[str, str], None] | None = None,
) -> SmokeResult:
    """Smoke-test one candidate from its manifest document (nothing stored)."""
    if on_stage is not None:
        on_stage(candidate.full_name, "start")
    return smoke(SmokeTarget.of(manifest_document(candidate, 0)), options, on_stage)


def write_selection_csv(
    picked: list[Candidate],
    manifests: list[Path],
    out_dir: Path,
    outcomes: dict[str, str] | None = None,
) -> Path:
    """selection.csv: one row per picked candidate with its score, keys, smoke outcome and
    manifest."""
    out_dir.mkdir(parents=True, exist_ok=True)
    path = out_dir / "selection.csv"
    with path.open("w", encoding="utf-8", newline="") as fh:
        writer = csv.writer(fh, lineterminator="\n")
        writer.writerow(
            ["rank", "full_name", "commit_sha", "score", "framework", "version", "domain",
             "cpu", "cost", "entry_point", "criteria_met", "smoke", "manifest"]
        )  # fmt: skip
        for position, (c, manifest) in enumerate(zip(picked, manifests, strict=True), start=1):
            entry = c.scan.entry_points[0].script if c.scan.entry_points else ""
            met = ";".join(r.criterion for r in c.reasons if r.met)
            writer.writerow(
                [position, c.full_name, c.commit_sha, c.score, c.framework, c.version, c.domain,
                 c.cpu["level"], c.cost["level"], entry, met,
                 (outcomes or {}).get(c.full_name, ""), str(manifest)]
            )  # fmt: skip
    return path
