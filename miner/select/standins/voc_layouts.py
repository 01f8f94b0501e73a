"""The layout of PASCAL VOC 2007 and 2012, the detection and segmentation benchmark that most
detectors and segmenters of 2015 to 2020 train on (SSD and its descendants, Faster R-CNN ports,
RefineDet, YOLO v1 to v3, FCN, DeepLab): `VOCdevkit/VOC2007/` and `VOCdevkit/VOC2012/`, each with
`JPEGImages/<id>.jpg`, `Annotations/<id>.xml` (the object's class name, pose, truncated,
difficult and `bndbox` in pixels), `ImageSets/Main/{train,val,trainval,test}.txt` and the
per-class `<class>_<split>.txt` lists (`<id> 1` or `<id> -1`), `ImageSets/Segmentation/` lists,
and `SegmentationClass/`/`SegmentationObject/` palette PNGs (class indices, 255 on borders). The
writer fills both years with a few pictures of the same form over the twenty real classes.
"""

from __future__ import annotations

import re
from pathlib import Path, PurePosixPath
from typing import Any

from miner.select.standins.benchmark_layouts import WrittenFiles, picture, seeded_rng

VOC_CLASSES = (
    "aeroplane", "bicycle", "bird", "boat", "bottle", "bus", "car", "cat", "chair", "cow",
    "diningtable", "dog", "horse", "motorbike", "person", "pottedplant", "sheep", "sofa",
    "train", "tvmonitor",
)  # fmt: skip
VOC_YEAR = re.compile(r"VOC(2007|2012)")
IMAGES = {"train": 8, "val": 8, "test": 8}  # more than a batch of 4 in each split
SIZE = (500, 375)  # the usual VOC picture: 500 wide
SPLIT_LISTS = (("train", ("train",)), ("val", ("val",)), ("trainval", ("train", "val")),
               ("test", ("test",)))  # fmt: skip


def voc_root(path: PurePosixPath) -> PurePosixPath | None:
    """The devkit folder when `path` is in one (`data/VOCdevkit/VOC2007/Annotations/...`), else
    the folder holding a `VOC2007` or `VOC2012` folder the path names."""
    parts = path.parts
    if "VOCdevkit" in parts:
        return PurePosixPath(*parts[: parts.index("VOCdevkit") + 1])
    for i, part in enumerate(parts):
        if VOC_YEAR.fullmatch(part) and i > 0:
            return PurePosixPath(*parts[:i])
    return None


def write_voc(root: Path, seed: int) -> WrittenFiles:
    """Both years' folders under `root`, with images, annotations, split lists and masks."""
    from PIL import Image

    state = seeded_rng(seed, "voc")
    files = objects = 0
    for year in ("2007", "2012"):
        base = root / f"VOC{year}"
        for folder in ("JPEGImages", "Annotations", "ImageSets/Main", "ImageSets/Segmentation",
                       "SegmentationClass", "SegmentationObject"):  # fmt: skip
            (base / folder).mkdir(parents=True, exist_ok=True)
        ids: dict[str, list[str]] = {}
        present: dict[str, set[str]] = {name: set() for name in VOC_CLASSES}
        number = 0
        for split, count in IMAGES.items():
            ids[split] = []
            for _ in range(count):
                number += 1
                image_id = f"{year}_{number:06d}" if year == "2012" else f"{number:06d}"
                ids[split].append(image_id)
                width, height = SIZE
                Image.fromarray(picture(state, width, height)).save(base / "JPEGImages" /
                                                                     f"{image_id}.jpg")  # fmt: skip
                boxes = _boxes(state, width, height)
                for name, _ in boxes:
                    present[name].add(image_id)
                (base / "Annotations" / f"{image_id}.xml").write_text(
                    _annotation(year, image_id, width, height, boxes), encoding="utf-8"
                )
                _masks(base, image_id, width, height, boxes)
                files += 4
                objects += len(boxes)
        for name, members in SPLIT_LISTS:
            listed = [i for split in members for i in ids[split]]
            (base / "ImageSets/Main" / f"{name}.txt").write_text("\n".join(listed) + "\n")
            (base / "ImageSets/Segmentation" / f"{name}.txt").write_text("\n".join(listed) + "\n")
            for cls in VOC_CLASSES:  # `aeroplane_trainval.txt`: each id with 1 or -1
                rows = [f"{i} {' 1' if i in present[cls] else '-1'}" for i in listed]
                (base / "ImageSets/Main" / f"{cls}_{name}.txt").write_text("\n".join(rows) + "\n")
            files += 2 + len(VOC_CLASSES)
    images = 2 * sum(IMAGES.values())
    arrays = (("images", (images, SIZE[1], SIZE[0], 3), "jpeg"), ("boxes", (objects, 4), "int"))
    return WrittenFiles(root, files, arrays, len(VOC_CLASSES))


def _boxes(state: Any, width: int, height: int) -> list[tuple[str, tuple[int, int, int, int]]]:
    """One to three objects: a class name and a box (xmin, ymin, xmax, ymax), 1-based pixels."""
    boxes = []
    for _ in range(int(state.randint(1, 4))):
        w, h = int(state.randint(40, width // 2)), int(state.randint(40, height // 2))
        x, y = int(state.randint(1, width - w)), int(state.randint(1, height - h))
        boxes.append((VOC_CLASSES[int(state.randint(len(VOC_CLASSES)))], (x, y, x + w, y + h)))
    return boxes


def _annotation(year: str, image_id: str, width: int, height: int,
                boxes: list[tuple[str, tuple[int, int, int, int]]]) -> str:  # fmt: skip
    objects = "".join(
        f"\t<object>\n\t\t<name>{name}</name>\n\t\t<pose>Unspecified</pose>\n"
        f"\t\t<truncated>0</truncated>\n\t\t<difficult>0</difficult>\n\t\t<bndbox>\n"
        f"\t\t\t<xmin>{x0}</xmin>\n\t\t\t<ymin>{y0}</ymin>\n\t\t\t<xmax>{x1}</xmax>\n"
        f"\t\t\t<ymax>{y1}</ymax>\n\t\t</bndbox>\n\t</object>\n"
        for name, (x0, y0, x1, y1) in boxes
    )
    return (f"<annotation>\n\t<folder>VOC{year}</folder>\n\t<filename>{image_id}.jpg</filename>\n"
            f"\t<size>\n\t\t<width>{width}</width>\n\t\t<height>{height}</height>\n"
            f"\t\t<depth>3</depth>\n\t</size>\n\t<segmented>1</segmented>\n{objects}"
            "</annotation>\n")  # fmt: skip


def _masks(base: Path, image_id: str, width: int, height: int,
           boxes: list[tuple[str, tuple[int, int, int, int]]]) -> None:  # fmt: skip
    """Palette PNGs: class index (1 to 20) and object index inside each box, 255 on its edge."""
    import numpy
    from PIL import Image

    classes = numpy.zeros((height, width), dtype="uint8")
    instances = numpy.zeros((height, width), dtype="uint8")
    for number, (name, (x0, y0, x1, y1)) in enumerate(boxes, start=1):
        classes[y0 - 1 : y1, x0 - 1 : x1] = 255
        instances[y0 - 1 : y1, x0 - 1 : x1] = 255
        classes[y0 : y1 - 1, x0 : x1 - 1] = VOC_CLASSES.index(name) + 1
        instances[y0 : y1 - 1, x0 : x1 - 1] = number
    palette = [0] * 768
    for index in range(1, 21):  # distinct colours; 255 is VOC's cream border colour
        palette[3 * index : 3 * index + 3] = [(index * 37) % 256, (index * 91) % 256,
                                              (index * 53) % 256]  # fmt: skip
    palette[765:768] = [224, 224, 192]
    for array, folder in ((classes, "SegmentationClass"), (instances, "SegmentationObject")):
        image = Image.frombytes("P", (width, height), array.tobytes())
        image.putpalette(palette)
        image.save(base / folder / f"{image_id}.png")
