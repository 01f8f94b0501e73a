"""The entry point's import closure, read with `ast` (never run): local modules are followed, and
what is left are the top-level names the environment must provide.

Local modules are looked up beside the importing file, at the checkout's root and under `src/`,
the places the smoke run puts on the path. A file that does not parse as Python 3 but does once
its `print` statements and `except X, e` clauses are read as Python 2 marks a Python 2 project.
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from pathlib import Path

from miner.codebook import Evidence

MAX_FILES = 400
# Standard modules of Python 2 that Python 3 renamed or removed (its "What's New in 3.0").
PYTHON2_MODULES = frozenset({
    "cPickle", "cStringIO", "StringIO", "urllib2", "urlparse", "httplib", "HTMLParser", "Queue",
    "ConfigParser", "Tkinter", "tkMessageBox", "tkFileDialog", "commands", "__builtin__",
    "cookielib", "SocketServer", "thread", "copy_reg", "anydbm", "xmlrpclib", "SimpleHTTPServer",
    "BaseHTTPServer", "Cookie", "htmlentitydefs", "robotparser", "UserDict", "UserList",
    "UserString", "exceptions", "sets", "md5", "sha",
})  # fmt: skip
CD = re.compile(r"^cd\s+'?([^'&;]+?)'?\s*&&")
SH_PYTHON = re.compile(r"([\w./-]+\.py)\b")
# `python3 -u -m pkg.train` in a shell script: the module it runs.
SH_MODULE = re.compile(r"\bpython[\d.]*(?:\s+-[A-Za-z]+)*\s+-m\s+([A-Za-z_][\w.]*)")
# Python 2 only: a print or exec statement, `except E, e:`, `raise E, msg`, backticks, `<>`,
# `ur''` strings. Looked for only in a file that does not parse as Python 3.
PY2_HINTS = re.compile(
    r"^\s*(?:print\s+[^\s(=.,)][^=\n]*$|print\s*$|exec\s+['\"]|except\s+[\w.]+\s*,\s*\w+\s*:"
    r"|raise\s+\w+\s*,)|`[^`\n]+`|<>|\bur['\"]",
    re.M,
)


@dataclass(frozen=True)
class ImportClosure:
    """External top-level imports of the entry point (each with where it is imported), the local
    files read, and the first Python 2 line found."""

    imports: tuple[tuple[str, Evidence], ...]
    files: tuple[str, ...]
    python2: Evidence | None = None

    @property
    def names(self) -> tuple[str, ...]:
        """The external top-level names, in order of first import."""
        return tuple(name for name, _ in self.imports)

    def needs(self, module: str) -> bool:
        """True when the closure imports `module` (a top-level name)."""
        return module in self.names


def stdlib_names() -> frozenset[str]:
    """Top-level modules of the standard library (this interpreter's and pipreqs' list, which
    keeps the Python 2 names)."""
    from importlib import resources

    names = set(sys.stdlib_module_names)
    try:
        names |= set(resources.files("pipreqs").joinpath("stdlib").read_text().split())
    except (ModuleNotFoundError, FileNotFoundError):
        pass
    return frozenset(names)


def entry_scripts(command: tuple[str, ...], root: Path) -> list[Path]:
    """The Python files a training command runs: `x.py` arguments, `-m pkg.mod` modules, and
    the Python files a shell script it runs names."""
    found: list[Path] = []
    words = list(command)
    base = root  # `sh -c 'cd DIR && exec "$@"' sh ...`: the paths after it are DIR's
    for i, word in enumerate(words):
        moved = CD.match(word)
        if moved and (root / moved.group(1)).is_dir():
            base = root / moved.group(1)
            continue
        for part in word.split():
            part = part.strip("'\"").removeprefix("./")
            if part.endswith(".py") and (base / part).is_file():
                found.append(base / part)
            elif part.endswith(".sh") and (base / part).is_file():
                found += _named_by(root, base / part)
            elif part and "." not in Path(part).name and _python_program(base / part):
                found.append(base / part)  # `./train`: a Python file with no suffix
        if word == "-m" and i + 1 < len(words):
            module = _module_file(base, words[i + 1].split("."))
            if module is not None:
                found.append(module)
    return list(dict.fromkeys(found))


def runs_python(first_line: str) -> bool:
    """True for a first line that runs the file with Python (`#!/usr/bin/python3`)."""
    return first_line.startswith("#!") and "python" in first_line


def _python_program(path: Path) -> bool:
    """A file whose first line runs Python."""
    if not path.is_file():
        return False
    with path.open("rb") as fh:
        return runs_python(fh.readline(200).decode("utf-8", "replace"))


def _named_by(root: Path, script: Path) -> list[Path]:
    """The Python files a shell script names, beside it or from the checkout's root."""
    text = script.read_text(encoding="utf-8", errors="replace")
    found = []
    for name in SH_PYTHON.findall(text):
        for candidate in (script.parent / name.removeprefix("./"), root / name.removeprefix("./")):
            if candidate.is_file() and candidate not in found:
                found.append(candidate)
    for module in SH_MODULE.findall(text):
        for base in (script.parent, root):
            target = _module_file(base, module.split("."))
            if target is not None and target not in found:
                found.append(target)
    return found


def import_closure(root: Path, scripts: list[Path]) -> ImportClosure:
    """Walk the imports of `scripts` under `root`, following local modules."""
    stdlib = stdlib_names()
    external: dict[str, Evidence] = {}
    seen: list[Path] = []
    queue = [p.resolve() for p in scripts]
    python2: Evidence | None = None
    root = root.resolve()
    added: list[Path] = []  # folders the code puts on sys.path, for every file after
    while queue and len(seen) < MAX_FILES:
        path = queue.pop(0)
        if path in seen or not path.is_file():
            continue
        seen.append(path)
        rel = path.relative_to(root).as_posix() if path.is_relative_to(root) else path.name
        text = path.read_text(encoding="utf-8", errors="replace")
        try:
            tree = ast.parse(text)
        except SyntaxError as exc:
            line = _python2_line(text) if python2 is None else 0
            if line:
                python2 = Evidence(rel, line, _line(text, line), "repair.python2")
            tree = _parse_lines(text, exc)
        # An import under a `try`, its `except ImportError:` fallback or an `if` (`if
        # sys.version_info[0] == 3: ... else: import urllib2`) is one branch of code written
        # for both.
        guarded = {id(n) for t in ast.walk(tree) if isinstance(t, ast.Try | ast.If)
                   for part in (*t.body, *t.orelse, *getattr(t, "handlers", ()))
                   for n in ast.walk(part)}  # fmt: skip
        added += [f for f in _path_additions(tree, path, root) if f not in added]
        for node in ast.walk(tree):
            for module, level, names in _imports(node):
                local = _local(root, path, module, level, names, added)
                if local:
                    queue += [p for p in local if p not in seen]
                    continue
                top = module.split(".")[0]
                if (
                    python2 is None
                    and not level
                    and top in PYTHON2_MODULES
                    and (id(node) not in guarded)
                ):  # `import cPickle` outside a try: Python 2 code in valid Python 3 syntax
                    line = getattr(node, "lineno", 0)
                    python2 = Evidence(rel, line, _line(text, line), "repair.python2.import")
                if (level or not top or top in stdlib or top in PYTHON2_MODULES
                        or top == "__future__" or top in external):  # fmt: skip
                    continue
                line = getattr(node, "lineno", 0)
                external[top] = Evidence(rel, line, _line(text, line), "repair.import")
    return ImportClosure(
        tuple(external.items()), tuple(p.relative_to(root).as_posix() for p in seen
                                       if p.is_relative_to(root)), python2)  # fmt: skip


def local_imports(root: Path, files: list[str]) -> dict[str, frozenset[str]]:
    """For each Python file (a path relative to `root`), the checkout files its imports resolve
    to: the edges of the project's own import graph, each file parsed once."""
    root = root.resolve()
    graph: dict[str, frozenset[str]] = {}
    for rel in files[: MAX_FILES * 5]:
        path = root / rel
        try:
            text = path.read_text(encoding="utf-8", errors="replace")
        except OSError:
            continue
        try:
            tree = ast.parse(text)
        except SyntaxError as exc:
            tree = _parse_lines(text, exc)
        edges = {
            found.relative_to(root).as_posix()
            for node in ast.walk(tree)
            for module, level, names in _imports(node)
            for found in _local(root, path, module, level, names)
            if found.is_file() and found.is_relative_to(root)
        }
        graph[rel] = frozenset(edges)
    return graph


def _python2_line(text: str) -> int:
    """The first line of Python 2 syntax (comments left out), 0 when there is none."""
    for no, line in enumerate(text.splitlines(), start=1):
        if PY2_HINTS.search(line.split("#", 1)[0]):
            return no
    return 0


def _line(text: str, line: int) -> str:
    lines = text.splitlines()
    return lines[line - 1].strip()[:160] if 0 < line <= len(lines) else ""


def _parse_lines(text: str, _: SyntaxError) -> ast.Module:
    """The import statements of a file that does not parse as a whole (Python 2 code)."""
    body: list[ast.stmt] = []
    for no, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped.startswith(("import ", "from ")):
            try:
                parsed = ast.parse(stripped)
            except SyntaxError:
                continue
            for stmt in parsed.body:
                ast.increment_lineno(stmt, no - 1)
                body.append(stmt)
    return ast.Module(body=body, type_ignores=[])


def _imports(node: ast.AST) -> list[tuple[str, int, tuple[str, ...]]]:
    if isinstance(node, ast.Import):
        return [(alias.name, 0, ()) for alias in node.names]
    if isinstance(node, ast.ImportFrom):
        return [(node.module or "", node.level, tuple(a.name for a in node.names))]
    return []


def _module_file(base: Path, parts: list[str]) -> Path | None:
    target = base.joinpath(*parts)
    for candidate in (target.with_suffix(".py"), target / "__init__.py"):
        if candidate.is_file():
            return candidate
    return None


def _path_additions(tree: ast.Module, path: Path, root: Path) -> list[Path]:
    """The checkout folders a file puts on `sys.path` (`sys.path.append(os.path.join(ROOT_DIR,
    'utils'))`): the last string of the call's argument, from the file's folder, a folder above
    it or the root, wherever that folder exists."""
    found: list[Path] = []
    for node in ast.walk(tree):
        if not (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                and node.func.attr in ("append", "insert") and node.args
                and ast.unparse(node.func.value) == "sys.path"):  # fmt: skip
            continue
        strings = [n.value for n in ast.walk(node.args[-1])
                   if isinstance(n, ast.Constant) and isinstance(n.value, str)]  # fmt: skip
        tail = strings[-1].strip("/") if strings else ""
        if tail in ("", "."):
            continue
        above = [f for f in path.parent.parents if f.is_relative_to(root)]
        for base in (path.parent, *above):
            folder = (base / tail).resolve()
            if folder.is_dir() and folder.is_relative_to(root):
                found.append(folder)
                break
    return found


def _local(
    root: Path, path: Path, module: str, level: int, names: tuple[str, ...],
    added: list[Path] | None = None,
) -> list[Path]:  # fmt: skip
    """The checkout files an import resolves to (empty when it is not local); `added` are the
    folders the code put on sys.path."""
    parts = [p for p in module.split(".") if p]
    if level:
        base = path.parent
        for _ in range(level - 1):
            base = base.parent
        bases = [base]
    else:
        # The script's folder and each folder above it (`sys.path.insert(0, "..")` is common),
        # then the root and its src/.
        above = [f for f in path.parent.parents if f.is_relative_to(root) and f != root]
        bases = [path.parent, *above, root, root / "src", *(added or ())]
    for base in bases:
        if not parts:
            found = [f for n in names if (f := _module_file(base, [n])) is not None]
            if found or (base / "__init__.py").is_file():
                return found or [base / "__init__.py"]
            continue
        found_module = _module_file(base, parts)
        folder = base.joinpath(*parts)
        if found_module is None and folder.is_dir():  # a namespace package: its named modules
            found = [f for n in names if (f := _module_file(folder, [n])) is not None]
            return found or [folder]
        if found_module is not None:
            extra = [f for n in names if (f := _module_file(found_module.parent, [n])) is not None]
            return [found_module, *extra]
    return []
