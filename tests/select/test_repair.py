"""Environment repair on a local index: each repair with its reason, the last good environment
kept when a repair fails, Python 2 on a 2.7 interpreter (offline throughout)."""

from __future__ import annotations

import glob
import os
import subprocess
from dataclasses import replace
from pathlib import Path

import pytest
from repair_index import build_failing_sdist, build_index
from smoke_projects import TINYFIT, build_wheel, train

from miner.select.repair.envs import VIRTUALENV_PY2, Builder, python2_interpreters
from miner.select.smoke import SmokeOptions, SmokeTarget, smoke

TRAIN = """import yaml
import helperpkg
import oldpin
import brittle
import mylib
""" + train()


def _options(tmp_path: Path) -> SmokeOptions:
    env = {"PATH": "/usr/bin:/bin", "UV_OFFLINE": "1", "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
           "UV_PYTHON_DOWNLOADS": "never"}  # fmt: skip
    return SmokeOptions(out_dir=tmp_path / "smoke", timeout=60, env=env)


def _project(root: Path, index: Path, requirements: list[str], script: str) -> Path:
    header = ["--no-index", f"--find-links {index}"]
    files = {
        "requirements.txt": "\n".join([*header, *requirements]) + "\n",
        "train.py": script,
        "src/mylib/__init__.py": "HELLO = 1\n",
    }
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    return root


def _target(checkout: Path) -> SmokeTarget:
    files = (("requirements.txt", "requirements_file"),)
    return SmokeTarget("lab/repairs", None, None, checkout, ("{python}", "train.py"), files)


@pytest.fixture(scope="module")
def index(tmp_path_factory) -> Path:
    return build_index(tmp_path_factory.mktemp("index"))


def test_every_repair_is_recorded_and_the_project_trains(tmp_path: Path, index: Path) -> None:
    requirements = [
        "tinyfit==0.1",
        "oldpin==1.2.3",  # never released: moves within 1.2
        "enum34==1.1.10",  # a backport Python 3 ships
        "brittle==2.0",  # its sdist does not build: the release with a wheel
        "git+git://example.invalid/lab/helperpkg.git#egg=helperpkg",  # on the index too
        "winonly==1.0",  # a Windows wheel only, and nothing imports it
        "python-dev",  # an apt package
    ]
    checkout = _project(tmp_path / "repo", index, requirements, TRAIN)
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    summaries = {r.kind: r.summary for r in result.repairs}
    assert summaries["pin"] == "oldpin==1.2.3 -> oldpin==1.2.5: 1.2.3 was never on the index"
    assert summaries["backport"].startswith("enum34==1.1.10 -> (dropped): a backport of `enum`")
    assert summaries["wheel"].startswith("brittle==2.0 -> brittle==1.9: its sdist does not build")
    url = [r for r in result.repairs if r.kind == "url"]
    assert url[0].after.startswith("git+https://example.invalid/")  # git:// rewritten first
    assert url[-1].after == "helperpkg"
    assert (
        summaries["platform"] == "winonly==1.0 -> (dropped): winonly 1.0 is built for Windows only"
    )
    assert summaries["alias"].startswith("python-dev -> (dropped): python-dev is a system (apt)")
    imported = [r for r in result.repairs if r.kind == "import"]
    assert [(r.before, r.after) for r in imported] == [("import yaml", "PyYAML")]
    assert imported[0].evidence.path == "train.py" and imported[0].evidence.line == 1
    assert "pipreqs mapping" in imported[0].reason
    assert any(r.kind == "path" for r in result.repairs)  # src/mylib imports from src/
    # Every failure-driven repair carries the log line that called for it.
    for repair in result.repairs:
        if repair.kind in ("pin", "wheel", "drop"):
            assert repair.evidence.path == "install.log" and repair.evidence.line > 0
    assert result.lock is not None and Path(result.lock).is_file()


def test_a_library_the_run_says_it_requires_is_installed_by_that_name(tmp_path: Path) -> None:
    """transformers' words ("requires the protobuf library but it was not found"): the
    distribution named is installed, though its import name differs (`google.protobuf`)."""
    index = tmp_path / "index"
    build_wheel(index, "tinyfit", "0.1", {"tinyfit/__init__.py": TINYFIT})
    build_wheel(index, "helperlib", "1.0", {"helper_impl/__init__.py": "READY = True\n"})
    script = (
        "try:\n    import helper_impl\nexcept ImportError:\n"
        "    raise ImportError('\\n requires the helperlib library but it was not found in your "
        "environment. Check out the instructions')\n"
    ) + train()
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1"], script)
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    imported = [r for r in result.repairs if r.kind == "import" and r.after == "helperlib"]
    assert imported and "the run says it requires this library" in imported[0].reason


def test_a_failed_repair_leaves_the_last_good_environment(tmp_path: Path) -> None:
    index = tmp_path / "index"
    build_wheel(index, "tinyfit", "0.1", {"tinyfit/__init__.py": "X = 1\n"})
    build_failing_sdist(index, "PyYAML", "5.3")  # the undeclared import cannot be installed
    script = "import yaml\nimport tinyfit\n"
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1"], script)
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome != "install"
    assert not [r for r in result.repairs if r.kind == "import"]
    log = (tmp_path / "smoke" / "lab__repairs" / "install.log").read_text()
    assert "Failed to build `pyyaml==5.3`" in log  # the repair was tried, and failed
    assert result.lock is None  # `import yaml` still fails: no lock
    # The attempt was undone: rebuild the same state by hand and compare with a second build.
    builder = Builder(tmp_path / "env", tmp_path, tmp_path / "b.log",
                      dict(_options(tmp_path).env or {}), 120.0, None,
                      ("--no-index", f"--find-links {index}"))  # fmt: skip
    assert builder.make(str(Path(__import__("sys").executable))).exit_code == 0
    assert builder.install(["tinyfit==0.1"]).exit_code == 0
    good = builder.freeze()
    assert builder.install(["tinyfit==0.1", "PyYAML"]).exit_code != 0
    assert builder.restore(good) and builder.freeze() == good == ["tinyfit==0.1"]
    assert builder.probe(["tinyfit", "yaml"], "import").keys() == {"yaml"}


def _virtualenv_cached(tmp: Path) -> bool:
    env = {"PATH": "/usr/bin:/bin", "UV_OFFLINE": "1"}
    from miner.select.sandbox import uv_binary

    done = subprocess.run(
        [uv_binary(), "tool", "run", "--from", VIRTUALENV_PY2, "virtualenv", "--version"],
        capture_output=True,
        env=env,
        cwd=tmp,
        check=False,
    )
    return done.returncode == 0


def _smoke_on_27(  # type: ignore[no-untyped-def]
    tmp_path: Path, script: str, wheels: dict[str, dict[str, str]] | None = None,
    requirements: tuple[str, ...] = ("oldpin==1.2.0",),
):  # fmt: skip
    """A smoke run of `script`, which imports `oldpin` (a wheel for Python 2 and 3, as are the
    `wheels` NAME-VERSION: files), where a 2.7 interpreter and the virtualenv that makes its
    environments are at hand (else a skip)."""
    if not python2_interpreters():
        pytest.skip("no ~/.pyenv/versions/2.7.* interpreter on this machine")
    if not _virtualenv_cached(tmp_path):
        pytest.skip(f"{VIRTUALENV_PY2} (the last that makes 2.7 environments) is not in uv's cache")
    index = tmp_path / "index"
    wanted = {"oldpin-1.2.0": {"oldpin.py": "VERSION = '1.2.0'\n"}, **(wheels or {})}
    for release, files in wanted.items():
        name, _, version = release.partition("-")
        built = build_wheel(index, name, version, files)
        built.rename(index / built.name.replace("-py3-", "-py2.py3-"))
    checkout = _project(tmp_path / "repo", index, list(requirements), script)
    options = _options(tmp_path)
    env = {**(options.env or {}), "UV_CACHE_DIR": ""}
    env.pop("UV_CACHE_DIR")
    return smoke(_target(checkout), SmokeOptions(out_dir=options.out_dir, timeout=60, env=env))


def test_python2_code_runs_on_a_27_interpreter(tmp_path: Path) -> None:
    script = "import oldpin\nfor step in range(2):\n    print 'step %d loss %.2f' % (step, 0.5)\n"
    result = _smoke_on_27(tmp_path, script)
    assert result.outcome == "ok", result.evidence
    assert result.python.startswith("2.7")
    assert [r.kind for r in result.repairs][:1] == ["python2"]
    assert result.repairs[0].evidence.text.startswith("print 'step")


def test_python_2_names_met_at_run_time_rebuild_the_environment_on_27(tmp_path: Path) -> None:
    # parses as Python 3; only a run shows `unicode`
    script = (
        "import oldpin\nname = unicode('loss')\n"
        "for step in range(2):\n    print('step %d %s %.2f' % (step, name, 0.5))\n"
    )
    result = _smoke_on_27(tmp_path, script)
    assert result.outcome == "ok", result.evidence
    assert result.python.startswith("2.7")
    moved = [r for r in result.repairs if r.kind == "python2"]
    assert len(moved) == 1 and "unicode" in moved[0].evidence.text


def _old_syntax_smoke(tmp_path: Path):  # type: ignore[no-untyped-def]
    """A project whose one dependency is valid only on Python 3.6, smoked with a newer
    interpreter first and 3.6 second."""
    import glob
    import os

    old = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.6.*/bin/python")))
    new = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/3.[89].*/bin/python")))
    if not old or not new:
        pytest.skip("needs Python 3.6 and 3.8 or 3.9 under ~/.pyenv/versions")
    index = tmp_path / "index"
    # `async` is a keyword from Python 3.7 on: this library imports on 3.6 only.
    build_wheel(index, "asynclib", "1.0", {"asynclib.py": "def run(async=True):\n    return 1\n"})
    script = "import asynclib\nprint('step 1 loss %.2f' % (0.5 * asynclib.run()))\n"
    checkout = _project(tmp_path / "repo", index, ["asynclib==1.0"], script)
    options = _options(tmp_path)
    options = SmokeOptions(out_dir=options.out_dir, timeout=60, env=options.env,
                           pythons=(new[-1], old[-1]))  # fmt: skip
    return smoke(_target(checkout), options)


def test_a_dependency_in_old_syntax_moves_to_an_older_interpreter(tmp_path: Path) -> None:
    result = _old_syntax_smoke(tmp_path)
    assert result.outcome == "ok", result.evidence
    assert result.python.startswith("3.6")
    moved = [r for r in result.repairs if r.kind == "interpreter"]
    assert moved and "is not valid Python 3." in moved[0].reason
    assert "SyntaxError" in moved[0].evidence.text


def test_a_build_that_imports_an_undeclared_module_gets_it_at_build_time(tmp_path: Path) -> None:
    from repair_index import NEEDY_BACKEND

    index = tmp_path / "index"
    build_failing_sdist(index, "needy", "1.0", NEEDY_BACKEND, "buildhelper")
    build_wheel(index, "buildhelper", "1.0", {"buildhelper.py": ""})
    script = "import needy\nprint('step 1 loss 0.25', needy.BUILT)\n"
    checkout = _project(tmp_path / "repo", index, ["needy==1.0"], script)
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", result.evidence
    build = [r for r in result.repairs if r.kind == "build"]
    assert [(r.before, r.after) for r in build] == [("needy", "buildhelper at build time")]
    assert "imports buildhelper without declaring it" in build[0].reason


def test_a_build_that_needs_use_2to3_gets_setuptools_before_58(tmp_path: Path) -> None:
    from repair_index import NEEDY_BACKEND

    index = tmp_path / "index"
    build_failing_sdist(index, "oldbuild", "1.0", NEEDY_BACKEND, "setuptools", '"setuptools"')
    # Stand-ins for setuptools 58 (which dropped use_2to3) and 57.5 (which still had it).
    refusal = "raise SystemExit('error in oldbuild setup command: use_2to3 is invalid.')\n"
    build_wheel(index, "setuptools", "58.0.0", {"setuptools/__init__.py": refusal})
    build_wheel(index, "setuptools", "57.5.0", {"setuptools/__init__.py": ""})
    script = "import oldbuild\nprint('step 1 loss 0.25', oldbuild.BUILT)\n"
    checkout = _project(tmp_path / "repo", index, ["oldbuild==1.0"], script)
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", result.evidence
    build = [r for r in result.repairs if r.kind == "build"]
    assert [(r.before, r.after) for r in build] == [("oldbuild", "setuptools<58 at build time")]
    assert "use_2to3" in build[0].reason


def test_a_module_imported_by_name_at_run_time_is_installed_and_the_run_repeated(
    tmp_path: Path, index: Path
) -> None:
    script = "import importlib\nimportlib.import_module('helper' + 'pkg')\n" + train()
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1"], script)
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    runtime = [r for r in result.repairs if r.evidence.rule == "repair.import.runtime"]
    assert [(r.kind, r.before, r.after) for r in runtime] == [
        ("import", "import helperpkg", "helperpkg")
    ]
    assert runtime[0].evidence.path == "train.log" and "helperpkg" in runtime[0].evidence.text
    assert result.lock is not None and "helperpkg" in Path(result.lock).read_text()


def test_a_feature_the_interpreter_removed_rebuilds_on_an_older_one(
    tmp_path: Path, index: Path
) -> None:
    newer, older = (sorted(glob.glob(os.path.expanduser(f"~/.pyenv/versions/{v}.*/bin/python")))
                    for v in ("3.11", "3.10"))  # fmt: skip
    if not newer or not older:
        pytest.skip("needs a Python 3.11 and a 3.10 under ~/.pyenv/versions")
    # Python 3.11 refuses an unhashable dataclass default that 3.10 accepted.
    script = ("from dataclasses import dataclass\n\n\n@dataclass\nclass Inner:\n"
              "    x: int = 1\n\n\n@dataclass\nclass Outer:\n    inner: Inner = Inner()\n\n\n"
              ) + train()  # fmt: skip
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1"], script)
    options = replace(_options(tmp_path), pythons=(newer[-1], older[-1]))
    result = smoke(_target(checkout), options)
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    assert result.python.startswith("3.10")
    moved = [r for r in result.repairs if r.evidence.rule == "repair.interpreter.runtime"]
    assert len(moved) == 1 and moved[0].before.startswith("Python 3.11")
    assert "dataclass" in moved[0].reason and moved[0].evidence.path == "train.log"


def test_a_sub_projects_command_runs_in_its_folder_with_its_own_imports(
    tmp_path: Path, index: Path
) -> None:
    from miner.select.evidence import EntryPoint

    script = ("import os\nimport sys\n"
              "sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))\n"
              "from src.cfg import settings\n"
              "assert open('configs/det.yml').read() == 'lr: 0.1\\n'\n") + train()  # fmt: skip
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1"], "print('not this one')\n")
    files = {"det/tools/train.py": script, "det/configs/det.yml": "lr: 0.1\n",
             "det/src/__init__.py": "",
             "det/src/cfg.py": "import yaml\nsettings = 1\n"}  # fmt: skip
    for rel, text in files.items():
        (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
        (checkout / rel).write_text(text, encoding="utf-8")
    entry = EntryPoint("det/tools/train.py", ("-c", "configs/det.yml"), "readme_command", (),
                       folder="det")  # fmt: skip
    target = replace(_target(checkout), command=entry.command(), entry_script=entry.script)
    result = smoke(target, _options(tmp_path))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    # The closure followed `src` from the sub-project's folder: its `yaml` was installed.
    assert ("import yaml", "PyYAML") in [(r.before, r.after) for r in result.repairs]


def test_code_that_meets_an_api_numpy_2_removed_gets_numpy_below_2(tmp_path: Path) -> None:
    index = tmp_path / "index"
    index.mkdir()
    build_wheel(index, "tinyfit", "0.1", {"tinyfit/__init__.py": TINYFIT})
    for version in ("1.26.4", "2.0.0"):
        build_wheel(index, "numpy", version, {"numpy/__init__.py": f"__version__ = {version!r}\n"})
    script = ("import numpy\nif numpy.__version__.startswith('2'):\n    raise AttributeError("
              "'`np.float_` was removed in the NumPy 2.0 release. Use `np.float64` instead.')\n"
              ) + train()  # fmt: skip
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1", "numpy"], script)
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    bound = [r for r in result.repairs if r.evidence.rule == "repair.numpy2.runtime"]
    assert [(r.kind, r.after) for r in bound] == [("pin", "numpy<2")]
    assert "numpy==1.26.4" in Path(str(result.lock)).read_text()


def test_a_version_check_written_as_strings_bounds_the_framework_below_its_10_release(
    tmp_path: Path,
) -> None:
    index = tmp_path / "index"
    index.mkdir()
    build_wheel(index, "tinyfit", "0.1", {"tinyfit/__init__.py": TINYFIT})
    for version in ("1.9.0", "1.15.0"):
        build_wheel(index, "tfkit", version, {"tfkit/__init__.py": f"__version__ = {version!r}\n"})
    script = ('import tfkit as tf\nassert "1.4" <= tf.__version__, "Need tfkit r1.4 or Later."\n'
              ) + train()  # fmt: skip
    # an exact pin of the release the check rejects gives way to the bound
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1", "tfkit==1.15.0"], script)
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    bound = [r for r in result.repairs if r.evidence.rule == "repair.version_check.runtime"]
    assert [(r.kind, r.after) for r in bound] == [("pin", "tfkit<1.10")]
    assert "tfkit==1.9.0" in Path(str(result.lock)).read_text()


def test_a_python_2_install_prefers_an_older_wheel_to_a_newer_sdist(tmp_path: Path) -> None:
    from miner.select.sandbox import Finished

    ran: list[list[str]] = []

    class Recording(Builder):
        def _run(self, argv: list[str], timeout: float) -> Finished:
            ran.append(argv)
            return Finished(0, False, 0.0)

    builder = Recording(tmp_path / "env", tmp_path, tmp_path / "install.log", {}, 60.0,
                        python2=True)  # fmt: skip
    builder.install(["tensorflow==1.12.0"])
    assert "--prefer-binary" in ran[0] and ran[0][1:4] == ["-m", "pip", "install"]


@pytest.mark.parametrize(
    ("name", "script"),
    [
        ("layered", "from layered.models.helpers import trunc\n"),  # a module gone in 1.0
        ("renamed", "from renamed.api import old_fn\n"),  # a name gone in 1.0
    ],
)
def test_a_part_an_unpinned_package_no_longer_has_moves_it_to_the_release_line_before(
    tmp_path: Path, index: Path, name: str, script: str
) -> None:
    old = ({f"{name}/__init__.py": "", f"{name}/models/__init__.py": "",
            f"{name}/models/helpers.py": "def trunc(x):\n    return x\n",
            f"{name}/api.py": "def old_fn():\n    return 1\n"})  # fmt: skip
    new = {f"{name}/__init__.py": "", f"{name}/models/__init__.py": "",
           f"{name}/api.py": "def new_fn():\n    return 1\n"}  # fmt: skip
    build_wheel(index, name, "0.9.2", old)
    build_wheel(index, name, "1.0.1", new)
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1", name], script + train())
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    [older] = [r for r in result.repairs if r.kind == "older"]
    assert (older.before, older.after) == (f"{name}==1.0.1", f"{name}<1")
    assert older.evidence.path == "train.log" and older.evidence.rule == "repair.older.runtime"
    assert result.lock is not None and f"{name}==0.9.2" in Path(result.lock).read_text()
    # Pinned by the project: left as it is (the fault lies elsewhere).
    pinned = _project(tmp_path / "pinned", index, ["tinyfit==0.1", f"{name}==1.0.1"],
                      script + train())  # fmt: skip
    kept = smoke(_target(pinned), _options(tmp_path / "p"))
    assert kept.outcome == "import" and not [r for r in kept.repairs if r.kind == "older"]


FRAME = """class Frame:
    def __getattr__(self, name):
        if name in {names!r}:
            return 1
        return object.__getattribute__(self, name)
"""


def test_a_method_an_unpinned_package_removed_steps_back_until_it_is_there(
    tmp_path: Path, index: Path
) -> None:
    # `DataFrame.ix`, which pandas 1.0 removed: the object's own `__getattr__` raises it, so the
    # package is known; 1.1 and 1.0 both lack it, 0.9 has it.
    build_wheel(index, "frames", "0.9.0", {"frames/__init__.py": FRAME.format(names={"ix"})})
    for version in ("1.0.0", "1.1.0"):
        build_wheel(index, "frames", version, {"frames/__init__.py": FRAME.format(names=set())})
    script = "import frames\nassert frames.Frame().ix == 1\n" + train()
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1", "frames"], script)
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    steps = [(r.before, r.after) for r in result.repairs if r.kind == "older"]
    assert steps == [("frames==1.1.0", "frames<1.1"), ("frames==1.0.0", "frames<1")]
    assert "Frame.ix of frames" in result.repairs[-1].reason
    assert result.lock is not None and "frames==0.9.0" in Path(result.lock).read_text()


SIGNATURE_DRIFT = [
    # `LRScheduler(..., step=...)` from gluoncv: today's release renamed the keyword
    ("schedlib", "utils",
     "class LRScheduler:\n    def __init__(self, mode, step=()):\n        self.step = step\n",
     "class LRScheduler:\n    def __init__(self, mode, steps=()):\n        self.steps = steps\n",
     "from schedlib.utils import LRScheduler\n\nscheduler = LRScheduler(mode='step',\n"
     "                        step=[30, 60])\n", "LRScheduler(step=)"),
    # torch's schedulers lost `verbose`: k-diffusion's subclass still passes it positionally
    ("schedpos", "lr",
     "class LRScheduler:\n    def __init__(self, optimizer, last_epoch=-1, verbose=False):\n"
     "        self.optimizer = optimizer\n",
     "class LRScheduler:\n    def __init__(self, optimizer, last_epoch=-1):\n"
     "        self.optimizer = optimizer\n",
     "from schedpos import lr\n\n\nclass Warmup(lr.LRScheduler):\n"
     "    def __init__(self, optimizer, last_epoch=-1, verbose=False):\n"
     "        super().__init__(optimizer, last_epoch, verbose)\n\n\nscheduler = Warmup('opt')\n",
     "LRScheduler(...) with more positional arguments"),
]  # fmt: skip


@pytest.mark.parametrize(("name", "module", "old", "new", "script", "said"), SIGNATURE_DRIFT)
def test_an_argument_an_unpinned_package_no_longer_takes_moves_it_back(
    tmp_path: Path, index: Path, name: str, module: str, old: str, new: str, script: str,
    said: str,
) -> None:  # fmt: skip
    for version, text in (("0.9.0", old), ("1.0.0", new)):
        build_wheel(index, name, version, {f"{name}/__init__.py": "", f"{name}/{module}.py": text})
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1", name], script + train())
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    [older] = [r for r in result.repairs if r.kind == "older"]
    assert (older.before, older.after) == (f"{name}==1.0.0", f"{name}<1")
    assert said in older.reason


def test_a_run_that_hangs_after_the_error_is_repaired_too(tmp_path: Path, index: Path) -> None:
    # a data loader's worker dies on the error and the main process waits for it: a timeout
    build_wheel(index, "tables", "0.9.0", {"tables/__init__.py": FRAME.format(names={"ix"})})
    build_wheel(index, "tables", "1.0.0", {"tables/__init__.py": FRAME.format(names=set())})
    worker = ("import threading, time\nimport tables\n\n\ndef load():\n    tables.Frame().ix\n\n\n"
              "threading.Thread(target=load, daemon=True).start()\ntime.sleep(1)\n"
              "if threading.active_count() == 1 and not hasattr(tables.Frame(), 'ix'):\n"
              "    time.sleep(600)\n")  # fmt: skip
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1", "tables"], worker + train())
    result = smoke(_target(checkout), replace(_options(tmp_path), timeout=8))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    assert [(r.before, r.after) for r in result.repairs if r.kind == "older"] == [
        ("tables==1.0.0", "tables<1")
    ]


def test_a_dependency_too_new_for_the_pinned_framework_moves_to_the_release_line_before(
    tmp_path: Path,
) -> None:
    # `local_attention` 1.9 imports `torch.amp`, which the pinned torch 1.9 lacks: the importer
    # moves, not the framework the project pinned.
    index = tmp_path / "index"
    build_index(index)
    build_wheel(index, "framework", "1.0.0", {"framework/__init__.py": "",
                                              "framework/nn.py": "LAYER = 1\n"})  # fmt: skip
    amp = "def autocast():\n    pass\n"
    build_wheel(index, "framework", "2.0.0", {"framework/__init__.py": "",
                                              "framework/amp.py": amp})  # fmt: skip
    build_wheel(
        index, "attention", "1.4.0", {"attention/__init__.py": "from framework import nn\n"}
    )
    rotary = "from framework.amp import autocast\nspin = 1\n"
    build_wheel(index, "attention", "1.9.0",
                {"attention/__init__.py": "from attention.rotary import spin\n",
                 "attention/rotary.py": rotary})  # fmt: skip
    script = "import attention\n" + train()
    checkout = _project(tmp_path / "repo", index,
                        ["tinyfit==0.1", "framework==1.0.0", "attention"], script)  # fmt: skip
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    [older] = [r for r in result.repairs if r.kind == "older"]
    assert (older.before, older.after) == ("attention==1.9.0", "attention<1.9")
    assert "framework.amp" in older.reason and "pinned" in older.reason
    assert result.lock is not None and "attention==1.4.0" in Path(result.lock).read_text()


SLOW_BACKEND = """import time


def get_requires_for_build_wheel(config_settings=None):
    return []


def build_wheel(wheel_directory, config_settings=None, metadata_directory=None):
    time.sleep(600)  # a C++ extension compiled from source
    raise RuntimeError("never gets here")
"""


def test_a_sdist_still_building_when_the_install_bound_ends_gives_way_to_a_wheel(
    tmp_path: Path,
) -> None:
    index = build_index(tmp_path / "index")  # its own: the releases of an index are read once
    build_wheel(index, "slowext", "0.4.30", {"slowext.py": "FAST = True\n"})
    build_failing_sdist(index, "slowext", "0.4.36", backend=SLOW_BACKEND)
    script = "import slowext\nassert slowext.FAST\n" + train()
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1", "slowext"], script)
    # long enough to resolve and start the build on a loaded machine, far short of the build
    options = replace(_options(tmp_path), install_timeout=60)
    result = smoke(_target(checkout), options)
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    [wheel] = [r for r in result.repairs if r.kind == "wheel"]
    assert (wheel.before, wheel.after) == ("slowext", "slowext==0.4.30")
    assert wheel.evidence.rule == "repair.failure.slow_build"
    assert "Building slowext==0.4.36" in wheel.evidence.text


def test_a_module_a_python_2_run_asks_for_is_bounded_by_the_commit_date(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from miner.audit.closure import ImportClosure
    from miner.codebook import Evidence
    from miner.select.repair import runtime
    from miner.select.repair.attempt import EnvironmentBuild
    from miner.select.sandbox import Finished

    installed: list[list[str]] = []
    missing = {"lmdb"}

    def install(self: Builder, lines: list[str], *args: object) -> Finished:
        installed.append(lines)
        missing.clear()
        return Finished(0, False, 0.0)

    monkeypatch.setattr(Builder, "install", install)
    monkeypatch.setattr(Builder, "probe", lambda self, names, mode="find": {
        n: "missing" for n in names if n in missing})  # fmt: skip
    monkeypatch.setattr(runtime, "distribution_on_index", lambda *a: ("lmdb", "its own name"))
    asked: list[tuple[str, str]] = []

    def newest(source: object, date: str, name: str) -> str:
        asked.append((date, name))
        return "0.98"

    monkeypatch.setattr(runtime, "newest_release", newest)
    closure = ImportClosure((), ())
    built = EnvironmentBuild(None, 1.0, "python2.7", (), ("numpy<=1.16.6",), closure,
                             python2=True, as_of="2019-01-01T00:00:00Z")  # fmt: skip
    fault = runtime.RuntimeFault("module", Evidence("train.log", 6, "No module named lmdb", ""),
                                 module="lmdb")  # fmt: skip
    rebuilt = runtime.install_module(built, fault, tmp_path / "env", tmp_path,
                                     tmp_path / "install.log", {}, 60.0)  # fmt: skip
    assert asked == [("2019-01-01T00:00:00Z", "lmdb")]
    assert installed == [["numpy<=1.16.6", "lmdb<=0.98"]]
    assert rebuilt is not None and rebuilt.lines[-1] == "lmdb<=0.98"


@pytest.mark.parametrize(
    "script",
    [
        "import ruamel.yaml as yaml\n",  # seen in the entry point's imports
        "import importlib\nyaml = importlib.import_module('ruamel.yaml')\n",  # only at run time
    ],
)
def test_a_namespace_packages_part_installs_as_the_distribution_of_its_own_name(
    tmp_path: Path, script: str
) -> None:
    index = build_index(tmp_path / "index")  # its own: listings of an index are cached
    # `ruamel` alone maps to ruamel.base, which has the namespace and not the part.
    build_wheel(index, "ruamel.base", "1.0.0", {"ruamel/__init__.py": ""})
    for minor in range(10, 22):  # a project of its own, with a history
        build_wheel(
            index, "ruamel.yaml", f"0.17.{minor}", {"ruamel/yaml/__init__.py": "LOAD = 1\n"}
        )
    # `sklearn.preprocessing` on an index is a placeholder, not scikit-learn's part
    build_wheel(index, "sklearn.preprocessing", "0.0.1", {"skp/__init__.py": ""})
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1"],
                        script + "assert yaml.LOAD == 1\n" + train())  # fmt: skip
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    imported = [r for r in result.repairs if r.kind == "import"]
    assert [r.after for r in imported] == ["ruamel.yaml"], [r.summary for r in imported]


def test_no_other_interpreter_is_tried_once_the_install_has_used_its_time(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from miner.select.repair import engine

    monkeypatch.setattr(engine, "INTERPRETER_BUDGET", 0)  # any time at all is past the bound
    result = _old_syntax_smoke(tmp_path)
    assert result.outcome != "ok" and not result.python.startswith("3.6")
    assert not [r for r in result.repairs if r.kind == "interpreter"]
    log = (tmp_path / "smoke" / "lab__repairs" / "install.log").read_text()
    assert "no other interpreter is tried" in log


def test_a_pinned_release_whose_metadata_does_not_parse_installs_without_its_dependency_list(
    tmp_path: Path, index: Path
) -> None:
    # pandas 0.20.3 lists `pytz (>=2011k)`, which uv cannot parse: the pin is kept, installed
    # by itself, and what it imports is installed as the import check finds it missing.
    wheels = tmp_path / "wheels"
    build_wheel(wheels, "tzlib", "1.0", {"tzlib/__init__.py": "UTC = 0\n"})
    build_wheel(wheels, "oldframes", "0.20.3", {"oldframes/__init__.py": "import tzlib\n"},
                requires=("tzlib (>=2011k)",))  # fmt: skip
    build_wheel(wheels, "oldframes", "0.25.0", {"oldframes/__init__.py": "import tzlib\n"},
                requires=("tzlib",))  # fmt: skip
    # and a pin of the rest that fails too: its failure, not the set-aside one, is repaired
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1", "oldframes==0.20.3",
                        "absentlib==1.0", f"--find-links {wheels}"],
                        "import oldframes\n" + train())  # fmt: skip
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    metadata = [(r.before, r.after) for r in result.repairs if r.kind == "metadata"]
    assert metadata == [("oldframes==0.20.3", "oldframes==0.20.3 without its dependency list")]
    assert [r.before for r in result.repairs if r.kind == "drop"] == ["absentlib==1.0"]
    assert result.lock is not None
    locked = Path(result.lock).read_text()
    assert "oldframes==0.20.3" in locked and "tzlib==1.0" in locked
    cached = glob.glob(str(tmp_path / "uv-cache/**/oldframes-0.20.3.dist-info/METADATA"),
                       recursive=True)  # fmt: skip
    assert cached and all("(>=2011k)" in Path(c).read_text() for c in cached)  # cache untouched


def test_an_undeclared_import_that_did_not_install_is_not_built_again_after_the_run(
    tmp_path: Path,
) -> None:
    index = build_index(tmp_path / "index")
    build_failing_sdist(index, "sparsekit", "0.6.18")  # an extension that never builds here
    script = "import sparsekit\n" + train()
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1"], script)
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "import", result.evidence
    log = (Path(result.log_dir) / "install.log").read_text(encoding="utf-8")
    # built once while the environment was made, not again by the repair after the run
    assert log.count("Building sparsekit==0.6.18") == 1, log


def test_an_undeclared_import_whose_distribution_has_no_build_here_takes_one_that_has(
    tmp_path: Path,
) -> None:
    from miner.select.repair.imports import pigar_candidates

    if "rdkit-pypi" not in pigar_candidates("rdkit"):
        pytest.skip("pigar's database is not installed")
    index = build_index(tmp_path / "index")
    # `rdkit` has wheels for a newer CPython only (and no sdist); `rdkit-pypi` has pure ones
    for minor in range(12):  # the longer history: the import's namesake is the first choice
        newer = build_wheel(tmp_path / "newer", "rdkit", f"2022.{minor}.1", {"rdkit/A.py": ""})
        newer.rename(index / f"rdkit-2022.{minor}.1-cp399-cp399-manylinux2014_x86_64.whl")
    for minor in range(10):
        build_wheel(index, "rdkit_pypi", f"2021.{minor}.1", {"rdkit/__init__.py": "A = 1\n"})
    script = "import rdkit\nassert rdkit.A == 1\n" + train()
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1"], script)
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome.startswith("ok"), result.evidence
    [added] = [r for r in result.repairs if r.kind == "import" and r.before == "import rdkit"]
    assert added.after.startswith("rdkit-pypi") or added.after.startswith("rdkit_pypi")
    assert "rdkit has no build for Python" in added.reason


def test_a_binding_that_finds_no_system_library_gets_the_release_whose_wheels_bundle_it(
    tmp_path: Path,
) -> None:
    index = tmp_path / "index"
    index.mkdir()
    build_wheel(index, "tinyfit", "0.1", {"tinyfit/__init__.py": TINYFIT})
    # soundfile before 0.12.1 looks for libsndfile on the system, which this machine lacks
    build_wheel(index, "soundfile", "0.10.3",
                {"soundfile.py": "raise OSError('sndfile library not found')\n"})  # fmt: skip
    build_wheel(index, "soundfile", "0.12.1", {"soundfile.py": "read = len\n"})
    script = "import soundfile\n" + train()
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1", "soundfile==0.10.3"], script)
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "ok", (result.evidence, [r.summary for r in result.repairs])
    [bound] = [r for r in result.repairs if r.evidence.rule == "repair.bundled.runtime"]
    assert (bound.kind, bound.after) == ("pin", "soundfile>=0.12.1")
    assert "libsndfile" in bound.reason
    locked = Path(str(result.lock)).read_text()
    assert "soundfile==0.12.1" in locked and "soundfile==0.10.3" not in locked


def test_a_failed_run_of_a_project_requiring_what_only_python_2_installs_rebuilds_on_27(
    tmp_path: Path,
) -> None:
    # `from selsearch import search` in selsearch/__init__.py: Python 2's implicit relative
    # import finds selsearch/selsearch.py; Python 3's absolute import finds the package itself
    package = {"selsearch/__init__.py": "from selsearch import search\n",
               "selsearch/selsearch.py": "def search():\n    return 0.5\n"}  # fmt: skip
    loop = "for step in range(2):\n    print('step %d loss %.2f' % (step, search()))\n"
    script = "import oldpin\nfrom selsearch import search\n" + loop
    requirements = ("oldpin==1.2.0", "selsearch==0.1", "functools32==3.2.3.post2")
    result = _smoke_on_27(tmp_path, script, {"selsearch-0.1": package}, requirements)
    assert result.outcome == "ok", result.evidence
    assert result.python.startswith("2.7")
    [moved] = [r for r in result.repairs if r.kind == "python2"]
    assert moved.evidence.rule == "smoke.python2.requirement"
    assert "functools32" in moved.evidence.text
    # code that does not compile on Python 2 stays on Python 3, whatever its requirements say
    (tmp_path / "py3").mkdir()
    py3 = "name = 'x'\nprint(f'{name}')\n" + script
    kept = _smoke_on_27(tmp_path / "py3", py3, {"selsearch-0.1": package}, requirements)
    assert kept.outcome == "import" and not kept.python.startswith("2.7")


def test_a_requirement_dropped_for_its_failed_build_is_not_built_again_for_a_dependency(
    tmp_path: Path,
) -> None:
    index = build_index(tmp_path / "index")
    build_failing_sdist(index, "sparsekit", "0.6.18")  # an extension that never builds here
    build_wheel(index, "geokit", "1.6.3", {"geokit/__init__.py": "import sparsekit\n"})
    script = "import geokit\n" + train()  # the entry point imports sparsekit only through geokit
    checkout = _project(tmp_path / "repo", index, ["tinyfit==0.1", "geokit==1.6.3",
                                                   "sparsekit==0.6.18"], script)  # fmt: skip
    result = smoke(_target(checkout), _options(tmp_path))
    assert result.outcome == "import", result.evidence
    assert [r.before for r in result.repairs if r.kind == "drop"] == ["sparsekit==0.6.18"]
    log = (Path(result.log_dir) / "install.log").read_text(encoding="utf-8")
    # built once, dropped; not built again when geokit's import asks for it
    assert log.count("Building sparsekit==0.6.18") == 1, log


def test_tabs_and_spaces_mixed_as_python_2_read_them_rebuild_on_27(tmp_path: Path) -> None:
    # eight spaces, then a tab: the same column to Python 2, a TabError to Python 3
    script = ("import oldpin\n\ndef loss(step):\n        value = 0.5 / (step + 1)\n"
              "\treturn value\n\nfor step in range(2):\n"
              "    print('step %d loss %.2f' % (step, loss(step)))\n")  # fmt: skip
    result = _smoke_on_27(tmp_path, script)
    assert result.outcome == "ok", result.evidence
    assert result.python.startswith("2.7")
    [moved] = [r for r in result.repairs if r.kind == "python2"]
    assert "TabError" in moved.evidence.text
