"""Stage S0 of a smoke run, read statically: does the entry point exist, and does its import
closure (the script and the local modules it imports, followed transitively) parse?

Python 2 code is recognised here, before anything is installed: a `print` statement, an
`except E, e:` clause, a backtick or `<>`, or an `exec` statement where Python 3 cannot parse the
file. Third-party imports are listed (not judged): the environment step installs them.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from miner.codebook import Evidence

MAX_FILES = 300
PY2_LINE = re.compile(
    r"^\s*(?:print\s+[^\s(=.,)][^=]*$|print\s*$|exec\s+['\"]|except\s+[\w.]+\s*,\s*\w+\s*:"
    r"|raise\s+\w+\s*,)|`[^`]+`|<>"
)
SH_PYTHON = re.compile(r"([\w./-]+\.py)\b")
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


def _local(root: Path, folders: list[Path], module: str) -> Path | None:
    parts = module.split(".")
    for folder in folders:
        base = folder.joinpath(*parts)
        for candidate in (base.with_suffix(".py"), base / "__init__.py"):
            if candidate.is_file() and candidate.resolve().is_relative_to(root):
                return candidate
    return None


def _imports(tree: ast.Module, path: Path) -> list[tuple[str, Path | None]]:
    """(module, folder for relative imports or None) of every import in the file."""
    found: list[tuple[str, Path | None]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found += [(alias.name, None) for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                folder = path.parent
                for _ in range(node.level - 1):
                    folder = folder.parent
                base = node.module or ""
                found.append((base, folder) if base else ("", folder))
                found += [(f"{base}.{a.name}".strip("."), folder) for a in node.names]
            elif node.module:
                found.append((node.module, None))
                found += [(f"{node.module}.{a.name}", None) for a in node.names]
    return found


def _python2(text: str, path: str) -> Evidence | None:
    for no, line in enumerate(text.splitlines(), start=1):
        if PY2_LINE.search(line.split("#", 1)[0]):
            return Evidence(path, no, " ".join(line.split())[:300], "smoke.python2.syntax")
    return None


def script_in_command(command: tuple[str, ...]) -> str | None:
    """The checkout's script a run command starts: `x.py`, `x.sh`, or `-m pkg.mod` as its file."""
    for index, word in enumerate(command):
        if word == "-m" and index + 1 < len(command):
            return command[index + 1].replace(".", "/") + ".py"
        if word.endswith((".py", ".sh")) and not word.startswith("{"):
            return word.removeprefix("./")
    return None


def entry_scripts(root: Path, script: str) -> list[Path]:
    """The Python files a command starts: the script itself, or those a shell script names."""
    path = root / script
    if not script.endswith(".sh"):
        return [path]
    text = path.read_text(encoding="utf-8", errors="replace")
    found = []
    for name in SH_PYTHON.findall(text):
        for candidate in (path.parent / name.removeprefix("./"), root / name.removeprefix("./")):
            if candidate.is_file() and candidate not in found:
                found.append(candidate)
    return found


def import_closure(root: Path, script: str | None) -> Closure:
    """S0 for the entry point `script` (a path in the copy at `root`)."""
    root = root.resolve()
    if not script or not (root / script).is_file():
        text = f"entry point {script} not in the checkout" if script else "no entry point found"
        return Closure(
            (), (), False, "no_entry", Evidence(script or "-", 0, text, "smoke.no_entry")
        )
    queue = entry_scripts(root, script)
    seen: set[Path] = set()
    third: set[str] = set()
    parses = False
    stdlib = set(getattr(sys, "stdlib_module_names", ()))
    while queue and len(seen) < MAX_FILES:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        rel = path.relative_to(root).as_posix()
        text = path.read_text(encoding="utf-8", errors="replace")
        parses = parses or bool(ARGPARSE.search(text))
        try:
            tree = ast.parse(text)
        except (SyntaxError, ValueError):
            py2 = _python2(text, rel)
            if py2 is not None:
                return Closure(tuple(sorted(p.relative_to(root).as_posix() for p in seen)),
                               tuple(sorted(third)), parses, "python2", py2)  # fmt: skip
            continue  # newer or older Python 3 syntax: the interpreter of the run decides
        folders = [path.parent, root, root / "src"]
        for module, relative in _imports(tree, path):
            found = _local(root, [relative] if relative else folders, module) if module else None
            if found is not None:
                queue.append(found)
            elif relative is None and module:
                top = module.split(".")[0]
                if top not in stdlib and _local(root, folders, top) is None:
                    third.add(top)
    files = tuple(sorted(p.relative_to(root).as_posix() for p in seen))
    return Closure(files, tuple(sorted(third)), parses)


def closure_note(closure: Closure) -> str:
    """One line saying what S0 read."""
    names = ", ".join(closure.third_party[:30]) or "none"
    first = PurePosixPath(closure.files[0]).name if closure.files else "-"
    return f"S0: {len(closure.files)} local file(s) from {first}; third-party imports: {names}"
