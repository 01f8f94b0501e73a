"""Audit every materialised repository of the dev corpus and score miner against its hand labels.

usage: python scripts/score_corpus.py CORPUS_DIR [--truth ../shared/corpus/dev.tsv]
                                      [--fields f1,f2] [--misses] [--labels-out FILE]
CORPUS_DIR holds one folder per repository named OWNER__NAME (see ../shared/corpus/README.md).
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from miner.audit import audit
from miner.codebook import format_value

FIELDS = ("software_req", "dependency_file", "hardware_req", "hw_gpu", "hw_cpu", "hw_memory",
          "primary_framework", "paper_framework", "paper_network", "language")  # fmt: skip


def _audit(folder: Path) -> tuple[str, dict[str, str], dict[str, list[dict[str, object]]]]:
    result = audit(folder)
    row = {name: format_value(result.value(name)) for name in result.labels}
    return folder.name, row, result.as_dict()["evidence"]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("corpus_dir", type=Path)
    ap.add_argument("--truth", type=Path, default=Path("../shared/corpus/dev.tsv"))
    ap.add_argument("--fields", default=",".join(FIELDS))
    ap.add_argument("--misses", action="store_true", help="list every miss with its evidence")
    ap.add_argument("--labels-out", type=Path, help="write miner's labels as CSV")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    from sklearn.metrics import cohen_kappa_score, precision_recall_fscore_support

    truth = {r["repo"].lower(): r for r in csv.DictReader(args.truth.open(), delimiter="\t")}
    folders = sorted(
        p for p in args.corpus_dir.iterdir()
        if p.is_dir() and p.name.replace("__", "/", 1).lower() in truth
    )  # fmt: skip
    with ProcessPoolExecutor(args.workers) as pool:
        results = list(pool.map(_audit, folders))
    if args.labels_out:
        with args.labels_out.open("w", newline="") as fh:
            names = sorted({k for _, row, _ in results for k in row})
            writer = csv.DictWriter(fh, ["full_name", *names])
            writer.writeheader()
            for name, row, _ in results:
                writer.writerow({"full_name": name.replace("__", "/", 1), **row})
    print(f"{len(results)} repositories audited")
    print(f"{'field':<20}{'n':>4}{'acc':>7}{'prec':>7}{'rec':>7}{'F1':>7}{'kappa':>7}")
    for field in args.fields.split(","):
        gold, pred, misses = [], [], []
        for name, row, evidence in results:
            t = truth[name.replace("__", "/", 1).lower()][field]
            p = row.get(field, "")
            gold.append(t)
            pred.append(p)
            if t != p:
                misses.append((name, t, p, evidence.get(field, [])[:3]))
        acc = sum(g == p for g, p in zip(gold, pred, strict=True)) / len(gold)
        line = f"{field:<20}{len(gold):>4}{acc:>7.3f}"
        if set(gold) <= {"yes", "no"}:
            prec, rec, f1, _ = precision_recall_fscore_support(
                gold, pred, labels=["yes"], average="binary", pos_label="yes", zero_division=0
            )
            line += f"{prec:>7.3f}{rec:>7.3f}{f1:>7.3f}"
        else:
            line += " " * 21
        line += f"{cohen_kappa_score(gold, pred):>7.3f}"
        print(line)
        if args.misses:
            for name, t, p, ev in misses:
                print(f"    miss {name}: truth={t} miner={p} {json.dumps(ev)[:400]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
