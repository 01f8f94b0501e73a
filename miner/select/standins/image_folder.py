"""A folder of images where a README placeholder named an image folder the run cannot have.

A README command such as `python train.py --data_root /path/to/images` gets a stand-in path of
the run's (miner.select.arguments) that does not exist. A loader the start-up hook knows
(ImageFolder and its kin) serves stand-in data there; a project's own dataset class instead
lists the folder (`glob(os.path.join(root, '*.png'))`, `os.listdir(root)`) and stops. When the
missing path is such a stand-in folder and the project's code reads image files, the folder is
written with a few small pictures in the formats the code names, and the run trains again. Code
that leaves the reading to a library's folder reader (torchvision's `ImageFolder`, timm's
`create_dataset`) gets the layout those readers walk instead: `train/` and `val/`, each with a
folder per class. Only the run's own stand-in folder is ever written.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

from miner.select.standins.benchmark_layouts import WrittenFiles, picture, seeded_rng

IMAGE_FILES = 16
IMAGE_SIZE = 256  # at least the crop most image pipelines take
# Code that reads image files by their suffix, or with an image library.
IMAGE_CODE = re.compile(
    r"""['"][*\w]*\.(png|jpe?g|bmp)['"]|\b(?:Image\.open|cv2\.imread|imageio\.imread)\(""",
    re.IGNORECASE,
)
# Code that hands a folder to a library's reader, which wants one sub-folder per class.
LIBRARY_READER = re.compile(r"\b(?:ImageFolder|ImageDataset|DatasetFolder)\b|\btimm\.data\b")
MAX_CODE_FILES = 400
SPLITS = ("train", "val")
CLASSES = ("class_0", "class_1")
PER_CLASS = 4


@dataclass(frozen=True)
class ImageLayout:
    """How the checkout's code reads a folder of images: the suffixes it names, and whether a
    library's reader walks it by class folders."""

    suffixes: tuple[str, ...]
    class_folders: bool


def image_layout(copy: Path) -> ImageLayout | None:
    """How the checkout's Python code reads images, None when it reads no image files."""
    found: set[str] = set()
    reads = library = False
    for index, path in enumerate(sorted(copy.rglob("*.py"))):
        if index == MAX_CODE_FILES:
            break
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        for match in IMAGE_CODE.finditer(text):
            reads = True
            if match.group(1):
                found.add(".jpg" if match.group(1).lower() in ("jpg", "jpeg") else ".png")
        library = library or bool(LIBRARY_READER.search(text))
    if not reads and not library:
        return None
    # the project's own listing of the folder (`os.listdir(root)`) would meet class folders
    return ImageLayout(tuple(sorted(found)) or (".png",), class_folders=not reads)


def write_image_folder(root: Path, seed: int, layout: ImageLayout) -> WrittenFiles:
    """`IMAGE_FILES` pictures in each of the layout's suffixes at `root`, or `PER_CLASS` a class
    in each split's class folders."""
    from PIL import Image

    state = seeded_rng(seed, "image-folder")
    folders = (
        [root / split / name for split in SPLITS for name in CLASSES]
        if layout.class_folders
        else [root]
    )
    per_folder = PER_CLASS if layout.class_folders else IMAGE_FILES
    for folder in folders:
        folder.mkdir(parents=True, exist_ok=True)
        for suffix in layout.suffixes:
            for i in range(per_folder):
                image = Image.fromarray(picture(state, IMAGE_SIZE, IMAGE_SIZE))
                image.save(folder / f"{i:04d}{suffix}")
    count = per_folder * len(folders) * len(layout.suffixes)
    return WrittenFiles(root, count, ((root.name, (count, IMAGE_SIZE, IMAGE_SIZE, 3), "uint8"),))
