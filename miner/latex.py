"""LaTeX text: one escaper for every table miner writes (reports and agreement tables)."""

from __future__ import annotations

import re

_LATEX_SPECIAL = {
    "\\": r"\textbackslash{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "{": r"\{",
    "}": r"\}",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
    "<": r"\textless{}",
    ">": r"\textgreater{}",
}
_LATEX_RE = re.compile("|".join(re.escape(k) for k in _LATEX_SPECIAL))


def latex_escape(text: str) -> str:
    """Escape LaTeX's special characters so any label or keyword typesets as written."""
    return _LATEX_RE.sub(lambda m: _LATEX_SPECIAL[m.group(0)], text)
