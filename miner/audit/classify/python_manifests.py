"""Python dependency files: requirements*.txt, conda environments, setup.py (read with `ast`,
never run), setup.cfg, pyproject.toml (PEP 621 and Poetry), Pipfile, Pipfile.lock, poetry.lock.

Each parser returns the packages a file lists with their line numbers; a malformed file adds a
warning and yields what a line-based fallback can still read.
"""

from __future__ import annotations

import ast
import configparser
import os
import re
from collections.abc import Iterator
from pathlib import PurePosixPath
from typing import Any

from miner.audit.classify.dependency import Dependency, Reader, load_json
from miner.audit.classify.installs import requirement_line

REQ_INCLUDE = re.compile(r"^\s*(?:-r|--requirement|-c|--constraint)[\s=]*(\S+)")
REQ_FILE_NAME = re.compile(r"[\w./-]*requirement[\w./-]*\.(?:txt|in|pip)$", re.I)


def requirements(r: Reader, seen: set[str] | None = None) -> list[Dependency]:
    seen = (seen or set()) | {r.path}
    deps: list[Dependency] = []
    for n, raw in enumerate(r.lines, 1):
        include = REQ_INCLUDE.match(raw)
        if include:
            target = os.path.normpath(str(PurePosixPath(r.path).parent / include.group(1)))
            if target in r.tree.paths and target not in seen:
                deps.extend(requirements(Reader(r.tree, target, r.warnings), seen))
            continue
        for name, spec in requirement_line(raw):
            deps.append(r.dep(name, spec, n))
    return deps


def _conda_spec(item: str) -> tuple[str, str]:
    item = item.split("::")[-1].strip()
    m = re.match(r"([A-Za-z0-9_][\w.\-]*)\s*(.*)", item)
    return (m.group(1), m.group(2)) if m else (item, "")


def conda_env(r: Reader) -> list[Dependency]:
    import yaml

    try:
        data = yaml.safe_load(r.text)
    except yaml.YAMLError as exc:
        r.warn("malformed YAML, read line by line", exc)
        data = None
    deps: list[Dependency] = []
    if isinstance(data, dict) and isinstance(data.get("dependencies"), list):
        for item in data["dependencies"]:
            if isinstance(item, str):
                name, spec = _conda_spec(item)
                deps.append(r.dep(name, spec, r.line_of(item)))
            elif isinstance(item, dict):
                for pip_line in item.get("pip") or []:
                    for name, spec in requirement_line(str(pip_line)):
                        deps.append(r.dep(name, spec, r.line_of(str(pip_line))))
        return deps
    in_deps = False
    for n, line in enumerate(r.lines, 1):  # fallback for files YAML cannot read
        if re.match(r"^\s*dependencies\s*:", line):
            in_deps = True
        elif in_deps and (m := re.match(r"^\s*-\s+([A-Za-z0-9_][^\s#:]*)\s*$", line)):
            name, spec = _conda_spec(m.group(1))
            deps.append(r.dep(name, spec, n))
    return deps


def _string_items(node: ast.AST, env: dict[str, ast.AST], depth: int = 0) -> Iterator[ast.Constant]:
    """String constants a setup() argument evaluates to, following simple variables."""
    if depth > 5:
        return
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        yield node
    elif isinstance(node, ast.List | ast.Tuple | ast.Set):
        for elt in node.elts:
            yield from _string_items(elt, env, depth + 1)
    elif isinstance(node, ast.Dict):
        for value in node.values:
            yield from _string_items(value, env, depth + 1)
    elif isinstance(node, ast.BinOp):
        yield from _string_items(node.left, env, depth + 1)
        yield from _string_items(node.right, env, depth + 1)
    elif isinstance(node, ast.Name) and (node.id in env or f"{ITEMS_KEY}{node.id}" in env):
        if node.id in env:
            yield from _string_items(env[node.id], env, depth + 1)
        if f"{ITEMS_KEY}{node.id}" in env:  # `extras["torch"] = ...` after `extras = {}`
            yield from _string_items(env[f"{ITEMS_KEY}{node.id}"], env, depth + 1)
    elif isinstance(node, ast.Call):
        # `deps_list("torch", "numpy")`: a helper that looks names up in the requirement table
        for arg in node.args:
            if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                found = env.get(f"{TABLE_KEY}{arg.value.lower()}")
                if isinstance(found, ast.Constant):
                    yield found
    elif isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        # `deps["accelerate"]`: a look-up in a table built from the module's requirement list
        key = node.slice.value
        if isinstance(key, str):
            found = env.get(f"{TABLE_KEY}{key.lower()}")
            yield found if isinstance(found, ast.Constant) else node.slice


TABLE_KEY = "requirement:"  # env entries of a requirement string by its package name
ITEMS_KEY = "items:"  # env entries of the values assigned to a dict's keys, by the dict's name


def _requirement_table(module: ast.Module, env: dict[str, ast.AST]) -> None:
    """Add each requirement string of the module's lists to `env` by its package name, for
    setup scripts that pick their dependencies from a table (`install_requires = [deps["x"]]`)."""
    for node in ast.walk(module):
        if not isinstance(node, ast.List | ast.Tuple):
            continue
        for elt in node.elts:
            if isinstance(elt, ast.Constant) and isinstance(elt.value, str):
                for pkg, _spec in requirement_line(elt.value):
                    env.setdefault(f"{TABLE_KEY}{pkg.lower()}", elt)


SETUP_KEYS = ("install_requires", "requires", "extras_require", "setup_requires", "tests_require")


def setup_py(r: Reader) -> list[Dependency]:
    try:
        module = ast.parse(r.text)
    except (SyntaxError, ValueError):
        return _setup_py_fallback(r)  # Python 2 syntax is common in old projects
    env: dict[str, ast.AST] = {}
    for node in ast.walk(module):
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
            # a literal list stays the name's value when a later assignment computes from it
            # (`install_requires = [r for r in install_requires if ...]` under a condition)
            literal = isinstance(env.get(getattr(target, "id", "")), (ast.List, ast.Tuple))
            if isinstance(target, ast.Name) and not literal:
                env[target.id] = node.value
            if isinstance(target, ast.Subscript) and isinstance(target.value, ast.Name):
                assigned = env.setdefault(f"{ITEMS_KEY}{target.value.id}", ast.List(elts=[]))
                assert isinstance(assigned, ast.List)
                assigned.elts.append(node.value)
    if '["' in r.text or "['" in r.text:
        _requirement_table(module, env)
    deps: list[Dependency] = []
    reads_file = False
    for node in ast.walk(module):
        if not isinstance(node, ast.Call):
            continue
        func = node.func
        name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
        if name != "setup":
            continue
        for kw in node.keywords:
            value: ast.AST | None = kw.value
            if kw.arg is None and isinstance(value, ast.Name):  # setup(**config)
                value = env.get(value.id)
            pairs = _setup_keywords(kw.arg, value)
            for _key, arg in pairs:
                items = list(_string_items(arg, env))
                if not items and not isinstance(arg, ast.List | ast.Tuple | ast.Dict):
                    reads_file = True  # e.g. install_requires=read_requirements()
                for const in items:
                    for pkg, spec in requirement_line(str(const.value)):
                        deps.append(r.dep(pkg, spec, getattr(const, "lineno", 1)))
    if reads_file or not deps:
        strings = [str(c.value) for c in ast.walk(module) if isinstance(c, ast.Constant)]
        deps.extend(_files_named_in(r, strings))
    return deps


def _setup_keywords(arg: str | None, value: ast.AST | None) -> list[tuple[str, ast.AST]]:
    if value is None:
        return []
    if arg in SETUP_KEYS:
        return [(arg, value)]
    if arg is None and isinstance(value, ast.Dict):
        return [
            (k.value, v)
            for k, v in zip(value.keys, value.values, strict=False)
            if isinstance(k, ast.Constant) and k.value in SETUP_KEYS
        ]
    if arg is None and isinstance(value, ast.Call):  # setup(**dict(install_requires=...))
        return [(kw.arg, kw.value) for kw in value.keywords if kw.arg in SETUP_KEYS]
    return []


def _files_named_in(r: Reader, strings: list[str]) -> list[Dependency]:
    """Packages of requirement files that a setup script reads by name (and of an nbdev
    `settings.ini` it reads with ConfigParser)."""
    deps: list[Dependency] = []
    base = PurePosixPath(r.path).parent
    for s in dict.fromkeys(strings):
        target = os.path.normpath(str(base / s))
        if REQ_FILE_NAME.search(s) and target in r.tree.paths:
            deps.extend(requirements(Reader(r.tree, target, r.warnings)))
        elif s.endswith(".ini") and target in r.tree.paths and "ConfigParser" in r.text:
            deps.extend(settings_ini(Reader(r.tree, target, r.warnings)))
    return deps


# nbdev keeps a package's metadata in `settings.ini`; its setup.py passes these keys' values,
# split on whitespace, to `install_requires` (and `dev_requirements` to `extras_require`).
SETTINGS_KEYS = ("requirements", "pip_requirements", "dev_requirements")


def settings_ini(r: Reader) -> list[Dependency]:
    """The packages an nbdev `settings.ini` lists for the setup script that reads it."""
    parser = configparser.ConfigParser(interpolation=None, strict=False, delimiters=("=",))
    try:
        parser.read_string(r.text)
    except configparser.Error as exc:
        r.warn("malformed settings.ini", exc)
        return []
    deps = []
    for key in SETTINGS_KEYS:
        for item in parser.defaults().get(key, "").split():
            if item == "\\":
                continue  # a line continuation
            for pkg, spec in requirement_line(item):
                deps.append(r.dep(pkg, spec, r.line_of(item)))
    return deps


def _setup_py_fallback(r: Reader) -> list[Dependency]:
    deps: list[Dependency] = []
    for m in re.finditer(r"(?:install_)?requires\s*=\s*[\[(](.*?)[\])]", r.text, re.S):
        for q in re.finditer(r"['\"]([^'\"]+)['\"]", m.group(1)):
            line = r.text.count("\n", 0, m.start(1) + q.start()) + 1
            for pkg, spec in requirement_line(q.group(1)):
                deps.append(r.dep(pkg, spec, line))
    if not deps:
        deps.extend(_files_named_in(r, re.findall(r"['\"]([^'\"\n]+)['\"]", r.text)))
    return deps


def setup_cfg(r: Reader) -> list[Dependency]:
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    try:
        parser.read_string(r.text)
    except configparser.Error as exc:
        r.warn("malformed setup.cfg", exc)
        return []
    values: list[str] = []
    if parser.has_option("options", "install_requires"):
        values.append(parser.get("options", "install_requires"))
    if parser.has_section("options.extras_require"):
        values.extend(v for _, v in parser.items("options.extras_require"))
    deps = []
    for value in values:
        for item in value.splitlines():
            for pkg, spec in requirement_line(item):
                deps.append(r.dep(pkg, spec, r.line_of(item.strip())))
    return deps


def _toml(r: Reader) -> dict[str, Any] | None:
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        r.warn("TOML needs Python 3.11 or later; skipped")
        return None
    try:
        return tomllib.loads(r.text)
    except tomllib.TOMLDecodeError as exc:
        r.warn("malformed TOML", exc)
        return None


def toml_version(value: object) -> str:
    """The version of a Poetry or Pipfile entry: `"^1.13"`, `{version = "1.13"}`, or a list of
    such tables with markers (one per platform: the first one's); "" when it names none."""
    if isinstance(value, list):
        value = value[0] if value else ""
    if isinstance(value, dict):
        value = value.get("version", "")
    return value if isinstance(value, str) else ""


def _table_deps(r: Reader, table: Any) -> list[Dependency]:
    """Packages of a TOML table of name -> version (str, {version=...} or a list of those)."""
    deps = []
    if isinstance(table, dict):
        for name, value in table.items():
            spec = toml_version(value)
            deps.append(r.dep(str(name), "" if spec == "*" else spec, r.line_of(str(name))))
    return deps


def pyproject(r: Reader) -> tuple[list[Dependency], str]:
    data = _toml(r) or {}
    deps: list[Dependency] = []
    project: dict[str, Any] = data["project"] if isinstance(data.get("project"), dict) else {}
    optional = project.get("optional-dependencies") or {}
    tool = _table(data, "tool")
    # PEP 735 dependency groups, and the development lists of uv, PDM and Hatch environments
    groups = _flatten(data.get("dependency-groups"))
    uv_dev = _table(tool, "uv").get("dev-dependencies")
    groups += uv_dev if isinstance(uv_dev, list) else []
    groups += _flatten(_table(tool, "pdm").get("dev-dependencies"))
    for env in _table(_table(tool, "hatch"), "envs").values():
        extra = env.get("dependencies") if isinstance(env, dict) else None
        groups += extra if isinstance(extra, list) else []
    for item in [*(project.get("dependencies") or []), *_flatten(optional), *groups]:
        if not isinstance(item, str):
            continue  # {include-group = "test"}
        for pkg, spec in requirement_line(str(item)):
            deps.append(r.dep(pkg, spec, r.line_of(str(item))))
    poetry = tool.get("poetry")
    poetry_deps: list[Dependency] = []
    if isinstance(poetry, dict):
        tables = [poetry.get("dependencies"), poetry.get("dev-dependencies")]
        tables += [g.get("dependencies") for g in (poetry.get("group") or {}).values()]
        for table in tables:
            poetry_deps.extend(_table_deps(r, table))
    return deps + poetry_deps, ("poetry" if poetry_deps and not deps else "setup")


def _table(data: Any, key: str) -> dict[str, Any]:
    """The TOML table `key` of `data`, or an empty one when absent or not a table."""
    value = data.get(key) if isinstance(data, dict) else None
    return value if isinstance(value, dict) else {}


def _flatten(groups: Any) -> list[Any]:
    return [x for v in groups.values() for x in (v or [])] if isinstance(groups, dict) else []


def pipfile(r: Reader) -> list[Dependency]:
    data = _toml(r) or {}
    return _table_deps(r, data.get("packages")) + _table_deps(r, data.get("dev-packages"))


def pipfile_lock(r: Reader) -> list[Dependency]:
    data = load_json(r)
    deps = []
    if isinstance(data, dict):
        for section in ("default", "develop"):
            for name, info in (data.get(section) or {}).items():
                spec = info.get("version", "") if isinstance(info, dict) else ""
                deps.append(r.dep(name, spec, r.line_of(f'"{name}"')))
    return deps


def poetry_lock(r: Reader) -> list[Dependency]:
    data = _toml(r) or {}
    deps = []
    for pkg in data.get("package") or []:
        if isinstance(pkg, dict) and pkg.get("name"):
            name = str(pkg["name"])
            deps.append(r.dep(name, f"=={pkg.get('version', '')}", r.line_of(f'"{name}"')))
    return deps


# Base images that are themselves a framework (or CUDA) with the tag as its version.
