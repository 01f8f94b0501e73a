"""What a run that stopped for its arguments asks for: the values a usage error's required
arguments can be given, and the outcome a README placeholder explains.

A usage error names the arguments the entry point requires (`the following arguments are
required: --outdir`); where the command runs a Python script itself and every one can be made
up (an output folder, a run name), the run starts again with them. A run whose README command
had placeholders and that stopped for want of arguments or data needs data the user must name,
and the README line is its evidence; one that stopped for a required checkpoint argument needs
weights.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from miner.audit.files import RepoTree
from miner.codebook import Evidence
from miner.select.arguments import (
    FilledArgument,
    fill_required,
    required_arguments,
    role_of,
    usage_choices,
    weights_required,
)

if TYPE_CHECKING:
    from miner.select.smoke_records import SmokeTarget
    from miner.select.training import Training

# Outcomes a README placeholder explains: the run needed data the user must name.
PLACEHOLDER_OUTCOMES = ("usage", "needs_data", "data")
USAGE_LINES = 30  # how far above its error argparse's usage may begin (it wraps long lines)
# Placeholders the run gives a value that serves as well as the user's: they explain nothing.
MADE_UP_ROLES = ("output", "name", "count", "device", "port", "batch")


def _wants_the_user(placeholder: str) -> bool:
    """Whether a README placeholder (`--data <path>`, `<num_gpu>`) is one only the user can
    fill: a data path, weights, a configuration, not an output folder or a device count."""
    option, value = "", placeholder  # a positional placeholder is all value
    if placeholder.startswith("-"):  # `--data <path>`, else `--data=<path>`
        option, _, value = placeholder.partition(" " if " " in placeholder else "=")
    return role_of(option, value or placeholder) not in MADE_UP_ROLES


def required_values(
    target: SmokeTarget, training: Training, logs: Path | None = None
) -> tuple[FilledArgument, ...]:
    """Values for the arguments a usage error says are required, when the command runs a Python
    script itself (a shell script need not pass them on) and every one can be made up: one of
    the choices the usage lines above the error list for it, else one by its role."""
    if "{python}" not in target.command[:6]:
        return ()
    choices: dict[str, tuple[str, ...]] = {}
    if logs is not None:
        try:
            lines = (logs / training.evidence.path).read_text(errors="replace").splitlines()
        except OSError:
            lines = []
        end = training.evidence.line
        choices = usage_choices("\n".join(lines[max(0, end - USAGE_LINES) : end]))
    # a command that starts at the root names the repository's files from there
    paths = (
        frozenset() if "cd " in " ".join(target.command[:4]) else RepoTree(target.checkout).paths
    )
    return fill_required(required_arguments(training.evidence.text), choices, paths)


def placeholder_outcome(
    target: SmokeTarget, training: Training, notes: list[str]
) -> tuple[str, Evidence]:
    """The outcome and evidence of a run that stopped: `needs_data` with the README line where
    its command had placeholders, `needs_weights` for a required checkpoint argument, else the
    run's own (a note keeps what the run printed)."""
    ev = training.evidence
    if training.outcome == "usage" and weights_required(ev.text):
        return "needs_weights", Evidence(ev.path, ev.line, ev.text, "smoke.needs_weights.argument")
    wanted = [p for p in target.placeholders if _wants_the_user(p)]
    if not wanted or training.outcome not in PLACEHOLDER_OUTCOMES:
        return training.outcome, training.evidence
    notes.append(f"{training.outcome}: {ev.path}:{ev.line} {ev.text}")
    where = target.entry_evidence or Evidence("README", 0, "", "")
    text = f"placeholders {' '.join(wanted)} in: {where.text}"
    return "needs_data", Evidence(
        where.path, where.line, text[:500], "smoke.needs_data.placeholder"
    )
