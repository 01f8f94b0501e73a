"""The commands a project installs: console scripts declared in its packaging metadata.

A package's README trains through the command its installation puts on the PATH
(`mace_run_train --name=MACE_model --train_file=train.xyz`, `nnUNetv2_train 2 3d_fullres 0`,
`litgpt finetune ...`), not through a script path. The packaging metadata says which function
that command calls: `[project.scripts]` in `pyproject.toml`, `console_scripts` under
`[options.entry_points]` in `setup.cfg`, or `entry_points={"console_scripts": [...]}` in
`setup.py` (read with `ast`, never run). A smoke run calls that function with the README's
arguments, from the checkout, so the project need not be installed first.
"""

from __future__ import annotations

import ast
import configparser
import re
from collections.abc import Callable

import tomllib

Reader = Callable[[str], "str | None"]
# `name = package.module:function` (an extra in brackets after it is ignored).
SPEC = re.compile(r"^\s*([\w.-]+)\s*=\s*([\w.]+)\s*:\s*([\w.]+)\s*(?:\[[^\]]*\])?\s*$")


def console_scripts(read: Reader) -> dict[str, str]:
    """Command name -> `module:function` for the console scripts the root's packaging declares."""
    found: dict[str, str] = {}
    found.update(_setup_py(read("setup.py") or ""))
    found.update(_setup_cfg(read("setup.cfg") or ""))
    found.update(_pyproject(read("pyproject.toml") or ""))
    return found


def _parsed(lines: list[str]) -> dict[str, str]:
    out = {}
    for line in lines:
        match = SPEC.match(line)
        if match:
            out[match.group(1)] = f"{match.group(2)}:{match.group(3)}"
    return out


def _pyproject(text: str) -> dict[str, str]:
    try:
        document = tomllib.loads(text)
    except (tomllib.TOMLDecodeError, ValueError):
        return {}
    table = (document.get("project") or {}).get("scripts") or {}
    poetry = ((document.get("tool") or {}).get("poetry") or {}).get("scripts") or {}
    items = {**poetry, **table}
    return _parsed([f"{k} = {v}" for k, v in items.items() if isinstance(v, str)])


def _setup_cfg(text: str) -> dict[str, str]:
    parser = configparser.ConfigParser(interpolation=None)
    try:
        parser.read_string(text)
        value = parser.get("options.entry_points", "console_scripts", fallback="")
    except configparser.Error:
        return {}
    return _parsed(value.splitlines())


def _setup_py(text: str) -> dict[str, str]:
    try:
        tree = ast.parse(text)
    except (SyntaxError, ValueError):
        return {}
    lines: list[str] = []
    for node in ast.walk(tree):
        if not isinstance(node, ast.Dict):
            continue
        for key, value in zip(node.keys, node.values, strict=True):
            if not (isinstance(key, ast.Constant) and key.value == "console_scripts"):
                continue
            if isinstance(value, ast.List | ast.Tuple):
                lines += [e.value for e in value.elts
                          if isinstance(e, ast.Constant) and isinstance(e.value, str)]  # fmt: skip
            elif isinstance(value, ast.Constant) and isinstance(value.value, str):
                lines += value.value.splitlines()
    return _parsed(lines)


def module_file(target: str, paths: frozenset[str]) -> str | None:
    """The checkout's file of a `module:function` target (`mace.cli.run_train:main` ->
    `mace/cli/run_train.py`, or a `src/` layout's), None when the module is not the checkout's."""
    module = target.partition(":")[0].replace(".", "/")
    for candidate in (f"{module}.py", f"{module}/__init__.py", f"src/{module}.py",
                      f"src/{module}/__init__.py"):  # fmt: skip
        if candidate in paths:
            return candidate
    return None


def call_code(target: str, name: str) -> str:
    """The `python -c` program that runs a console script's function as its command would."""
    module, _, function = target.partition(":")
    head, _, rest = function.partition(".")
    attribute = f".{rest}" if rest else ""
    return (
        f"import sys; sys.argv[0] = {name!r}; from {module} import {head}; "
        f"sys.exit({head}{attribute}())"
    )
