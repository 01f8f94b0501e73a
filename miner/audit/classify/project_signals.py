"""Evidence about what a project does: trains a model, ships or fetches its data, its domain.

Helpers of the project classifier (miner.audit.classify.exclusions); each returns the evidence
found, an empty list when there is none.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from miner.audit.detect import AuditContext
from miner.audit.detect.framework_map import module_framework
from miner.audit.detect.sources import CodeIndex, SourceFile, in_copy
from miner.codebook import Evidence

DATA_SUFFIXES = frozenset({
    ".csv", ".tsv", ".npy", ".npz", ".h5", ".hdf5", ".pkl", ".pickle", ".mat", ".tfrecord",
    ".tfrecords", ".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".wav", ".mp3", ".flac",
    ".json", ".jsonl", ".txt", ".xml", ".ppm", ".pgm", ".nii", ".gz", ".zip",
    ".parquet", ".arff", ".data", ".conll", ".midi", ".mid",
})  # fmt: skip
DATA_FOLDERS = frozenset({
    "data", "dataset", "datasets", "corpus", "corpora", "samples", "train", "training", "test",
    "testing", "val", "valid", "validation",
})  # fmt: skip
NOT_DATA_FOLDERS = frozenset({
    "docs", "doc", "assets", "images", "img", "imgs", "figures", "fig", "static", "media",
    "results", "output", "outputs", "logs", "tests",
})  # fmt: skip
MIN_DATA_FILES = 20
DATA_WORDS = re.compile(r"\b(?:data\s*sets?|datasets?|data|corpus|corpora|benchmark)\b", re.I)
URL = re.compile(r"https?://\S+|\bwww\.\S+")
DATA_HOSTS = re.compile(
    r"image-net\.org|cocodataset\.org|kaggle\.com|archive\.ics\.uci\.edu|cs\.toronto\.edu/~kriz|"
    r"yann\.lecun\.com/exdb/mnist|cityscapes-dataset|host\.robots\.ox\.ac\.uk|deepmind\.com/.*kinetics|"
    r"physionet\.org|zenodo\.org|figshare|huggingface\.co/datasets|tensorflow\.org/datasets",
    re.I,
)
DATA_SECTION = re.compile(r"data|download|prepar|getting started|usage|training|quick ?start", re.I)
DOWNLOAD_VERB = re.compile(r"\b(?:download|get|obtain|fetch|available|place|put)\b", re.I)
DATA_SCRIPT = re.compile(r"data|corpus|download|fetch|^get_", re.I)
MODEL_SCRIPT = re.compile(r"model|weight|pretrain|checkpoint|ckpt|snapshot", re.I)
DOWNLOADS = ("proj.download", "proj.curl", "proj.data_loader")
TRAINING_SIGNALS = ("proj.train", "lua.backward", "fw.caffe_pytrain", "caffe.cli_train",
                    "theano.updates")  # fmt: skip
FIT_ONLY = re.compile(r"\.fit\($")
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
    (a training script importing its model from the project), except `.fit(` calls in files that
    use classical learners (scikit-learn and the like).
    """
    found: list[tuple[float, Evidence]] = []
    for sf in index.own():
        if not sf.read or sf.role in ("test", "doc"):
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
            samples = [s for s in hit.samples if nn or not FIT_ONLY.search(s)]
            if not samples and sf.imports_module(*CLASSICAL):
                continue
            line, text, _ = index.where_code(sf.path, samples or hit.samples)
            found.append((sf.weight, Evidence(sf.path, line, text, "training_code.code")))
            break
        else:
            # An optimizer built in network code trains something, even when the update call
            # is out of sight (`Adam(lr).\` continued on the next line, a pipeline's fit).
            hit = sf.hits.get("proj.optimizer")
            if hit and nn:
                line, text, _ = index.where_code(sf.path, hit.samples)
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
    found.sort(key=lambda item: -item[0])
    return [e for _, e in found]


def data_evidence(ctx: AuditContext, index: CodeIndex) -> list[Evidence]:
    """Training/test data in the tree, loaders that fetch public datasets, download scripts and
    dataset links in the documentation."""
    out: list[Evidence] = []
    folders: Counter[str] = Counter()
    for f in ctx.tree.files:
        parts = f.path.lower().split("/")
        if f.suffix in DATA_SUFFIXES and not (set(parts[:-1]) & NOT_DATA_FOLDERS):
            if set(parts[:-1]) & DATA_FOLDERS or f.size > 5_000_000:
                folders["/".join(f.path.split("/")[:-1]) or "."] += 1
    for folder, n in folders.most_common(2):
        if n >= MIN_DATA_FILES:
            out.append(Evidence(folder, 0, f"{n} data files", "data_available.in_repository"))
    for sf in index.own():
        hit = sf.hits.get("proj.data_loader")
        if hit and sf.read:
            line, text, _ = index.where_code(sf.path, hit.samples)
            out.append(Evidence(sf.path, line, text, "data_available.loader"))
            break
    scripts = [(sf.path, sf.hits) for sf in index.own()]
    scripts += [(a.path, a.hits) for a in index.artifacts if a.kind == "shell" and a.weight > 0]
    for path, hits in scripts:  # a data-named script that downloads something
        name = path.rsplit("/", 1)[-1]
        hit = next((hits[s] for s in DOWNLOADS if s in hits), None)
        if hit and DATA_SCRIPT.search(name) and not MODEL_SCRIPT.search(name):
            line, text, _ = index.where_code(path, hit.samples)
            out.append(Evidence(path, line, text, "data_available.download_script"))
            break
    for block in ctx.docs.blocks:
        if block.path != ctx.tree.readme and not block.path.lower().startswith(("doc", "data")):
            continue
        if in_copy(block.path, index.framework_copies):  # a bundled framework's own docs
            continue
        text = block.text
        if not URL.search(text) and "wget" not in text:
            continue
        named = DATA_WORDS.search(text) or DATA_HOSTS.search(text)
        if named and (DATA_SECTION.search(block.section) or DOWNLOAD_VERB.search(text)):
            out.append(Evidence(block.path, block.line, text[:200], "data_available.link"))
            break
    return out


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
