"""MNR204: the Python version a project states, in the docs the audit reads, its dependency
files, the README of the folder that holds the training code, or another page of its own."""

from __future__ import annotations

import re

from miner.codebook import Evidence
from miner.lint.context import Finding, LintContext
from miner.lint.scope import training_entry
from miner.lint.statements import python_version_stated

# A command in a page's code block that makes an environment with its Python (`conda create -n
# env python=3.10`, `uv venv --python 3.11`); other lines of code blocks are often a run's
# printed log ("Python version: ...").
ENV_COMMAND = re.compile(
    r"(?i)\b(?:(?:conda|mamba|micromamba)\s+(?:create|install)|uv\s+(?:venv|python)|virtualenv"
    r"|pyenv|poetry\s+env|pipenv)\b"
)
MAX_PAGES = 60
# A web demo's page speaks for the demo ("* Python>=3.8" in `chat_gradio/README.md`), as its
# imports do for MNR202, not for the training code.
DEMO_FOLDER = re.compile(r"(?i)(?:^|[/_-])(?:demos?|gradio|streamlit|webui|apps?)[/_-]")
README_NAMES = ("readme.md", "readme.markdown")


def _python_in(ctx: LintContext, pages: list[str]) -> Evidence | None:
    """The first Python version stated in `pages`: in prose, or by a command that makes an
    environment."""
    from miner.audit.classify.doc_requirements import python_statements
    from miner.audit.docs import parse_markdown

    for path in pages[:MAX_PAGES]:
        text = ctx.tree.read_text(path) or ""
        if "python" not in text.lower():
            continue
        lines = text.splitlines()
        for block in parse_markdown(path, text):
            for found in python_statements([block]):
                line = lines[found.line - 1] if 0 < found.line <= len(lines) else ""
                if block.kind != "code" or ENV_COMMAND.search(line):
                    return Evidence(path, found.line, found.text, "lint.stated")
    return None


def _python_beside_training(ctx: LintContext) -> Evidence | None:
    """A Python version in the README of a folder that holds the training code (an experiment
    folder's `carracing/README.md` with "Python 3"), which the root README need not link."""
    folders: set[str] = set()
    for entry in training_entry(ctx.audit, ctx.own_code):
        parts = entry.path.split("/")[:-1]
        folders.update("/".join(parts[:i]) for i in range(1, len(parts) + 1))
    readmes = [
        f.path for f in ctx.tree.files
        if f.path.rpartition("/")[0] in folders and f.name.lower() in README_NAMES
    ]  # fmt: skip
    return _python_in(ctx, readmes)


def python_unstated(ctx: LintContext) -> list[Finding]:
    """MNR204: no Python version stated anywhere the project speaks for itself."""
    if ctx.label("language") not in ("python", None):
        return []
    if python_version_stated(ctx.tree, ctx.audit.details) or _python_beside_training(ctx):
        return []
    if _python_in(ctx, [p for p in ctx.other_pages if not DEMO_FOLDER.search(p)]):
        return []  # stated in a page the root README does not link (a sub-project's README)
    return [
        Finding(
            "MNR204",
            ctx.readme,
            1,
            "no Python version is stated",
            "state the Python version you used, e.g. 'Python 3.10' in the README or "
            "requires-python in pyproject.toml",
            (ctx.absent("no Python version"),),
        )
    ]
