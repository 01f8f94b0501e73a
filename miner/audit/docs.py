"""Documentation parsed into blocks (headings, paragraphs, list items, table rows, code) with lines.

Markdown goes through markdown-it (CommonMark plus tables); inline HTML through BeautifulSoup;
reStructuredText and plain text are split into paragraphs, with underlined titles as headings.
Classifiers read blocks, so every match knows its file, line and enclosing section.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass
from functools import cached_property, lru_cache
from typing import Any, Literal

from miner.audit.files import RepoTree

BlockKind = Literal["heading", "paragraph", "list_item", "table_row", "code", "html"]
RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")
TAGS = re.compile(r"<[^>]+>")
HTML_HEADING = re.compile(r"\s*<h([1-6])[^>]*>(.*?)</h\1\s*>", re.IGNORECASE | re.DOTALL)


@dataclass(frozen=True)
class Block:
    """One unit of prose or code from a documentation file."""

    path: str
    line: int  # 1-based line where the block starts
    kind: BlockKind
    text: str
    section: str = ""  # the nearest heading above, lower-cased
    header: str = ""  # for table rows: the table's header row

    @property
    def lines(self) -> list[tuple[int, str]]:
        """(line number, text) for each line of the block."""
        return [(self.line + i, t) for i, t in enumerate(self.text.splitlines())]


def _html_text(html: str) -> str:
    from bs4 import BeautifulSoup

    return BeautifulSoup(html, "html.parser").get_text(" ", strip=True)


def _inline_text(token: object) -> str:
    """Plain text of an inline token: markup dropped, link texts kept, images' alt kept."""
    parts: list[str] = []
    for child in getattr(token, "children", None) or []:
        kind = child.type
        if kind in ("text", "code_inline"):
            parts.append(child.content)
        elif kind in ("softbreak", "hardbreak"):
            parts.append("\n")
        elif kind == "html_inline":
            parts.append(" ")
        elif kind == "image":
            parts.append(child.content or "")
    text = "".join(parts)
    return text if "<" not in text else TAGS.sub(" ", text)


def _is_bold_title(token: object, content: str) -> bool:
    """True for a short paragraph that is one bold span, e.g. "**Setup**"."""
    kinds = [
        c.type
        for c in getattr(token, "children", None) or []
        if c.type != "softbreak" and not (c.type == "text" and not c.content.strip())
    ]
    return (
        len(content) <= 60
        and "\n" not in content
        and not content.endswith(".")
        and kinds[:1] == ["strong_open"]
        and kinds[-1:] == ["strong_close"]
        and kinds.count("strong_open") == 1
    )


@lru_cache(maxsize=1)
def _markdown_parser() -> Any:
    """One markdown-it parser per process: building it costs more than parsing a README."""
    from markdown_it import MarkdownIt

    return MarkdownIt("commonmark").enable("table")


def parse_markdown(path: str, text: str) -> list[Block]:
    """Blocks of a Markdown document, in order, with their starting lines."""
    md = _markdown_parser()
    tokens = md.parse(text)
    blocks: list[Block] = []
    section = ""
    header = ""
    in_list = 0
    row_cells: list[str] = []
    row_line = 0
    in_head = False
    for i, tok in enumerate(tokens):
        line = (tok.map[0] + 1) if tok.map else 0
        if tok.type == "heading_open":
            section = _inline_text(tokens[i + 1]).strip().lower()
            blocks.append(
                Block(path, line, "heading", _inline_text(tokens[i + 1]).strip(), section)
            )
        elif tok.type in ("bullet_list_open", "ordered_list_open"):
            in_list += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            in_list -= 1
        elif tok.type == "paragraph_open":
            content = _inline_text(tokens[i + 1]).strip()
            if content and not in_list and _is_bold_title(tokens[i + 1], content):
                # "**Requirements**" on a line of its own is used as a heading.
                section = content.rstrip(":").strip().lower()
                blocks.append(Block(path, line, "heading", content, section))
            elif content:
                kind: BlockKind = "list_item" if in_list else "paragraph"
                blocks.append(Block(path, line, kind, content, section))
        elif tok.type in ("fence", "code_block"):
            blocks.append(Block(path, line + (tok.type == "fence"), "code", tok.content, section))
        elif tok.type == "html_block":
            content = _html_text(tok.content)
            title = HTML_HEADING.match(tok.content)
            heading = " ".join(TAGS.sub(" ", title.group(2)).split()) if title else ""
            if heading:
                # <h1>Requirements</h1> opens a section like a Markdown heading does.
                section = heading.rstrip(":").strip().lower()
                blocks.append(Block(path, line, "heading", heading, section))
                if content == heading:
                    continue
            if content:
                blocks.append(Block(path, line, "html", content, section))
        elif tok.type == "thead_open":
            in_head = True
        elif tok.type == "thead_close":
            in_head = False
        elif tok.type == "tr_open":
            row_cells, row_line = [], line
        elif tok.type == "inline" and tokens[i - 1].type in ("th_open", "td_open"):
            row_cells.append(_inline_text(tok).strip())
        elif tok.type == "tr_close":
            row = " | ".join(row_cells)
            if in_head:
                header = row
            blocks.append(Block(path, row_line, "table_row", row, section, header))
    return blocks


def parse_plain(path: str, text: str) -> list[Block]:
    """Blocks of reStructuredText or plain text: paragraphs split by blank lines."""
    blocks: list[Block] = []
    section = ""
    lines = text.splitlines()
    start = 0
    buf: list[str] = []
    in_code = False

    def flush() -> None:
        nonlocal buf
        if buf:
            kind: BlockKind = "code" if in_code else "paragraph"
            if not in_code and re.match(r"^\s*([-*+]|\d+[.)])\s", buf[0]):
                kind = "list_item"
            blocks.append(Block(path, start + 1, kind, "\n".join(buf), section))
        buf = []

    for n, raw in enumerate(lines):
        nxt = lines[n + 1] if n + 1 < len(lines) else ""
        if raw.strip() and RST_UNDERLINE.match(nxt) and len(nxt.strip()) >= len(raw.strip()) - 1:
            flush()
            section = raw.strip().lower()
            blocks.append(Block(path, n + 1, "heading", raw.strip(), section))
            continue
        if RST_UNDERLINE.match(raw):
            continue
        if not raw.strip():
            flush()
            in_code = False
            continue
        if not buf:
            start = n
            in_code = raw.startswith(("    ", "\t")) or raw.strip().startswith((".. code", "$ "))
        buf.append(raw)
    flush()
    return blocks


def parse_doc(path: str, text: str) -> list[Block]:
    """Parse one documentation file by its suffix (Markdown, or reST/plain text)."""
    if path.lower().endswith((".md", ".markdown", ".mdown")) or "." not in path.rsplit("/", 1)[-1]:
        return parse_markdown(path, text)
    return parse_plain(path, text)


@dataclass
class Documents:
    """The parsed documentation of one checkout."""

    tree: RepoTree

    @cached_property
    def blocks(self) -> tuple[Block, ...]:
        """Every block of every documentation file, in reading order."""
        out: list[Block] = []
        for path in self.tree.docs:
            text = self.tree.read_text(path)
            if text:
                out.extend(parse_doc(path, text))
        return tuple(out)

    def prose(self) -> Iterator[Block]:
        """Blocks that are prose (not code)."""
        return (b for b in self.blocks if b.kind != "code")

    def code(self) -> Iterator[Block]:
        """Code blocks (shell commands, snippets)."""
        return (b for b in self.blocks if b.kind == "code")
