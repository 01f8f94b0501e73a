"""Audit every materialised repository of one or more labelled corpora and score miner's labels.

usage: python scripts/score_corpus.py --corpus DIR TRUTH [--corpus DIR TRUTH ...]
                                      [--fields f1,f2] [--misses] [--labels-out FILE]
                                      [--json-out FILE] [--workers N]

DIR holds one folder per repository named OWNER__NAME. TRUTH is the corpus's labels: a TSV with
one row per repository and the codebook's field names as columns (yes/no cells), or a JSON-lines
file with one object per repository (booleans and lists). One table is printed per corpus, with
the fields that corpus labels; `kept` is derived (no exclusion), `paper_network` from
`network_types` where a corpus labels only the latter.
"""

from __future__ import annotations

import argparse
import csv
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

from miner.audit import audit
from miner.codebook import format_value, paper_network

# In print order; a corpus is scored on those of its fields it labels.
FIELDS = (
    "software_req", "dependency_file", "versions_pinned", "hardware_req", "hw_gpu", "hw_cpu",
    "hw_memory", "hw_other", "data_available", "training_code", "is_dl", "exclude", "kept",
    "primary_framework", "paper_framework", "paper_network", "network_types", "language",
)  # fmt: skip
# What each field is judged by, as the study's targets state them.
TARGETS = {
    "software_req": "acc >= .97, kappa >= .80",
    "dependency_file": "acc >= .97",
    "hardware_req": "F1 >= .93, kappa >= .90",
    "hw_memory": "F1 >= .85",
    "hw_cpu": "F1 >= .85",
    "data_available": "acc >= .90",
    "exclude": "exact >= .90",
    "kept": "kappa >= .85",
    "primary_framework": "acc >= .95",
    "paper_network": "acc >= .85",
    "language": "acc >= .97",
}


def _cell(value: object) -> str:
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, list):
        return ";".join(sorted(str(v) for v in value))
    return "" if value is None else str(value)


def read_truth(path: Path) -> dict[str, dict[str, str]]:
    """Labels by lower-cased OWNER/NAME, every value as a sheet cell (yes/no, a;b, text)."""
    rows: dict[str, dict[str, str]] = {}
    if path.suffix == ".jsonl":
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                obj = json.loads(line)
                rows[obj["repo"].lower()] = {k: _cell(v) for k, v in obj.items()}
    else:
        with path.open(encoding="utf-8", newline="") as fh:
            for row in csv.DictReader(fh, delimiter="\t"):
                rows[row["repo"].lower()] = dict(row)
    for row in rows.values():
        if "exclude" in row:
            row["kept"] = "no" if row["exclude"] else "yes"
        if "network_types" in row and "paper_network" not in row:
            row["paper_network"] = paper_network(v for v in row["network_types"].split(";") if v)
    return rows


def _audit(folder: Path) -> tuple[str, dict[str, str], dict[str, list[dict[str, object]]]]:
    result = audit(folder)
    row = {name: format_value(result.value(name)) for name in result.labels}
    row["kept"] = "no" if row.get("exclude") else "yes"
    return folder.name, row, result.as_dict()["evidence"]


def _score(field: str, gold: list[str], pred: list[str]) -> dict[str, float | int | None]:
    from sklearn.metrics import cohen_kappa_score, precision_recall_fscore_support

    acc = sum(g == p for g, p in zip(gold, pred, strict=True)) / len(gold)
    scores: dict[str, float | int | None] = {"n": len(gold), "acc": acc}
    if set(gold) <= {"yes", "no"}:
        prec, rec, f1, _ = precision_recall_fscore_support(
            gold, pred, labels=["yes"], average="binary", pos_label="yes", zero_division=0
        )
        scores.update(prec=float(prec), rec=float(rec), f1=float(f1))
    kappa = cohen_kappa_score(gold, pred) if len(set(gold) | set(pred)) > 1 else 1.0
    scores["kappa"] = float(kappa)
    return scores


def score_corpus(
    name: str,
    results: list[tuple[str, dict[str, str], dict[str, list[dict[str, object]]]]],
    truth: dict[str, dict[str, str]],
    fields: list[str],
    show_misses: bool,
) -> dict[str, dict[str, float | int | None]]:
    """Print one table for a corpus and return its scores by field."""
    print(f"\n{name}: {len(results)} repositories audited")
    print(f"{'field':<20}{'n':>4}{'acc':>7}{'prec':>7}{'rec':>7}{'F1':>7}{'kappa':>7}  target")
    table: dict[str, dict[str, float | int | None]] = {}
    for field in fields:
        if not all(field in truth[f.replace("__", "/", 1).lower()] for f, _, _ in results):
            continue
        gold, pred, misses = [], [], []
        for folder, row, evidence in results:
            t = truth[folder.replace("__", "/", 1).lower()][field]
            p = row.get(field, "")
            gold.append(t)
            pred.append(p)
            if t != p:
                misses.append((folder, t, p, evidence.get(field, [])[:3]))
        scores = _score(field, gold, pred)
        table[field] = scores
        line = f"{field:<20}{scores['n']:>4}{scores['acc']:>7.3f}"
        if "f1" in scores:
            line += f"{scores['prec']:>7.3f}{scores['rec']:>7.3f}{scores['f1']:>7.3f}"
        else:
            line += " " * 21
        line += f"{scores['kappa']:>7.3f}  {TARGETS.get(field, '')}"
        print(line.rstrip())
        if show_misses:
            for folder, t, p, ev in misses:
                print(f"    miss {folder}: truth={t} miner={p} {json.dumps(ev)[:400]}")
    return table


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--corpus", nargs=2, action="append", metavar=("DIR", "TRUTH"), required=True,
        help="a folder of OWNER__NAME checkouts and its labels (.tsv or .jsonl); repeatable",
    )  # fmt: skip
    ap.add_argument("--fields", default=",".join(FIELDS))
    ap.add_argument("--misses", action="store_true", help="list every miss with its evidence")
    ap.add_argument("--labels-out", type=Path, help="write miner's labels as CSV")
    ap.add_argument("--json-out", type=Path, help="write every corpus's scores as JSON")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    fields = args.fields.split(",")
    everything: dict[str, dict[str, dict[str, float | int | None]]] = {}
    all_rows: list[tuple[str, dict[str, str]]] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for corpus_dir, truth_path in args.corpus:
            truth = read_truth(Path(truth_path))
            folders = sorted(
                p for p in Path(corpus_dir).iterdir()
                if p.is_dir() and p.name.replace("__", "/", 1).lower() in truth
            )  # fmt: skip
            if not folders:
                print(f"{corpus_dir}: no folder matches a repository of {truth_path}")
                return 1
            results = list(pool.map(_audit, folders))
            all_rows += [(name, row) for name, row, _ in results]
            label = f"{Path(truth_path).name} ({corpus_dir})"
            everything[label] = score_corpus(label, results, truth, fields, args.misses)
    if args.labels_out:
        with args.labels_out.open("w", newline="", encoding="utf-8") as fh:
            names = sorted({k for _, row in all_rows for k in row})
            writer = csv.DictWriter(fh, ["full_name", *names])
            writer.writeheader()
            for name, row in all_rows:
                writer.writerow({"full_name": name.replace("__", "/", 1), **row})
    if args.json_out:
        args.json_out.write_text(json.dumps(everything, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
