"""The append-only audit log (annotations/audit.jsonl): imports, resolutions, codebook changes.

Each entry is one JSON line carrying the SHA-256 of the line before it, so an edited or deleted
entry breaks the chain and `verify_log` names the first broken line.
"""

from __future__ import annotations

import getpass
import hashlib
import json
from datetime import datetime
from pathlib import Path
from typing import Any

from miner.annotate.layout import append_line
from miner.codebook import CODEBOOK_VERSION, FIELDS
from miner.errors import SheetError


def codebook_hash() -> str:
    """SHA-256 of the codebook's vocabulary: changes whenever a field or value changes."""
    spec = [[f.name, f.kind, list(f.values), f.open_prefix] for f in FIELDS]
    return hashlib.sha256(json.dumps(spec, sort_keys=True).encode()).hexdigest()


def now() -> str:
    """The local time as an ISO 8601 string with offset (seconds precision)."""
    return datetime.now().astimezone().isoformat(timespec="seconds")


def _user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no login name in some containers
        return "unknown"


def read_log(path: Path) -> list[dict[str, Any]]:
    """Every entry of the log, oldest first (an absent log is empty)."""
    if not path.exists():
        return []
    entries = []
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError:
            raise SheetError(
                f"{path}:{number}: not a JSON line; the audit log is damaged"
            ) from None
    return entries


def _last_line_hash(path: Path) -> str | None:
    if not path.exists():
        return None
    lines = [ln for ln in path.read_text(encoding="utf-8").splitlines() if ln.strip()]
    return hashlib.sha256(lines[-1].encode()).hexdigest() if lines else None


def log_event(log: Path, event: str, /, **data: Any) -> dict[str, Any]:
    """Append one event; first records a codebook change if the vocabulary changed since."""
    entries = read_log(log)
    book = codebook_hash()
    last_book = next((e for e in reversed(entries) if e.get("event") == "codebook"), None)
    if last_book is None or last_book.get("codebook_hash") != book:
        _append(
            log,
            {
                "event": "codebook",
                "codebook_version": CODEBOOK_VERSION,
                "codebook_hash": book,
                "previous_version": last_book.get("codebook_version") if last_book else None,
            },
        )
    return _append(log, {"event": event, **data})


def _append(path: Path, entry: dict[str, Any]) -> dict[str, Any]:
    full = {"time": now(), "user": _user(), **entry, "prev": _last_line_hash(path)}
    append_line(path, json.dumps(full, ensure_ascii=False, sort_keys=False, default=str))
    return full


def verify_log(path: Path) -> int:
    """Check the hash chain; returns the number of entries or raises SheetError at a break."""
    if not path.exists():
        return 0
    previous: str | None = None
    count = 0
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1):
        if not line.strip():
            continue
        entry = json.loads(line)
        if entry.get("prev") != previous:
            raise SheetError(f"{path}:{number}: the audit log was edited (hash chain broken)")
        previous = hashlib.sha256(line.encode()).hexdigest()
        count += 1
    return count


def last_event(path: Path, event: str, **match: Any) -> dict[str, Any] | None:
    """The newest entry of kind `event` whose fields equal `match`."""
    for entry in reversed(read_log(path)):
        if entry.get("event") == event and all(entry.get(k) == v for k, v in match.items()):
            return entry
    return None
