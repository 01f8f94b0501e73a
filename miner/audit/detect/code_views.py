"""Views of a source file that tell its code apart from its comments and string literals.

A file that only talks about deep learning (a docstring naming `tf.nn.conv2d`, commented-out
`import torch`, a test holding code snippets in strings) must not count as deep-learning code. So
the detectors read views of each file in which comments and string literals are blanked: every
blanked character becomes a space and every newline stays, so line numbers are those of the
original file and evidence still quotes the original line.

- `code`: comments and all string literals blanked (columns kept too); code signals and Python
  imports are read here.
- `strings`: only the string literals that are data (not docstrings or other strings standing
  alone as a statement), the rest blanked. A few signals live in data strings by nature: a shell
  command run from Python (`"caffe train --solver ..."`, `wget`), `os.environ["KERAS_BACKEND"] =
  "theano"`, a checkpoint path (`"model.pth"`). Made on first use, as most files never need it.
- `imports`: comments blanked, strings kept, for languages whose imports name a string
  (`require 'nn'`, `#include "caffe/net.hpp"`, `import * as tf from "@tensorflow/tfjs"`).

Each language is lexed by one regular expression whose leftmost match is a comment or a string;
because a `#` inside a string and a quote inside a comment are consumed by the match that starts
first, this is exact for valid source: on the 1,700 Python files of the development corpus and
22,600 files of a Python installation, the `code` and `strings` views equal those built from the
stdlib `tokenize` module (string prefixes such as `r` and `f` aside, which stay as code). The
`tokenize` module itself is not used: it is about eight times slower (slower than the whole
signal scan) and raises on broken sources. The regular expressions read Python 2 as well and fail
softly on broken code: an unterminated quote blanks nothing, an unterminated block comment or
triple-quoted string runs to the end of the text (as a truncated file needs). Not handled:
JavaScript regular-expression literals, C++ raw strings and `#if 0` blocks (read as code).
"""

from __future__ import annotations

import re
from functools import cached_property


def _string(quote: str) -> str:
    """A one-line string literal in `quote`; a backslash escapes anything, a newline too."""
    q = re.escape(quote)
    return rf"{q}[^{q}\\\n]*(?:\\.[^{q}\\\n]*)*{q}"


def _triple(quote: str) -> str:
    """A triple-quoted Python string, running to the end of the text when unterminated."""
    q = re.escape(quote)
    return rf"{q}{{3}}[^{q}\\]*(?:(?:\\.|{q}(?!{q}{q}))[^{q}\\]*)*(?:{q}{{3}}|\Z)"


# Groups: `c` a comment, `s` a string literal. A string's prefix (r, b, u, f, Python 2's ur) is
# left as code: a one- or two-letter name is no signal, and matching it would make the lexer a
# third slower. The leading lookahead lets the regex engine skip other characters quickly.
PYTHON = re.compile(
    rf"""(?=[#"'])(?:(?P<c>\#[^\n]*)|(?P<s>{_triple('"')}|{_triple("'")}|{_string('"')}|"""
    rf"""{_string("'")}))""",
    re.S,
)
PREFIX_LETTERS = frozenset("rRbBuUfF")
HEADERS = ("def ", "class ", "async def ")
STRING_PREFIX = re.compile(r"(?<!\w)[rRbBuUfF]{1,2}$")
C_LIKE = re.compile(
    rf"""(?=[/"'])(?:(?P<c>//[^\n]*|/\*.*?(?:\*/|\Z))|(?P<s>{_string('"')}|{_string("'")}))""",
    re.S,
)
JAVASCRIPT = re.compile(
    rf"""(?=[/"'`])(?:(?P<c>//[^\n]*|/\*.*?(?:\*/|\Z))|(?P<s>{_string('"')}|{_string("'")}|"""
    r"""`[^`\\]*(?:\\.[^`\\]*)*`))""",
    re.S,
)
# Lua long brackets: `--[==[ ... ]==]` comments and `[[ ... ]]` strings of any level.
LUA = re.compile(
    r"""(?=[-\["'])(?:(?P<c>--\[(?P<ce>=*)\[.*?(?:\](?P=ce)\]|\Z)|--[^\n]*)|"""
    rf"""(?P<s>\[(?P<se>=*)\[.*?(?:\](?P=se)\]|\Z)|{_string('"')}|{_string("'")}))""",
    re.S,
)
LEXERS: dict[str, re.Pattern[str]] = {
    "python": PYTHON,
    "lua": LUA,
    "c": C_LIKE,
    "cpp": C_LIKE,
    "objc": C_LIKE,
    "header": C_LIKE,
    "java": C_LIKE,
    "javascript": JAVASCRIPT,
    "typescript": JAVASCRIPT,
}


def blank(text: str) -> str:
    """`text` with every character but newlines replaced by a space (same length and layout)."""
    if "\n" not in text:
        return " " * len(text)
    return "\n".join(" " * len(part) for part in text.split("\n"))


def _gap(text: str) -> str:
    """Blank standing in for `text` that keeps the line and column of what follows it (cheaper
    than `blank`: the lines inside are left empty)."""
    newlines = text.count("\n")
    if not newlines:
        return " " * len(text)
    return "\n" * newlines + " " * (len(text) - text.rfind("\n") - 1)


def _bracket_depth(code: str) -> int:
    """Brackets `code` opens minus those it closes."""
    opened = code.count("(") + code.count("[") + code.count("{")
    return opened - code.count(")") - code.count("]") - code.count("}")


def _bare_statement(text: str, start: int, end: int) -> bool:
    """True when the Python string literal at text[start:end] stands alone on its line(s), as a
    docstring or a string used as a comment does (the caller checks it is outside brackets)."""
    line_start = text.rfind("\n", 0, start) + 1
    head = text[line_start:start].strip()
    if head[-1:] in PREFIX_LETTERS:  # r"""doc""": the prefix is part of the literal
        head = STRING_PREFIX.sub("", head).rstrip()
    # `def f(): "doc"` and `x = 1; "doc"` count; `lambda: "text"` and `x: "T" = 1` do not
    if head and not (head.endswith(";") or head.endswith(":") and head.startswith(HEADERS)):
        return False
    previous_end = text[max(0, line_start - 3) : max(0, line_start - 1)].rstrip("\r")
    if not head and previous_end.endswith("\\"):
        return False  # continues the previous line: `x = \` then the string
    line_end = text.find("\n", end)
    tail = text[end : len(text) if line_end < 0 else line_end].lstrip()
    return not tail or tail.startswith(("#", ";"))


class CodeViews:
    """A source text's code, data-string and import views, each with the text's line layout."""

    def __init__(
        self,
        text: str,
        code: str,
        imports: str,
        literals: list[tuple[int, int]],
        python: bool,
        hinted: bool = False,
    ) -> None:
        self.text = text
        self.code = code
        self.imports = imports
        self.literals = literals  # (start, end) of every string literal, in order
        self.python = python
        self.hinted = hinted  # a string literal holds the hint code_views was given

    @cached_property
    def strings(self) -> str:
        """The data strings of the text, everything else blanked; empty when there are none."""
        parts: list[str] = []
        done = counted = depth = 0
        for start, end in self.literals:
            if self.python and _bare_statement(self.text, start, end):
                # a docstring stands outside brackets: count those the code opened so far
                depth = max(0, depth + _bracket_depth(self.code[counted:start]))
                counted = start
                if depth == 0:
                    continue
            parts.append(_gap(self.text[done:start]))
            parts.append(self.text[start:end])
            done = end
        return "".join(parts) + _gap(self.text[done:]) if parts else ""


def code_views(lang: str, text: str, hint: re.Pattern[str] | None = None) -> CodeViews | None:
    """The views of `text` written in `lang`; None when the language is not lexed (its file is
    then read whole). `views.hinted` says whether a string literal contains `hint`."""
    lexer = LEXERS.get(lang)
    if lexer is None:
        return None
    literals: list[tuple[int, int]] = []
    hinted = False

    def blank_match(match: re.Match[str]) -> str:
        nonlocal hinted
        literal = match.group()
        if match.group("c") is None:
            literals.append(match.span())
            hinted = hinted or (hint is not None and hint.search(literal) is not None)
        return blank(literal)

    code = lexer.sub(blank_match, text)
    python = lang == "python"
    imports = code if python else _restore(code, text, literals)
    return CodeViews(text, code, imports, literals, python, hinted)


def _restore(code: str, text: str, spans: list[tuple[int, int]]) -> str:
    """`code` with the spans of `text` put back (both have the same length)."""
    parts: list[str] = []
    done = 0
    for start, end in spans:
        parts.append(code[done:start])
        parts.append(text[start:end])
        done = end
    parts.append(code[done:])
    return "".join(parts)
