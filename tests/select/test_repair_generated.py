"""Modules a package's setup.py writes: found from the import error, written by running the
setup.py with --version (nothing built or installed)."""

from __future__ import annotations

import sys
from pathlib import Path

from miner.select.repair.generated import generating_setup, run_setup
from miner.select.repair.runtime import runtime_fault

SETUP = """import os
from setuptools import setup
version_file = './basicsr/version.py'
def write_version_py():
    with open('./basicsr/VERSION') as f:
        short = f.read().strip()
    with open(version_file, 'w') as f:
        f.write(f"__version__ = '{short}'\\n")
if __name__ == '__main__':
    write_version_py()
    setup(name='basicsr', version='1.3.2')
"""


def _checkout(root: Path) -> Path:
    (root / "basicsr").mkdir(parents=True)
    (root / "basicsr/__init__.py").write_text("from .version import __version__\n")
    (root / "basicsr/VERSION").write_text("1.3.2\n")
    (root / "basicsr/setup.py").write_text(SETUP)
    (root / "train.py").write_text("import basicsr\nprint('version', basicsr.__version__)\n")
    return root


def test_the_setup_py_that_writes_a_missing_module_is_found_and_run(tmp_path: Path) -> None:
    root = _checkout(tmp_path / "copy")
    log = tmp_path / "train.log"
    log.write_text(
        'Traceback (most recent call last):\n  File "train.py", line 1, in <module>\n'
        "ModuleNotFoundError: No module named 'basicsr.version'\n"
    )
    fault = runtime_fault(log, sys.version_info[:2], root)
    assert fault is not None and fault.kind == "generate"
    assert (fault.feature, fault.generated) == ("basicsr/setup.py", "basicsr.version")
    out = tmp_path / "install.log"
    assert run_setup(root, fault.feature, fault.generated, Path(sys.executable), {}, out)
    assert (root / "basicsr/version.py").read_text() == "__version__ = '1.3.2'\n"
    assert "1.3.2" in out.read_text()  # setuptools printed the version, built nothing
    assert not (root / "build").exists() and not list(root.rglob("*.egg-info"))
    assert generating_setup(root, "basicsr.version") is None  # written: no second run


def test_a_module_no_setup_py_writes_is_left_to_the_other_repairs(tmp_path: Path) -> None:
    root = _checkout(tmp_path / "copy")
    assert generating_setup(root, "basicsr.archs") is None
    assert generating_setup(root, "version") is None


# PyTorch's setup.py, as deepvoice3_pytorch and wavenet_vocoder copied it: the version module is
# written by the build_py command, not at module level.
BUILD_PY_SETUP = """import os
import setuptools.command.build_py
from setuptools import setup, find_packages
version = '0.1.1'
cwd = os.path.dirname(os.path.abspath(__file__))
class build_py(setuptools.command.build_py.build_py):
    def run(self):
        self.create_version_file()
        setuptools.command.build_py.build_py.run(self)
    @staticmethod
    def create_version_file():
        with open(os.path.join(cwd, 'deepvoice3_pytorch', 'version.py'), 'w') as f:
            f.write("__version__ = '{}'\\n".format(version))
setup(name='deepvoice3_pytorch', version=version, packages=find_packages(),
      cmdclass={'build_py': build_py})
"""


def test_a_version_module_written_by_build_py_is_written_by_build_py(tmp_path: Path) -> None:
    root = tmp_path / "copy"
    (root / "deepvoice3_pytorch").mkdir(parents=True)
    (root / "deepvoice3_pytorch/__init__.py").write_text("from .version import __version__\n")
    (root / "setup.py").write_text(BUILD_PY_SETUP)
    assert generating_setup(root, "deepvoice3_pytorch.version") == "setup.py"
    out = tmp_path / "install.log"
    assert run_setup(root, "setup.py", "deepvoice3_pytorch.version", Path(sys.executable), {}, out)
    assert (root / "deepvoice3_pytorch/version.py").read_text() == "__version__ = '0.1.1'\n"
    assert "setup.py build_py" in out.read_text()  # --version alone wrote nothing
