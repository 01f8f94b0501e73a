"""Score a candidate for variance experiments from its labels and static evidence; pick diversely.

Every criterion is a Reason with the points it adds and the evidence for it, so a ranking can be
checked line by line. Points: training code 3, data available 3, CPU-capable framework 2 (1 when
GPU-only calls need editing), entry point 1-2, framework version stated 1.5, seed sites 1 (+0.5
for a --seed option), thread hooks 0.5, cost low 1 / medium 0.5.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from miner.codebook import Evidence
from miner.errors import ConfigError
from miner.select.evidence import CheckoutEvidence
from miner.select.versions import VersionSpec

CPU_FRAMEWORKS = frozenset(
    {"pytorch", "tensorflow", "keras", "jax", "mxnet", "chainer", "theano", "paddlepaddle",
     "cntk", "dynet", "caffe2", "onnx"}
)  # fmt: skip
BUILD_FRAMEWORKS = frozenset({"caffe", "darknet", "torch7"})  # CPU builds exist, need compiling
REQUIREMENTS = (
    "training_code", "data_available", "cpu", "pinned", "entry_point", "seeds", "thread_hooks",
)  # fmt: skip
DIVERSITY_KEYS = ("framework", "domain", "version")
DIVERSITY_BONUS = 2.0


@dataclass(frozen=True)
class Reason:
    """One selection criterion: met or not, the points it adds, and the evidence."""

    criterion: str
    met: bool
    points: float
    detail: str
    evidence: tuple[Evidence, ...] = ()

    def as_dict(self) -> dict[str, Any]:
        """Manifest form."""
        return {
            "criterion": self.criterion,
            "met": self.met,
            "points": self.points,
            "detail": self.detail,
            "evidence": [e.as_dict() for e in self.evidence],
        }


@dataclass(frozen=True)
class Candidate:
    """One analyzed, cloned repository assessed for a variance experiment."""

    repo_id: int
    full_name: str
    commit_sha: str
    checkout: str
    labels: dict[str, str]
    scan: CheckoutEvidence
    reasons: tuple[Reason, ...]
    framework: str
    domain: str
    version_spec: VersionSpec | None
    cpu: dict[str, Any]
    cost: dict[str, Any]
    exclusions: tuple[str, ...] = ()
    label_evidence: dict[str, tuple[Evidence, ...]] = field(default_factory=dict)
    commit_date: str | None = None  # of the checked-out commit, from the clone stage

    @property
    def score(self) -> float:
        """The sum of the points of the met criteria."""
        return round(sum(r.points for r in self.reasons if r.met), 2)

    @property
    def version(self) -> str:
        """Framework and major version for diversity, e.g. 'tensorflow 1' ('pytorch ?' unknown)."""
        major = self.version_spec.major if self.version_spec else None
        return f"{self.framework} {major or '?'}"

    def met(self, criterion: str) -> bool:
        """True when the named criterion is met."""
        return any(r.met for r in self.reasons if r.criterion == criterion)

    def key(self, name: str) -> str:
        """The value of a diversity key: framework, domain or version."""
        return {"framework": self.framework, "domain": self.domain, "version": self.version}[name]


def parse_names(text: str | None, allowed: tuple[str, ...], option: str) -> tuple[str, ...]:
    """'a,b' -> ('a', 'b'), each checked against `allowed`."""
    names = tuple(dict.fromkeys(p.strip() for p in (text or "").split(",") if p.strip()))
    bad = [n for n in names if n not in allowed]
    if bad:
        raise ConfigError(f"{option}: unknown {', '.join(bad)}; choose from {', '.join(allowed)}")
    return names


def pick_version(framework: str, specs: tuple[VersionSpec, ...]) -> VersionSpec | None:
    """The spec of the main framework: dependency files before docs, exact pins first."""
    related = {framework} | ({"tensorflow"} if framework == "keras" else set())
    matching = [s for s in specs if s.framework in related]
    matching.sort(key=lambda s: (s.source == "readme", s.framework != framework, not s.pinned))
    return matching[0] if matching else None


def cpu_support(framework: str, scan: CheckoutEvidence) -> dict[str, Any]:
    """Can it train on CPU? From the framework and hard-coded GPU calls without a fallback."""
    if framework in BUILD_FRAMEWORKS:
        return {"ok": False, "level": "needs_build",
                "detail": f"{framework} has a CPU mode but must be built for it"}  # fmt: skip
    if framework not in CPU_FRAMEWORKS:
        return {"ok": False, "level": "unknown", "detail": f"no CPU back-end known for {framework}"}
    if scan.gpu_only and not scan.cpu_fallback:
        return {"ok": False, "level": "needs_edits",
                "detail": f"{len(scan.gpu_only)} hard-coded GPU call(s) and no CPU fallback",
                "evidence": [e.as_dict() for e in scan.gpu_only[:5]]}  # fmt: skip
    detail = f"{framework} runs on CPU"
    if scan.gpu_only:
        detail += f"; GPU calls guarded by a fallback ({scan.cpu_fallback[0].path})"
    return {"ok": True, "level": "cpu_ready", "detail": detail,
            "evidence": [e.as_dict() for e in scan.cpu_fallback[:3]]}  # fmt: skip


def cost_estimate(scan: CheckoutEvidence) -> dict[str, Any]:
    """A rough training cost from dataset names, default epochs and size: low, medium, high,
    or unknown when nothing points either way."""
    level, why = "unknown", ["no dataset named and no default epoch count found"]
    large = [e for e in scan.data_scale if e.rule == "large_dataset"]
    small = [e for e in scan.data_scale if e.rule == "small_dataset"]
    if large:
        level, why = "high", [f"large dataset named: {large[0].text}"]
    elif small:
        level, why = "low", [f"small dataset named: {small[0].text}"]
    epochs = None
    if scan.epochs is not None:
        digits = "".join(ch for ch in scan.epochs.text.split("=")[-1] if ch.isdigit())
        epochs = int(digits) if digits else None
        if level == "unknown" and epochs is not None:
            level, why = ("high", []) if epochs > 100 else ("medium", [])
        elif epochs and epochs > 100 and level != "high":
            level = "medium" if level == "low" else "high"
        if epochs is not None:
            why.append(f"{epochs} epochs by default")
    if scan.size_bytes > 500_000_000:
        level = "high"
        why.append(f"checkout is {scan.size_bytes // 1_000_000} MB")
    evidence = [e.as_dict() for e in (large or small)[:3]]
    if scan.epochs is not None:
        evidence.append(scan.epochs.as_dict())
    return {
        "level": level,
        "epochs_default": epochs,
        "reasons": why,
        "evidence": evidence,
        "size_mb": round(scan.size_bytes / 1e6, 2),
        "python_files": scan.python_files,
    }


def assess(
    row: dict[str, Any],
    checkout: str,
    scan: CheckoutEvidence,
    label_evidence: dict[str, tuple[Evidence, ...]],
) -> Candidate:
    """Score one repository from its labels row (sheet format) and its checkout's evidence."""
    labels = {k: "" if v is None else str(v) for k, v in row.items()}
    framework = labels.get("primary_framework") or ""
    if framework in ("", "none") and scan.versions:
        framework = scan.versions[0].framework
    framework = framework or "none"
    spec = pick_version(framework, scan.versions)
    cpu = cpu_support(framework, scan)
    cost = cost_estimate(scan)
    reasons = [
        Reason(
            "training_code",
            labels.get("training_code") == "yes",
            3.0,
            f"training_code label: {labels.get('training_code') or 'missing'}",
            label_evidence.get("training_code", ()),
        ),
        _data_reason(labels, scan, label_evidence),
        Reason("cpu", cpu["ok"], 2.0, cpu["detail"], _cpu_evidence(scan, spec, label_evidence)),
        Reason(
            "cpu_after_edits",
            cpu["level"] == "needs_edits",
            1.0,
            "GPU-only calls must be edited to run on CPU",
            scan.gpu_only[:3],
        ),
        Reason(
            "entry_point",
            bool(scan.entry_points),
            scan.entry_points[0].strength if scan.entry_points else 2.0,
            _entry_detail(scan),
            scan.entry_points[0].evidence if scan.entry_points else (),
        ),
        Reason(
            "pinned",
            spec is not None,
            1.5,
            f"{spec.package}{spec.spec} ({spec.source})" if spec else "no framework version stated",
            (spec.evidence,) if spec else (),
        ),
        Reason(
            "seeds",
            bool(scan.seed_sites),
            1.0,
            f"{len(scan.seed_sites)} seed site(s)",
            scan.seed_sites[:5],
        ),
        Reason(
            "seed_option",
            scan.seed_argument is not None,
            0.5,
            "a --seed option",
            (scan.seed_argument,) if scan.seed_argument else (),
        ),
        Reason(
            "thread_hooks",
            bool(scan.thread_hooks),
            0.5,
            f"{len(scan.thread_hooks)} thread hook(s)",
            scan.thread_hooks[:5],
        ),
        Reason(
            "cost",
            cost["level"] in ("low", "medium"),
            1.0 if cost["level"] == "low" else 0.5,
            f"estimated cost {cost['level']}: {'; '.join(cost['reasons'])}",
            _cost_evidence(scan),
        ),
    ]
    exclusions = tuple(v for v in labels.get("exclude", "").split(";") if v)
    return Candidate(
        repo_id=int(row["repo_id"]),
        full_name=str(row["full_name"]),
        commit_sha=str(row["commit_sha"]),
        checkout=checkout,
        labels=labels,
        scan=scan,
        reasons=tuple(reasons),
        framework=framework,
        domain=labels.get("domain") or "other",
        version_spec=spec,
        cpu=cpu,
        cost=cost,
        exclusions=exclusions,
        label_evidence=label_evidence,
    )


def _data_reason(
    labels: dict[str, str], scan: CheckoutEvidence, label_evidence: dict[str, tuple[Evidence, ...]]
) -> Reason:
    if labels.get("data_available") == "yes":
        evidence = label_evidence.get("data_available", ()) or scan.dataset[:3]
        return Reason("data_available", True, 3.0, "data_available label: yes", evidence)
    if scan.dataset:
        return Reason("data_available", True, 3.0,
                      f"data_available label {labels.get('data_available') or 'missing'}, "
                      "but the checkout obtains data", scan.dataset[:3])  # fmt: skip
    return Reason("data_available", False, 3.0, "no data and no way to obtain it found")


def _cpu_evidence(
    scan: CheckoutEvidence,
    spec: VersionSpec | None,
    label_evidence: dict[str, tuple[Evidence, ...]],
) -> tuple[Evidence, ...]:
    """A CPU fallback in the code, else where the framework was found."""
    if scan.cpu_fallback:
        return scan.cpu_fallback[:2]
    found = label_evidence.get("primary_framework", ())[:2]
    return found or ((spec.evidence,) if spec else ())


def _cost_evidence(scan: CheckoutEvidence) -> tuple[Evidence, ...]:
    """Dataset names and the default epoch count behind the cost estimate."""
    items = [e for e in scan.data_scale if e.rule == "large_dataset"][:2]
    items = items or [e for e in scan.data_scale if e.rule == "small_dataset"][:2]
    if scan.epochs is not None:
        items.append(scan.epochs)
    return tuple(items)


def _entry_detail(scan: CheckoutEvidence) -> str:
    if not scan.entry_points:
        return "no training entry point found (train*.py, main.py with argparse, README command)"
    entry = scan.entry_points[0]
    return f"{entry.kind}: python {' '.join((entry.script, *entry.args))}"


def meets(candidate: Candidate, required: tuple[str, ...]) -> list[str]:
    """The required criteria this candidate fails (empty: it qualifies)."""
    return [name for name in required if not candidate.met(name)]


def rank(candidates: list[Candidate]) -> list[Candidate]:
    """Best first: score, then name for a stable order."""
    return sorted(candidates, key=lambda c: (-c.score, c.full_name.lower()))


def diversify(candidates: list[Candidate], n: int, keys: tuple[str, ...]) -> list[Candidate]:
    """Greedy diverse pick: each step takes the best score plus a bonus per key value not yet
    covered by the picked set (without keys: simply the top n)."""
    pool = rank(candidates)
    if not keys:
        return pool[:n]
    picked: list[Candidate] = []
    seen: dict[str, set[str]] = {k: set() for k in keys}
    while pool and len(picked) < n:
        best = max(
            pool,
            key=lambda c: (c.score + DIVERSITY_BONUS * sum(c.key(k) not in seen[k] for k in keys),
                           c.score, -pool.index(c)),
        )  # fmt: skip
        picked.append(best)
        pool.remove(best)
        for k in keys:
            seen[k].add(best.key(k))
    return picked
