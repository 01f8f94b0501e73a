"""SQL for the analysis stage: audits, labels and evidence keyed by repository and commit."""

from __future__ import annotations

import json
import sqlite3
from typing import TYPE_CHECKING

from miner.codebook import CODEBOOK_VERSION, FIELD_NAMES, Evidence, format_value
from miner.store.core import StoreBase

if TYPE_CHECKING:
    import pandas as pd

    from miner.models import AuditResult


def _replace_audit(
    conn: sqlite3.Connection,
    identity: tuple[int, str, str | None, str, str | None],
    warnings: str,
    details: str,
    when: str,
) -> None:
    """Delete any audit of this commit (its labels and evidence cascade) and insert a new one."""
    from miner import __version__

    repo_id, commit_sha = identity[0], identity[1]
    conn.execute("DELETE FROM audits WHERE repo_id = ? AND commit_sha = ?", (repo_id, commit_sha))
    conn.execute(
        "INSERT INTO audits (repo_id, commit_sha, full_name, status, error, warnings, details,"
        " miner_version, codebook_version, analyzed_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        (*identity, warnings, details, __version__, CODEBOOK_VERSION, when),
    )


class LabelQueries(StoreBase):
    """Queries over audits, labels and evidence."""

    def save_audit(
        self, repo_id: int, commit_sha: str, full_name: str | None, result: AuditResult
    ) -> None:
        """Store one audit's labels and evidence, replacing any earlier audit of that commit."""
        with self.transaction() as conn:
            _replace_audit(
                conn,
                (repo_id, commit_sha, full_name, "ok", None),
                json.dumps(list(result.warnings)),
                json.dumps(result.details, sort_keys=True, default=str),
                result.analyzed_at,
            )
            for name, label in result.labels.items():
                conn.execute(
                    "INSERT INTO labels (repo_id, commit_sha, field, value) VALUES (?, ?, ?, ?)",
                    (repo_id, commit_sha, name, format_value(label.value)),
                )
                for seq, ev in enumerate(label.evidence):
                    conn.execute(
                        "INSERT INTO evidence (repo_id, commit_sha, field, seq, path, line, text,"
                        " rule) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                        (repo_id, commit_sha, name, seq, ev.path, ev.line, ev.text, ev.rule),
                    )

    def save_audit_failure(
        self, repo_id: int, commit_sha: str, full_name: str | None, error: str, when: str
    ) -> None:
        """Record that auditing a commit failed, so `analyze` reports it and moves on."""
        with self.transaction() as conn:
            _replace_audit(
                conn, (repo_id, commit_sha, full_name, "failed", error), "[]", "{}", when
            )

    def audit_status(self, repo_id: int, commit_sha: str) -> str | None:
        """'ok', 'failed', or None when this commit was never audited."""
        row = self.conn.execute(
            "SELECT status FROM audits WHERE repo_id = ? AND commit_sha = ?", (repo_id, commit_sha)
        ).fetchone()
        return None if row is None else str(row[0])

    def is_archived(self, repo_id: int) -> bool:
        """True when GitHub marks the repository archived (known from search, not a clone)."""
        row = self.conn.execute("SELECT archived FROM repos WHERE id = ?", (repo_id,)).fetchone()
        return bool(row and row[0])

    def evidence_for(self, repo_id: int, commit_sha: str, field: str) -> list[Evidence]:
        """The evidence stored for one field of one audit, in order."""
        rows = self.query(
            "SELECT path, line, text, rule FROM evidence WHERE repo_id = ? AND commit_sha = ?"
            " AND field = ? ORDER BY seq",
            (repo_id, commit_sha, field),
        )
        return [Evidence(r["path"], r["line"], r["text"], r["rule"]) for r in rows]

    def audit_labels(self, repo_id: int, commit_sha: str) -> dict[str, str]:
        """The labels of one audit as sheet cells, by field."""
        return {
            r["field"]: r["value"]
            for r in self.query(
                "SELECT field, value FROM labels WHERE repo_id = ? AND commit_sha = ?",
                (repo_id, commit_sha),
            )
        }

    def labels_frame(self) -> pd.DataFrame:
        """One row per successfully audited repository, codebook columns.

        A repository's row is the audit of its clone's commit (else of its latest snapshot);
        failing that, its latest audit, so older snapshots never stand in for the present.
        """
        import pandas as pd

        audits = self.query(
            "SELECT repo_id, full_name, commit_sha, analyzed_at FROM audits WHERE status = 'ok'"
            " ORDER BY full_name, repo_id, analyzed_at"
        )
        current = self._current_commits()
        chosen: dict[int, sqlite3.Row] = {}
        for audit in audits:  # later audits replace earlier ones, unless the current is known
            held = chosen.get(audit["repo_id"])
            if held is not None and held["commit_sha"] == current.get(audit["repo_id"]):
                continue
            chosen[audit["repo_id"]] = audit
        rows = [
            {
                "repo_id": audit["repo_id"],
                "full_name": audit["full_name"],
                "commit_sha": audit["commit_sha"],
                **{
                    name: value
                    for labels in [self.audit_labels(audit["repo_id"], audit["commit_sha"])]
                    for name, value in ((n, labels.get(n, "")) for n in FIELD_NAMES)
                },
                "analyzed_at": audit["analyzed_at"],
            }
            for audit in sorted(chosen.values(), key=lambda a: (a["full_name"], a["repo_id"]))
        ]
        columns = ["repo_id", "full_name", "commit_sha", *FIELD_NAMES, "analyzed_at"]
        return pd.DataFrame(rows, columns=columns)

    def _current_commits(self) -> dict[int, str]:
        """The commit each repository's labels describe: its clone, else its latest snapshot."""
        found: dict[int, str] = {}
        for r in self.query(
            "SELECT repo_id, commit_sha FROM snapshots WHERE status = 'ok' ORDER BY as_of"
        ):
            found[r["repo_id"]] = r["commit_sha"]
        for r in self.query(
            "SELECT repo_id, commit_sha FROM clones"
            " WHERE status = 'cloned' AND commit_sha IS NOT NULL"
        ):
            found[r["repo_id"]] = r["commit_sha"]
        return found
