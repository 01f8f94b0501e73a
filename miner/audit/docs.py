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
from miner.audit.ownership import foreign_trees, fork_page, link_entries, other_project_page

BlockKind = Literal["heading", "paragraph", "list_item", "table_row", "code", "html"]
RST_UNDERLINE = re.compile(r"^([=\-~^\"'`#*+])\1{2,}\s*$")
# A reST admonition ("..  warning::") whose indented body is prose, not a literal block.
RST_ADMONITION = re.compile(
    r"^\.\.\s+(?:note|warning|important|attention|caution|danger|error|hint|tip|admonition|"
    r"deprecated|seealso)::",
    re.IGNORECASE,
)
# An HTML tag starts with its name, `/` or `!` (`PyTorch >= 1.7.0 < 1.11.0;` is no tag).
TAGS = re.compile(r"<[A-Za-z/!][^>]*>")
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
    # Every heading above the block, outermost first, lower-cased; the document's title (its one
    # top-level heading) is left out, since it sits above everything and names the project.
    trail: tuple[str, ...] = ()

    @property
    def heading_path(self) -> str:
        """The whole heading path, "installation > python packages" (the section when none)."""
        return " > ".join(self.trail) if self.trail else self.section

    def any_heading(self, pattern: re.Pattern[str]) -> bool:
        """True when some heading above the block (its section at least) matches `pattern`."""
        return any(pattern.search(h) for h in self.trail or (self.section,))

    def from_deepest(self, pattern: re.Pattern[str]) -> str:
        """The heading path from the deepest heading that matches `pattern` down ('' if none):
        under "Installation > Python packages > Optional" a list reads "python packages >
        optional" for packages, and under "Requirements > Data" it reads "data"."""
        trail = self.trail or (self.section,)
        for i in range(len(trail) - 1, -1, -1):
            if pattern.search(trail[i]):
                return " > ".join(trail[i:])
        return ""

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


class _Trail:
    """The open headings of a document by level; the title's level is left out of paths."""

    def __init__(self, title_level: int) -> None:
        self.title_level = title_level
        self.open: list[tuple[int, str]] = []

    def enter(self, level: int, title: str) -> tuple[str, ...]:
        """Open a heading of `level` (closing those at or below it); the path it starts."""
        while self.open and self.open[-1][0] >= level:
            self.open.pop()
        self.open.append((level, title))
        return self.path

    @property
    def path(self) -> tuple[str, ...]:
        """The open headings' titles, outermost first, without the document's title."""
        return tuple(t for lvl, t in self.open if lvl != self.title_level)


def _title_level(levels: list[int]) -> int:
    """The level of the document's title: its first heading, when no other shares its level or
    sits above it; 0 when there is none."""
    if not levels:
        return 0
    first = levels[0]
    return first if sum(1 for lvl in levels if lvl <= first) == 1 else 0


BOLD_TITLE_LEVEL = 7  # "**Setup**" on its own line: below every Markdown heading
LIST_TITLE_LEVEL = 8  # "- Prerequisites" over a nested list: below a bold title
LIST_TITLE_WORDS = 3


def _titles_nested_list(tokens: list[Any], i: int, content: str) -> bool:
    """True when the list item whose paragraph opens at `tokens[i]` is a short title
    ("Prerequisites", "Requirements:") followed, within the item, by a list of its own."""
    words = content.rstrip(":").split()
    if not words or len(words) > LIST_TITLE_WORDS or content.endswith(".") or "\n" in content:
        return False
    after = i + 3  # inline, paragraph_close, then what the item holds next
    return after < len(tokens) and tokens[after].type in ("bullet_list_open", "ordered_list_open")


def parse_markdown(path: str, text: str) -> list[Block]:
    """Blocks of a Markdown document, in order, with their starting lines."""
    md = _markdown_parser()
    tokens = md.parse(text)
    levels = [int(t.tag[1]) for t in tokens if t.type == "heading_open"]
    trail = _Trail(_title_level(levels))
    blocks: list[Block] = []
    section = ""
    header = ""
    in_list = 0
    titled: list[tuple[int, str, list[tuple[int, str]]]] = []  # (list depth, section, trail)
    row_cells: list[str] = []
    row_line = 0
    in_head = False
    for i, tok in enumerate(tokens):
        line = (tok.map[0] + 1) if tok.map else 0
        if tok.type == "heading_open":
            words = _inline_text(tokens[i + 1]).strip()
            section = words.lower()
            here = trail.enter(int(tok.tag[1]), section)
            blocks.append(Block(path, line, "heading", words, section, trail=here))
        elif tok.type in ("bullet_list_open", "ordered_list_open"):
            in_list += 1
        elif tok.type in ("bullet_list_close", "ordered_list_close"):
            in_list -= 1
            if titled and titled[-1][0] == in_list + 1:  # the titled item's own list ends
                _, section, kept = titled.pop()
                trail.open = kept
        elif tok.type == "paragraph_open":
            content = _inline_text(tokens[i + 1]).strip()
            if in_list and _titles_nested_list(tokens, i, content):
                # "- Prerequisites" over an indented list of packages titles that list as a
                # heading would: its items read it in their heading path.
                blocks.append(Block(path, line, "list_item", content, section, trail=trail.path))
                titled.append((in_list + 1, section, list(trail.open)))
                level = LIST_TITLE_LEVEL + 2 * in_list
                if section and not trail.path:  # under the title alone: keep what it says
                    trail.enter(level - 1, section)
                section = content.rstrip(":").strip().lower()
                trail.enter(level, section)
            elif content and not in_list and _is_bold_title(tokens[i + 1], content):
                # "**Requirements**" on a line of its own is used as a heading.
                section = content.rstrip(":").strip().lower()
                here = trail.enter(BOLD_TITLE_LEVEL, section)
                blocks.append(Block(path, line, "heading", content, section, trail=here))
            elif content:
                kind: BlockKind = "list_item" if in_list else "paragraph"
                blocks.append(Block(path, line, kind, content, section, trail=trail.path))
        elif tok.type in ("fence", "code_block"):
            start = line + (tok.type == "fence")
            blocks.append(Block(path, start, "code", tok.content, section, trail=trail.path))
        elif tok.type == "html_block":
            content = _html_text(tok.content)
            title = HTML_HEADING.match(tok.content)
            heading = " ".join(TAGS.sub(" ", title.group(2)).split()) if title else ""
            if heading and title:
                # <h1>Requirements</h1> opens a section like a Markdown heading does.
                section = heading.rstrip(":").strip().lower()
                here = trail.enter(int(title.group(1)), section)
                blocks.append(Block(path, line, "heading", heading, section, trail=here))
                if content == heading:
                    continue
            if content:
                blocks.append(Block(path, line, "html", content, section, trail=trail.path))
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
            blocks.append(Block(path, row_line, "table_row", row, section, header, trail.path))
    return blocks


def parse_plain(path: str, text: str) -> list[Block]:
    """Blocks of reStructuredText or plain text: paragraphs split by blank lines."""
    blocks: list[Block] = []
    section = ""
    lines = text.splitlines()
    start = 0
    buf: list[str] = []
    in_code = False
    body = False  # the block is an admonition's indented body
    # reST heading levels are the order in which underline characters first appear.
    marks: list[str] = []
    trail = _Trail(0)

    def flush() -> None:
        nonlocal buf
        if buf:
            kind: BlockKind = "code" if in_code else "paragraph"
            if not in_code and re.match(r"^\s*([-*+]|\d+[.)])\s", buf[0]):
                kind = "list_item"
            blocks.append(Block(path, start + 1, kind, "\n".join(buf), section, trail=trail.path))
        buf = []

    for n, raw in enumerate(lines):
        nxt = lines[n + 1] if n + 1 < len(lines) else ""
        if raw.strip() and RST_UNDERLINE.match(nxt) and len(nxt.strip()) >= len(raw.strip()) - 1:
            flush()
            section = raw.strip().lower()
            mark = nxt.strip()[0]
            if mark not in marks:
                marks.append(mark)
            here = trail.enter(marks.index(mark) + 1, section)
            blocks.append(Block(path, n + 1, "heading", raw.strip(), section, trail=here))
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
            last = blocks[-1] if blocks else None
            body = bool(
                in_code and last and last.kind == "paragraph" and RST_ADMONITION.match(last.text)
            )
            if body:
                in_code = False  # the admonition's body: "This project is discontinued ..."
        buf.append(raw.strip() if body else raw)
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
        foreign = tuple(f"{folder}/" for folder in foreign_trees(self.tree))
        for path in self.tree.docs:
            if path.startswith(foreign):
                continue  # another project's docs, bundled whole
            text = self.tree.read_text(path)
            if not text or fork_page(self.tree, path, text):
                continue  # a page of the forked library's own site
            if other_project_page(self.tree, path, text):
                continue  # a page presenting another project built on this one
            entries = link_entries(text)  # an awesome list's entries speak for the works they link
            out.extend(
                b
                for b in parse_doc(path, text)
                if b.kind not in ("list_item", "table_row") or b.line not in entries
            )
        return tuple(out)

    def prose(self) -> Iterator[Block]:
        """Blocks that are prose (not code)."""
        return (b for b in self.blocks if b.kind != "code")

    def code(self) -> Iterator[Block]:
        """Code blocks (shell commands, snippets)."""
        return (b for b in self.blocks if b.kind == "code")
