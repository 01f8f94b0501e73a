"""Fixture projects for smoke runs, and the local wheel they install (no index, no network).

`tinyfit` is the projects' framework: a one-weight linear model trained by gradient descent,
whose `.cuda()` fails without an NVIDIA driver the way PyTorch's does.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

TINYFIT = '''"""A one-weight linear model trained by gradient descent."""
import os
import random


class Model:
    def __init__(self, seed=0):
        self.w = random.Random(seed).uniform(-1.0, 1.0)

    def cuda(self):
        if os.environ.get("CUDA_VISIBLE_DEVICES") == "" or not os.path.exists("/dev/nvidia0"):
            raise RuntimeError("Found no NVIDIA driver on your system. Please check that you "
                               "have an NVIDIA GPU and installed a driver")
        return self

    def step(self, xs, ys, lr=0.1):
        grad = sum(2 * (self.w * x - y) * x for x, y in zip(xs, ys)) / len(xs)
        self.w -= lr * grad
        return sum((self.w * x - y) ** 2 for x, y in zip(xs, ys)) / len(xs)

    fit = step
'''

HEADER = "--no-index\n--find-links {wheels}\n"
TRAIN = """import json
import os
import tinyfit

print("ENV", json.dumps(sorted(os.environ)))
print("CPUS", json.dumps(sorted(os.sched_getaffinity(0))), os.environ.get("OMP_NUM_THREADS"))
model = tinyfit.Model(seed=1)
xs, ys = [0.0, 0.5, 1.0, 1.5], [0.0, 1.0, 2.0, 3.0]
for step in range(3):
    loss = model.step(xs, ys)
    print(f"step {step} loss {loss:.4f}")
    {hook}
with open("model.pt", "w") as fh:
    fh.write(repr(model.w))
"""


def train(hook: str = "pass") -> str:
    """The training script, with `hook` run after every step."""
    return TRAIN.replace("{hook}", hook)


def projects(
    wheels: Path, pidfile: Path, closed_port: int, server_port: int
) -> dict[str, dict[str, str]]:
    """Name -> files of each fixture project; the comment says which outcome it should reach."""
    ok_requirements = HEADER.format(wheels=wheels) + "tinyfit==0.1\n"
    worker = (
        f"import os, time; open({str(pidfile)!r}, 'w').write(str(os.getpid())); time.sleep(600)"
    )
    upload = (
        "try:\n"
        "        import urllib.request\n"
        f"        urllib.request.urlopen('http://127.0.0.1:{server_port}/upload', timeout=3)\n"
        "        print('uploaded')\n"
        "    except OSError as exc:\n"
        "        print('upload failed:', exc)"
    )
    return {
        # ok: installs from the local wheel folder and trains three steps
        "lab/fits": {"requirements.txt": ok_requirements, "train.py": train()},
        # install: the pinned version does not exist
        "lab/pinned": {
            "requirements.txt": HEADER.format(wheels=wheels) + "tinyfit==9.9\n",
            "train.py": train(),
        },
        # needs_gpu: a hard-coded .cuda()
        "lab/cuda": {
            "requirements.txt": ok_requirements,
            "train.py": train().replace("tinyfit.Model(seed=1)", "tinyfit.Model(seed=1).cuda()"),
        },
        # data: downloads its dataset first
        "lab/download": {
            "requirements.txt": ok_requirements,
            "train.py": "import os\nimport urllib.request\n"
            "if not os.path.exists('data/points.csv'):\n"
            "    os.makedirs('data', exist_ok=True)\n"
            f"    urllib.request.urlretrieve('http://127.0.0.1:{closed_port}/points.csv', "
            "'data/points.csv')\n" + train(),
        },
        # timeout: loops forever in silence, with a worker process of its own
        "lab/forever": {
            "train.py": "import subprocess, sys, time\n"
            f"subprocess.Popen([sys.executable, '-c', {worker!r}])\n"
            "while True:\n    time.sleep(0.05)\n",
        },
        # ok, with the network cut: tries to phone home during training and carries on
        "lab/phone-home": {"requirements.txt": ok_requirements, "train.py": train(upload)},
        # import: a framework it never declares
        "lab/undeclared": {"train.py": "import tensorflow as tf\nprint('epoch 1 loss 0.5')\n"},
        # runtime: trains a step, then crashes
        "lab/crash": {
            "requirements.txt": ok_requirements,
            "train.py": train("raise ValueError('shapes (3,) and (4,) not aligned')"),
        },
    }


def build_wheel(
    folder: Path, name: str, version: str, files: dict[str, str], requires: tuple[str, ...] = ()
) -> Path:
    """A pure-Python wheel, written directly (no build backend, so no index is needed), whose
    metadata lists `requires` as written (`tzlib (>=2011k)`, which does not parse, included)."""
    folder.mkdir(parents=True, exist_ok=True)
    dist = f"{name}-{version}.dist-info"
    entries = dict(files)
    listed = "".join(f"Requires-Dist: {r}\n" for r in requires)
    head = f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
    entries[f"{dist}/METADATA"] = head + listed
    entries[f"{dist}/WHEEL"] = (
        "Wheel-Version: 1.0\nGenerator: tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n"
    )
    record = []
    for path, text in entries.items():
        data = text.encode()
        digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
        record.append(f"{path},sha256={digest},{len(data)}")
    entries[f"{dist}/RECORD"] = "\n".join([*record, f"{dist}/RECORD,,"]) + "\n"
    wheel = folder / f"{name}-{version}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as archive:
        for path, text in entries.items():
            archive.writestr(path, text)
    return wheel


def tree_hash(root: Path) -> str:
    """One hash of every file's path, bytes and mode under `root` (symlinks by their target)."""
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*")):
        digest.update(path.relative_to(root).as_posix().encode())
        if path.is_symlink():
            digest.update(str(path.readlink()).encode())
        elif path.is_file():
            digest.update(path.read_bytes())
            digest.update(str(path.stat().st_mode).encode())
    return digest.hexdigest()
