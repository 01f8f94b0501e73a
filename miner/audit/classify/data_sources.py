"""Where a project's training and test data come from (codebook field `data_available`).

Yes when the data are in the repository, or a script or link in it obtains them: data files in a
data folder or a sizeable data file at the root, code that fetches a public dataset
(`torchvision.datasets.X(download=True)`, `tfds.load`, `load_dataset("org/name")`, Keras
`datasets.*.load_data()`), a download script for data, environments an RL agent is trained in,
and dataset links or download commands in the documentation. A script that fetches model weights,
or a dataset named without a link, does not count.
"""

from __future__ import annotations

import re
from collections import Counter

from miner.audit.classify.data_docs import documented_data
from miner.audit.classify.data_fetch import (
    environments,
    fetching_code,
    scripts_fetching_data,
    training_fetches,
)
from miner.audit.detect import AuditContext
from miner.audit.detect.sources import LANG_BY_SUFFIX, CodeIndex
from miner.audit.ownership import in_foreign_tree
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
# Files in a data folder that are not data: code, prose and configuration.
NOT_DATA_SUFFIXES = frozenset(LANG_BY_SUFFIX) | frozenset({
    ".md", ".rst", ".yaml", ".yml", ".cfg", ".ini", ".toml", ".lock", ".gitignore", ".gitkeep",
    ".html", ".css",
    # binaries and model weights are not data
    ".dll", ".so", ".dylib", ".exe", ".bin", ".pyc", ".o", ".a", ".jar", ".class", ".pt", ".pth",
    ".ckpt", ".safetensors", ".onnx", ".caffemodel", ".pb", ".tflite",
    ".ttf", ".otf", ".woff", ".woff2", ".eot", ".svg", ".pdf",  # fonts and figures
})  # fmt: skip
MIN_DATA_FILES = 20
MIN_FOLDER_BYTES = 40_000  # a data folder holding a real dataset, not one example file
# Folders whose name says data: size alone decides (a graph, a names list); `samples` and the
# like often hold generated outputs and need many files.
NAMED_DATA_FOLDERS = frozenset({"data", "dataset", "datasets", "corpus", "corpora"})
# Example inputs, evaluation sets and deployment fixtures are not the training data (unless
# there are many files).
EXAMPLE_FOLDER = re.compile(r"example|demo|sample|eval|inference|deploy|playground")
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".gif", ".tif", ".tiff", ".webp"})
# File lists, label maps and vocabularies describe a dataset the user fetches; they are not it.
LISTING = re.compile(
    r"list|meta|label|synset|class|idx|index|indices|split|vocab|dict|map|mean", re.I
)
MIN_ROOT_FILE_BYTES = 100_000  # a data file at the root (a names list, an instruction set)
ROOT_DATA_SUFFIXES = frozenset({".txt", ".json", ".jsonl", ".csv", ".tsv", ".gz", ".parquet"})
NOT_DATA_NAME = re.compile(
    r"requirement|licen[cs]e|vocab|merges|token|lock|package|changelog", re.I
)


def data_evidence(
    ctx: AuditContext, index: CodeIndex, trains: bool = True,
    training_files: frozenset[str] = frozenset(),
) -> list[Evidence]:  # fmt: skip
    """Data in the tree, code that fetches a dataset, download scripts for data, environments of
    an agent, downloads in the training scripts (`training_files`) themselves, and dataset links
    or download commands in the documentation.

    Files in the tree of a neural-network project that trains nothing (`trains` false) are what
    it evaluates or demonstrates on, not training data (the codebook: evaluation sets alone do
    not count); downloads and links still count.
    """
    out: list[Evidence] = []
    out += _in_repository(ctx) if trains else []
    out += fetching_code(index)
    out += scripts_fetching_data(ctx, index)
    out += training_fetches(ctx, index, training_files)
    out += environments(index)
    out += documented_data(ctx, index)
    return out


def _in_repository(ctx: AuditContext) -> list[Evidence]:
    files: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    for f in ctx.tree.files:
        parts = f.path.lower().split("/")
        folders = set(parts[:-1])
        if not folders:
            if (
                f.suffix in ROOT_DATA_SUFFIXES
                and f.size >= MIN_ROOT_FILE_BYTES
                and not NOT_DATA_NAME.search(f.name)
            ):
                text = f"{f.size} bytes of data"
                return [Evidence(f.path, 0, text, "data_available.in_repository")]
            continue
        if (
            folders & NOT_DATA_FOLDERS
            or f.suffix in NOT_DATA_SUFFIXES
            or f.name.startswith(".")
            or f.name.lower().startswith("readme")
        ):
            continue
        if "imagesets" in folders:
            continue  # PASCAL VOC's and ILSVRC's split lists (`ImageSets/Main/train.txt`): ids
        if any(p.endswith((".app", ".framework", ".bundle")) or "cache" in p for p in parts[:-1]):
            continue  # an application bundle or a build cache (a packaged simulator) is no dataset
        if in_foreign_tree(ctx.tree, f.path):
            continue  # another project's examples and benchmarks, copied whole
        if folders & DATA_FOLDERS or (f.suffix in DATA_SUFFIXES and f.size > 5_000_000):
            folder = "/".join(f.path.split("/")[:-1])
            files[folder] += f.suffix in DATA_SUFFIXES  # many files: known data formats only
            # One example picture is no dataset: images count by number, not by size.
            if f.suffix not in IMAGE_SUFFIXES and not LISTING.search(f.name):
                sizes[folder] += f.size
    for folder, n in sorted(files.items(), key=lambda kv: -sizes[kv[0]]):
        parts = folder.lower().split("/")
        named = not NAMED_DATA_FOLDERS.isdisjoint(parts)
        example = any(EXAMPLE_FOLDER.search(p) for p in parts)
        parent = folder.rsplit("/", 1)[0] if "/" in folder else ""
        data_package = parent.rsplit("/", 1)[-1].lower() in NAMED_DATA_FOLDERS
        if parent and not data_package and f"{parent}/__init__.py" in ctx.tree.paths:
            named = False  # a package's own resources (reference tables, demo inputs): by count
        if n >= MIN_DATA_FILES or (named and not example and sizes[folder] >= MIN_FOLDER_BYTES):
            text = f"{n} data files" if n >= MIN_DATA_FILES else f"{sizes[folder]} bytes of data"
            return [Evidence(folder, 0, text, "data_available.in_repository")]
    return []
