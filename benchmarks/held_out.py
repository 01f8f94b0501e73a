"""Score the audit on the held-out set of current repositories that ships with miner.

`benchmarks/held_out.jsonl` holds one labelled repository a line: `repo`, the commit read
(`sha`), every codebook label, and one evidence quote per positive label (`evidence`); no file of
the repositories. The labels were made by readers who read each repository against the codebook
without running miner. The set is split once and for all: a repository is TUNED (rules may be
written on it) when the MD5 of its OWNER/NAME starts with 0-7, else VALIDATION (only scored).

This script re-creates each repository's tree at its commit from a local git mirror (bare git
directories named OWNER+NAME, or OWNER+NAME/repo), writing blobs the way `git archive` would and
skipping blobs the mirror lacks, and then prints the tuned and the validation figures side by
side (`scripts/score_corpus.py --split md5:01234567`).

    python benchmarks/held_out.py --mirrors DIR --trees DIR [--part tuned] [--workers 2]
    python benchmarks/held_out.py --import-labels a.jsonl,b.jsonl   # rewrite the labels file
"""

from __future__ import annotations

import argparse
import json
import os
import re
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
LABELS = HERE / "held_out.jsonl"
SPLIT = "md5:01234567"
FIELDS = (
    "is_dl", "exclude", "software_req", "dependency_file", "versions_pinned", "hardware_req",
    "hw_gpu", "hw_cpu", "hw_memory", "hw_other", "primary_framework", "frameworks",
    "network_types", "language", "domain", "training_code", "data_available",
)  # fmt: skip
# Where one quote ends and the next begins in a reader's evidence: "; path:12 ..." or "; path/".
NEXT_QUOTE = re.compile(r";\s+(?=[\w.\-/]+(?::\d+|/)\s)")


def first_quote(evidence: str) -> str:
    """The first quote of an evidence string that may cite several places."""
    return NEXT_QUOTE.split(evidence, maxsplit=1)[0].strip()


def import_labels(sources: list[Path], out: Path) -> int:
    """Write the labels file from readers' JSONL files: labels, commit, one quote per field."""
    rows: dict[str, dict[str, object]] = {}
    for source in sources:
        for line in source.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            obj = json.loads(line)
            row: dict[str, object] = {"repo": obj["repo"], "sha": obj["sha"]}
            row.update({f: obj[f] for f in FIELDS if f in obj})
            row["evidence"] = {k: first_quote(str(v)) for k, v in obj.get("evidence", {}).items()}
            rows[obj["repo"]] = row
    with out.open("w", encoding="utf-8") as fh:
        for row in rows.values():
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
    return len(rows)


def _git(git_dir: Path, *args: str) -> bytes:
    return subprocess.run(
        ["git", "--git-dir", str(git_dir), *args], check=True, capture_output=True
    ).stdout


def git_dir_of(mirrors: Path, repo: str) -> Path | None:
    """The bare git directory of `repo` under `mirrors` (OWNER+NAME or OWNER+NAME/repo)."""
    base = mirrors / repo.replace("/", "+", 1)
    for candidate in (base / "repo", base):
        if (candidate / "objects").is_dir():
            return candidate
    return None


def materialise(git_dir: Path, sha: str, dest: Path) -> tuple[int, int]:
    """Write the tree of commit `sha` into `dest`; returns (files written, blobs missing).

    Paths never leave `dest`; symbolic links are recreated only when they stay inside it;
    submodules become empty folders.
    """
    root = os.path.realpath(dest)
    os.makedirs(root, exist_ok=True)
    blobs: list[tuple[str, str, str]] = []
    for entry in _git(git_dir, "ls-tree", "-r", "-z", "--full-tree", sha).split(b"\0"):
        if not entry:
            continue
        meta, path = entry.split(b"\t", 1)
        mode, kind, obj = meta.decode().split()
        out = os.path.realpath(os.path.join(root, os.fsdecode(path)))
        if not out.startswith(root + os.sep):
            continue
        if kind == "commit":
            os.makedirs(out, exist_ok=True)
        elif kind == "blob":
            blobs.append((mode, obj, out))
    written = missing = 0
    cmd = ["git", "--git-dir", str(git_dir), "cat-file", "--batch"]
    with subprocess.Popen(cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE) as proc:
        assert proc.stdin is not None and proc.stdout is not None
        for mode, obj, out in blobs:
            proc.stdin.write(obj.encode() + b"\n")
            proc.stdin.flush()
            header = proc.stdout.readline().split()
            if len(header) < 3 or header[1] == b"missing":
                missing += 1
                continue
            data = proc.stdout.read(int(header[2]))
            proc.stdout.read(1)
            os.makedirs(os.path.dirname(out), exist_ok=True)
            if mode == "120000":
                target = os.path.realpath(os.path.join(os.path.dirname(out), os.fsdecode(data)))
                if target.startswith(root + os.sep) and not os.path.lexists(out):
                    os.symlink(os.fsdecode(data), out)
            else:
                Path(out).write_bytes(data)
            written += 1
        proc.stdin.close()
    return written, missing


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--labels", type=Path, default=LABELS)
    ap.add_argument("--mirrors", type=Path, help="folder of bare git mirrors (OWNER+NAME)")
    ap.add_argument("--trees", type=Path, help="folder for the trees (OWNER__NAME)")
    ap.add_argument("--part", choices=("both", "tuned"), default="both")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--import-labels", help="comma-separated readers' JSONL files to import")
    args = ap.parse_args()
    if args.import_labels:
        n = import_labels([Path(p) for p in args.import_labels.split(",")], args.labels)
        print(f"{args.labels}: {n} repositories")
        return 0
    if not args.mirrors or not args.trees:
        ap.error("--mirrors and --trees are needed to score")
    rows = [json.loads(x) for x in args.labels.read_text(encoding="utf-8").splitlines() if x]
    absent = 0
    for row in rows:
        dest = args.trees / row["repo"].replace("/", "__", 1)
        if dest.is_dir():
            continue
        git_dir = git_dir_of(args.mirrors, row["repo"])
        if git_dir is None:
            absent += 1
            continue
        written, missing = materialise(git_dir, row["sha"], dest)
        print(f"{row['repo']}: {written} files, {missing} blobs missing", file=sys.stderr)
    if absent:
        print(f"{absent} of {len(rows)} repositories have no mirror: not scored", file=sys.stderr)
    score = [
        sys.executable, str(HERE.parent / "scripts" / "score_corpus.py"),
        "--corpus", str(args.trees), str(args.labels), "--split", SPLIT,
        "--part", args.part, "--workers", str(args.workers),
    ]  # fmt: skip
    return subprocess.run(score, check=False).returncode


if __name__ == "__main__":
    sys.exit(main())
