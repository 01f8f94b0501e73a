"""The codebook as browser forms: one control per field with its allowed values, `unclear`
and `n/a`, and its evidence; and posted forms turned back into sheet values."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from miner.annotate.review import FIELD_HELP
from miner.annotate.sheets import EMPTY_SET, SPECIAL_VALUES, evidence_column
from miner.annotate.web.queue import Answer
from miner.codebook import FIELD_BY_NAME

OTHER = "__other"  # suffix of the free-text input of an open value (`other:<name>`)


@dataclass(frozen=True)
class Machine:
    """The machine label of a field and where it was found (pre-filled rounds only)."""

    value: str
    evidence: tuple[str, ...]


@dataclass(frozen=True)
class FieldView:
    """One codebook field as the form shows it."""

    name: str
    kind: str
    help: str
    options: tuple[str, ...]  # the codebook values (without the special ones)
    specials: tuple[str, ...]  # none (sets), unclear, n/a
    open_prefix: str | None
    chosen: tuple[str, ...]  # the values now in the sheet
    other: str  # the free text of an open value
    evidence: str
    answered: bool
    machine: Machine | None


def field_view(
    name: str, row: Mapping[str, str], answered: bool, machine: Machine | None
) -> FieldView:
    """The form control of one field, showing what the sheet holds."""
    spec = FIELD_BY_NAME[name]
    value = row.get(name, "").strip()
    # the same order in every field: codebook values, `other:`, `none`, `unclear`, `n/a`
    options = (
        ("yes", "no") if spec.kind == "bool" else tuple(v for v in spec.values if v != EMPTY_SET)
    )
    has_none = spec.kind == "set" or EMPTY_SET in spec.values
    specials = ((EMPTY_SET,) if has_none else ()) + SPECIAL_VALUES
    chosen = tuple(v for v in value.split(";") if v) if spec.kind == "set" else (value,)
    other = ""
    prefix = spec.open_prefix
    if prefix:
        opened = [v for v in chosen if v.startswith(prefix)]
        if opened:
            other = opened[0][len(prefix) :]
            chosen = tuple(v for v in chosen if not v.startswith(prefix)) + (prefix,)
    return FieldView(
        name=name,
        kind=spec.kind,
        help=FIELD_HELP.get(name, ""),
        options=options,
        specials=specials,
        open_prefix=prefix,
        chosen=tuple(c for c in chosen if c),
        other=other,
        evidence=row.get(evidence_column(name), ""),
        answered=answered,
        machine=machine,
    )


class FormData(Protocol):
    """What a posted form exposes (Starlette's FormData fits)."""

    def getlist(self, key: str, /) -> list[Any]: ...

    def get(self, key: str, /) -> Any: ...


def posted_answers(form: FormData, fields: Sequence[str]) -> dict[str, Answer]:
    """The answers in a posted form: each field named in `field` that carries a value."""
    answers = {}
    for name in form.getlist("field"):
        if name not in fields:
            answers[name] = Answer(name)  # refused by the save, with the reason
            continue
        prefix = FIELD_BY_NAME[name].open_prefix
        picked = [str(v).strip() for v in form.getlist(name) if str(v).strip()]
        other = str(form.get(name + OTHER) or "").strip()
        if prefix and prefix in picked:
            picked.remove(prefix)
            picked.append(prefix + other if other else prefix)
        elif prefix and other:
            picked.append(prefix + other)
        evidence = form.get(evidence_column(name))
        if not picked:
            if evidence is not None:  # evidence found before the value: kept on its own
                answers[name] = Answer("", str(evidence), evidence_only=True)
            continue
        answers[name] = Answer(";".join(picked), str(evidence or ""))
    return answers
