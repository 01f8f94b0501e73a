"""Framework detector: `frameworks`, `primary_framework` and `paper_framework` with evidence.

Every own code file votes for the frameworks it imports, with its role weight (model-defining
and training code most) times how much of the framework's model-building API it uses. Keras and
TensorFlow are told apart per file: `tf.keras` layers and models vote `keras`, lower-level
TensorFlow (`tf.nn`, `tf.layers`, slim, Estimators, sessions) votes `tensorflow`. Dependency
files, Caffe prototxt/solver files, `caffe train` scripts and bundled framework copies add
smaller votes; code in test and documentation folders only confirms a framework the rest shows.
Comments, docstrings and strings are not code (miner.audit.detect.code_views). When two frameworks
each have a separate full implementation (model and training code in different files), the one
the README names first is primary (codebook rule).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from miner.audit.detect import AuditContext
from miner.audit.detect.backend import keras_backend
from miner.audit.detect.framework_map import (
    API_SIGNALS,
    HF_LIBRARIES,
    README_NAMES,
    RUNTIME_ONLY,
    module_framework,
)
from miner.audit.detect.manifests import Declared, declared_frameworks
from miner.audit.detect.sources import CodeIndex, SourceFile, code_index
from miner.codebook import Evidence, paper_framework
from miner.models import Label

API_CAP = 30
CORE_PACKAGES = frozenset({"tensorflow", "tensorflow-gpu", "tensorflow-cpu", "keras", "torch",
                           "pytorch", "theano", "mxnet", "cntk", "jax", "chainer", "paddlepaddle",
                           "dynet", "caffe", "@tensorflow/tfjs"})  # fmt: skip
STATED_BEFORE = re.compile(
    r"\b(?:trained|implemented|built|written|developed|done|using|uses|with|in|on|based on)\b"
    r"[^.;]{0,40}$",
    re.I,
)
STATED_AFTER = re.compile(r"\W{0,3}(?:framework|implementation|model|code|version)\b", re.I)
TRAIN_SIGNALS = ("proj.train", "lua.backward", "fw.caffe_pytrain", "caffe.cli_train")
MODEL_SIGNALS = ("model.class", "model.build", "keras.layer_class", "keras.functional")


@dataclass
class Vote:
    """What the checkout says for one framework."""

    credit: float = 0.0
    files: set[str] = field(default_factory=set)
    trains: bool = False
    models: bool = False
    evidence: list[tuple[float, Evidence]] = field(default_factory=list)

    def add(self, weight: float, evidence: Evidence) -> None:
        """Keep evidence ranked by the weight of the file it comes from."""
        self.evidence.append((weight, evidence))


def _file_frameworks(index: CodeIndex, sf: SourceFile) -> dict[str, Evidence]:
    """Frameworks a file uses (by import, or by API where the language has no imports)."""
    found: dict[str, Evidence] = {}
    rule = {"lua": "frameworks.require", "c": "frameworks.include", "cpp": "frameworks.include"}
    for imp in sf.imports:
        fw = module_framework(sf.lang, imp.module)
        if sf.lang == "python" and imp.module.split(".")[0] in HF_LIBRARIES:
            # Hugging Face models and Trainer are PyTorch unless the file uses a port's classes
            ports = [
                f for f, s in (("tensorflow", "fw.hf_tf"), ("jax", "fw.hf_flax")) if sf.count(s)
            ]
            fw = ports[0] if ports else "pytorch"
        if fw and fw not in found:
            line = index.where(sf.path, imp.text)[0] if sf.notebook else imp.line
            found[fw] = Evidence(sf.path, line, imp.text, rule.get(sf.lang, "frameworks.import"))
            if fw == "keras" and imp.module.startswith(("tensorflow", "tensorflow_core")):
                found.setdefault("tensorflow", found[fw])
    if sf.lang == "python" and "tensorflow" in found and "keras" not in found:
        if sf.count("fw.tf_keras") or sf.count("keras.import"):  # tf.keras.layers.Dense(...)
            found["keras"] = _api_evidence(index, sf, ("fw.tf_keras", "keras.import"))
    if sf.lang == "matlab":
        for fw, signal in (("other:matconvnet", "fw.matconvnet"), ("caffe", "fw.caffe"),
                           ("other:matlab-deep-learning", "fw.matlab_dl")):  # fmt: skip
            if sf.count(signal):
                found[fw] = _api_evidence(index, sf, (signal,))
    return found


def _api_evidence(index: CodeIndex, sf: SourceFile, signals: Iterable[str]) -> Evidence:
    for signal in signals:
        hit = sf.hits.get(signal)
        if hit:
            line, text, sample = index.where_code(sf.path, hit.samples)
            return Evidence(sf.path, line, text or sample, "frameworks.api")
    return Evidence(sf.path, 0, "", "frameworks.api")


def _api_count(sf: SourceFile, fw: str) -> int:
    return sum(sf.count(s) for s in API_SIGNALS.get(fw, ()))


def _code_votes(index: CodeIndex, votes: dict[str, Vote], support: bool = False) -> None:
    """Votes of the own code files outside test and doc folders (or, with `support`, inside)."""
    for sf in index.own():
        if not sf.read or sf.support != support:
            continue
        found = _file_frameworks(index, sf)
        trains = any(sf.count(s) for s in TRAIN_SIGNALS)
        for fw, evidence in found.items():
            api = min(_api_count(sf, fw), API_CAP)
            credit = sf.weight * (1 + api / 3)
            if fw == "tensorflow" and "keras" in found and sf.count("fw.tf_low") == 0:
                credit = sf.weight * 0.3  # TF imported only to serve a Keras model
            vote = votes.setdefault(fw, Vote())
            vote.credit += credit
            vote.files.add(sf.path)
            vote.trains |= trains
            vote.models |= api > 0 or any(sf.count(s) for s in MODEL_SIGNALS)
            vote.add(credit, evidence)


def _confirm(index: CodeIndex, votes: dict[str, Vote]) -> None:
    """Add the votes of tests and docs for frameworks the rest of the project already uses:
    a framework imported only by tests (an interoperability test, a reference implementation)
    is not the project's."""
    support: dict[str, Vote] = {}
    _code_votes(index, support, support=True)
    for fw, extra in support.items():
        vote = votes.get(fw)
        if vote is None or vote.credit <= 0:
            continue
        vote.credit += extra.credit
        vote.files |= extra.files
        vote.trains |= extra.trains
        vote.models |= extra.models
        vote.evidence.extend(extra.evidence)


def _artifact_votes(index: CodeIndex, votes: dict[str, Vote]) -> None:
    for prefix in index.framework_copies:
        vote = votes.setdefault("caffe", Vote())
        vote.credit += 1.0
        path = f"{prefix}include/caffe/caffe.hpp"
        vote.add(1.0, Evidence(path, 0, "bundled copy of Caffe", "frameworks.bundled_copy"))
    for art in index.artifacts:
        weight = art.weight or 0.05  # a framework copy's own prototxt still shows the framework
        if art.kind == "prototxt":
            vote = votes.setdefault("caffe", Vote())
            vote.credit += 0.5 * weight
            vote.trains |= art.solver and art.weight > 0
            vote.models |= bool(art.layer_types) and art.weight > 0
            text = ", ".join(sorted(art.layer_types)[:5]) or "solver"
            vote.add(0.5 * weight, Evidence(art.path, 0, text, "frameworks.prototxt"))
        elif art.kind == "darknet_cfg":
            vote = votes.setdefault("darknet", Vote())
            vote.credit += 0.5 * weight
            vote.models = True
            vote.add(0.5 * weight, Evidence(art.path, 0, "[net] [convolutional]", "frameworks.cfg"))
        for signal, fw in (("caffe.cli_train", "caffe"), ("darknet.cli_train", "darknet")):
            hit = art.hits.get(signal)
            if hit and art.weight > 0:
                vote = votes.setdefault(fw, Vote())
                vote.credit += art.weight
                vote.trains = True
                line, text = index.where(art.path, hit.samples[0])
                vote.add(art.weight, Evidence(art.path, line, text, "frameworks.cli_train"))


def _declared_votes(declared: list[Declared], votes: dict[str, Vote]) -> None:
    for d in declared:
        vote = votes.setdefault(d.framework, Vote())
        if not any(e.rule == "frameworks.dependency" for _, e in vote.evidence):
            vote.credit += 0.2
        vote.add(0.1, Evidence(d.path, d.line, d.text, "frameworks.dependency"))


def readme_order(ctx: AuditContext) -> list[tuple[str, Evidence]]:
    """Frameworks in the order the README's prose presents them, then the docs it links to.

    Prose only: a framework named in a link target or a code block is not presented.
    """
    rank = {path: n for n, path in enumerate(ctx.tree.docs)}
    first: dict[str, tuple[tuple[int, int, int], Evidence]] = {}
    for n, block in enumerate(ctx.docs.prose()):
        for pattern, fw in README_NAMES:
            m = re.search(pattern, block.text, re.I)
            if m:
                key = (rank.get(block.path, len(rank)), n, m.start())
                if fw not in first or key < first[fw][0]:
                    line = block.line + block.text.count("\n", 0, m.start())
                    evidence = Evidence(
                        block.path, line, block.text[:200], "frameworks.readme_first"
                    )
                    first[fw] = (key, evidence)
    return [(fw, item[1]) for fw, item in sorted(first.items(), key=lambda kv: kv[1][0])]


def _quoted(text: str, pos: int) -> bool:
    """True when `pos` lies inside double quotes ("..." or “...”) in `text`."""
    head = text[:pos]
    return head.count('"') % 2 == 1 or head.count("\u201c") > head.count("\u201d")


def _listed(text: str, pos: int) -> bool:
    """True when the sentence around `pos` names three or more frameworks: an enumeration."""
    start = max(text.rfind(". ", 0, pos), text.rfind("\n\n", 0, pos)) + 1
    end = min((i for i in (text.find(". ", pos), text.find("\n\n", pos)) if i >= 0),
              default=len(text))  # fmt: skip
    sentence = text[start:end]
    return sum(1 for pattern, _ in README_NAMES if re.search(pattern, sentence, re.I)) >= 3


def readme_statement(ctx: AuditContext) -> tuple[str, Evidence] | None:
    """The framework the README says the model was trained or implemented with, if any."""
    readme = ctx.tree.readme
    for block in ctx.docs.prose():
        if block.path != readme:
            continue
        for pattern, fw in README_NAMES:
            # A quoted phrase ("implemented in PyTorch") is an example, not a statement.
            # A list of several frameworks ("for PyTorch, TensorFlow, Keras and JAX") neither.
            name = next(
                (m for m in re.finditer(pattern, block.text, re.I)
                 if not _quoted(block.text, m.start()) and not _listed(block.text, m.start())),
                None,
            )  # fmt: skip
            if not name:
                continue
            before = block.text[max(0, name.start() - 60) : name.start()]
            after = block.text[name.end() : name.end() + 25]
            if STATED_BEFORE.search(before) or STATED_AFTER.match(after):
                line = block.line + block.text.count("\n", 0, name.start())
                return fw, Evidence(
                    block.path, line, block.text[:200], "frameworks.readme_statement"
                )
    return None


def _primary(ctx: AuditContext, votes: dict[str, Vote]) -> tuple[str, str]:
    """The primary framework and the rule that chose it."""
    nn = {fw: v for fw, v in votes.items() if fw not in RUNTIME_ONLY and v.credit > 0}
    if not nn:
        nn = {fw: v for fw, v in votes.items() if v.credit > 0}
    if not nn:
        return "none", ""
    ranked = sorted(nn, key=lambda fw: -nn[fw].credit)
    top = ranked[0]
    full = [fw for fw in ranked if nn[fw].trains and nn[fw].models
            and nn[fw].credit >= 0.3 * nn[top].credit]  # fmt: skip
    separate = [fw for fw in full if fw == full[0] or _disjoint(nn[full[0]], nn[fw])]
    if len(separate) >= 2:
        named = [(fw, e) for fw, e in readme_order(ctx) if fw in separate]
        if named:
            nn[named[0][0]].add(99.0, named[0][1])  # the README's words lead the evidence
            return named[0][0], "frameworks.readme_first"
    return top, "frameworks.model_code"


def _disjoint(a: Vote, b: Vote) -> bool:
    if not a.files or not b.files:
        return False
    shared = len(a.files & b.files)
    return shared <= 0.2 * min(len(a.files), len(b.files))


def _versions(declared: list[Declared], frameworks: set[str]) -> dict[str, dict[str, str]]:
    out: dict[str, dict[str, str]] = {}
    ranked = sorted(declared, key=lambda d: (d.package.lower() not in CORE_PACKAGES,
                                             d.path.count("/"), d.path, d.line))  # fmt: skip
    for d in ranked:
        if d.spec and d.framework in frameworks and d.framework not in out:
            out[d.framework] = {"spec": d.spec, "source": f"{d.path}:{d.line}"}
    return out


def _top_evidence(vote: Vote, n: int = 3) -> tuple[Evidence, ...]:
    ranked = sorted(vote.evidence, key=lambda item: -item[0])
    seen: list[Evidence] = []
    for _, e in ranked:
        if all(e.path != s.path for s in seen):
            seen.append(e)
        if len(seen) >= n:
            break
    return tuple(seen)


def detect_frameworks(ctx: AuditContext, labels: Mapping[str, Label]) -> Iterable[Label]:
    """frameworks, primary_framework and paper_framework (with the Keras backend rule)."""
    index = code_index(ctx)
    votes: dict[str, Vote] = {}
    _code_votes(index, votes)
    _artifact_votes(index, votes)
    declared = declared_frameworks(ctx.tree, ctx.warnings)
    _declared_votes(declared, votes)
    _confirm(index, votes)
    stated = None if votes else readme_statement(ctx)
    if stated:  # no code, model file or manifest names a framework: the README's word
        votes[stated[0]] = Vote(0.1, evidence=[(0.1, stated[1])])
    frameworks = {fw for fw, v in votes.items() if v.credit > 0}
    primary, rule = _primary(ctx, votes)
    if stated:
        rule = "frameworks.readme_statement"
    ctx.details["framework_versions"] = _versions(declared, frameworks)
    ranked = sorted(votes.items(), key=lambda kv: -kv[1].credit)
    ctx.details["framework_scores"] = {fw: round(v.credit, 2) for fw, v in ranked}
    fw_evidence = tuple(e for fw in sorted(frameworks) for e in _top_evidence(votes[fw], 2))
    yield Label("frameworks", frozenset(frameworks), fw_evidence)
    primary_evidence: tuple[Evidence, ...] = ()
    if primary != "none":
        primary_evidence = tuple(
            Evidence(e.path, e.line, e.text, rule) for e in _top_evidence(votes[primary])
        )
    yield Label("primary_framework", primary, primary_evidence)
    backend, backend_evidence = keras_backend(ctx, index, primary, votes.keys())
    if primary == "keras":
        ctx.details["keras_backend"] = backend
    evidence = primary_evidence + (backend_evidence if primary == "keras" else ())
    yield Label("paper_framework", paper_framework(primary, backend), evidence)
