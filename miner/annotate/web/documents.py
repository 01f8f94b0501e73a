"""A checkout's documents as the browser shows them: Markdown rendered block by block, each
block tagged with its source lines; other text files line by line. Mined READMEs are untrusted
HTML, so every rendered block is sanitised: no scripts, no event handlers, no `javascript:`
links, and no image sources (the page must not fetch anything from elsewhere)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

from miner.annotate.passages import doc_files, list_files, read_text

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown")
MAX_TREE = 400  # file-tree entries shown; the rest are counted
SAFE_SCHEMES = {"http", "https", "mailto"}


@dataclass(frozen=True)
class Block:
    """Lines `start`..`end` (1-based, inclusive) of a file, as sanitised HTML or plain text."""

    start: int
    end: int
    lines: tuple[str, ...]
    html: str | None  # None: show `lines` as they are


@dataclass(frozen=True)
class Document:
    """One file of the checkout, ready to show."""

    path: str
    blocks: tuple[Block, ...]
    rendered: bool
    missing: bool = False


@dataclass(frozen=True)
class Checkout:
    """What the annotator sees of a repository: its documents and its file tree."""

    documents: tuple[Document, ...]
    tree: tuple[str, ...]
    files: int


def _drop_sources(tag: str, attribute: str, value: str) -> str | None:
    if tag == "img" and attribute in ("src", "srcset"):
        return None  # remote images would leak that the page was opened, and by whom
    return value


def sanitise(html: str) -> str:
    """Untrusted HTML made inert: allowed tags only, no scripts, handlers, styles or images."""
    import nh3

    return nh3.clean(
        html,
        clean_content_tags={"script", "style", "iframe", "object", "embed", "template"},
        url_schemes=SAFE_SCHEMES,
        url_relative="deny",
        attribute_filter=_drop_sources,
        link_rel="noopener noreferrer nofollow",
    )


@lru_cache(maxsize=1)
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")


def markdown_blocks(text: str) -> list[Block]:
    """Top-level Markdown blocks, each rendered, sanitised and tagged with its source lines."""
    md = _markdown()
    lines = text.splitlines()
    tokens = md.parse(text)
    blocks: list[Block] = []
    group: list[Any] = []
    depth = 0
    for token in tokens:
        group.append(token)
        depth += token.nesting
        if depth:
            continue
        span = next((t.map for t in group if t.map), None)
        if span:
            start, end = span[0] + 1, max(span[0] + 1, span[1])
            html = md.renderer.render(group, md.options, {})
            blocks.append(Block(start, end, tuple(lines[start - 1 : end]), sanitise(html)))
        group = []
    return blocks


def plain_blocks(text: str) -> list[Block]:
    """One block per line."""
    return [Block(n, n, (line,), None) for n, line in enumerate(text.splitlines(), start=1)]


def document(root: Path, rel: str) -> Document:
    """One file of the checkout (read inside it only), Markdown rendered."""
    text = read_text(root, rel)
    if text is None:
        return Document(rel, (), False, missing=True)
    if rel.lower().endswith(MARKDOWN_SUFFIXES):
        return Document(rel, tuple(markdown_blocks(text)), True)
    return Document(rel, tuple(plain_blocks(text)), False)


def checkout_view(root: Path, extra: str | None = None) -> Checkout:
    """The documents the codebook reads (README first, then docs, then manifests), `extra`
    (a file the annotator opened from the tree) first when given, and the file tree."""
    files = list_files(root)
    chosen = doc_files(files)
    if extra and extra in files:
        chosen = [extra, *(f for f in chosen if f != extra)]
    return Checkout(
        tuple(document(root, rel) for rel in chosen), tuple(files[:MAX_TREE]), len(files)
    )
