"""The audit stage: read a checkout and label it against the codebook, with evidence.

- `files`: what is read (the README, the docs it links to, dependency files, source), never
  following a symlink out of the tree, skipping binary and oversized files;
- `docs`: Markdown, reST and plain text parsed into blocks with line numbers and sections;
- `detect/`: detectors that read code and manifests (frameworks, languages, network types);
- `classify/`: classifiers that read documents (software and hardware requirements, exclusions,
  training code, data availability, domain);
- `auditor`: `audit(path)`, every detector and classifier of the registry over one folder;
- `batch`: `analyze(store)`, every stored clone audited in a process pool, labels persisted.

Nothing here runs code from the audited repository: `setup.py` is parsed with `ast`.
May import: `miner.store`, `miner.config`, `miner.errors`, `miner.models`, `miner.codebook`.
"""

from __future__ import annotations

from miner.audit.auditor import audit, audit_tree
from miner.audit.batch import AnalyzeEvent, AnalyzeSummary, analyze, summarise

__all__ = ["AnalyzeEvent", "AnalyzeSummary", "analyze", "audit", "audit_tree", "summarise"]
