"""What the README says the model is: "a convolutional neural network", "an LSTM", "a GAN" ...

The title and the opening paragraphs describe the project's own model and count most; the rest
of the README counts less, and sections about other work (related work, citations, references,
acknowledgements) not at all.
"""

from __future__ import annotations

import re
from collections import defaultdict

from miner.audit.detect import AuditContext
from miner.codebook import Evidence

DOC_PATTERNS: dict[str, re.Pattern[str]] = {
    "cnn": re.compile(
        r"\bconvolutional\b|\bCNNs?\b|\bConvNets?\b|\bconv\s*nets?\b|\bFCNs?\b|\bU-?Net\b|"
        r"\bResNets?\b|\bVGG-?\d*\b|\bMobileNets?\b|\bDenseNets?\b|\bInception\b|\bYOLO\b", re.I),
    "rnn": re.compile(
        r"\brecurrent\b|\bRNNs?\b|\bLSTMs?\b|\bGRUs?\b|\bBiLSTM\b|\bseq2seq\b|"
        r"\bsequence[- ]to[- ]sequence\b", re.I),
    "transformer": re.compile(
        r"\b[Tt]ransformers?\b|\b[Ss]elf-[Aa]ttention\b|\b[Mm]ulti-[Hh]ead(?:ed)? [Aa]ttention\b|"
        r"\bBERT\b|\bGPT-?\d?\b|\bViT\b"),
    "gnn": re.compile(
        r"\bgraph (?:neural|convolutional|attention|convolution) networks?\b|\bGNNs?\b|\bGCNs?\b|"
        r"\bGATs?\b|\bgated graph\b|\bgraph convolutions?\b|\bmessage passing\b", re.I),
    "gan": re.compile(
        r"\bgenerative adversarial\b|\b\w*GANs?\b|\bpix2pix\b|"
        r"\badversarial (?:training|loss|network)"),
    "drl": re.compile(
        r"\breinforcement learning\b|\bDQN\b|\bQ-learning\b|\bpolicy gradients?\b|"
        r"\bactor-critic\b|\bA3C\b|\bPPO\b|\bDDPG\b|\bdeep RL\b", re.I),
    "mlp": re.compile(
        r"\bmulti-?layer perceptrons?\b|\bMLPs?\b|\bfeed-?forward (?:neural )?networks?\b|"
        r"\bfully[- ]connected (?:neural )?networks?\b", re.I),
}  # fmt: skip
OTHER_WORK = re.compile(
    r"related|citation|cite|reference|acknowledg|thanks|credit|other implementation|see also|"
    r"license|contact|faq|news|changelog|todo|future",
    re.I,
)
# A type named only to compare ("outperforms CNNs", "unlike GANs", "shown to surpass GANs") or
# as the approach others took is not the model.
COMPARED = re.compile(
    r"\b(?:than|unlike|beats?|outperform\w*|compared (?:to|with)|vs\.?|versus|instead of|"
    r"rather than|without|replac\w*|superior to|competitive with|surpass\w*|exceed\w*|"
    # the approaches others took: "many attempts using GANs", "previous methods based on RNNs"
    r"attempts? (?:using|with|based on)|(?:previous|prior|earlier|existing|conventional|"
    r"traditional) (?:works?|methods?|approaches?)(?: (?:using|with|based on))?)\b[^.;:]{0,40}$",
    re.I,
)
# "4 GPUs for generators and 4 for discriminators": the README describes adversarial training
# wherever it says so; with adversarial code this is the model's, as an introduction's "GAN" is.
GAN_PAIR = re.compile(
    r"\bgenerators?\b[^.;]{0,80}\bdiscriminators?\b|\bdiscriminators?\b[^.;]{0,80}\bgenerators?\b",
    re.I,
)
INTRO_BLOCKS = 4  # title and the first paragraphs: the project's own description
INTRO_WORDS = 6  # shorter blocks (a venue line, an image's alt text) are not a paragraph
INTRO_SHARE = 0.5
BODY_SHARE = 0.2


def doc_votes(
    ctx: AuditContext,
) -> tuple[dict[str, float], dict[str, float], dict[str, list[Evidence]]]:
    """Per network type: the README's vote (0.5 in its introduction, 0.2 below), the types its
    introduction names, and where."""
    votes: dict[str, float] = defaultdict(float)
    intro: dict[str, float] = defaultdict(float)
    evidence: dict[str, list[Evidence]] = {}
    readme = ctx.tree.readme
    if not readme:
        return votes, intro, evidence
    prose = [b for b in ctx.docs.blocks if b.path == readme and b.kind != "code"]
    n = 0  # blocks read so far that say something: badges, venue lines and images do not
    for block in prose:
        if block.any_heading(OTHER_WORK):
            continue
        in_intro = n < INTRO_BLOCKS
        share = INTRO_SHARE if in_intro else BODY_SHARE
        if n == 0 or len(block.text.split()) >= INTRO_WORDS:
            n += 1
        if not intro.get("gan") and (pair := GAN_PAIR.search(block.text)):
            intro["gan"] = 1
            votes["gan"] = max(votes["gan"], share)
            line = block.line + block.text.count("\n", 0, pair.start())
            evidence.setdefault("gan", []).append(
                Evidence(block.path, line, block.text[:200], "networks.readme_gan_pair")
            )
        for kind, pattern in DOC_PATTERNS.items():
            if votes[kind] >= share:
                continue
            m = next(
                (m for m in pattern.finditer(block.text)
                 if not COMPARED.search(block.text, max(0, m.start() - 60), m.start())),
                None,
            )  # fmt: skip
            if not m:
                continue
            votes[kind] = max(votes[kind], share)
            if in_intro:
                intro[kind] = 1
            rule = "networks.readme_intro" if in_intro else "networks.readme"
            line = block.line + block.text.count("\n", 0, m.start())
            evidence.setdefault(kind, []).append(Evidence(block.path, line, block.text[:200], rule))
    return votes, intro, evidence
