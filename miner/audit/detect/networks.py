"""Network-type detector: the building blocks of the main model, and the derived paper network.

Each own code file adds its layer signals (convolutions, recurrent cells, attention, graph layers,
dense layers) weighted by its role, so model-defining and training code speaks loudest and
vendored or example code not at all; Caffe prototxt layer types, Darknet cfg sections and Lua
Torch modules count the same way. The README's own description of the model ("a convolutional
neural network", "an LSTM") adds to the code's votes. A type is kept when it carries a fair share
of the strongest type's weight: a CNN with a dense classifier head is `cnn` alone, and `mlp` is
kept only when dense layers are the model. Adversarial training (generator, discriminator and
their losses) adds `gan`; agents with replay buffers, Q-networks or policy gradients add `drl`.
Code in test and documentation folders only confirms a type the project's own code shows, and
comments, docstrings and string literals are never read as layers (miner.audit.detect.code_views).
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Mapping

from miner.audit.detect import AuditContext
from miner.audit.detect.network_docs import doc_votes
from miner.audit.detect.sources import CodeIndex, SourceFile, code_index
from miner.codebook import Evidence, paper_network
from miner.models import Label

CAP = 12  # occurrences per file and type that count; a long file is not a louder vote
KEEP_SHARE = 0.25  # a layer type is kept at this share of the strongest layer type
MLP_SHARE = 0.2  # dense layers are the model only when nothing else is near
UNNAMED_SHARE = 0.5  # ... or at this share when the README names other layer types only
GAN_SHARE = 0.25
GAN_FILE_VOTE = 3.0  # adversarial training of the main model, not of an optional extra
DRL_SHARE = 0.1
LAYER_TYPES = ("cnn", "rnn", "transformer", "gnn")
FILE_SIGNALS = {
    "cnn": ("net.conv", "net.backbone"),
    "rnn": ("net.rnn",),
    "transformer": ("net.attention", "net.hf_transformer", "net.tf_backbone"),
    "gnn": ("net.graph",),
    "mlp": ("net.dense",),
}
PROTO_TYPES = {
    "cnn": ("Convolution", "Deconvolution", "CONVOLUTION", "DepthwiseConvolution",
            "ConvolutionDepthwise"),
    "rnn": ("LSTM", "RNN", "GRU", "LSTMUnit"),
    "mlp": ("InnerProduct", "INNER_PRODUCT"),
}  # fmt: skip
Scores = defaultdict[str, float]
EvidenceMap = dict[str, list[tuple[float, Evidence]]]
DARKNET_TYPES = {"cnn": ("convolutional",), "rnn": ("rnn", "lstm", "gru"), "mlp": ("connected",)}


def _code_scores(index: CodeIndex) -> tuple[Scores, EvidenceMap]:
    own: Scores = defaultdict(float)
    own_evidence: EvidenceMap = {}
    support: Scores = defaultdict(float)  # tests and docs: they confirm types, never add one
    support_evidence: EvidenceMap = {}
    for sf in index.own():
        if not sf.read:
            continue
        scores, evidence = (support, support_evidence) if sf.support else (own, own_evidence)
        graph = sf.count("net.graph") > 0
        for kind, signals in FILE_SIGNALS.items():
            n = min(sum(sf.count(s) for s in signals), CAP)
            shown = signals
            # `self.conv1` is a graph convolution in a GNN, `conv` a conversation in a chat model
            if kind == "cnn" and not graph and not sf.count("net.conversation"):
                n = min(n + sf.count("net.conv_name"), CAP)
                shown = (*signals, "net.conv_name")
            elif kind == "transformer" and sf.count("net.tf_companion"):
                # hand-written attention inside blocks with layer norms and feed-forward MLPs
                n = min(n + sf.count("net.attn_block"), CAP)
                shown = (*signals, "net.attn_block")
            if n:
                vote = sf.weight * n
                scores[kind] += vote
                evidence.setdefault(kind, []).append((vote, _evidence(index, sf, shown, kind)))
        _adversarial(index, sf, scores, evidence)
        _agent(index, sf, scores, evidence)
        _mlp_model(index, sf, scores, evidence)
    scores, evidence = own, own_evidence
    for art in index.artifacts:
        table = PROTO_TYPES if art.kind == "prototxt" else DARKNET_TYPES
        if art.kind not in ("prototxt", "darknet_cfg") or art.weight == 0:
            continue
        for kind, names in table.items():
            n = min(sum(art.layer_types[name] for name in names), CAP)
            if n:
                vote = art.weight * n
                scores[kind] += vote
                text = ", ".join(f"{t} x{art.layer_types[t]}" for t in names if art.layer_types[t])
                evidence.setdefault(kind, []).append(
                    (vote, Evidence(art.path, 0, text, f"networks.{art.kind}_layers"))
                )
    for kind, vote in support.items():
        if scores.get(kind, 0.0) > 0:
            scores[kind] += vote
            evidence.setdefault(kind, []).extend(support_evidence.get(kind, []))
    return scores, evidence


def _evidence(index: CodeIndex, sf: SourceFile, signals: Iterable[str], kind: str) -> Evidence:
    for signal in signals:
        hit = sf.hits.get(signal)
        if hit:
            line, text, sample = index.where_code(sf.path, hit.samples)
            return Evidence(sf.path, line, text or sample, f"networks.{kind}_layer")
    return Evidence(sf.path, 0, "", f"networks.{kind}_layer")


LOSS_NAME = re.compile(r"^(?:d_loss|D_loss|loss_D|loss_d|disc_loss|errD)\(?$")


def _adversarial(index: CodeIndex, sf: SourceFile, scores: Scores, evidence: EvidenceMap) -> None:
    """Generator and discriminator trained against each other in one file: an adversarial loss
    between the two networks, a loss or optimizer of each, or a discriminator's own loss or
    optimizer in a file that trains (an encoder trained against a latent discriminator). Two
    networks named generator and discriminator without those (a replaced-token detector and its
    masked-LM generator) are not adversarial."""
    disc, gen, d_step = (
        sf.count("net.discriminator"),
        sf.count("net.generator"),
        sf.count("net.d_step"),
    )
    # a discriminator known only by a loss's name (`loss_d = self.loss(results, batch)`, a dict
    # of losses) is no network: the one-sided case needs the network named
    named = disc and any(not LOSS_NAME.match(x) for x in sf.hits["net.discriminator"].samples)
    steps = d_step and (sf.count("net.g_step") or (named and sf.count("proj.train")))
    if steps or (disc and gen and sf.count("net.adversarial")):
        # one vote per file: names of the two networks recur far more than layer calls do
        vote = sf.weight * GAN_FILE_VOTE
        scores["gan"] += vote
        evidence.setdefault("gan", []).append(
            (vote, _evidence(index, sf, ("net.d_step", "net.discriminator"), "gan"))
        )


def _agent(index: CodeIndex, sf: SourceFile, scores: Scores, evidence: EvidenceMap) -> None:
    """A deep RL agent: several distinct RL notions (replay buffer, Q-network, gym, policy ...)."""
    hit = sf.hits.get("net.rl")
    kinds = len(set(hit.samples)) if hit else 0
    if hit and (kinds >= 2 or "rl.gym" in sf.hits):
        vote = sf.weight * min(hit.count, CAP)
        scores["drl"] += vote
        evidence.setdefault("drl", []).append((vote, _evidence(index, sf, ("net.rl",), "drl")))


def _mlp_model(index: CodeIndex, sf: SourceFile, scores: Scores, evidence: EvidenceMap) -> None:
    """A file that builds and trains a model of dense layers only: a stand-alone MLP."""
    if sf.role in ("test", "doc", "example") or sf.count("net.dense") < 2:
        return
    if any(sf.count(s) for s in ("net.conv", "net.backbone", "net.rnn", "net.attention",
                                 "net.graph")):  # fmt: skip
        return
    builds = any(sf.count(s) for s in ("model.class", "model.build", "fw.keras_model",
                                       "keras.functional"))  # fmt: skip
    if builds and (sf.count("proj.train") or sf.count("proj.optimizer")):
        scores["mlp_model"] += sf.weight
        evidence.setdefault("mlp", []).append(
            (sf.weight * 10, _evidence(index, sf, ("net.dense",), "mlp_model"))
        )


def decide(
    code: Mapping[str, float], docs: Mapping[str, float], intro: Mapping[str, float]
) -> set[str]:
    """The main model's building blocks from code scores and README votes.

    README votes strengthen layer types the code shows (or stand alone when the code shows no
    layers at all); adversarial training needs code; an RL agent may be named by the README's
    introduction alone, as its networks are often plain layers trained on rewards.
    """
    scores: Scores = defaultdict(float, code)
    docs = defaultdict(float, docs)
    combined: Scores = defaultdict(float, code)
    code_top = max([scores[k] for k in LAYER_TYPES] + [scores["mlp"], 0.0])
    scale = max(code_top, 1.0)
    for kind, share in docs.items():
        if kind in LAYER_TYPES or kind == "mlp":
            if scores[kind] > 0 or code_top == 0:
                combined[kind] += share * scale
        elif kind == "drl" and scores[kind] > 0:
            combined[kind] += share * scale
    layer_top = max([combined[k] for k in LAYER_TYPES] + [0.0])
    # When the README describes the model's layers, a type it does not name needs more code.
    described = any(docs[k] for k in LAYER_TYPES)
    types = {
        k for k in LAYER_TYPES
        if combined[k] > 0
        and combined[k] >= (UNNAMED_SHARE if described and not docs[k] else KEEP_SHARE) * layer_top
    }  # fmt: skip
    if combined["mlp"] > 0 and (not types or layer_top < MLP_SHARE * combined["mlp"]):
        types.add("mlp")
    if scores["mlp_model"] > 0:
        types.add("mlp")
    # The README naming adversarial training lowers the share the code needs (to none in its
    # introduction).
    gan_share = 0.0 if intro.get("gan") else GAN_SHARE * (0.5 if docs["gan"] else 1.0)
    if scores["gan"] > 0 and scores["gan"] >= gan_share * max(layer_top, 1.0):
        types.add("gan")
    if combined["drl"] >= DRL_SHARE * max(layer_top, combined["mlp"], 1.0) or intro.get("drl"):
        types.add("drl")
    return types


def detect_networks(ctx: AuditContext, labels: Mapping[str, Label]) -> Iterable[Label]:
    """network_types and paper_network, with the evidence of each type."""
    index = code_index(ctx)
    scores, evidence = _code_scores(index)
    docs, intro, doc_evidence = doc_votes(ctx)
    types = decide(scores, docs, intro)
    by_score = sorted(scores.items(), key=lambda kv: -kv[1])
    ctx.details["network_scores"] = {k: round(v, 1) for k, v in by_score if v}
    ctx.details["network_doc_votes"] = dict(docs)
    chosen: list[Evidence] = []
    for kind in sorted(types):
        ranked = sorted(evidence.get(kind, []), key=lambda item: -item[0])
        chosen.extend(e for _, e in ranked[:2])
        chosen.extend(doc_evidence.get(kind, [])[:1])
    value = frozenset(types) if types else frozenset()
    yield Label("network_types", value, tuple(chosen))
    yield Label("paper_network", paper_network(value), tuple(chosen[:4]))
