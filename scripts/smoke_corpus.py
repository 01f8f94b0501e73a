"""Smoke-test materialised repositories straight from their folders (no store, no manifests).

usage: python scripts/smoke_corpus.py --out DIR [--python P1,P2] [--as-of-commit]
                                      [--mirrors DIR] [--before DATE] [--timeout S] FOLDER...

Each FOLDER (OWNER__NAME) is audited and scanned as `miner select` does, turned into its
manifest, and smoke-tested; the commit date comes from the repository's git directory under
--mirrors (OWNER+NAME), the last commit before --before. One line per project: outcome, seconds,
the failing line, then each repair applied and the lock written.
"""

from __future__ import annotations

import argparse
import json
import subprocess
from pathlib import Path

from miner.audit import audit
from miner.codebook import format_value
from miner.select.build import manifest_document
from miner.select.evidence import scan_checkout
from miner.select.rank import assess
from miner.select.smoke import SmokeOptions, SmokeTarget, smoke


def commit_date(mirrors: Path, folder: Path, before: str) -> str | None:
    """The committer date of the last commit before `before` in the folder's mirror."""
    found = sorted(mirrors.glob(folder.name.replace("__", "+", 1) + "*"))
    for git_dir in found:
        for candidate in [git_dir, *git_dir.glob("*.git"), *git_dir.rglob("HEAD")]:
            gd = candidate.parent if candidate.name == "HEAD" else candidate
            done = subprocess.run(
                ["git", "--git-dir", str(gd), "log", "-1", f"--before={before}", "--format=%cI"],
                capture_output=True, text=True, check=False,
            )  # fmt: skip
            if done.returncode == 0 and done.stdout.strip():
                return done.stdout.strip()
    return None


def main() -> int:
    """Smoke every folder given and print what happened."""
    parser = argparse.ArgumentParser()
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--python", default="")
    parser.add_argument("--as-of-commit", action="store_true")
    parser.add_argument("--mirrors", type=Path, default=Path("/work/.mirror"))
    parser.add_argument("--before", default="2021-03-01")
    parser.add_argument("--timeout", type=float, default=60.0)
    args = parser.parse_args()
    pythons = tuple(p for p in args.python.split(",") if p)
    for folder in args.folders:
        result = audit(folder)
        row = {name: format_value(result.value(name)) for name in result.labels}
        row["full_name"] = folder.name.replace("__", "/", 1)
        row["repo_id"] = 0
        row["commit_sha"] = None
        evidence = {name: label.evidence for name, label in result.labels.items()}
        candidate = assess(row, str(folder.resolve()), scan_checkout(folder), evidence)
        document = manifest_document(candidate, 1)
        document["repo"]["commit_date"] = commit_date(args.mirrors, folder, args.before)
        target = SmokeTarget.of(document)
        options = SmokeOptions(out_dir=args.out, timeout=args.timeout, pythons=pythons,
                               as_of_commit=args.as_of_commit)  # fmt: skip
        done = smoke(target, options)
        summary = {
            "name": done.full_name, "outcome": done.outcome, "python": done.python,
            "install_s": round(done.install_seconds, 1), "seconds": round(done.seconds, 1),
            "evidence": f"{done.evidence.path}:{done.evidence.line} {done.evidence.text}",
            "repairs": [r.summary for r in getattr(done, "repairs", ())],
            "lock": getattr(done, "lock", None), "date": target.commit_date,
        }  # fmt: skip
        print(json.dumps(summary), flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
