"""The Keras backend of a Keras project: TensorFlow (default; always for tf.keras), Theano, CNTK.

Evidence, strongest first: a `keras.json` with a "backend" key, a `KERAS_BACKEND=...` setting in
code, scripts or docs, a documentation sentence naming one backend ("the Theano backend should
be installed"), and Theano imported beside Keras in the project's own code.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable

from miner.audit.detect import AuditContext
from miner.audit.detect.sources import CodeIndex
from miner.codebook import Evidence

BACKENDS = ("tensorflow", "theano", "cntk")
BACKEND_WORD = re.compile(r"\bbackends?\b", re.I)
BACKEND_NAME = re.compile(r"\b(theano|tensorflow|cntk)\b", re.I)
KERAS_ENV = re.compile(r"KERAS_BACKEND['\"]?[\s\]=:,]*['\"]?(\w+)")
STANDALONE = ("keras",)


def _keras_json(ctx: AuditContext) -> tuple[str, Evidence] | None:
    for f in ctx.tree.files:
        if f.name.lower() != "keras.json":
            continue
        text = ctx.tree.read_text(f.path) or ""
        try:
            data = json.loads(text)
        except ValueError:
            ctx.warnings.append(f"{f.path}: malformed keras.json, not read")
            continue
        backend = str(data.get("backend", "")).lower() if isinstance(data, dict) else ""
        if backend in BACKENDS:
            line = next((n for n, t in enumerate(text.splitlines(), 1) if "backend" in t), 0)
            return backend, Evidence(
                f.path, line, f'"backend": "{backend}"', "keras_backend.config"
            )
    return None


def _env_setting(ctx: AuditContext, index: CodeIndex) -> tuple[str, Evidence] | None:
    sources = [(sf.path, sf.hits) for sf in index.own()] + [
        (a.path, a.hits) for a in index.artifacts if a.weight > 0
    ]
    for path, hits in sources:
        hit = hits.get("keras.backend")
        if hit:
            m = KERAS_ENV.search(hit.samples[0])
            if m and m.group(1).lower() in BACKENDS:
                line, text = index.where(path, hit.samples[0])
                return m.group(1).lower(), Evidence(path, line, text, "keras_backend.env")
    for block in ctx.docs.blocks:
        m = KERAS_ENV.search(block.text)
        if m and m.group(1).lower() in BACKENDS:
            return m.group(1).lower(), Evidence(block.path, block.line, block.text[:200],
                                                "keras_backend.env")  # fmt: skip
    return None


def _doc_sentence(ctx: AuditContext) -> tuple[str, Evidence] | None:
    """A documentation sentence naming exactly one backend near the word "backend"."""
    named: dict[str, Evidence] = {}
    for block in ctx.docs.prose():
        for word in BACKEND_WORD.finditer(block.text):
            window = block.text[max(0, word.start() - 50) : word.end() + 40]
            for name in BACKEND_NAME.findall(window):
                evidence = Evidence(block.path, block.line, block.text[:200], "keras_backend.docs")
                named.setdefault(name.lower(), evidence)
    if len(named) == 1:
        backend, evidence = next(iter(named.items()))
        return backend, evidence
    return None


def _theano_beside_keras(index: CodeIndex) -> tuple[str, Evidence] | None:
    for sf in index.own():
        keras = sf.imports_module("keras")
        theano = sf.imports_module("theano", "lasagne")
        if keras and theano:
            return "theano", Evidence(sf.path, theano.line, theano.text, "keras_backend.import")
    return None


def keras_backend(
    ctx: AuditContext, index: CodeIndex, primary: str, frameworks: Iterable[str]
) -> tuple[str, tuple[Evidence, ...]]:
    """The backend a Keras project runs on, with the evidence that says so."""
    if primary != "keras":
        return "tensorflow", ()
    standalone = [sf for sf in index.own() if sf.imports_module(*STANDALONE)]
    if not standalone:
        for sf in index.own():
            imp = sf.imports_module("tensorflow")
            if imp:  # tf.keras always runs on TensorFlow
                return "tensorflow", (
                    Evidence(sf.path, imp.line, imp.text, "keras_backend.tf_keras"),
                )
        return "tensorflow", ()
    for finder in (_keras_json, lambda c: _env_setting(c, index), _doc_sentence,
                   lambda c: _theano_beside_keras(index)):  # fmt: skip
        found = finder(ctx)
        if found:
            return found[0], (found[1],)
    return "tensorflow", ()
