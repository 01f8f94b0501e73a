"""OpenCV's variants side by side. opencv-python, its `-headless` and `-contrib` builds all write
the one `cv2` folder; a project that pins one and a dependency that pulls in another
(albumentations brings opencv-python-headless) leave a folder of two releases, which fails on
import with words of its own (`module 'cv2.gapi.wip.draw' has no attribute 'Text'`). The repair
moves the newest variant to the release of the oldest, so every file of the folder is of one."""

from __future__ import annotations

import re
from pathlib import Path

# The error of a cv2 folder of two releases, and where its files lie.
MIXED_CV2 = re.compile(
    r"module 'cv2(?:\.[\w.]+)?' has no attribute|partially initialized module 'cv2'"
)
CV2_FILE = re.compile(r'File "([^"]*-packages)/cv2/')
VARIANT = re.compile(
    r"^(opencv_(?:contrib_)?python(?:_headless)?)-(\d+(?:\.\d+)+)\.dist-info$", re.IGNORECASE
)


def _release(version: str) -> tuple[int, ...]:
    return tuple(int(part) for part in version.split("."))


def variants_installed(site_packages: Path) -> dict[str, str]:
    """The OpenCV variants installed in `site_packages`, by distribution name, with versions."""
    found: dict[str, str] = {}
    for info in site_packages.glob("opencv*.dist-info"):
        match = VARIANT.match(info.name)
        if match:
            found[match.group(1).lower().replace("_", "-")] = match.group(2)
    return found


def one_release_pin(lines: list[str], number: int) -> str | None:
    """For the error on line `number` (1-based) of a log, the pin that brings the newest OpenCV
    variant down to the oldest's release (`opencv-python-headless==4.3.0.36`), when the error
    is one of a mixed cv2 folder and the traceback's cv2 folder holds variants of two
    releases; else None."""
    if not MIXED_CV2.search(lines[number - 1]):
        return None
    folders = {m.group(1) for line in lines[:number] for m in [CV2_FILE.search(line)] if m}
    for folder in sorted(folders):
        variants = variants_installed(Path(folder))
        if len(set(variants.values())) < 2:
            continue
        newest = max(variants, key=lambda name: _release(variants[name]))
        oldest = min(variants.values(), key=_release)
        return f"{newest}=={oldest}"
    return None
