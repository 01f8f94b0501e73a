"""A README's lines as a shell would read them: HTML's markup gone, the variables the README
assigned replaced by their values.

A command written in HTML (`<code>python3 network.py -train <i>dataset_path</i></code>`) loses
its markup, and a value set in italics or as a variable (`<i>`, `<em>`, `<var>`) becomes a
placeholder as `<path>` is. Shell variables a README assigns before its command
(`data_dir=data/ATIS_samples` on one line, `python run.py --data_dir $data_dir` a few lines on)
are its values.

Read as written, `$data_dir` is a placeholder, and a run gives it a stand-in path; the README
said which folder it meant (often one the repository ships). Each assignment on a line of its
own (`name=value`, `export NAME=value`, a comment after it) holds from there to the end of the
document, until assigned again; a value that runs a command (`$(...)`, backticks) is left out,
one made of other variables is expanded with them.
"""

from __future__ import annotations

import re
import shlex

ASSIGNMENT_LINE = re.compile(r"^\s*(?:export\s+)?([A-Za-z_]\w*)=(\S*.*)$")
REFERENCE = re.compile(r"\$(?:\{([A-Za-z_]\w*)\}|([A-Za-z_]\w*))")


class ShellVariables:
    """The variables assigned so far in one document."""

    def __init__(self) -> None:
        self.values: dict[str, str] = {}

    def observe(self, line: str) -> bool:
        """Record `line` when it is an assignment alone; whether it was one."""
        match = ASSIGNMENT_LINE.match(line.strip().strip("`").strip())
        if match is None:
            return False
        if re.match(r"""["']?(?:\$\(|`)""", match.group(2)):  # `STAMP=$(date +%s)`: a command's
            self.values.pop(match.group(1), None)
            return True
        try:
            words = shlex.split(match.group(2), comments=True)
        except ValueError:
            return False
        if len(words) > 1:
            return False  # `CUDA_VISIBLE_DEVICES=0 python train.py`: a command's environment
        value = words[0] if words else ""
        self.values[match.group(1)] = self.expand(value)
        return True

    def expand(self, line: str) -> str:
        """`line` with each variable assigned so far replaced by its value."""
        if "$" not in line or not self.values:
            return line

        def value(match: re.Match[str]) -> str:
            name = match.group(1) or match.group(2)
            return self.values.get(name, match.group(0))

        return REFERENCE.sub(value, line)


# A command written in HTML (`<code>python3 network.py -train <i>dataset_path</i></code>`): the
# markup goes, and a value set in italics or as a variable is a placeholder, as `<path>` is.
HTML_VALUE = re.compile(r"<(i|em|var)>\s*([^<>]+?)\s*</\1>", re.I)
HTML_TAG = re.compile(r"</?(?:code|pre|kbd|samp|tt|b|strong|p|span|br)\b[^<>]*>", re.I)


def html_unmarked(line: str) -> str:
    """`line` without HTML's inline markup, a value in `<i>` or `<var>` as `<value>`."""
    if "</" not in line:
        return line
    line = HTML_VALUE.sub(lambda m: "<" + "_".join(m.group(2).split()) + ">", line)
    return " ".join(HTML_TAG.sub(" ", line).split())
