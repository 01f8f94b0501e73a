"""The status page's figures: each annotator's progress and the agreement so far, computed by
`miner annotate agreement`'s own functions (on the imported layers once both are handed in,
before that on the repositories both annotators have finished in their sheets)."""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations
from pathlib import Path

from miner.annotate.agreement import AgreementReport, agreement_from_rows, round_agreement
from miner.annotate.sheets import fill_derived, study_fields
from miner.annotate.validate import normalise_cell
from miner.annotate.web.queue import Sheet, counts, load_sheet
from miner.codebook import DERIVED_FIELDS


@dataclass(frozen=True)
class Progress:
    """One annotator's place in the round."""

    annotator: str
    repos_done: int
    repos: int
    answered: int
    asked: int
    handed_in: bool

    @property
    def left(self) -> int:
        """Repositories with an unanswered field."""
        return self.repos - self.repos_done


@dataclass(frozen=True)
class Overview:
    """Progress of every annotator and the agreement of every pair so far."""

    round: str
    progress: tuple[Progress, ...]
    reports: tuple[AgreementReport, ...]


def _finished_rows(sheet: Sheet) -> dict[str, dict[str, str]]:
    """The complete rows of a sheet in layer form (canonical values, derived fields filled)."""
    out = {}
    for row in sheet.rows:
        if not sheet.complete(row):
            continue
        values = dict(row)
        for name in sheet.fields:
            try:
                values[name] = normalise_cell(name, row[name])
            except ValueError:  # saved through the CLI sheet by hand: left to `import` to name
                break
        else:
            for name in DERIVED_FIELDS:
                values.setdefault(name, "")
            out[row["repo_id"]] = fill_derived(values, sheet.fields)
    return out


def pair_agreement(root: Path, round_name: str, a: Sheet, b: Sheet) -> AgreementReport | None:
    """Agreement of two annotators: on their layers when both handed in, else on the
    repositories both have finished; None while they have none in common."""
    if a.handed_in and b.handed_in:
        return round_agreement(root, a.annotator, b.annotator, round_name)
    rows_a, rows_b = _finished_rows(a), _finished_rows(b)
    common = [rid for rid in rows_a if rid in rows_b]
    if not common:
        return None
    fields = study_fields(a.fields)
    items, results = agreement_from_rows(
        [rows_a[r] for r in common], [rows_b[r] for r in common], fields
    )
    note = f"so far: the {items} repositories both have finished (not yet handed in)"
    return AgreementReport(round_name, a.annotator, b.annotator, items, results, (note,))


def overview(root: Path, round_name: str, annotators: list[str]) -> Overview:
    """Every annotator's progress and each pair's agreement so far."""
    sheets = [load_sheet(root, round_name, name) for name in annotators]
    progress = tuple(Progress(s.annotator, *counts(s), handed_in=s.handed_in) for s in sheets)
    reports = [pair_agreement(root, round_name, a, b) for a, b in combinations(sheets, 2)]
    return Overview(round_name, progress, tuple(r for r in reports if r is not None))
