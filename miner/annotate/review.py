"""`review`: label a round's repositories in the terminal, one field at a time, beside the
documentation lines that matter for that field. Every answer is written to the annotator's
sheet at once (atomically), so stopping at any point loses nothing and the next run resumes
at the first unanswered field."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from miner.annotate.dialog import Dialog, Quit
from miner.annotate.layout import DEFAULT_ROUND, Layout, atomic_write
from miner.annotate.passages import (
    FIELD_GROUP,
    Passage,
    doc_files,
    evidence_passages,
    field_passages,
    list_files,
)
from miner.annotate.prepare import read_manifest
from miner.annotate.sheets import (
    EMPTY_SET,
    NOTE_COLUMN,
    choices,
    evidence_column,
    read_sheet,
    write_csv,
)
from miner.annotate.validate import manifest_fields, normalise_cell
from miner.codebook import FIELD_BY_NAME
from miner.errors import SheetError

if TYPE_CHECKING:
    from miner.store import Store

FIELD_HELP = {
    "is_dl": "the main content builds, trains or runs neural networks",
    "exclude": "educational, library, deprecated, archived, pretrained_only, not_dl; none = kept",
    "frameworks": "every DL framework used (other:<name> for one not listed)",
    "primary_framework": "the framework the main model is built and trained with (none: no NN)",
    "network_types": "building blocks of the main model (a CNN with a dense head is cnn only)",
    "language": "the language the model is built and trained in",
    "domain": "the application domain",
    "software_req": "a dependency file listing a package, or docs stating packages to install",
    "dependency_file": "a dependency file that lists at least one package",
    "software_req_sources": "where the software requirements are stated",
    "versions_pinned": "a framework/library carries a version (a Python version alone: no)",
    "hw_gpu": "a specific GPU model, or an amount of GPU memory",
    "hw_cpu": "a specific CPU model/SoC, or the core/thread count of the machine",
    "hw_memory": "an amount of system memory (RAM) used or required",
    "hw_other": "other devices: TPU v3-8, Jetson TX2, Edge TPU, FPGA boards, Raspberry Pi 3",
    "training_code": "the repository contains code that trains a model",
    "data_available": "training/test data are in the repository, or a script/link obtains them",
}
EVIDENCE_HINT = "evidence (file:line or a quote; Enter = none)"


@dataclass(frozen=True)
class ReviewResult:
    """Where the review stopped."""

    path: Path
    answered: int
    repos_complete: int
    repos_total: int
    stopped: bool


def _progress_path(layout: Layout, round_name: str, annotator: str) -> Path:
    return layout.round_dir(round_name) / "review" / f"{annotator}.json"


def _show_passages(dialog: Dialog, passages: Sequence[Passage], title: str) -> None:
    if not passages:
        dialog.say(f"  ({title}: nothing found)")
        return
    dialog.say(f"  {title}:")
    for p in passages:
        for offset, line in enumerate(p.lines):
            number = p.start + offset
            mark = ">" if number in p.hits else " "
            dialog.say(f"   {mark} {p.path}:{number}: {line[:160]}")


def describe_files(files: Sequence[str]) -> str:
    """The docs and manifests the codebook reads, then the top-level entries and a count."""
    docs = doc_files(list(files))
    top = sorted({f.split("/", 1)[0] + ("/" if "/" in f else "") for f in files})
    more = f" ... ({len(top)} entries)" if len(top) > 30 else ""
    return (
        f"docs and manifests: {', '.join(docs) or '-'}\n"
        f"  top level ({len(files)} files): {', '.join(top[:30])}{more}"
    )


def _needs_answer(row: dict[str, str], name: str, prefilled: bool, confirmed: set[str]) -> bool:
    return not row.get(name, "").strip() or (prefilled and name not in confirmed)


def _wants_evidence(name: str, value: str) -> bool:
    kind = FIELD_BY_NAME[name].kind
    if kind == "bool":
        return value == "yes"
    return value not in ("", "unclear", "n/a", "none")


def _ask_value(dialog: Dialog, name: str, current: str) -> str:
    spec = FIELD_BY_NAME[name]
    if spec.kind == "set":
        allowed = ";".join(spec.values) + " | none | unclear | n/a"
    else:
        allowed = "/".join(choices(name))
    default = f" [{current}]" if current else ""
    while True:
        answer = dialog.ask(f"{name}{default} ({allowed}; ? help, s skip repo, q quit)").strip()
        if answer == "q":
            raise Quit
        if answer == "?":
            dialog.say(f"  {name}: {FIELD_HELP.get(name, '')}")
            continue
        if answer == "s":
            return answer
        if not answer and current:
            answer = current
        try:
            value = normalise_cell(name, answer)
        except ValueError as exc:
            dialog.say(f"  {exc}")
            continue
        return EMPTY_SET if spec.kind == "set" and value == "" else value


def review(
    root: Path,
    annotator: str,
    dialog: Dialog,
    round_name: str = DEFAULT_ROUND,
    store: Store | None = None,
    fields: Sequence[str] | None = None,
) -> ReviewResult:
    """Walk the annotator's sheet, asking every unanswered field and saving each answer."""
    layout = Layout(root)
    manifest = read_manifest(layout, round_name)
    fields = manifest_fields(manifest) if fields is None else fields
    path = layout.sheet(round_name, annotator)
    if not path.exists():
        raise SheetError(
            f"no sheet for {annotator} in round {round_name}: run `miner annotate prepare"
            f" --annotator {annotator} --round {round_name}`"
        )
    prefilled = bool(manifest.get("sheets", {}).get(annotator, {}).get("prefill", False))
    raw = read_sheet(path)
    columns = list(raw.columns)
    rows = [{c: cells.get(c, "") for c in columns} for _, cells in raw.rows]
    progress_file = _progress_path(layout, round_name, annotator)
    progress: dict[str, list[str]] = (
        json.loads(progress_file.read_text(encoding="utf-8")) if progress_file.exists() else {}
    )
    checkouts = _checkouts(store)
    answered = 0

    def save(row: dict[str, str], confirmed: list[str]) -> None:
        write_csv(path, rows, columns)
        progress[row["repo_id"]] = confirmed
        atomic_write(progress_file, json.dumps(progress, indent=1).encode("utf-8"))

    stopped = False
    try:
        for index, row in enumerate(rows, start=1):
            confirmed = list(progress.get(row["repo_id"], []))
            todo = [f for f in fields if _needs_answer(row, f, prefilled, set(confirmed))]
            if not todo:
                continue
            dialog.say(f"\n[{index}/{len(rows)}] {row['full_name']} @ {row['commit_sha'][:10]}")
            dialog.say(f"  {row['url']}")
            checkout = checkouts.get(int(row["repo_id"]))
            files = list_files(checkout) if checkout else []
            if checkout is None:
                dialog.say("  no local checkout: open the link above")
            else:
                dialog.say(f"  {describe_files(files)}")
            groups_shown: set[str] = set()
            skip = False
            for name in todo:
                group = FIELD_GROUP.get(name, "project")
                if checkout is not None and group not in groups_shown:
                    groups_shown.add(group)
                    _show_passages(dialog, field_passages(checkout, files, name), f"{group} lines")
                if checkout is not None and prefilled and store is not None:
                    hits = store.evidence_for(int(row["repo_id"]), row["commit_sha"], name)
                    spots = [(e.path, e.line) for e in hits[:3]]
                    _show_passages(dialog, evidence_passages(checkout, spots), "machine evidence")
                value = _ask_value(dialog, name, row.get(name, ""))
                if value == "s":
                    skip = True
                    break
                row[name] = value
                confirmed.append(name)
                save(row, confirmed)  # saved before the evidence is asked: `q` there keeps it
                answered += 1
                if _wants_evidence(name, value):
                    current = row.get(evidence_column(name), "")
                    hint = f"{EVIDENCE_HINT} [{current}]" if current else EVIDENCE_HINT
                    given = dialog.ask(hint).strip()
                    if given == "q":
                        raise Quit
                    if given and given != current:
                        row[evidence_column(name)] = given
                        save(row, confirmed)
            if not skip:
                note = dialog.ask(f"note for {row['full_name']} (Enter = keep)").strip()
                if note == "q":
                    raise Quit
                if note:
                    row[NOTE_COLUMN] = note
                    save(row, confirmed)
    except Quit:
        stopped = True
    complete = sum(all(r.get(f, "").strip() for f in fields) for r in rows)
    return ReviewResult(path, answered, complete, len(rows), stopped)


def _checkouts(store: Store | None) -> dict[int, Path]:
    """Local checkout folders by repository id, as the store resolves them."""
    if store is None:
        return {}
    return {int(c.repo_id): c.path for c in store.checkouts() if c.repo_id and c.path.is_dir()}
