"""Import statements of source files: Python, Lua, C/C++, JavaScript, Java, Julia and R.

Python imports are found line by line and each statement is then parsed with `ast` on its own,
falling back to a regular expression when `ast` rejects it. Parsing statements rather than whole
files keeps the scan fast and works on Python 2 sources (`print x`, `except E, e:`), which many
deep-learning repositories of 2016-2019 still are. Imports are read from the file's code only
(miner.audit.detect.code_views): an `import torch` in a docstring, a comment or a string holding
a code snippet is not an import. The statement quoted as evidence is the original source line.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from miner.audit.detect.code_views import CodeViews, code_views


@dataclass(frozen=True)
class Import:
    """One imported module (dotted name, without aliases) and where it is imported."""

    module: str
    line: int
    text: str


# TensorFlow Probability used through one substrate (JAX or NumPy), which needs no TensorFlow.
TFP_SUBSTRATE = re.compile(r"\bsubstrates\.(jax|numpy)\b")
PY_IMPORT_START = re.compile(r"^[ \t]*(?:from[ \t]+\.*[\w.]*[ \t]+import\b|import[ \t]+\w)", re.M)
PY_FROM = re.compile(r"^\s*from\s+(\.*[\w.]*)\s+import\s+\(?\s*([\w\s,.*]*)")
PY_IMPORT = re.compile(r"^\s*import\s+([\w\s,.]+)")
LUA_REQUIRE = re.compile(r"""\brequire\s*\(?\s*['"]([\w.\-/]+)['"]""")
C_INCLUDE = re.compile(r"""^[ \t]*#[ \t]*(?:include|import)[ \t]*[<"]([^>"\n]+)[>"]""", re.M)
JS_IMPORT = re.compile(
    r"""(?:\bimport\s+(?:[\w*{}\s,]+\s+from\s+)?|\brequire\s*\(\s*|\bimport\s*\(\s*)"""
    r"""['"]([@\w./\-]+)['"]"""
)
JAVA_IMPORT = re.compile(r"^[ \t]*import[ \t]+(?:static[ \t]+)?([\w.]+)", re.M)
JULIA_USING = re.compile(r"^[ \t]*(?:using|import)[ \t]+([\w., :]+)", re.M)
R_LIBRARY = re.compile(r"""\b(?:library|require|requireNamespace)\s*\(\s*['"]?([\w.]+)""")
MAX_STATEMENT_LINES = 40


def _line_of(text: str, pos: int) -> int:
    return text.count("\n", 0, pos) + 1


def _statement(text: str, start: int) -> tuple[str, int]:
    """The import statement starting at `start`: continued over brackets and backslashes."""
    end = text.find("\n", start)
    end = len(text) if end < 0 else end
    stmt = text[start:end]
    lines = 1
    while lines < MAX_STATEMENT_LINES and end < len(text):
        code = stmt.split("#", 1)[0].rstrip()
        if not (code.endswith("\\") or stmt.count("(") > stmt.count(")")):
            break
        nxt = text.find("\n", end + 1)
        nxt = len(text) if nxt < 0 else nxt
        stmt += "\n" + text[end + 1 : nxt]
        end = nxt
        lines += 1
    return stmt, end


def _modules_ast(stmt: str) -> list[str] | None:
    try:
        tree = ast.parse(stmt.strip())
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    found: list[str] = []
    for node in tree.body:
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = "." * node.level + (node.module or "")
            found.append(base)
            found.extend(f"{base}.{a.name}" for a in node.names if a.name != "*" and base)
    return found


def _modules_regex(stmt: str) -> list[str]:
    flat = " ".join(part.split("#", 1)[0] for part in stmt.replace("\\\n", " ").splitlines())
    m = PY_FROM.match(flat)
    if m:
        base = m.group(1)
        names = [n.split()[0] for n in m.group(2).replace(")", "").split(",") if n.split()]
        return [base] + [f"{base}.{n}" for n in names if n != "*" and base]
    m = PY_IMPORT.match(flat)
    if m:
        return [p.split()[0] for p in m.group(1).split(",") if p.split()]
    return []


def python_imports(text: str, code: str | None = None) -> list[Import]:
    """Modules imported by Python source `text` (top-level or nested), in order. `code` is the
    text's code view (comments and strings blanked), made here when not given."""
    if code is None:
        views = code_views("python", text)
        code = views.code if views else text
    found: list[Import] = []
    line, counted = 1, 0
    for match in PY_IMPORT_START.finditer(code):
        stmt, _ = _statement(code, match.start())
        line += code.count("\n", counted, match.start())  # incremental: linear in the text
        counted = match.start()
        # The code view keeps the layout, so the statement's first line is found in `text`.
        end = text.find("\n", match.start())
        first = text[match.start() : len(text) if end < 0 else end].strip()
        # `import a; import b`: parse each statement on its own.
        for part in stmt.split(";"):
            if not part.strip():
                continue
            modules = _modules_ast(part)
            if modules is None:
                modules = _modules_regex(part)
            found.extend(Import(m, line, first[:200]) for m in modules if m.strip("."))
    substrate = TFP_SUBSTRATE.search(code)
    if substrate:  # `import tensorflow_probability`, then `tfp = ....substrates.jax`
        backed = f"tensorflow_probability.substrates.{substrate.group(1)}"
        found = [Import(backed, i.line, i.text) if i.module == "tensorflow_probability" else i
                 for i in found]  # fmt: skip
    return found


def _simple(pattern: re.Pattern[str], text: str, raw: str | None = None) -> list[Import]:
    """Imports `pattern` finds in `text`; evidence quotes the same line of `raw` (the original
    source, when `text` is a view of it with the same layout)."""
    raw = text if raw is None else raw
    out = []
    for match in pattern.finditer(text):
        line = _line_of(text, match.start())
        start = raw.rfind("\n", 0, match.start()) + 1
        end = raw.find("\n", match.end())
        snippet = raw[start : len(raw) if end < 0 else end].strip()
        for name in re.split(r"[,\s]+", match.group(1).strip()):
            name = name.rstrip(":")
            if name:
                out.append(Import(name, line, snippet[:200]))
    return out


def _view(lang: str, text: str, views: CodeViews | None) -> str:
    """The text imports are read from: comments blanked, strings kept (they name modules)."""
    views = views or code_views(lang, text)
    return views.imports if views else text


def lua_requires(text: str, views: CodeViews | None = None) -> list[Import]:
    """Modules a Lua file `require`s (not in comments)."""
    return _simple(LUA_REQUIRE, _view("lua", text, views), text)


def c_includes(text: str, views: CodeViews | None = None) -> list[Import]:
    """Headers a C, C++, CUDA or Objective-C file includes (not in comments)."""
    return _simple(C_INCLUDE, _view("c", text, views), text)


def js_imports(text: str, views: CodeViews | None = None) -> list[Import]:
    """Packages a JavaScript or TypeScript file imports or requires (not in comments)."""
    return _simple(JS_IMPORT, _view("javascript", text, views), text)


def imports_for(lang: str, text: str, views: CodeViews | None = None) -> list[Import]:
    """Imports of a file written in `lang` (a language name as in the codebook). `views` are the
    text's code views (miner.audit.detect.code_views) when already made."""
    if lang == "python":
        return python_imports(text, views.code if views else None)
    if lang == "lua":
        return lua_requires(text, views)
    if lang in ("c", "cpp", "objc"):
        return c_includes(text, views)
    if lang in ("javascript", "typescript"):
        return js_imports(text, views)
    if lang == "java":
        return _simple(JAVA_IMPORT, _view("java", text, views), text)
    if lang == "julia":
        return _simple(JULIA_USING, text)
    if lang == "r":
        return _simple(R_LIBRARY, text)
    return []
