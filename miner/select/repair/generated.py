"""Modules a package's `setup.py` writes when it runs: generated, never shipped.

BasicSR and the projects built on it (GFPGAN, Real-ESRGAN, CodeFormer, HAT) write
`<package>/version.py` from their `setup.py` (`write_version_py()`), and their README runs
`python setup.py develop` first. Run from the checkout without that step, the package stops at
`No module named 'basicsr.version'`. The repair runs the `setup.py` that names the missing file
with `--version`: its module-level steps write the file, and setuptools only prints the version,
building and installing nothing. Projects that copied PyTorch's `setup.py` (deepvoice3_pytorch,
wavenet_vocoder, nnmnkwii) write it in their `build_py` command instead (`create_version_file`);
`build_py` is tried next: it writes the file and copies the pure-Python package under `build/`,
inside the copy. It runs in the smoke run's copy, with the run's interpreter, from the root as
the README does, else from the script's folder.
"""

from __future__ import annotations

import subprocess
from collections.abc import Mapping
from pathlib import Path

SETUP_SECONDS = 120.0
# `--version` runs only the module-level steps; `build_py` also runs a custom build command's
SETUP_COMMANDS = ("--version", "build_py")


def generating_setup(root: Path, module: str) -> str | None:
    """The checkout's `setup.py` (relative path) that writes the missing `module` (`basicsr.version`
    -> a setup.py naming `version.py` beside a `basicsr/` package), None when none does."""
    package, _, name = module.rpartition(".")
    if not package or (root / f"{module.replace('.', '/')}.py").exists():
        return None
    top = package.split(".")[0]
    # a setup.py at the root, or in a package folder (CodeFormer's `basicsr/setup.py`)
    for setup in sorted(root.glob("setup.py")) + sorted(root.glob("*/setup.py")):
        try:
            text = setup.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        beside = (setup.parent / top).is_dir() or setup.parent.name == top
        if beside and f"{name}.py" in text:
            return setup.relative_to(root).as_posix()
    return None


def run_setup(
    root: Path, setup: str, module: str, python: Path, env: Mapping[str, str], log: Path
) -> bool:
    """Run `setup` with `--version`, then `build_py`, each from the checkout's root, as a README
    runs it (`python basicsr/setup.py develop`), then from its own folder; True once `module`'s
    file is written. Its output goes to `log`."""
    folders = dict.fromkeys((root, (root / setup).parent))
    with log.open("a", encoding="utf-8") as fh:
        for command in SETUP_COMMANDS:
            for folder in folders:
                script = (root / setup).relative_to(folder).as_posix()
                fh.write(f"miner: running {script} {command} in {folder.name}/ to write {module}\n")
                fh.flush()
                try:
                    subprocess.run(
                        [str(python), script, command], cwd=folder, env=dict(env), stdout=fh,
                        stderr=subprocess.STDOUT, timeout=SETUP_SECONDS, check=False,
                    )  # fmt: skip
                except (OSError, subprocess.TimeoutExpired):
                    continue
                if generating_setup(root, module) is None:
                    return True
    return False
