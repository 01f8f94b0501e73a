"""Audit every materialised repository of one or more labelled corpora and score miner's labels.

usage: python scripts/score_corpus.py --corpus DIR TRUTH [--corpus DIR TRUTH ...]
                                      [--split md5:HEXDIGITS] [--fields f1,f2] [--misses]
                                      [--labels-out FILE] [--json-out FILE] [--workers N]

DIR holds one folder per repository named OWNER__NAME. TRUTH is the corpus's labels: a TSV with
one row per repository and the codebook's field names as columns (yes/no cells), or a JSON-lines
file with one object per repository (booleans and lists). One table is printed per corpus, with
the fields that corpus labels; `kept` is derived (no exclusion), `paper_network` from
`network_types` where a corpus labels only the latter. TRUTH may be several files joined by
commas (the parts of one corpus). Keys a corpus adds beside the labels
(`sha`, `evidence`, `note`) are read and left unscored.

`--split md5:01234567` splits every corpus in two: a repository is TUNED when the first hex digit
of the MD5 of its OWNER/NAME is one of the digits given, else VALIDATION. Both parts are scored
and printed side by side; `--misses` and `--labels-out` then cover the tuned part only, so the
validation part is only ever seen as figures. `--part tuned` audits and scores the tuned part
alone (while rules are being written); the validation part is scored once, at the end.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
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
    """Labels by lower-cased OWNER/NAME, every value as a sheet cell (yes/no, a;b, text).

    `path` may name several label files joined by commas (parts of one corpus).
    """
    if "," in str(path):
        merged: dict[str, dict[str, str]] = {}
        for part in str(path).split(","):
            merged.update(read_truth(Path(part)))
        return merged
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


Result = tuple[str, dict[str, str], dict[str, list[dict[str, object]]]]
Scores = dict[str, float | int | None]


def is_tuned(repo: str, digits: str) -> bool:
    """True when `repo` (OWNER/NAME) falls in the tuned part of an MD5 split on `digits`."""
    return hashlib.md5(repo.encode()).hexdigest()[0] in digits


def _repo(folder: str) -> str:
    return folder.replace("__", "/", 1)


def _field_scores(
    results: list[Result], truth: dict[str, dict[str, str]], field: str
) -> tuple[Scores, list[tuple[str, str, str, list[dict[str, object]]]]] | None:
    """Scores of one field over `results`, and its misses; None when a repository lacks it."""
    if not results or not all(field in truth[_repo(f).lower()] for f, _, _ in results):
        return None
    gold, pred, misses = [], [], []
    for folder, row, evidence in results:
        t = truth[_repo(folder).lower()][field]
        p = row.get(field, "")
        gold.append(t)
        pred.append(p)
        if t != p:
            misses.append((folder, t, p, evidence.get(field, [])[:3]))
    return _score(field, gold, pred), misses


def _cells(scores: Scores | None) -> str:
    if scores is None:
        return " " * 38
    line = f"{scores['n']:>4}{scores['acc']:>7.3f}"
    if "f1" in scores:
        line += f"{scores['prec']:>7.3f}{scores['rec']:>7.3f}{scores['f1']:>7.3f}"
    else:
        line += " " * 21
    return line + f"{scores['kappa']:>7.3f}"


def score_corpus(
    name: str,
    results: list[Result],
    truth: dict[str, dict[str, str]],
    fields: list[str],
    show_misses: bool,
) -> dict[str, Scores]:
    """Print one table for a corpus and return its scores by field."""
    print(f"\n{name}: {len(results)} repositories audited")
    print(f"{'field':<20}{'n':>4}{'acc':>7}{'prec':>7}{'rec':>7}{'F1':>7}{'kappa':>7}  target")
    table: dict[str, Scores] = {}
    for field in fields:
        scored = _field_scores(results, truth, field)
        if scored is None:
            continue
        scores, misses = scored
        table[field] = scores
        print(f"{field:<20}{_cells(scores)}  {TARGETS.get(field, '')}".rstrip())
        if show_misses:
            for folder, t, p, ev in misses:
                print(f"    miss {folder}: truth={t} miner={p} {json.dumps(ev)[:400]}")
    return table


def score_split(
    name: str,
    results: list[Result],
    truth: dict[str, dict[str, str]],
    fields: list[str],
    show_misses: bool,
    digits: str,
) -> dict[str, dict[str, Scores]]:
    """Print tuned and validation figures of one corpus side by side; misses of the tuned only."""
    tuned = [r for r in results if is_tuned(_repo(r[0]), digits)]
    held = [r for r in results if not is_tuned(_repo(r[0]), digits)]
    print(f"\n{name}: {len(tuned)} tuned + {len(held)} validation repositories audited")
    head = f"{'n':>4}{'acc':>7}{'prec':>7}{'rec':>7}{'F1':>7}{'kappa':>7}"
    print(f"{'':<20}{'tuned':<38} | {'validation':<38}")
    print(f"{'field':<20}{head} | {head}  target")
    table: dict[str, dict[str, Scores]] = {"tuned": {}, "validation": {}}
    for field in fields:
        t_scored = _field_scores(tuned, truth, field)
        v_scored = _field_scores(held, truth, field)
        if t_scored is None and v_scored is None:
            continue
        t_scores = t_scored[0] if t_scored else None
        v_scores = v_scored[0] if v_scored else None
        if t_scores:
            table["tuned"][field] = t_scores
        if v_scores:
            table["validation"][field] = v_scores
        line = f"{field:<20}{_cells(t_scores)} | {_cells(v_scores)}  {TARGETS.get(field, '')}"
        print(line.rstrip())
        if show_misses and t_scored:
            for folder, t, p, ev in t_scored[1]:
                print(f"    miss {folder}: truth={t} miner={p} {json.dumps(ev)[:400]}")
    return table


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument(
        "--corpus", nargs=2, action="append", metavar=("DIR", "TRUTH"), required=True,
        help="a folder of OWNER__NAME checkouts and its labels (.tsv or .jsonl); repeatable",
    )  # fmt: skip
    ap.add_argument(
        "--split", metavar="md5:DIGITS",
        help="score a tuned part (MD5 of OWNER/NAME starts with one of DIGITS) beside the rest",
    )  # fmt: skip
    ap.add_argument("--part", choices=("both", "tuned"), default="both", help="with --split")
    ap.add_argument("--fields", default=",".join(FIELDS))
    ap.add_argument("--misses", action="store_true", help="list every miss with its evidence")
    ap.add_argument("--labels-out", type=Path, help="write miner's labels as CSV")
    ap.add_argument("--json-out", type=Path, help="write every corpus's scores as JSON")
    ap.add_argument("--workers", type=int, default=2)
    args = ap.parse_args()
    fields = args.fields.split(",")
    digits = ""
    if args.split:
        kind, _, digits = args.split.partition(":")
        if kind != "md5" or not digits or set(digits) - set("0123456789abcdef"):
            ap.error("--split takes md5:HEXDIGITS, e.g. md5:01234567")
    if args.part == "tuned" and not digits:
        ap.error("--part tuned needs --split")
    everything: dict[str, object] = {}
    all_rows: list[tuple[str, dict[str, str]]] = []
    with ProcessPoolExecutor(args.workers) as pool:
        for corpus_dir, truth_path in args.corpus:
            truth = read_truth(Path(truth_path))
            folders = sorted(
                p for p in Path(corpus_dir).iterdir()
                if p.is_dir() and p.name.replace("__", "/", 1).lower() in truth
                and (args.part == "both" or is_tuned(_repo(p.name), digits))
            )  # fmt: skip
            if not folders:
                print(f"{corpus_dir}: no folder matches a repository of {truth_path}")
                return 1
            results = list(pool.map(_audit, folders))
            label = f"{Path(truth_path).name} ({corpus_dir})"
            if digits:
                all_rows += [(n, row) for n, row, _ in results if is_tuned(_repo(n), digits)]
                everything[label] = score_split(label, results, truth, fields, args.misses, digits)
            else:
                all_rows += [(name, row) for name, row, _ in results]
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
