"""The layouts of the public benchmark data sets `benchmark_files` stands in for, and writers
that fill them with small synthetic data: the real file names, columns, JSON keys and folders,
fewer rows or images where the real set is large (each writer says how many it wrote)."""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

COCO_SPLIT = re.compile(r"(?:train|val)20(?:14|17)")
MAX_VALUES = 3_000_000  # a wide time-series table keeps its columns and loses rows past this


@dataclass(frozen=True)
class WrittenFiles:
    """What a writer wrote: the root, how many files, each array's name, shape and dtype, and
    the number of classes (0 where the data set has none)."""

    root: Path
    files: int
    arrays: tuple[tuple[str, tuple[int, ...], str], ...]
    classes: int = 0


@dataclass(frozen=True)
class SeriesLayout:
    """A multivariate time-series file: its value columns, rows, time step and form."""

    family: str
    columns: tuple[str, ...]
    rows: int
    step_minutes: int = 60
    start: str = "2016-07-01 00:00:00"
    header: bool = True  # False: LSTNet's bare comma-separated matrix, no date column


def _numbered(count: int) -> tuple[str, ...]:
    return (*(str(i) for i in range(count - 1)), "OT")


ETT_COLUMNS = ("HUFL", "HULL", "MUFL", "MULL", "LUFL", "LULL", "OT")
WEATHER_COLUMNS = (
    "p (mbar)", "T (degC)", "Tpot (K)", "Tdew (degC)", "rh (%)", "VPmax (mbar)", "VPact (mbar)",
    "VPdef (mbar)", "sh (g/kg)", "H2OC (mmol/mol)", "rho (g/m**3)", "wv (m/s)", "max. wv (m/s)",
    "wd (deg)", "rain (mm)", "raining (s)", "SWDR (W/m2)", "PAR (umol/m2/s)",
    "max. PAR (umol/m2/s)", "Tlog (degC)", "OT",
)  # fmt: skip
ILI_COLUMNS = ("% WEIGHTED ILI", "%UNWEIGHTED ILI", "AGE 0-4", "AGE 5-24", "ILITOTAL",
               "NUM. OF PROVIDERS", "OT")  # fmt: skip
INFORMER = "Informer/Autoformer time series"
LSTNET = "LSTNet multivariate time series"
TIME_SERIES: dict[str, SeriesLayout] = {
    "ETTh1.csv": SeriesLayout(INFORMER, ETT_COLUMNS, 17420),
    "ETTh2.csv": SeriesLayout(INFORMER, ETT_COLUMNS, 17420),
    "ETTm1.csv": SeriesLayout(INFORMER, ETT_COLUMNS, 69680, 15),
    "ETTm2.csv": SeriesLayout(INFORMER, ETT_COLUMNS, 69680, 15),
    "weather.csv": SeriesLayout(INFORMER, WEATHER_COLUMNS, 52696, 10, "2020-01-01 00:10:00"),
    "electricity.csv": SeriesLayout(INFORMER, _numbered(321), 26304, 60, "2016-07-01 02:00:00"),
    "ECL.csv": SeriesLayout(INFORMER, ("MT_001", *_numbered(321)[1:]), 26304),
    "traffic.csv": SeriesLayout(INFORMER, _numbered(862), 17544, 60, "2016-07-01 02:00:00"),
    "exchange_rate.csv": SeriesLayout(INFORMER, _numbered(8), 7588, 1440, "1990-01-01 00:00:00"),
    "national_illness.csv": SeriesLayout(INFORMER, ILI_COLUMNS, 966, 10080, "2002-01-01 00:00:00"),
    "solar_AL.txt": SeriesLayout(LSTNET, _numbered(137), 52560, header=False),
    "electricity.txt": SeriesLayout(LSTNET, _numbered(321), 26304, header=False),
    "traffic.txt": SeriesLayout(LSTNET, _numbered(862), 17544, header=False),
    "exchange_rate.txt": SeriesLayout(LSTNET, _numbered(8), 7588, header=False),
}  # fmt: skip


def seeded_rng(seed: int, *key: str) -> Any:
    import zlib

    import numpy

    text = "/".join(key)
    return numpy.random.RandomState((zlib.crc32(text.encode("utf-8")) + seed) % (2**32))


def write_time_series(path: Path, seed: int) -> WrittenFiles:
    """The file at `path` in its family's form: smooth positive series with daily and weekly
    cycles and noise, the real columns; the real row count unless the table is very wide."""
    import numpy
    import pandas

    layout = TIME_SERIES[path.name]
    width = len(layout.columns)
    rows = min(layout.rows, max(4000, MAX_VALUES // width))
    state = seeded_rng(seed, path.name)
    t = numpy.arange(rows, dtype="float64")[:, None]
    day = max(1.0, 1440.0 / layout.step_minutes)
    phase = state.uniform(0, 2 * math.pi, size=(1, width))
    level = state.uniform(5, 50, size=(1, width))
    values = level * (1.3 + 0.5 * numpy.sin(2 * math.pi * t / day + phase)
                      + 0.2 * numpy.sin(2 * math.pi * t / (7 * day) + phase))  # fmt: skip
    values += state.normal(0, 0.05, size=values.shape) * level
    frame = pandas.DataFrame(numpy.abs(values).round(3), columns=list(layout.columns))
    path.parent.mkdir(parents=True, exist_ok=True)
    if layout.header:
        dates = pandas.date_range(layout.start, periods=rows, freq=f"{layout.step_minutes}min")
        frame.insert(0, "date", dates.strftime("%Y-%m-%d %H:%M:%S"))
        frame.to_csv(path, index=False)
    else:
        frame.to_csv(path, index=False, header=False)
    arrays = ((path.name, (rows, len(frame.columns)), "float64" if not layout.header else "mixed"),)
    return WrittenFiles(path, 1, arrays)


COCO_CATEGORIES = (
    ("person", (1,)), ("vehicle", (2, 3, 4, 5, 6, 7, 8, 9)), ("outdoor", (10, 11, 13, 14, 15)),
    ("animal", (16, 17, 18, 19, 20, 21, 22, 23, 24, 25)), ("accessory", (27, 28, 31, 32, 33)),
    ("sports", (34, 35, 36, 37, 38, 39, 40, 41, 42, 43)), ("kitchen", (44, 46, 47, 48, 49, 50, 51)),
    ("food", (52, 53, 54, 55, 56, 57, 58, 59, 60, 61)), ("furniture", (62, 63, 64, 65, 67, 70)),
    ("electronic", (72, 73, 74, 75, 76, 77)), ("appliance", (78, 79, 80, 81, 82)),
    ("indoor", (84, 85, 86, 87, 88, 89, 90)),
)  # fmt: skip
COCO_NAMES = (
    "person bicycle car motorcycle airplane bus train truck boat traffic_light fire_hydrant "
    "stop_sign parking_meter bench bird cat dog horse sheep cow elephant bear zebra giraffe "
    "backpack umbrella handbag tie suitcase frisbee skis snowboard sports_ball kite baseball_bat "
    "baseball_glove skateboard surfboard tennis_racket bottle wine_glass cup fork knife spoon bowl "
    "banana apple sandwich orange broccoli carrot hot_dog pizza donut cake chair couch "
    "potted_plant bed dining_table toilet tv laptop mouse remote keyboard cell_phone microwave "
    "oven toaster sink refrigerator book clock vase scissors teddy_bear hair_drier toothbrush"
).split()
COCO_IMAGES = {"train": 16, "val": 8}


def _coco_categories() -> list[dict[str, Any]]:
    ids = [(category_id, group) for group, members in COCO_CATEGORIES for category_id in members]
    return [
        {"supercategory": group, "id": category_id, "name": name.replace("_", " ")}
        for (category_id, group), name in zip(ids, COCO_NAMES, strict=True)
    ]


def picture(state: Any, width: int, height: int, channels: int = 3, noise: float = 2.0) -> Any:
    """A smooth picture (gradients and a disc) that compresses well, with a little noise."""
    import numpy

    y, x = numpy.mgrid[0:height, 0:width].astype("float32")
    colour = state.uniform(40, 215, size=channels)
    cx, cy, r = state.uniform(0.3, 0.7) * width, state.uniform(0.3, 0.7) * height, height / 4
    disc = ((x - cx) ** 2 + (y - cy) ** 2 < r * r)[..., None]
    base = (x / width * 120 + y / height * 60)[..., None] + numpy.zeros(channels)
    pixels = numpy.where(disc, colour, base)
    if noise:
        pixels = pixels + state.normal(0, noise, size=(height, width, channels))
    return pixels.clip(0, 255).astype("uint8")


def write_coco(root: Path, seed: int, years: tuple[str, ...]) -> WrittenFiles:
    """A COCO root: `annotations/instances_<split>20YY.json` (and `captions_`) with the 80 real
    categories and their ids, boxes and polygon masks, and `<split>20YY/` JPEG images."""
    from PIL import Image

    state = seeded_rng(seed, "coco")
    categories = _coco_categories()
    (root / "annotations").mkdir(parents=True, exist_ok=True)
    files, boxes, images_total = 0, 0, 0
    for year in years:
        for split, count in COCO_IMAGES.items():
            name = f"{split}20{year}"
            (root / name).mkdir(exist_ok=True)
            images: list[dict[str, Any]] = []
            annotations: list[dict[str, Any]] = []
            captions: list[dict[str, Any]] = []
            for i in range(count):
                image_id = 1 + i + (100_000 if split == "val" else 0)
                width, height = int(state.randint(320, 481)), int(state.randint(240, 361))
                file_name = f"{image_id:012d}.jpg"
                Image.fromarray(picture(state, width, height)).save(root / name / file_name)
                images.append({"id": image_id, "file_name": file_name, "width": width,
                               "height": height, "license": 1, "date_captured": ""})  # fmt: skip
                captions.append({"id": image_id, "image_id": image_id, "caption": "A picture."})
                for _ in range(int(state.randint(1, 5))):
                    w, h = state.uniform(20, width / 2), state.uniform(20, height / 2)
                    x, y = state.uniform(0, width - w), state.uniform(0, height - h)
                    box = [round(v, 2) for v in (x, y, w, h)]
                    polygon = [round(v, 2) for v in (x, y, x + w, y, x + w, y + h, x, y + h)]
                    category = categories[int(state.randint(len(categories)))]["id"]
                    annotations.append({"id": len(annotations) + 1 + 10 * image_id,
                                        "image_id": image_id, "category_id": category,
                                        "bbox": box, "area": round(w * h, 2),
                                        "segmentation": [polygon], "iscrowd": 0})  # fmt: skip
            info = {"description": "stand-in COCO", "version": "1.0", "year": int(f"20{year}")}
            licenses = [{"id": 1, "name": "stand-in", "url": ""}]
            head = {"info": info, "licenses": licenses, "images": images}
            _dump(root / "annotations" / f"instances_{name}.json",
                  {**head, "annotations": annotations, "categories": categories})  # fmt: skip
            _dump(root / "annotations" / f"captions_{name}.json", {**head, "annotations": captions})
            files += count + 2
            boxes += len(annotations)
            images_total += count
    arrays = (("images", (images_total,), "jpeg"), ("boxes", (boxes, 4), "float"))
    return WrittenFiles(root, files, arrays, len(categories))


def _dump(path: Path, document: dict[str, Any]) -> None:
    path.write_text(json.dumps(document), encoding="utf-8")


PAIRED = ("facades", "cityscapes", "maps", "edges2shoes", "edges2handbags", "night2day")
UNPAIRED = ("horse2zebra", "apple2orange", "summer2winter_yosemite", "monet2photo",
            "cezanne2photo", "ukiyoe2photo", "vangogh2photo", "iphone2dslr_flower", "maps",
            "cityscapes", "facades", "grumpifycat")  # fmt: skip
IMAGE_TRANSLATION = frozenset(PAIRED + UNPAIRED)
TRANSLATION_FOLDERS = frozenset(("train", "val", "test", "trainA", "trainB", "testA", "testB",
                                 "valA", "valB"))  # fmt: skip
TRANSLATION_IMAGES = 8


def write_image_translation(root: Path, seed: int, name: str) -> WrittenFiles:
    """pix2pix's layout (`train/`, `val/`, `test/` of A|B pairs side by side, 512x256) for the
    paired sets and CycleGAN's (`trainA/`, `trainB/`, `testA/`, `testB/`, 256x256) for the
    unpaired ones; both for the sets the two projects share."""
    from PIL import Image

    state = seeded_rng(seed, name)
    folders: list[tuple[str, int]] = []
    if name in PAIRED:
        folders += [("train", 512), ("val", 512), ("test", 512)]
    if name in UNPAIRED:
        folders += [("trainA", 256), ("trainB", 256), ("testA", 256), ("testB", 256)]
    for folder, width in folders:
        (root / folder).mkdir(parents=True, exist_ok=True)
        for i in range(TRANSLATION_IMAGES):
            Image.fromarray(picture(state, width, 256)).save(root / folder / f"{i + 1}.jpg")
    arrays = tuple((folder, (TRANSLATION_IMAGES, 256, width, 3), "uint8")
                   for folder, width in folders)  # fmt: skip
    return WrittenFiles(root, TRANSLATION_IMAGES * len(folders), arrays)


SQUAD = re.compile(r"(train|dev)-v(1\.1|2\.0)\.json")
SQUAD_ARTICLES, SQUAD_PARAGRAPHS, SQUAD_QUESTIONS = 8, 4, 3
WORDS = ("model", "network", "river", "city", "music", "history", "energy", "season", "language",
         "planet", "market", "science", "island", "theory", "engine", "garden")  # fmt: skip


def write_squad(path: Path, seed: int) -> WrittenFiles:
    """A SQuAD file (`train-v1.1.json`, `dev-v2.0.json`): articles of paragraphs whose questions'
    answers are spans of the context at their `answer_start`; v2.0 adds unanswerable ones."""
    name = SQUAD.fullmatch(path.name)
    assert name is not None
    split, version = name.groups()
    state = seeded_rng(seed, path.name)
    articles: list[dict[str, Any]] = []
    questions = 0
    for a in range(SQUAD_ARTICLES):
        paragraphs: list[dict[str, Any]] = []
        for _ in range(SQUAD_PARAGRAPHS):
            words = [WORDS[int(i)] for i in state.randint(len(WORDS), size=60)]
            context = " ".join(words).capitalize() + "."
            qas = []
            for q in range(SQUAD_QUESTIONS):
                start = int(state.randint(0, 55))
                answer = " ".join(words[start : start + 3])
                offset = len(" ".join(words[:start])) + (1 if start else 0)
                spans = [{"text": context[offset : offset + len(answer)], "answer_start": offset}]
                entry: dict[str, Any] = {
                    "id": f"{split}-{a}-{len(paragraphs)}-{q}",
                    "question": f"What about the {words[start]}?",
                    "answers": spans if split == "train" else spans * 3,  # dev: three readers
                }
                if version == "2.0":
                    impossible = q == SQUAD_QUESTIONS - 1
                    entry["is_impossible"] = impossible
                    if impossible:
                        entry["plausible_answers"], entry["answers"] = entry["answers"][:1], []
                qas.append(entry)
                questions += 1
            paragraphs.append({"context": context, "qas": qas})
        articles.append({"title": f"Article_{a}", "paragraphs": paragraphs})
    path.parent.mkdir(parents=True, exist_ok=True)
    _dump(path, {"version": version, "data": articles})
    return WrittenFiles(path, 1, ((path.name, (questions,), "json"),))


# NVIDIA's `dataset_tool.py` archives, which the StyleGAN2-ADA, StyleGAN3 and EDM families and
# their forks train from: `<name>-<width>x<height>.zip` of PNGs under numbered folders of a
# thousand, and a `dataset.json` of labels (null for unlabelled sets).
IMAGE_ARCHIVE = re.compile(r"(?P<name>[\w.]+?)[-_](?P<width>\d{1,4})x(?P<height>\d{1,4})\.zip")
ARCHIVE_IMAGES = 16
ARCHIVE_CLASSES = {"cifar10": 10, "cifar100": 100, "imagenet": 1000, "mnist": 10,
                   "fashion_mnist": 10, "svhn": 10, "stl10": 10}  # fmt: skip


def write_image_archive(path: Path, seed: int) -> WrittenFiles:
    """An archive at `path` in `dataset_tool.py`'s layout at the size its name states, labelled
    with the data set's number of classes where it has classes (`cifar10-32x32.zip`)."""
    import io
    import zipfile

    from PIL import Image

    found = IMAGE_ARCHIVE.fullmatch(path.name)
    assert found is not None
    width, height = int(found["width"]), int(found["height"])
    classes = ARCHIVE_CLASSES.get(found["name"].lower().replace("-", "_"), 0)
    state = seeded_rng(seed, path.name)
    names = [f"00000/img{i:08d}.png" for i in range(ARCHIVE_IMAGES)]
    labels = [[name, int(state.randint(0, classes))] for name in names] if classes else None
    path.parent.mkdir(parents=True, exist_ok=True)
    with zipfile.ZipFile(path, "w") as archive:
        for name in names:
            buffer = io.BytesIO()
            Image.fromarray(picture(state, width, height)).save(buffer, format="PNG")
            archive.writestr(name, buffer.getvalue())
        archive.writestr("dataset.json", json.dumps({"labels": labels}))
    arrays = ((path.name, (ARCHIVE_IMAGES, height, width, 3), "uint8"),)
    return WrittenFiles(path, ARCHIVE_IMAGES + 1, arrays, classes)
