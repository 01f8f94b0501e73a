"""Documents as the browser shows them: every rendered element and wrapped line maps back to its
source line, only numeric line marks survive the sanitiser, and citations mark what they cite."""

from __future__ import annotations

import re
from pathlib import Path

from miner.annotate.web.documents import (
    citations,
    cited_view,
    document,
    markdown_blocks,
    sanitise,
)

TEXT = """# Title

First line of a paragraph
second line of it
third, with the words that matter.

- first item
- second item
  wrapped onto a second line

```
pip install torch
python train.py
```

| GPU | hours |
|---|---|
| V100 | 12 |
| K80 | 40 |

<div>raw
html</div>
"""


def marks(html: str) -> list[int]:
    return [int(n) for n in re.findall(r'data-sl="(\d+)"', html)]


def test_every_element_and_wrapped_line_carries_its_source_line() -> None:
    blocks = {b.start: b for b in markdown_blocks(TEXT)}
    paragraph = blocks[3].html or ""
    assert (blocks[3].start, blocks[3].end) == (3, 5) and marks(paragraph) == [3, 4, 5]
    assert '<span data-sl="5"></span>third, with the words' in paragraph
    items = blocks[7].html or ""
    assert '<li data-sl="8">second item' in items and marks(items) == [7, 7, 8, 9]
    code = blocks[11].html or ""
    assert '<span data-sl="12"></span>pip install torch' in code
    assert '<span data-sl="13"></span>python train.py' in code
    table = blocks[16].html or ""
    assert '<tr data-sl="18">' in table and '<tr data-sl="19">' in table
    raw = blocks[21]
    assert (raw.start, raw.end) == (21, 22) and raw.lines == ("<div>raw", "html</div>")


def test_only_numeric_line_marks_pass_the_sanitiser() -> None:
    cleaned = sanitise('<p data-sl="3" data-x="1" onclick="x()">a<span data-sl="js:1">b</span></p>')
    assert cleaned == '<p data-sl="3">a<span>b</span></p>'


def test_citations_are_taken_apart() -> None:
    found = citations("README.md:10 one GTX 1080 Ti | data:0 372254 bytes | no line here", "m")
    assert [(c.path, c.start, c.end, c.text) for c in found] == [
        ("README.md", 10, 10, "one GTX 1080 Ti"),
        ("data", 0, 0, "372254 bytes"),
    ]
    assert [(c.start, c.end) for c in citations("docs/a.md:3-5 picked words", "ann")] == [(3, 5)]


def test_cited_files_come_first_with_their_blocks_marked(tmp_path: Path) -> None:
    (tmp_path / "README.md").write_text(TEXT, encoding="utf-8")
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "train.bin").write_bytes(b"\0" * 10)
    (tmp_path / "train.py").write_text("import torch\nmodel.cuda()\n", encoding="utf-8")
    cited = [
        *citations("README.md:4 second line of it", "ann"),
        *citations("train.py:2 model.cuda()", "bob"),
        *citations("data:0 a folder of data", "machine"),
    ]
    view = cited_view(tmp_path, cited)
    assert [d.path for d in view.documents][:3] == ["README.md", "train.py", "data"]
    readme, train, data = view.documents[:3]
    marked = [b for b in readme.blocks if b.cited]
    assert [(b.start, b.cited) for b in marked] == [(3, ("ann: line 4",))]
    assert [b.start for b in train.blocks if b.cited] == [2]
    assert (
        data.missing
        and data.note == "a folder of 1 file"
        and data.cited == ("machine: whole file",)
    )
    assert document(tmp_path, "absent.md").note == "not in this checkout"
