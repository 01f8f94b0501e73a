"""A checkout's documents as the browser shows them: Markdown rendered block by block, each
block tagged with its source lines and, inside it, a map from every rendered element and
wrapped line back to its source line (`data-sl`), so a click records the line clicked; other
text files line by line. Mined READMEs are untrusted HTML, so every rendered block is
sanitised: no scripts, no event handlers, no `javascript:` links, and no image sources (the
page must not fetch anything from elsewhere)."""

from __future__ import annotations

import html as html_lib
import re
from dataclasses import dataclass, replace
from functools import lru_cache
from pathlib import Path
from typing import Any

from miner.annotate.passages import MAX_BYTES, doc_files, inside, list_files, read_text

MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown")
MAX_TREE = 400  # file-tree entries shown; the rest are counted
SAFE_SCHEMES = {"http", "https", "mailto"}
LINE_ATTRIBUTE = "data-sl"  # the 1-based source line an element (or a wrapped line) starts on
CITATION = re.compile(r"^(?P<path>[^\s:|][^\s|]*?):(?P<start>\d+)(?:-(?P<end>\d+))?(?:\s|$)")


@dataclass(frozen=True)
class Block:
    """Lines `start`..`end` (1-based, inclusive) of a file, as sanitised HTML or plain text."""

    start: int
    end: int
    lines: tuple[str, ...]
    html: str | None  # None: show `lines` as they are
    cited: tuple[str, ...] = ()  # who cites a line of this block, e.g. "ann: line 12"


@dataclass(frozen=True)
class Document:
    """One file of the checkout, ready to show."""

    path: str
    blocks: tuple[Block, ...]
    rendered: bool
    missing: bool = False
    note: str = ""  # why a file is not shown (a folder, binary or too large, absent)
    cited: tuple[str, ...] = ()  # who cites the file as a whole (line 0) or a line of it


@dataclass(frozen=True)
class Citation:
    """A `path:line text` evidence string taken apart (line 0: the file as a whole)."""

    who: str
    path: str
    start: int
    end: int
    text: str


@dataclass(frozen=True)
class Checkout:
    """What the annotator sees of a repository: its documents and its file tree."""

    documents: tuple[Document, ...]
    tree: tuple[str, ...]
    files: int


def _drop_sources(tag: str, attribute: str, value: str) -> str | None:
    if tag == "img" and attribute in ("src", "srcset"):
        return None  # remote images would leak that the page was opened, and by whom
    if attribute == LINE_ATTRIBUTE and not value.isdigit():
        return None  # the page clamps line numbers to the block; only numbers pass
    return value


@lru_cache(maxsize=1)
def _attributes() -> dict[str, set[str]]:
    import nh3

    allowed = {tag: set(names) for tag, names in nh3.ALLOWED_ATTRIBUTES.items()}
    allowed["*"] = {*allowed.get("*", set()), LINE_ATTRIBUTE}
    return allowed


def sanitise(html: str) -> str:
    """Untrusted HTML made inert: allowed tags only, no scripts, handlers, styles or images."""
    import nh3

    return nh3.clean(
        html,
        clean_content_tags={"script", "style", "iframe", "object", "embed", "template"},
        url_schemes=SAFE_SCHEMES,
        url_relative="deny",
        attributes=_attributes(),
        attribute_filter=_drop_sources,
        link_rel="noopener noreferrer nofollow",
    )


def _marker(line: int) -> str:
    return f'<span {LINE_ATTRIBUTE}="{line}"></span>'


def _break(self: Any, tokens: list[Any], idx: int, options: Any, env: Any) -> str:
    """A soft or hard line break followed by the marker of the source line that follows."""
    token = tokens[idx]
    head = "<br />\n" if token.type == "hardbreak" else "\n"
    line = token.meta.get("line")
    return head + (_marker(line) if line else "")


def _code(self: Any, tokens: list[Any], idx: int, options: Any, env: Any) -> str:
    """A fenced or indented code block with a marker before each of its source lines."""
    token = tokens[idx]
    first = token.map[0] + (2 if token.type == "fence" else 1) if token.map else 0
    lines = token.content.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    body = "\n".join(
        (_marker(first + n) if first else "") + html_lib.escape(text, quote=False)
        for n, text in enumerate(lines)
    )
    info = token.info.strip().split(" ")[0] if token.type == "fence" else ""
    language = f' class="language-{html_lib.escape(info)}"' if info else ""
    where = f' {LINE_ATTRIBUTE}="{token.map[0] + 1}"' if token.map else ""
    return f"<pre{where}><code{language}>{body}\n</code></pre>\n"


@lru_cache(maxsize=1)
def _markdown() -> Any:
    from markdown_it import MarkdownIt

    md = MarkdownIt("commonmark", {"html": True}).enable("table").enable("strikethrough")
    md.add_render_rule("softbreak", _break)
    md.add_render_rule("hardbreak", _break)
    md.add_render_rule("fence", _code)
    md.add_render_rule("code_block", _code)
    return md


def _map_lines(tokens: list[Any]) -> None:
    """Tag each block element with its first source line and each line break with the next."""
    for token in tokens:
        if token.map and token.nesting == 1:
            token.attrSet(LINE_ATTRIBUTE, str(token.map[0] + 1))
        if token.type == "inline" and token.map and token.children:
            line = token.map[0] + 1
            for child in token.children:
                if child.type in ("softbreak", "hardbreak"):
                    line += 1
                    child.meta = {**(child.meta or {}), "line": line}


def markdown_blocks(text: str) -> list[Block]:
    """Top-level Markdown blocks, each rendered, sanitised and tagged with its source lines."""
    md = _markdown()
    lines = text.splitlines()
    tokens = md.parse(text)
    _map_lines(tokens)
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


def _absent(root: Path, rel: str) -> str:
    """Why a path of the checkout cannot be shown as text."""
    path = root / rel
    if not inside(root, path) or not path.exists():
        return "not in this checkout"
    if path.is_dir():
        count = sum(1 for p in path.rglob("*") if p.is_file())
        return f"a folder of {count} file{'' if count == 1 else 's'}"
    size = path.stat().st_size
    if size > MAX_BYTES:
        return f"{size:,} bytes: over {MAX_BYTES // 1024} KiB, not shown"
    return f"{size:,} bytes"


def document(root: Path, rel: str) -> Document:
    """One file of the checkout (read inside it only), Markdown rendered."""
    text = read_text(root, rel)
    if text is None:
        return Document(rel, (), False, missing=True, note=_absent(root, rel))
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


def citations(evidence: str, who: str) -> list[Citation]:
    """The `path:line` (or `path:start-end`) citations of an evidence cell (`|`-separated)."""
    out = []
    for part in evidence.split(" | "):
        found = CITATION.match(part.strip())
        if found:
            start = int(found["start"])
            end = max(start, int(found["end"] or start))
            text = part.strip()[found.end() :].strip()
            out.append(Citation(who, found["path"], start, end, text))
    return out


def cited_view(root: Path, cited: list[Citation]) -> Checkout:
    """The checkout's documents with the cited files first and each cited block marked."""
    files = list_files(root)
    paths = list(dict.fromkeys(c.path for c in cited))
    chosen = [*paths, *(f for f in doc_files(files) if f not in paths)]
    documents = []
    for rel in chosen:
        doc = document(root, rel)
        mine = [c for c in cited if c.path == rel]
        if not mine:
            documents.append(doc)
            continue
        blocks = tuple(
            replace(
                b,
                cited=tuple(
                    f"{c.who}: line {c.start}" + (f"-{c.end}" if c.end > c.start else "")
                    for c in mine
                    if c.start and c.start <= b.end and c.end >= b.start
                ),
            )
            for b in doc.blocks
        )
        labels = tuple(
            f"{c.who}: " + (f"line {c.start}" if c.start else "whole file") for c in mine
        )
        documents.append(replace(doc, blocks=blocks, cited=labels))
    return Checkout(tuple(documents), tuple(files[:MAX_TREE]), len(files))
