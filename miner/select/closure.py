"""Stage S0 of a smoke run, read statically: does the entry point exist, and does its import
closure (the script and the local modules it imports, followed transitively) parse?

Python 2 code is recognised here, before anything is installed: a `print` statement, an
`except E, e:` clause, a backtick or `<>`, or an `exec` statement where Python 3 cannot parse the
file. Third-party imports are listed (not judged): the environment step installs them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from miner.audit.closure import CD, entry_scripts
from miner.audit.closure import import_closure as walk_closure
from miner.codebook import Evidence

MAX_FILES = 300
ARGPARSE = re.compile(r"\bArgumentParser\(|\bargparse\b|\babsl\b|\btf\.(?:app\.)?flags\b|\bclick\b")


@dataclass(frozen=True)
class Closure:
    """What S0 found: the local files of the closure, the third-party names imported, and the
    reason it stops here, if any (`no_entry`, `python2`) with its evidence."""

    files: tuple[str, ...]
    third_party: tuple[str, ...]
    parses_arguments: bool
    outcome: str | None = None
    evidence: Evidence | None = None


def script_in_command(command: tuple[str, ...]) -> str | None:
    """The checkout's script a run command starts: `x.py`, `x.sh`, or `-m pkg.mod` as its file."""
    folder = ""  # `sh -c 'cd DIR && exec "$@"' sh ...`: the script is DIR's
    for index, word in enumerate(command):
        moved = CD.match(word)
        if moved:
            folder = moved.group(1).rstrip("/") + "/"
        elif word == "-m" and index + 1 < len(command):
            return folder + command[index + 1].replace(".", "/") + ".py"
        elif word.endswith((".py", ".sh")) and not word.startswith("{"):
            return folder + word.removeprefix("./")
    return None


def import_closure(root: Path, script: str | None) -> Closure:
    """S0 for the entry point `script` (a path in the copy at `root`): the one closure reader
    the environment repairs use, read for what S0 decides."""
    root = root.resolve()
    if not script or not (root / script).is_file():
        text = f"entry point {script} not in the checkout" if script else "no entry point found"
        return Closure(
            (), (), False, "no_entry", Evidence(script or "-", 0, text, "smoke.no_entry")
        )
    walked = walk_closure(root, entry_scripts((script,), root))
    parses = any(ARGPARSE.search((root / f).read_text(encoding="utf-8", errors="replace"))
                 for f in walked.files[:MAX_FILES])  # fmt: skip
    if walked.python2 is not None:
        py2 = walked.python2
        evidence = Evidence(py2.path, py2.line, py2.text, "smoke.python2.syntax")
        return Closure(walked.files, tuple(sorted(walked.names)), parses, "python2", evidence)
    return Closure(walked.files, tuple(sorted(walked.names)), parses)


def closure_note(closure: Closure) -> str:
    """One line saying what S0 read."""
    names = ", ".join(closure.third_party[:30]) or "none"
    first = PurePosixPath(closure.files[0]).name if closure.files else "-"
    return f"S0: {len(closure.files)} local file(s) from {first}; third-party imports: {names}"


def package_roots(root: Path, script: str | None, files: tuple[str, ...]) -> tuple[str, ...]:
    """Folders between the entry script and the checkout's root that hold a package the closure
    reads (`GOT-OCR-2.0-master/` holding `GOT/`, for `GOT-OCR-2.0-master/GOT/train/train.py`
    importing `GOT.model`): a nested project's root, which its README makes the working folder
    before it runs the script, and which Python puts on no path by itself."""
    if not script:
        return ()
    own = PurePosixPath(script).parent
    found: list[str] = installable_folders(root)
    for folder in own.parents:
        if str(folder) in ("", "."):
            break
        if (root / str(folder) / "__init__.py").is_file():
            continue  # a package (`dinov2/`): its `logging/` is `dinov2.logging`, no root's
        prefix = f"{folder}/"
        for path in files:
            if not path.startswith(prefix) or path.startswith(f"{own}/"):
                continue
            package = path[len(prefix) :].split("/", 1)[0]
            if (root / str(folder) / package / "__init__.py").is_file():
                found.append(str(folder))
                break
    return tuple(dict.fromkeys(found))


SETUP_FILES = ("setup.py", "pyproject.toml")


def installable_folders(root: Path) -> list[str]:
    """Folders of the checkout that hold a project of their own, installed by the README before
    anything runs (`cd torchlight; python setup.py install`): a `setup.py` beside a package of
    the folder's name (`torchlight/torchlight/__init__.py`). The folder goes on the path as the
    install would put the package there; from the checkout's root, `import torchlight` would
    find only the outer folder, a namespace package without the names."""
    found = []
    for folder in sorted(p for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")):
        inner = folder / folder.name.replace("-", "_")
        if any((folder / f).is_file() for f in SETUP_FILES) and (inner / "__init__.py").is_file():
            found.append(folder.name)
    return found
