"""The command-line options a script declares, read with `ast` (the script is never run).

argparse's `add_argument('--batch-size', type=int, default=64)`, click's `option(...)` and absl's
`flags.DEFINE_integer('batch_size', 64, ...)` all say the same things: how the option is spelt,
its default, its type and action, its help. A smoke run reads them to pass a script its own CPU
switch (miner.select.cpu_options) and a small batch (miner.select.batches).
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

PARSER_CALLS = ("add_argument", "option")  # argparse, click


@dataclass(frozen=True)
class DeclaredOption:
    """One option as declared: its spellings (`-b`, `--batch-size`), where, and its keywords."""

    spellings: tuple[str, ...]
    line: int
    absl: bool  # `flags.DEFINE_*('name', default, help)`: passed as `--name=value`
    define: str  # the absl definition (`DEFINE_integer`), "" for argparse and click
    default: ast.expr | None
    action: object = None
    kind: ast.expr | None = None  # the `type=` keyword
    help: str = ""

    @property
    def longest(self) -> str:
        """The spelling a command is given (`--batch-size` rather than `-b`)."""
        return max(self.spellings, key=len)

    def names(self) -> set[str]:
        """The long spellings without dashes, `-` read as `_`, lower case (`batch_size`); the
        longest short one where there is no long one."""
        long = {option_name(s) for s in self.spellings if s.startswith("--")}
        return long or {option_name(self.longest)}


def option_name(option: str) -> str:
    """`--Batch-Size` -> `batch_size`."""
    return option.lstrip("-").replace("-", "_").lower()


def constant(node: ast.expr | None) -> object:
    """The value of a literal (`64`, `"cuda"`, `True`), else None."""
    return node.value if isinstance(node, ast.Constant) else None


def _keyword(node: ast.Call, name: str) -> ast.expr | None:
    return next((k.value for k in node.keywords if k.arg == name), None)


def _declared(node: ast.Call) -> DeclaredOption | None:
    attr = node.func.attr  # type: ignore[attr-defined]
    strings = [a.value for a in node.args
               if isinstance(a, ast.Constant) and isinstance(a.value, str)]  # fmt: skip
    help_text = str(constant(_keyword(node, "help")) or "")
    if attr in PARSER_CALLS:
        spellings = tuple(s for s in strings if s.startswith("-"))
        if not spellings:
            return None
        return DeclaredOption(
            spellings, node.lineno, False, "", _keyword(node, "default"),
            constant(_keyword(node, "action")), _keyword(node, "type"), help_text,
        )  # fmt: skip
    named = bool(node.args) and bool(strings) and strings[0] == constant(node.args[0])
    if attr.startswith("DEFINE_") and named:
        default = node.args[1] if len(node.args) > 1 else _keyword(node, "default")
        return DeclaredOption((f"--{strings[0]}",), node.lineno, True, attr, default)
    return None


def declared_options(source: str) -> tuple[DeclaredOption, ...]:
    """Every option the source's argparse, click or absl parser declares, in the order of the
    lines; () where it does not parse (Python 2 code)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return ()
    calls = sorted((n for n in ast.walk(tree) if isinstance(n, ast.Call)
                    and isinstance(n.func, ast.Attribute)), key=lambda n: n.lineno)  # fmt: skip
    return tuple(o for o in map(_declared, calls) if o is not None)
