"""Stand-ins for public benchmark data sets that projects read from a path of their own.

Most projects that get past their imports stop at data they expect on disk: the ETT and
Informer-family CSVs under `./data/ETT/`, SQuAD's JSON, a COCO root, a NeRF Blender scene, a
pix2pix or CycleGAN image folder, an image archive of NVIDIA's `dataset_tool.py`
(`cifar10-32x32.zip`), a graph recommender's `Data/gowalla/train.txt`. No loader call names
them, so the start-up hook cannot stand in; but the missing path does name them, and their
layouts are public and fixed. When a smoke run ends for a missing file whose path names one of
these data sets, the run writes a small synthetic copy in the real layout (the real file names,
columns, JSON keys, image folders) at that path inside its throw-away copy and trains again.
Nothing of the project is edited, a path outside the run's own folders is never written, and the
outcome reads `stand-in data` with the file's shapes.

Each data set is a plain function in `BENCHMARKS`: given the missing path it returns the root to
write and a writer, or None when the path is not its.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path, PurePosixPath

from miner.select.standins.benchmark_layouts import (
    COCO_SPLIT,
    IMAGE_ARCHIVE,
    IMAGE_TRANSLATION,
    SQUAD,
    TIME_SERIES,
    TRANSLATION_FOLDERS,
    WrittenFiles,
    write_coco,
    write_image_archive,
    write_image_translation,
    write_squad,
    write_time_series,
)
from miner.select.standins.citation_layouts import citation_root, write_citation_graph
from miner.select.standins.interaction_layouts import interaction_root, write_interactions
from miner.select.standins.nerf_layouts import write_llff_scene, write_nerf_scene
from miner.select.standins.speech_layouts import ljspeech_root, write_ljspeech
from miner.select.standins.voc_layouts import voc_root, write_voc

# Where a log names the path it could not read.
MISSING_PATH = (
    re.compile(r"No such file or directory: b?'([^']+)'"),
    re.compile(r"File b?'([^']+)' does not exist"),  # pandas
    re.compile(r"No such file: (\S+)"),
    re.compile(r"(\S+) is not a valid directory"),  # the CycleGAN family's make_dataset
    re.compile(r"does not exist: b?'([^']+)'"),
    re.compile(r"""(?i)(?:path|file|directory) ['"]([^'"]+)['"] (?:does not exist|not found)"""),
    # numpy's loadtxt and genfromtxt (`OSError: ./data/cora/cora.content not found.`)
    re.compile(r"^(?:OSError|IOError|FileNotFoundError): (\S+) not found\.?\s*$"),
    re.compile(r"Failed to find file: (\S+?)\.?\s*$"),  # TensorFlow 1's input producers
)
REPORT_NAME = "benchmark-files.json"
DATA_FOLDERS = frozenset(("data", "datasets", "dataset", "datas"))

Writer = Callable[[Path, int], WrittenFiles]


@dataclass(frozen=True)
class BenchmarkMatch:
    """A missing path that names a known data set: the data set, the root to write, its writer."""

    benchmark: str
    root: PurePosixPath
    write: Writer
    missing: tuple[str, ...] = ()  # files whose absence lets an existing root be filled in


def _time_series(path: PurePosixPath) -> BenchmarkMatch | None:
    layout = TIME_SERIES.get(path.name)
    if layout is None:
        return None
    return BenchmarkMatch(f"{path.name} ({layout.family})", path, write_time_series)


def _coco(path: PurePosixPath) -> BenchmarkMatch | None:
    parts = path.parts
    for i, part in enumerate(parts):
        if part == "annotations" and i > 0:
            root = PurePosixPath(*parts[:i])
        elif (
            COCO_SPLIT.fullmatch(part)
            and i > 0
            and (i + 1 == len(parts) or parts[i + 1] != "annotations")
        ):
            root = PurePosixPath(*parts[:i])
        else:
            continue
        text = "/".join(parts[i:])
        if part == "annotations" and not re.search(
            r"(?:instances|person_keypoints|captions)_"
            r"(?:train|val)20(?:14|17)\.json",
            text,
        ):
            continue  # fmt: skip
        years = tuple(sorted(set(re.findall(r"20(14|17)", text)) or {"17"}))
        return BenchmarkMatch("COCO", root, partial(write_coco, years=years))
    return None


def _scene_root(path: PurePosixPath, marker: str, collection: str) -> PurePosixPath | None:
    """A NeRF scene's folder: the one holding its `marker` file (`transforms_train.json`,
    `poses_bounds.npy`), or the scene's folder under its collection (`nerf_synthetic/lego`)."""
    if re.fullmatch(marker, path.name):
        return path.parent
    if collection in path.parts[:-1]:
        return PurePosixPath(*path.parts[: path.parts.index(collection) + 2])
    return None


def _nerf_scene(path: PurePosixPath) -> BenchmarkMatch | None:
    root = _scene_root(path, r"transforms_(?:train|val|test)\.json", "nerf_synthetic")
    return None if root is None else BenchmarkMatch("NeRF Blender scene", root, write_nerf_scene)


def _llff_scene(path: PurePosixPath) -> BenchmarkMatch | None:
    root = _scene_root(path, r"poses_bounds\.npy", "nerf_llff_data")
    return None if root is None else BenchmarkMatch("LLFF scene", root, write_llff_scene)


def _image_translation(path: PurePosixPath) -> BenchmarkMatch | None:
    parts = path.parts
    for i, part in enumerate(parts):
        # The name alone is a common word ("maps", "cityscapes" of another layout): the folder
        # after it must be one of the layout's, or the data set must sit in a data folder.
        after = parts[i + 1] if i + 1 < len(parts) else None
        in_data = i > 0 and parts[i - 1].lower() in DATA_FOLDERS
        layout = after in TRANSLATION_FOLDERS or (after is None and in_data)
        if part in IMAGE_TRANSLATION and layout:
            return BenchmarkMatch(
                f"{part} (pix2pix/CycleGAN)",
                PurePosixPath(*path.parts[: i + 1]),
                partial(write_image_translation, name=part),
            )
    return None


def _squad(path: PurePosixPath) -> BenchmarkMatch | None:
    if not SQUAD.fullmatch(path.name):
        return None
    return BenchmarkMatch(f"{path.name} (SQuAD)", path, write_squad)


def _image_archive(path: PurePosixPath) -> BenchmarkMatch | None:
    found = IMAGE_ARCHIVE.fullmatch(path.name)
    if found is None:
        return None
    return BenchmarkMatch(f"{path.name} (dataset_tool image archive)", path, write_image_archive)


def _interactions(path: PurePosixPath) -> BenchmarkMatch | None:
    root = interaction_root(path)
    if root is None:
        return None
    return BenchmarkMatch(f"{root.name} (NGCF user-item interactions)", root, write_interactions,
                          missing=("train.txt", "test.txt"))  # fmt: skip


def _citation_graph(path: PurePosixPath) -> BenchmarkMatch | None:
    found = citation_root(path)
    if found is None:
        return None
    root, name = found
    return BenchmarkMatch(f"{name} (LINQS citation graph)", root,
                          partial(write_citation_graph, name=name),
                          missing=(f"{name}.content",))  # fmt: skip


def _ljspeech(path: PurePosixPath) -> BenchmarkMatch | None:
    root = ljspeech_root(path)
    if root is None:
        return None
    return BenchmarkMatch("LJ Speech", root, write_ljspeech)


def _voc(path: PurePosixPath) -> BenchmarkMatch | None:
    root = voc_root(path)
    if root is None:
        return None
    return BenchmarkMatch("PASCAL VOC 2007 and 2012", root, write_voc)


BENCHMARKS: tuple[Callable[[PurePosixPath], BenchmarkMatch | None], ...] = (
    _time_series,
    _voc,
    _image_archive,
    _squad,
    _coco,
    _nerf_scene,
    _llff_scene,
    _image_translation,
    _interactions,
    _citation_graph,
    _ljspeech,
)


def missing_path(text: str) -> str | None:
    """The path a log line says is missing, if it names one."""
    for pattern in MISSING_PATH:
        found = pattern.search(text)
        if found:
            return found.group(1).rstrip(".,;:")
    return None


def match_benchmark(path: str) -> BenchmarkMatch | None:
    """The known data set a missing path names, with the root to write; None if none."""
    pure = PurePosixPath(path.replace("\\", "/"))
    for benchmark in BENCHMARKS:
        found = benchmark(pure)
        if found is not None:
            return found
    return None


def _inside(path: Path, roots: tuple[Path, ...]) -> bool:
    resolved = path.resolve()
    return any(resolved.is_relative_to(r.resolve()) for r in roots)


def stand_in_files(
    text: str, cwd: Path, writable: tuple[Path, ...], report_dir: Path, seed: int = 0
) -> WrittenFiles | None:
    """Write a stand-in for the known data set the log line `text` says is missing, at that
    path (relative paths from `cwd`), when the path lies inside one of `writable`; record it in
    `report_dir` as stand-in data. None when the line names no known data set, the path is
    outside, or its root is already there (a stand-in that did not help is not written twice)."""
    path = missing_path(text)
    found = None if path is None else match_benchmark(path)
    if path is None or found is None:
        return None
    root = (cwd / str(found.root)) if not found.root.is_absolute() else Path(str(found.root))
    unfilled = bool(found.missing) and not any((root / f).exists() for f in found.missing)
    if not _inside(root, writable) or root.exists() and not (_empty_folder(root) or unfilled):
        return None  # a set folder with its lists and no splits (the splits left out) is filled
    written = found.write(root, seed)
    record_stand_in(report_dir, found.benchmark, written, text)
    return written


def _empty_folder(path: Path) -> bool:
    return path.is_dir() and not any(path.iterdir())


def record_stand_in(report_dir: Path, benchmark: str, written: WrittenFiles, why: str) -> None:
    """Add the stand-in to the run's report, in the start-up hook's format (`read_assists`)."""
    report_dir.mkdir(parents=True, exist_ok=True)
    report = report_dir / REPORT_NAME
    try:
        document = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        document = {"served": []}
    document["served"].append({
        "loader": f"files: {benchmark}",
        "split": "-",
        "arrays": {name: {"shape": list(shape), "dtype": dtype}
                   for name, shape, dtype in written.arrays},
        "classes": written.classes,
        "reason": " ".join(why.split())[:200],
        "note": f"{written.files} files written at {written.root}",
    })  # fmt: skip
    report.write_text(json.dumps(document, indent=2) + "\n", encoding="utf-8")
