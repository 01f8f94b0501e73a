"""A folder of images where a README placeholder named an image folder the run cannot have.

A README command such as `python train.py --data_root /path/to/images` gets a stand-in path of
the run's (miner.select.arguments) that does not exist. A loader the start-up hook knows
(ImageFolder and its kin) serves stand-in data there; a project's own dataset class instead
lists the folder (`glob(os.path.join(root, '*.png'))`, `os.listdir(root)`) and stops. When the
missing path is such a stand-in folder and the project's code reads image files, the folder is
written with a few small pictures in the formats the code names, and the run trains again. Only
the run's own stand-in folder is ever written.
"""

from __future__ import annotations

import re
from pathlib import Path

from miner.select.standins.benchmark_layouts import WrittenFiles, picture, seeded_rng

IMAGE_FILES = 16
IMAGE_SIZE = 256  # at least the crop most image pipelines take
# Code that reads image files by their suffix, or with an image library.
IMAGE_CODE = re.compile(
    r"""['"][*\w]*\.(png|jpe?g|bmp)['"]|\b(?:Image\.open|cv2\.imread|imageio\.imread)\(""",
    re.IGNORECASE,
)
MAX_CODE_FILES = 400


def image_suffixes(copy: Path) -> tuple[str, ...]:
    """The image suffixes the checkout's Python code reads (`.png`, `.jpg`), `()` when it reads
    no image files."""
    found: set[str] = set()
    reads = False
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
    if not reads:
        return ()
    return tuple(sorted(found)) or (".png",)


def write_image_folder(root: Path, seed: int, suffixes: tuple[str, ...]) -> WrittenFiles:
    """`IMAGE_FILES` pictures in each of `suffixes` at `root`."""
    from PIL import Image

    state = seeded_rng(seed, "image-folder")
    root.mkdir(parents=True, exist_ok=True)
    for suffix in suffixes:
        for i in range(IMAGE_FILES):
            Image.fromarray(picture(state, IMAGE_SIZE, IMAGE_SIZE)).save(root / f"{i:04d}{suffix}")
    count = IMAGE_FILES * len(suffixes)
    return WrittenFiles(root, count, ((root.name, (count, IMAGE_SIZE, IMAGE_SIZE, 3), "uint8"),))
