"""Framework versions the documentation states as a setting of a run (codebook: a stated version).

A results table or a list of run settings writes the framework's version joined to its name by
`=` ("Training (#GPU=2, compile=False+PyTorch=2.8.0)", "torch==2.1.0 on 4 GPUs"), or joins the
name and version to another setting with `+` ("CUDA 11.8 + PyTorch 2.1", "cuda11.8+torch2.1"):
either says which version the project ran with, as "tested with PyTorch 2.1" does.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from miner.audit.classify.dependency import Dependency
from miner.audit.classify.doc_requirements import DocFinding
from miner.audit.docs import Block
from miner.codebook import Evidence

FRAMEWORK = (
    r"(?<![\w./-])(py ?torch|torch|tensorflow(?:-gpu)?|keras|jax|mxnet|paddlepaddle|paddle|"
    r"theano|chainer|mindspore)"
)
VERSION = r"v?(\d+\.\d+(?:\.\d+)*)(?![\w.])"
# "PyTorch=2.8.0", "torch==2.1.0"; "False+PyTorch=2.8.0", "cuda11.3+pytorch1.12", "torch 2.1 +
# CUDA 12.1" (a `+` on either side; a wheel's local tag, `1.12.0+cu113`, joins no setting).
# "PyTorch 1.12+ and torchvision" and "Python 3.8+ PyTorch 1.12" are open ranges, not joins:
# a `+` right after a version and followed by a space.
OPEN_PLUS = r"(?!\+(?![A-Za-z]))"
JOINED = re.compile(
    rf"{FRAMEWORK}\s*==?\s*{VERSION}{OPEN_PLUS}|"
    rf"(?:(?<=[A-Za-z)\]])\s*\+\s*|\s\+\s*|(?<=\d)\+){FRAMEWORK}[\s-]*{VERSION}{OPEN_PLUS}|"
    rf"{FRAMEWORK}[\s-]*{VERSION}(?:\+|\s+\+\s*)(?=[A-Za-z])(?!cu\d|cpu\b|rocm)",
    re.I,
)
PROSE = ("paragraph", "list_item", "table_row", "heading", "html")
NAMES = {"py torch": "pytorch", "tensorflow-gpu": "tensorflow-gpu"}


def configured_versions(blocks: Iterable[Block]) -> list[DocFinding]:
    """A framework version stated as a run's setting, joined to its name by `=` or `+`."""
    findings: list[DocFinding] = []
    for block in blocks:
        if block.kind not in PROSE or not re.search(r"\d\.\d", block.text):
            continue
        for m in JOINED.finditer(block.text):
            groups = [g for g in m.groups() if g]
            name = groups[0].lower()
            line = block.line + block.text.count("\n", 0, m.start())
            text = " ".join(block.text.splitlines()[line - block.line].split())[:300]
            dep = Dependency(NAMES.get(name, name), "==" + groups[1], block.path, line, text)
            evidence = Evidence(block.path, line, text, "software.readme_tested_with")
            findings.append(DocFinding(evidence, (dep,)))
            break
    return findings
