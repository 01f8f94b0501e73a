"""NeRF scenes in the two layouts NeRF code reads: the Blender synthetic scenes
(`nerf_synthetic/<scene>/transforms_<split>.json` and RGBA PNGs) and the LLFF forward-facing
captures (`nerf_llff_data/<scene>/poses_bounds.npy`, `images/` and the down-sampled `images_<n>/`
folders the loaders look for before they call ImageMagick to make them)."""

from __future__ import annotations

import math
from pathlib import Path

from miner.select.standins.benchmark_layouts import WrittenFiles, _dump, picture, seeded_rng

NERF_FRAMES = {"train": 20, "val": 4, "test": 4}
NERF_SIZE = 800  # the Blender scenes' real size; code often halves it itself


def _camera(angle: float, elevation: float, radius: float = 4.0311) -> list[list[float]]:
    """A camera-to-world matrix on a sphere, looking at the origin (OpenGL axes, as NeRF's)."""
    import numpy

    position = radius * numpy.array(
        [
            math.cos(elevation) * math.cos(angle),
            math.cos(elevation) * math.sin(angle),
            math.sin(elevation),
        ]
    )
    z = position / numpy.linalg.norm(position)
    x = numpy.cross([0.0, 0.0, 1.0], z)
    x /= numpy.linalg.norm(x)
    y = numpy.cross(z, x)
    matrix = numpy.eye(4)
    matrix[:3, 0], matrix[:3, 1], matrix[:3, 2], matrix[:3, 3] = x, y, z, position
    return [[round(float(v), 8) for v in row] for row in matrix]


def write_nerf_scene(root: Path, seed: int) -> WrittenFiles:
    """A NeRF Blender scene: `transforms_<split>.json` (camera_angle_x, frames with file_path
    and transform_matrix) and RGBA PNGs under `<split>/r_<i>.png`."""
    from PIL import Image

    state = seeded_rng(seed, "nerf")
    files = 0
    for split, count in NERF_FRAMES.items():
        (root / split).mkdir(parents=True, exist_ok=True)
        frames = []
        for i in range(count):
            angle = 2 * math.pi * i / count + (0.1 if split != "train" else 0.0)
            elevation = math.radians(30 if i % 2 else 15)
            frames.append({"file_path": f"./{split}/r_{i}", "rotation": 0.012566370614359171,
                           "transform_matrix": _camera(angle, elevation)})  # fmt: skip
            rgba = picture(state, NERF_SIZE, NERF_SIZE, 4, noise=0.0)  # large: kept quick
            rgba[..., 3] = (rgba[..., 3] > 100).astype("uint8") * 255
            Image.fromarray(rgba, "RGBA").save(root / split / f"r_{i}.png")
            files += 1
        _dump(root / f"transforms_{split}.json",
              {"camera_angle_x": 0.6911112070083618, "frames": frames})  # fmt: skip
        files += 1
    images = sum(NERF_FRAMES.values())
    return WrittenFiles(root, files, (("images", (images, NERF_SIZE, NERF_SIZE, 4), "uint8"),))


LLFF_IMAGES = 20
LLFF_SIZE = (192, 256)  # height, width of `images/`; real captures are 3024 x 4032
LLFF_FACTORS = (2, 4, 8)  # the `images_<n>` folders configs ask for (`factor = 8`)
LLFF_BOUNDS = (2.0, 8.0)  # near and far depth of every view


def write_llff_scene(root: Path, seed: int) -> WrittenFiles:
    """An LLFF capture: `poses_bounds.npy` (one row per image: a 3x5 camera matrix in LLFF's
    [down, right, back] axes with its height, width and focal length, then near and far
    bounds), the PNGs under `images/` and each down-sampled `images_<n>/` folder."""
    import numpy
    from PIL import Image

    state = seeded_rng(seed, "llff")
    height, width = LLFF_SIZE
    rows = []
    # After the loaders' change of axes ([x, y, z] <- [right, -down, back]) every camera looks
    # down -z from a small grid in the plane z = 0: a forward-facing capture.
    rotation = numpy.array([[0.0, 1.0, 0.0], [-1.0, 0.0, 0.0], [0.0, 0.0, 1.0]])
    for i in range(LLFF_IMAGES):
        offset = [0.1 * (i % 5 - 2), 0.1 * (i // 5 - 2), 0.0]
        hwf = [height, width, 1.1 * width]
        matrix = numpy.concatenate([rotation, numpy.array([offset, hwf]).T], axis=1)
        rows.append(numpy.concatenate([matrix.ravel(), LLFF_BOUNDS]))
    root.mkdir(parents=True, exist_ok=True)
    numpy.save(root / "poses_bounds.npy", numpy.array(rows))
    files = 1
    for factor in (1, *LLFF_FACTORS):
        folder = root / ("images" if factor == 1 else f"images_{factor}")
        folder.mkdir(exist_ok=True)
        for i in range(LLFF_IMAGES):
            image = picture(state, width // factor, height // factor, noise=0.0)
            Image.fromarray(image).save(folder / f"image{i:03d}.png")
            files += 1
    arrays = (
        ("poses_bounds", (LLFF_IMAGES, 17), "float64"),
        ("images", (LLFF_IMAGES, height, width, 3), "uint8"),
    )
    return WrittenFiles(root, files, arrays)
