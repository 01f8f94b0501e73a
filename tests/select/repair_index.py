"""A local package index for repair tests: small wheels and one sdist whose build fails, in a
folder uv reads through `--find-links` with `--no-index` (no network)."""

from __future__ import annotations

import io
import tarfile
from pathlib import Path

from smoke_projects import TINYFIT, build_wheel

FAILING_BACKEND = """def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    raise RuntimeError("error: Microsoft Visual C++ 14.0 is required")
"""


NEEDY_BACKEND = """import base64, hashlib, os, zipfile


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    import {module}  # used at build time

    name, files = "{name}-{version}-py3-none-any.whl", {{"{name}.py": "BUILT = True\\n"}}
    info = "{name}-{version}.dist-info"
    files[info + "/METADATA"] = "Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\n"
    files[info + "/WHEEL"] = "Wheel-Version: 1.0\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
    record = []
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=")
        record.append("%s,sha256=%s,%d" % (path, digest.decode(), len(text.encode())))
    files[info + "/RECORD"] = "\\n".join(record + [info + "/RECORD,,"]) + "\\n"
    with zipfile.ZipFile(os.path.join(wheel_directory, name), "w") as archive:
        for path, text in files.items():
            archive.writestr(path, text)
    return name
"""


def build_failing_sdist(
    folder: Path,
    name: str,
    version: str,
    backend: str = FAILING_BACKEND,
    module: str = "",
    requires: str = "",
) -> Path:
    """A sdist with an in-tree build backend (needs no setuptools to be tried): by default one
    that always fails."""
    base = f"{name}-{version}"
    files = {
        f"{base}/pyproject.toml": f"[build-system]\nrequires = [{requires}]\n"
        'build-backend = "backend"\n'
        f'backend-path = ["."]\n\n[project]\nname = "{name}"\nversion = "{version}"\n',
        f"{base}/PKG-INFO": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n",
        f"{base}/backend.py": backend.format(name=name, version=version, module=module),
    }
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{base}.tar.gz"
    with tarfile.open(path, "w:gz") as archive:
        for rel, text in files.items():
            data = text.encode()
            info = tarfile.TarInfo(rel)
            info.size = len(data)
            archive.addfile(info, io.BytesIO(data))
    return path


def build_index(folder: Path) -> Path:
    """The index: tinyfit, oldpin 1.2.0/1.2.5 (1.2.3 never released), brittle 1.9 (wheel) and
    2.0 (a sdist that fails), helperpkg (a GitHub project also on the index), PyYAML (what
    `import yaml` needs), winonly (a Windows wheel only)."""
    build_wheel(folder, "tinyfit", "0.1", {"tinyfit/__init__.py": TINYFIT})
    for version in ("1.2.0", "1.2.5"):
        build_wheel(folder, "oldpin", version, {"oldpin.py": f"VERSION = {version!r}\n"})
    build_wheel(folder, "brittle", "1.9", {"brittle.py": "READY = True\n"})
    build_failing_sdist(folder, "brittle", "2.0")
    build_wheel(folder, "helperpkg", "0.3", {"helperpkg/__init__.py": "NAME = 'helper'\n"})
    build_wheel(folder, "PyYAML", "5.3", {"yaml/__init__.py": "def safe_load(text):\n"
                                          "    return {'lr': 0.1}\n"})  # fmt: skip
    win = build_wheel(folder, "winonly", "1.0", {"winonly.py": ""})
    win.rename(folder / "winonly-1.0-cp311-cp311-win_amd64.whl")
    return folder
