"""Audit one folder: run every detector and classifier in the registry, in order."""

from __future__ import annotations

from pathlib import Path

from miner.audit.detect import AuditContext, Detector
from miner.audit.docs import Documents
from miner.audit.files import RepoTree
from miner.codebook import FIELD_NAMES
from miner.errors import ConfigError
from miner.models import AuditResult, Label


def _registry() -> tuple[Detector, ...]:
    # Imported lazily: spaCy and friends load only when an audit runs.
    from miner.audit.classify.exclusions import classify_project
    from miner.audit.classify.hardware import classify_hardware
    from miner.audit.classify.software import classify_software
    from miner.audit.detect.frameworks import detect_frameworks
    from miner.audit.detect.languages import detect_language
    from miner.audit.detect.networks import detect_networks

    return (
        detect_frameworks,
        detect_language,
        detect_networks,
        classify_software,
        classify_hardware,
        classify_project,
    )


def audit(path: Path | str, commit_sha: str | None = None) -> AuditResult:
    """Audit one local folder: every codebook field with evidence; never raises on bad input."""
    root = Path(path)
    if not root.is_dir():
        raise ConfigError(f"{root}: not a folder")
    return audit_tree(RepoTree(root), commit_sha)


def audit_tree(tree: RepoTree, commit_sha: str | None = None) -> AuditResult:
    """Audit the files of `tree` with every detector in the registry, in order."""
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    labels: dict[str, Label] = {}
    for detector in _registry():
        try:
            for label in detector(ctx, labels):
                labels[label.field] = label
        except Exception as exc:  # one broken detector must not lose the others' labels
            name = getattr(detector, "__name__", "detector")
            ctx.warnings.append(f"{name} failed: {type(exc).__name__}: {exc}")
    ordered = {name: labels[name] for name in FIELD_NAMES if name in labels}
    return AuditResult(
        labels=ordered,
        warnings=tuple(dict.fromkeys(ctx.warnings)),
        details=ctx.details,
        path=str(tree.root),
        commit_sha=commit_sha,
    )
