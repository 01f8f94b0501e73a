"""`prepare`: choose a round's repositories (optionally a seeded, stratified sample) and write
one blind sheet per annotator, every repository pinned to its commit."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from miner.annotate.auditlog import codebook_hash, log_event, now
from miner.annotate.layout import DEFAULT_ROUND, Layout, atomic_write, check_name, sha256_file
from miner.annotate.sheets import (
    EMPTY_SET,
    INPUT_FIELDS,
    NOTE_COLUMN,
    evidence_column,
    sheet_columns,
    write_sheet,
)
from miner.annotate.validate import manifest_fields
from miner.codebook import CODEBOOK_VERSION, DERIVED_FIELDS, FIELD_BY_NAME, FIELD_NAMES
from miner.errors import ConfigError, SheetError

if TYPE_CHECKING:
    from miner.store import Store

UNAUDITED = "(not audited)"


@dataclass(frozen=True)
class Candidate:
    """A repository that can be annotated: cloned or audited at a known commit."""

    repo_id: int
    full_name: str
    commit_sha: str
    url: str


@dataclass(frozen=True)
class PrepareResult:
    """What `prepare` wrote."""

    round: str
    repos: int
    population: int
    sheets: tuple[Path, ...]
    strata: dict[str, int]
    new_round: bool
    prefill: bool


def tree_url(html_url: str | None, full_name: str, sha: str) -> str:
    """The repository's page at the pinned commit."""
    base = (html_url or f"https://github.com/{full_name}").rstrip("/")
    return f"{base}/tree/{sha}"


def candidates(store: Store) -> list[Candidate]:
    """Every repository with a pinned commit: cloned ones, then audited ones not cloned here."""
    found: dict[int, Candidate] = {}
    rows = store.query(
        "SELECT c.repo_id, COALESCE(r.full_name, c.full_name) AS full_name, r.html_url,"
        " c.commit_sha FROM clones c LEFT JOIN repos r ON r.id = c.repo_id"
        " WHERE c.status = 'cloned' AND c.commit_sha IS NOT NULL"
    )
    for r in rows:
        found[r["repo_id"]] = Candidate(
            r["repo_id"],
            r["full_name"],
            r["commit_sha"],
            tree_url(r["html_url"], r["full_name"], r["commit_sha"]),
        )
    urls = {r["id"]: r["html_url"] for r in store.query("SELECT id, html_url FROM repos")}
    for row in store.labels_frame().itertuples(index=False):
        repo_id = int(row.repo_id)
        if repo_id not in found:
            name, sha = str(row.full_name), str(row.commit_sha)
            found[repo_id] = Candidate(repo_id, name, sha, tree_url(urls.get(repo_id), name, sha))
    return sorted(found.values(), key=lambda c: c.repo_id)


def machine_rows(store: Store) -> dict[int, dict[str, str]]:
    """The auto labels by repository id (sheet format), with the commit they belong to."""
    frame = store.labels_frame()
    return {int(r["repo_id"]): {k: str(v) for k, v in r.items()} for r in frame.to_dict("records")}


def allocate(sizes: dict[str, int], total: int) -> dict[str, int]:
    """Split `total` over strata: one each when possible, the rest proportionally to size."""
    keys = sorted(sizes)
    quota = dict.fromkeys(keys, 0)
    if total >= len(keys):
        quota = dict.fromkeys(keys, 1)
    left = total - sum(quota.values())
    room = {k: sizes[k] - quota[k] for k in keys}
    capacity = sum(room.values())
    if left and capacity:
        shares = {k: left * room[k] / capacity for k in keys}
        for k in keys:
            quota[k] += int(shares[k])
        # Largest remainder first; ties broken by stratum name so the split is reproducible.
        order = sorted(keys, key=lambda k: (-(shares[k] - int(shares[k])), k))
        for k in order[: total - sum(quota.values())]:
            quota[k] += 1
    return quota


def draw_sample(
    pool: Sequence[Candidate],
    size: int,
    seed: int,
    strata: dict[int, str] | None = None,
) -> tuple[list[Candidate], dict[str, int]]:
    """A seeded sample without replacement, stratified by `strata` (repo id -> stratum)."""
    import numpy as np

    if size > len(pool):
        raise ConfigError(f"--sample {size}, but only {len(pool)} repositories can be annotated")
    rng = np.random.default_rng(seed)
    if strata is None:
        picks = rng.choice(len(pool), size=size, replace=False)
        return sorted((pool[int(i)] for i in picks), key=lambda c: c.full_name.lower()), {}
    groups: dict[str, list[Candidate]] = {}
    for cand in pool:
        groups.setdefault(strata.get(cand.repo_id, UNAUDITED), []).append(cand)
    quota = allocate({k: len(v) for k, v in groups.items()}, size)
    chosen: list[Candidate] = []
    for key in sorted(groups):
        members = groups[key]
        picks = rng.choice(len(members), size=quota[key], replace=False)
        chosen.extend(members[int(i)] for i in picks)
    return sorted(chosen, key=lambda c: c.full_name.lower()), {k: quota[k] for k in sorted(quota)}


def read_manifest(layout: Layout, round_name: str) -> dict[str, Any]:
    """The manifest of a prepared round, or a one-line error naming the command to run."""
    path = layout.manifest(round_name)
    if not path.exists():
        raise SheetError(
            f"round {round_name!r} has not been prepared: run `miner annotate prepare"
            f" --annotator NAME --round {round_name}`"
        )
    data: dict[str, Any] = json.loads(path.read_text(encoding="utf-8"))
    return data


def _write_manifest(layout: Layout, round_name: str, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    atomic_write(layout.manifest(round_name), text.encode("utf-8"))


def _sheet_row(
    cand: Candidate,
    machine: dict[str, str] | None,
    evidence: dict[str, str],
    fields: Sequence[str],
) -> dict[str, str]:
    row = {
        "full_name": cand.full_name,
        "repo_id": str(cand.repo_id),
        "commit_sha": cand.commit_sha,
        "url": cand.url,
        "codebook_version": CODEBOOK_VERSION,
    }
    if machine is not None:
        for name in fields:
            value = machine.get(name, "")
            if FIELD_BY_NAME[name].kind == "set" and value == "":
                value = EMPTY_SET
            row[name] = value
            row[evidence_column(name)] = evidence.get(name, "")
    row[NOTE_COLUMN] = ""
    return row


def _machine_evidence(store: Store, repo_id: int, sha: str) -> dict[str, str]:
    out = {}
    for name in FIELD_NAMES:
        found = store.evidence_for(repo_id, sha, name)[:2]
        out[name] = " | ".join(f"{e.path}:{e.line} {e.text}".strip() for e in found)
    return out


def _new_round(
    store: Store,
    layout: Layout,
    round_name: str,
    sample: int | None,
    seed: int | None,
    stratify: str | None,
    repos_from: str | None,
    exclude_rounds: Sequence[str],
) -> dict[str, Any]:
    pool = candidates(store)
    if not pool:
        raise ConfigError("no cloned or audited repositories in the store: run `miner clone` first")
    population = len(pool)
    if repos_from:
        keep = {r["repo_id"] for r in read_manifest(layout, repos_from)["repos"]}
        pool = [c for c in pool if c.repo_id in keep]
    excluded: set[int] = set()
    for other in exclude_rounds:
        excluded |= {r["repo_id"] for r in read_manifest(layout, other)["repos"]}
    pool = [c for c in pool if c.repo_id not in excluded]
    strata: dict[str, int] = {}
    if sample is not None:
        by_stratum = None
        if stratify is not None:
            labels = machine_rows(store)
            by_stratum = {rid: row.get(stratify, "") or "(empty)" for rid, row in labels.items()}
        chosen, strata = draw_sample(pool, sample, 1 if seed is None else seed, by_stratum)
    else:
        chosen = sorted(pool, key=lambda c: c.full_name.lower())
    if not chosen:
        raise ConfigError("no repositories left to annotate after the exclusions")
    return {
        "round": round_name,
        "created_at": now(),
        "codebook_version": CODEBOOK_VERSION,
        "codebook_hash": codebook_hash(),
        "population": population,
        "sample": sample,
        "seed": (1 if seed is None else seed) if sample is not None else None,
        "stratify": stratify,
        "strata": strata,
        "repos_from": repos_from,
        "exclude_rounds": list(exclude_rounds),
        "repos": [c.__dict__ for c in chosen],
        "sheets": {},
    }


def prepare_sheets(
    store: Store,
    root: Path,
    annotators: Sequence[str],
    round_name: str = DEFAULT_ROUND,
    sample: int | None = None,
    seed: int | None = None,
    stratify: str | None = None,
    prefill: bool = False,
    xlsx: bool = False,
    repos_from: str | None = None,
    exclude_rounds: Sequence[str] = (),
    fields: Sequence[str] | None = None,
) -> PrepareResult:
    """Write one sheet per annotator for a round; the first call fixes the round's repositories
    and the fields it asks for (every input field unless `fields` names some)."""
    layout = Layout(root)
    check_name("round", round_name)
    names = [check_name("annotator", a) for a in annotators]
    if not names:
        raise ConfigError("give at least one --annotator NAME")
    if stratify is not None and stratify not in FIELD_NAMES:
        raise ConfigError(f"--stratify {stratify!r} is not a codebook field")
    if stratify is not None and sample is None:
        raise ConfigError("--stratify needs --sample N")
    if sample is not None and sample < 1:
        raise ConfigError("--sample must be at least 1")
    if fields is not None:
        bad = [f for f in fields if f not in INPUT_FIELDS]
        if bad:
            raise ConfigError(
                f"--field {', '.join(bad)}: choose codebook fields that are not derived"
                f" ({', '.join(DERIVED_FIELDS)} follow from their inputs)"
            )
    new_round = not layout.manifest(round_name).exists()
    if new_round:
        manifest = _new_round(
            store, layout, round_name, sample, seed, stratify, repos_from, exclude_rounds
        )
    else:
        manifest = read_manifest(layout, round_name)
        asked = (sample, seed, stratify, repos_from, tuple(exclude_rounds), fields)
        if asked != (None, None, None, None, (), None):
            raise ConfigError(
                f"round {round_name!r} already has its {len(manifest['repos'])} repositories"
                f" (sample {manifest['sample']}, seed {manifest['seed']}); omit --sample, --seed,"
                " --stratify, --repos-from, --exclude-round and --field to give the same ones to"
                " another annotator, or start a new --round"
            )
    for name in names:
        if name in manifest["sheets"] or layout.sheet(round_name, name).exists():
            raise ConfigError(
                f"{layout.sheet(round_name, name)} exists: {name} may have started; "
                "remove it yourself to start again"
            )
    if new_round:
        manifest["fields"] = list(
            INPUT_FIELDS if fields is None else [f for f in INPUT_FIELDS if f in fields]
        )
    asked_fields = manifest_fields(manifest)
    columns = sheet_columns(asked_fields)
    labels = machine_rows(store) if prefill else {}
    rows = []
    for entry in manifest["repos"]:
        cand = Candidate(**entry)
        machine = labels.get(cand.repo_id) if prefill else None
        if machine is not None and machine.get("commit_sha") != cand.commit_sha:
            machine = None  # labels of another commit would mislead
        evidence = _machine_evidence(store, cand.repo_id, cand.commit_sha) if machine else {}
        rows.append(_sheet_row(cand, machine, evidence, asked_fields))
    written: list[Path] = []
    for name in names:
        paths = [layout.sheet(round_name, name)]
        if xlsx:
            paths.append(layout.sheet(round_name, name, "xlsx"))
        for path in paths:
            write_sheet(path, rows, columns)
        manifest["sheets"][name] = {
            "prefill": prefill,
            "files": {p.name: sha256_file(p) for p in paths},
            "prepared_at": now(),
        }
        written.extend(paths)
    _write_manifest(layout, round_name, manifest)
    log_event(
        layout.audit_log,
        "prepare",
        round=round_name,
        annotators=names,
        repos=len(manifest["repos"]),
        prefill=prefill,
        fields=list(asked_fields),
        sample=manifest["sample"],
        seed=manifest["seed"],
        stratify=manifest["stratify"],
        files={
            str(p.relative_to(root)): manifest["sheets"][p.stem]["files"][p.name] for p in written
        },
    )
    return PrepareResult(
        round=round_name,
        repos=len(manifest["repos"]),
        population=int(manifest["population"]),
        sheets=tuple(written),
        strata=dict(manifest["strata"]),
        new_round=new_round,
        prefill=prefill,
    )
