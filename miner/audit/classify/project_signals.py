"""Evidence about what a project does: trains a model, ships or fetches its data, its domain.

Helpers of the project classifier (miner.audit.classify.exclusions); each returns the evidence
found, an empty list when there is none.
"""

from __future__ import annotations

import functools
import re
from collections import defaultdict
from collections.abc import Callable

from miner.audit.detect import AuditContext
from miner.audit.detect.enclosing import (
    builds_by_name,
    class_named,
    decorated,
    enclosing_class,
)
from miner.audit.detect.framework_map import module_framework
from miner.audit.detect.sources import CodeIndex, SourceFile
from miner.audit.ownership import in_borrowed
from miner.codebook import Evidence

TRAINING_SIGNALS = ("proj.train", "lua.backward", "fw.caffe_pytrain", "caffe.cli_train",
                    "theano.updates")  # fmt: skip
FIT_ONLY = re.compile(r"\.fit\($")
# `.fit(` of a classical estimator (a grid search, a scaler) in a file that also uses a network.
CLASSICAL_FIT = re.compile(
    r"(?:^|\.)(?:grid\w*|clf|svm|svc|svr|regr?\w*|knn|pca|kmeans|scaler|estimator|pipe(?:line)?|"
    r"rf|forest|logreg|lr|xgb\w*|gbm|tsne|umap|lda|nmf)\.fit\($",
    re.I,
)
# `optim.Adam([z], lr=...)`: an optimizer over named tensors, not over `model.parameters()`.
# An optimizer built over one input tensor (`optim.LBFGS([input_img])`), gradients applied to
# one variable (`optimizer.apply_gradients([(grad, image)])`), or Keras' gradient of a loss
# with respect to one tensor handed to SciPy's L-BFGS (the neural-style recipe).
INPUT_OPTIMIZER = re.compile(
    r"\boptim\.\w+\(\s*\[\s*\w+\s*\]"
    r"|\.apply_gradients\(\s*\[\s*\(\s*\w+\s*,\s*\w+\s*\)\s*\]\s*\)"
    # Chainer: the image wrapped as a parameter link, which the optimizer is set up on
    # (`img_gen = chainer.links.Parameter(img_gen)`, then `optimizer.setup(img_gen)`)
    r"|\blinks\.Parameter\(\s*\w*(?:img|image|input|canvas)\w*\s*\)"
    r"|\boptimizer\.setup\(\s*\(?\s*\w*(?:img|image|canvas)\w*\s*[,)]"
)
KERAS_INPUT_GRADIENT = re.compile(r"\bK\.gradients\(\s*\w+\s*,\s*\w+\s*\)")
# TensorFlow 1: the one variable of a file is an image, which `.minimize(loss)` then updates.
# `net['input'] = tf.Variable(...)`: the network's input is the variable (neural style).
IMAGE_VARIABLE = re.compile(
    r"(?im)^\s*[\w\[\]'\"]*?(?:image|img|canvas|pastiche|input)[\w\]'\"]*\s*=\s*tf\.Variable\("
)
# A model's weights in sight: then the file trains the model, whatever else it optimises.
MODEL_WEIGHTS = re.compile(
    r"\.parameters\(|\btrainable_(?:variables|weights)\b|\bget_variable\(|\btf\.layers\.|"
    r"\bslim\.|\.fit(?:_generator)?\(|\btrain_on_batch\(|\bvar_list\s*="
)
# Each loop pattern behind a literal that must occur first: a substring test is far cheaper
# than a regular expression over every file of a project without optimizer steps.
TRAINING_LOOPS = (
    ("grad", re.compile(
        r"\bjax\.(?:value_and_grad|grad)\(|\boptax\.apply_updates\(|\.apply_gradients\(|"
        r"\b(?:opt|optimizer|tx)\.update\(\s*grads\b"
    )),
    ("loss_scaler(", re.compile(r"\bloss_scaler\(\s*loss\b")),
    ("train_", re.compile(
        r"(?<!def )\btrain_(?:segmentor|detector|recognizer|localizer|classifier|model)\("
        r"\s*\n?\s*model\b"
    )),
    ("runner.", re.compile(r"\brunner\.(?:run|train)\(")),
    ("trainer.", re.compile(r"\btrainer\.(?:run|train|fit)\(")),
    ("engine.", re.compile(r"\bengine\.(?:run|train|fit)\(")),
)  # fmt: skip
CLASSICAL = ("sklearn", "xgboost", "lightgbm", "statsmodels", "catboost")
TRAIN_FILE = re.compile(r"(?:^|/)[^/]*train[^/]*\.(?:py|lua|m|sh|ipynb)$", re.I)
DOMAIN_WORDS: dict[str, tuple[str, ...]] = {
    "medical": ("medical", "mri", "mr image", "ct scan", "x-ray", "xray", "chest", "clinical",
                "patient", "histopatholog", "patholog", "radiolog", "tumor", "tumour", "lesion",
                "retina", "microscopy", "whole slide", "biomedical", "disease", "molecule", "drug",
                "protein", "covid", "coronavirus", "ecg", "eeg", "brain"),
    "rl": ("reinforcement learning", "q-learning", "dqn", "policy gradient", "actor-critic",
           "agent", "reward"),
    "graph": ("graph", "node classification", "link prediction", "knowledge graph"),
    "speech": ("speech", "audio", "voice", "speaker", "text-to-speech", "tts", "asr", "sound",
               "music", "acoustic", "vocoder", "spectrogram", "guitar"),
    "nlp": ("text", "sentence", "language", "nlp", "word", "sentiment", "translation",
            "summarization", "tokeniz", "named entity", "question answering", "chatbot",
            "headline", "corpus", "lyrics", "spoken language", "intent", "slot filling"),
    "recsys": ("recommend", "ctr", "click-through", "collaborative filtering"),
    "generative": ("generative", "gan", "generate", "generation", "synthesis", "composition"),
    "vision": ("image", "video", "vision", "visual", "segmentation", "face", "pose",
               "optical flow", "stereo", "camera", "pixel", "3d shape", "point cloud", "captcha",
               "handwriting", "ocr", "object", "landmark", "super-resolution", "super resolution",
               "satellite", "aerial", "driving", "facial", "object detection", "scene text",
               "ocr"),
}  # fmt: skip
# Phrases whose words would vote for the wrong domain ("text" in text-to-speech).
DOMAIN_PHRASES = (
    (re.compile(r"\btext[- ]to[- ]speech\b", re.I), "speech synthesis"),
    (
        re.compile(
            r"\b(?:scene text|text (?:spott\w*|recognition|detection)|spotting text)\b", re.I
        ),
        "ocr",
    ),
)
DOMAIN_PATTERNS = {
    domain: re.compile(r"\b(?:" + "|".join(re.escape(w) for w in words) + ")", re.I)
    for domain, words in DOMAIN_WORDS.items()
}
DOMAIN_IMPORTS: dict[str, str] = {
    "torchvision": "vision", "cv2": "vision", "PIL": "vision", "skimage": "vision",
    "imageio": "vision", "nltk": "nlp", "spacy": "nlp", "gensim": "nlp", "torchtext": "nlp",
    "transformers": "nlp", "librosa": "speech", "torchaudio": "speech", "soundfile": "speech",
    "pydub": "speech", "torch_geometric": "graph", "dgl": "graph", "networkx": "graph",
    "gym": "rl", "nibabel": "medical", "pydicom": "medical", "SimpleITK": "medical",
    "openslide": "medical", "rdkit": "medical",
}  # fmt: skip


def uses_nn(sf: SourceFile) -> bool:
    """True when a file imports a neural-network framework (or is Lua Torch / MATLAB DL code)."""
    if any(module_framework(sf.lang, imp.module) for imp in sf.imports):
        return True
    return any(sf.count(s) for s in ("fw.torch7", "fw.matconvnet", "fw.matlab_dl", "fw.caffe"))


def training_evidence(index: CodeIndex, dl: bool) -> list[Evidence]:
    """Where the project trains a model: optimizer steps, fit calls, solvers, train scripts.

    Files using a neural-network framework count; in a deep-learning project so do the others
    (a training script importing its model from the project), except `.fit(` calls of classical
    learners (scikit-learn and the like) and files that optimise an input (an image, a latent)
    rather than a model's parameters. Scripts named like tests that train (`copymem_test.py`)
    count unless they are unit tests. A training loop in a folder the documentation says was
    copied from another repository trains that repository's model.
    """
    found: list[tuple[float, Evidence]] = []

    @functools.cache
    def runs_a_trainer() -> bool:
        return any(TRAINER_CALL.search(index.text(sf)) for sf in index.own() if sf.read)

    @functools.cache
    def fits_a_model() -> bool:
        return any(KERAS_FIT.search(index.text(sf)) for sf in index.own() if sf.read)

    @functools.cache
    def built(owner: str) -> bool:
        return _class_built(index, owner)

    for sf in index.own():
        if not sf.read or sf.role == "doc" or (sf.role == "test" and _unit_test(sf)):
            continue
        if in_borrowed(index.tree, sf.path) or MEASURES_OR_CONVERTS.search(_stem(sf.path)):
            continue
        nn = uses_nn(sf)
        if not nn and not dl:
            continue
        for signal in TRAINING_SIGNALS:
            hit = sf.hits.get(signal)
            if not hit:
                continue
            if signal == "theano.updates" and not sf.imports_module("theano", "lasagne"):
                continue
            classical = sf.imports_module(*CLASSICAL)
            samples = [
                s for s in hit.samples
                if not (FIT_ONLY.search(s) and (not nn or (classical and CLASSICAL_FIT.search(s))))
            ]  # fmt: skip
            if not samples and classical:
                continue
            if signal == "proj.train" and _only_plumbing(
                index.text(sf), samples or hit.samples, runs_a_trainer
            ):
                continue
            if _optimises_inputs(index.text(sf)):
                break
            line, text, _ = index.where_code(sf.path, samples or hit.samples)
            if _in_unbuilt_class(index, sf, line, built):  # a copied trainer: another place?
                places = (index.where_code(sf.path, [s]) for s in samples or hit.samples)
                kept = [p for p in places if not _in_unbuilt_class(index, sf, p[0], built)]
                if not kept:
                    break
                line, text, _ = kept[0]
            found.append((sf.weight, Evidence(sf.path, line, text, "training_code.code")))
            break
        else:
            # An optimizer built in network code trains something, even when the update call
            # is out of sight (`Adam(lr).\` continued on the next line, a pipeline's fit).
            hit = sf.hits.get("proj.optimizer")
            if hit and TRAINING_HOOK.search(index.text(sf)) and not runs_a_trainer():
                continue  # `configure_optimizers` of a Lightning module no trainer runs
            if hit and KERAS_COMPILE.search(index.text(sf)) and not fits_a_model():
                continue  # Keras compiles a model with an optimizer to predict with it too
            if hit and nn and not _optimises_inputs(index.text(sf)):
                line, text, _ = index.where_code(sf.path, hit.samples)
                if text.lstrip().startswith("class "):
                    continue  # an optimizer defined for others (`class Adam(optimizers.Adam):`)
                found.append((sf.weight, Evidence(sf.path, line, text, "training_code.optimizer")))
    for art in index.artifacts:
        if art.weight == 0:
            continue
        for signal in ("caffe.cli_train", "darknet.cli_train"):
            hit = art.hits.get(signal)
            if hit:
                line, text, _ = index.where_code(art.path, hit.samples)
                found.append((art.weight, Evidence(art.path, line, text, "training_code.script")))
        if art.kind == "prototxt" and art.solver:
            solver = Evidence(art.path, 0, "Caffe solver definition", "training_code.solver")
            found.append((0.5 * art.weight, solver))
    if not found:
        found = _training_loops(index, dl)
    found.sort(key=lambda item: -item[0])
    return [e for _, e in found]


# A script that times the passes (`i3d_pt_profiling.py`) or converts weights between frameworks
# (`i3d_tf_to_pt.py`, checking its gradients): a backward pass there trains nothing.
MEASURES_OR_CONVERTS = re.compile(
    r"profil|timing|speed_?test|convert|(?:^|_)(?:tf|pt|torch|caffe|keras|onnx|mx)_?(?:2|to)_?"
    r"(?:tf|pt|torch|pytorch|caffe|keras|onnx|tensorflow)(?:$|_)",
    re.I,
)


def _stem(path: str) -> str:
    name = path.rsplit("/", 1)[-1]
    return name.rsplit(".", 1)[0]


def _in_unbuilt_class(
    index: CodeIndex, sf: SourceFile, line: int, built: Callable[[str], bool]
) -> bool:
    """True when line `line` of `sf` lies in a method of a class that is neither decorated nor
    `built` (named by the project's own code or configs, or found by name at run time)."""
    lines = index.text(sf).splitlines()
    owner = enclosing_class(lines, line)
    return owner is not None and not decorated(lines, owner) and not built(owner)


def _class_built(index: CodeIndex, owner: str) -> bool:
    """True when the project's own code finds classes by name at run time, or its code or
    configs name the class `owner` outside its definition."""
    texts = [row for own in index.own() if own.read for row in index.text(own).splitlines()]
    if builds_by_name(texts):
        return True
    configs = (index.tree.read_text(f.path) or "" for f in index.tree.with_suffix(*CONFIGS))
    return class_named(owner, texts, "\n".join(configs))


CONFIGS = (".yaml", ".yml", ".json", ".cfg", ".sh")  # a Hydra `_target_` names a class there


# Gradients routed by hand (`torch.autograd.backward(res, grads)` in a custom autograd
# function or a checkpointing helper): the caller's loss is elsewhere, if anywhere.
ROUTED_GRADIENTS = re.compile(r"\bautograd\.backward\(\s*[\w.]+\s*,")
# A Lightning module's training hook, defined (or one hook calling another): it trains only
# where a trainer runs it.
TRAINING_HOOK = re.compile(r"(?:\bdef\s+|\bself\.)_?training_step\(")
TRAINER_CALL = re.compile(r"\bTrainer\(|\.fit\(")
# A Keras model compiled with its optimizer (`model.compile(optimizer=Adam(lr), ...)`), which
# trains only where some file fits it: a script that compiles, loads weights and predicts
# trains nothing.
KERAS_COMPILE = re.compile(r"\.compile\(\s*(?:optimizer\s*=|loss\s*=|['\"]\w+['\"]\s*,)")
# (or hands it to an Estimator that trains: `model_to_estimator(...).train(input_fn=...)`).
KERAS_FIT = re.compile(
    r"\.fit(?:_generator)?\(|\btrain_on_batch\(|\bGradientTape\(|\.train\(\s*input_fn\b"
)


def _only_plumbing(text: str, samples: list[str], runs_a_trainer: Callable[[], bool]) -> bool:
    """True when every line of `text` holding a training signal's `samples` trains nothing by
    itself: gradients routed by hand, or a `training_step` hook defined where no code of the
    project runs a trainer."""
    lines = [ln for ln in text.splitlines() if any(s in ln for s in samples)]
    if not lines:
        return False
    for line in lines:
        if ROUTED_GRADIENTS.search(line):
            continue
        if TRAINING_HOOK.search(line) and not runs_a_trainer():
            continue
        return False
    return True


def _unit_test(sf: SourceFile) -> bool:
    return sf.support or bool(sf.imports_module("unittest", "pytest"))


def _optimises_inputs(text: str) -> bool:
    """True when a file optimises an image or a latent code, not a network: its optimizers are
    built over (or apply gradients to) one tensor, and no model's weights are in sight."""
    if MODEL_WEIGHTS.search(text):
        return False
    if INPUT_OPTIMIZER.search(text):
        return True
    if "fmin_l_bfgs_b" in text and KERAS_INPUT_GRADIENT.search(text):
        return True
    return (
        ".minimize(" in text
        and text.count("tf.Variable(") == 1
        and bool(IMAGE_VARIABLE.search(text))
    )


def _training_loops(index: CodeIndex, dl: bool) -> list[tuple[float, Evidence]]:
    """Training written the JAX way (`jax.value_and_grad`, `optax.apply_updates`), with a
    gradient scaler after `zero_grad()`, or handed to a toolbox's train function or runner."""
    found: list[tuple[float, Evidence]] = []

    @functools.cache
    def runs_a_trainer() -> bool:
        return any(TRAINER_CALL.search(index.text(sf)) for sf in index.own() if sf.read)

    for sf in index.own():
        if not sf.read or sf.role == "doc" or (sf.role == "test" and _unit_test(sf)):
            continue
        if not (dl or uses_nn(sf)):
            continue
        text = index.text(sf)
        m = next(
            (m for hint, loop in TRAINING_LOOPS if hint in text and (m := loop.search(text))),
            None,
        )
        if m and not _optimises_inputs(text):
            line, text = index.where(sf.path, m.group(0))
            found.append((sf.weight, Evidence(sf.path, line, text, "training_code.loop")))
    return found


def domain_scores(
    ctx: AuditContext, index: CodeIndex, network_types: frozenset[str]
) -> dict[str, float]:
    """Votes per domain from the README's title and introduction, imports and network types."""
    votes: dict[str, float] = defaultdict(float)
    readme = ctx.tree.readme
    blocks = [b for b in ctx.docs.blocks if b.path == readme and b.kind != "code"][:6]
    for n, block in enumerate(blocks):
        weight = 3.0 if n == 0 else 1.0
        text = block.text
        for phrase, replacement in DOMAIN_PHRASES:
            text = phrase.sub(replacement, text)
        for domain, pattern in DOMAIN_PATTERNS.items():
            hits = len({m.lower() for m in pattern.findall(text)})
            if hits:
                votes[domain] += weight * min(hits, 3)
    imported: set[str] = set()
    for sf in index.own():
        imported.update(imp.module.split(".")[0] for imp in sf.imports)
    for module, domain in DOMAIN_IMPORTS.items():
        if module in imported:
            votes[domain] += 1.0
    for kind, domain in (("gnn", "graph"), ("drl", "rl"), ("gan", "generative")):
        if kind in network_types:
            votes[domain] += 4.0
    return votes


def is_training_file(path: str) -> bool:
    """True for scripts named like training entry points (train.py, train_net.lua ...)."""
    return bool(TRAIN_FILE.search(path))
