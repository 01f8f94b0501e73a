"""Run `miner lint` over materialised checkouts and print every finding, for judging by hand.

Prints one block per project (commit, the project kinds lint saw, each finding with its first
evidence), then findings per code. With `--judged FILE` (a TSV of part, repository, commit,
code, location, verdict, reason) it prints judged and right per code for the findings
of this run that were judged.

usage: python benchmarks/lint_sample.py ROOT [--list FILE --part odd|even] [--judged TSV]
       [--commits TSV]
"""

from __future__ import annotations

import argparse
import csv
import subprocess
from collections import Counter
from pathlib import Path


def _folders(root: Path, listing: Path | None, part: str | None) -> list[Path]:
    if listing is None:
        return sorted(p for p in root.iterdir() if p.is_dir())
    names = [n.strip() for n in listing.read_text().splitlines() if n.strip()]
    if part == "odd":
        names = names[0::2]
    elif part == "even":
        names = names[1::2]
    return [root / n.replace("/", "__") for n in names if (root / n.replace("/", "__")).is_dir()]


def _commit(folder: Path, commits: dict[str, str]) -> str:
    if folder.name in commits:
        return commits[folder.name][:12]
    out = subprocess.run(
        ["git", "-C", str(folder), "rev-parse", "HEAD"], capture_output=True, text=True
    )
    return out.stdout.strip()[:12] or "-"


def main() -> None:
    """Lint every folder and print the findings, then the figures per code."""
    from miner.lint import lint

    parser = argparse.ArgumentParser()
    parser.add_argument("root", type=Path)
    parser.add_argument("--list", type=Path, default=None)
    parser.add_argument("--part", choices=("odd", "even"), default=None)
    parser.add_argument("--judged", type=Path, default=None)
    parser.add_argument(
        "--commits", type=Path, default=None, help="TSV: folder or OWNER/NAME, commit"
    )
    args = parser.parse_args()
    commits: dict[str, str] = {}
    if args.commits:
        rows = (line.split("\t") for line in args.commits.read_text().splitlines() if line)
        commits = {r[0].replace("/", "__"): r[1] for r in rows if len(r) > 1}
    per_code: Counter[str] = Counter()
    projects = 0
    found: set[tuple[str, str, str]] = set()
    for folder in _folders(args.root, args.list, args.part):
        report = lint(folder)
        projects += 1
        head = f"== {folder.name} {_commit(folder, commits)} kind={report.kind}"
        print(f"{head} findings={len(report.findings)}")
        for f in report.findings:
            per_code[f.code] += 1
            found.add((folder.name, f.code, f"{f.path}:{f.line}"))
            print(f"  {f.code} {f.path}:{f.line} {f.message}")
            for ev in f.evidence[:2]:
                where = f"{ev.path}:{ev.line}" if ev.path else "read"
                print(f"      because {where}  {ev.text[:150]}")
    print(f"\n{projects} projects, {sum(per_code.values())} findings")
    judged: Counter[str] = Counter()
    right: Counter[str] = Counter()
    if args.judged:
        with args.judged.open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                key = (row["repository"].replace("/", "__"), row["code"], row["location"])
                if key not in found:
                    continue  # judged on another part, or under other rules
                judged[row["code"]] += 1
                right[row["code"]] += row["verdict"] == "right"
    print("code\tfindings\tjudged\tright")
    for code in sorted(set(per_code) | set(judged)):
        print(f"{code}\t{per_code[code]}\t{judged[code]}\t{right[code]}")
    if judged:
        total = sum(judged.values())
        print(f"all\t{sum(per_code.values())}\t{total}\t{sum(right.values())}")


if __name__ == "__main__":
    main()
