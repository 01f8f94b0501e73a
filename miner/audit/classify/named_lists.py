"""Requirement lists the documentation names by path, under names no dependency file has.

"Environment requirements can be found in `src/src_t5/environment_t5.txt`": the codebook reads a
path named in prose as a link, followed one step. A text file reached that way whose lines are
requirements (`torch==1.8.1+cu111`, `python==3.9.7`) states the software the project needs,
as the documentation's own list would; it is no dependency file by name, so `dependency_file`
stays as the files alone make it.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from miner.audit.classify.dependency import Dependency, Reader
from miner.audit.classify.doc_requirements import DocFinding
from miner.audit.classify.python_manifests import requirements
from miner.audit.docs import Block
from miner.audit.files import DEPENDENCY_PATTERNS, RepoTree
from miner.codebook import Evidence

# A path to a text file, in backquotes or bare: `src/env.txt`, ./env/pip.txt (a stray leading
# dot, `.src/env.txt`, is a slip for `./`).
NAMED_TEXT_FILE = re.compile(r"(?<![\w/])`?\.?/?((?:[\w.-]+/)*[\w.-]+\.txt)\b`?")
REQUIREMENT_LINE = re.compile(r"^\s*[A-Za-z][\w.\-]*(?:\[[\w,\s-]+\])?\s*(?:[<>=!~]=?\s*\S+)?\s*$")
VERSIONED = re.compile(r"[<>=!~]=\s*\d")
MIN_SHARE = 0.8  # of the file's non-comment lines that read as requirements
MAX_FILES = 4


def _is_manifest(path: str) -> bool:
    return any(pattern.search(path) for _, pattern in DEPENDENCY_PATTERNS)


def _requirement_list(text: str) -> bool:
    """True when most non-comment lines are requirements (`name`, `name==1.2`, `name>=1`) and
    some carry a version."""
    lines = [ln for ln in text.splitlines() if ln.strip() and not ln.lstrip().startswith("#")]
    if not lines:
        return False
    share = sum(bool(REQUIREMENT_LINE.match(ln)) for ln in lines) / len(lines)
    # a list of class or file names reads as bare names too: a version operator tells them apart
    return share >= MIN_SHARE and any(VERSIONED.search(ln) for ln in lines)


def named_requirement_lists(
    tree: RepoTree, blocks: Iterable[Block], warnings: list[str]
) -> list[DocFinding]:
    """One finding per requirement list the prose of `blocks` names by path: the sentence as
    evidence, the list's packages (with their own file and line) as what it states."""
    found: list[DocFinding] = []
    seen: set[str] = set()
    for block in blocks:
        if block.kind == "code" or ".txt" not in block.text:
            continue
        for m in NAMED_TEXT_FILE.finditer(block.text):
            path = m.group(1)
            if path in seen or path not in tree.paths or _is_manifest(path):
                continue
            seen.add(path)
            text = tree.read_text(path) or ""
            if not _requirement_list(text):
                continue
            deps: list[Dependency] = requirements(Reader(tree, path, warnings))
            if not deps:
                continue
            line = block.line + block.text.count("\n", 0, m.start())
            sentence = block.text.splitlines()[block.text.count("\n", 0, m.start())].strip()
            evidence = Evidence(block.path, line, sentence[:300], "software.named_list")
            found.append(DocFinding(evidence, tuple(deps)))
            if len(found) == MAX_FILES:
                return found
    return found
