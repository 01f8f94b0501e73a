"""Who may open what: one unguessable token per annotator of a round and one for the
adjudicator, kept in the round's folder (owner-only) so the links survive a restart."""

from __future__ import annotations

import json
import os
import secrets
from dataclasses import dataclass
from pathlib import Path

from miner.annotate.layout import Layout, atomic_write
from miner.annotate.prepare import read_manifest

ADJUDICATOR = "@adjudicator"  # "@" cannot start an annotator name


@dataclass(frozen=True)
class Access:
    """The tokens of one round: annotator name -> token, and the adjudicator's token."""

    round: str
    annotators: dict[str, str]
    adjudicator: str

    def annotator_for(self, token: str) -> str | None:
        """The annotator whose token this is (constant-time comparison), else None."""
        found = None
        for name, known in self.annotators.items():
            if secrets.compare_digest(known.encode(), token.encode()):
                found = name
        return found

    def is_adjudicator(self, token: str) -> bool:
        """True for the adjudicator's token."""
        return secrets.compare_digest(self.adjudicator.encode(), token.encode())


def tokens_path(layout: Layout, round_name: str) -> Path:
    """Where a round's web tokens are kept."""
    return layout.round_dir(round_name) / "web-tokens.json"


def round_access(root: Path, round_name: str) -> Access:
    """The round's tokens, creating missing ones (one per annotator with a sheet)."""
    layout = Layout(root)
    manifest = read_manifest(layout, round_name)
    path = tokens_path(layout, round_name)
    known: dict[str, str] = {}
    if path.exists():
        known = json.loads(path.read_text(encoding="utf-8"))
    wanted = [*sorted(manifest.get("sheets", {})), ADJUDICATOR]
    changed = False
    for name in wanted:
        if name not in known:
            known[name] = secrets.token_urlsafe(24)
            changed = True
    if changed:
        atomic_write(path, (json.dumps(known, indent=1) + "\n").encode("utf-8"))
    os.chmod(path, 0o600)  # whoever reads this file can write into any queue
    annotators = {n: known[n] for n in wanted if n != ADJUDICATOR}
    return Access(round_name, annotators, known[ADJUDICATOR])
