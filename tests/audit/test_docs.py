from __future__ import annotations

from pathlib import Path

from miner.audit.docs import Documents, parse_markdown, parse_plain
from miner.audit.files import RepoTree

README = """# Fast Net
Some **bold** text and [a link](docs/x.md).

## Requirements
- Python 3.6
- TensorFlow 1.4

| GPU | Time |
|---|---|
| Titan X | 0.2 s |

```bash
pip install -r requirements.txt
```
<p align="center">We used a <b>GTX 1080</b>.</p>
"""


def test_markdown_blocks_keep_lines_sections_and_table_headers() -> None:
    blocks = parse_markdown("README.md", README)
    kinds = [(b.kind, b.line, b.text) for b in blocks]
    assert ("heading", 1, "Fast Net") in kinds
    assert ("paragraph", 2, "Some bold text and a link.") in kinds
    assert ("list_item", 6, "TensorFlow 1.4") in kinds
    row = next(b for b in blocks if b.text == "Titan X | 0.2 s")
    assert (row.kind, row.line, row.header, row.section) == (
        "table_row",
        10,
        "GPU | Time",
        "requirements",
    )
    code = next(b for b in blocks if b.kind == "code")
    assert code.line == 13 and code.text.startswith("pip install")
    html = next(b for b in blocks if b.kind == "html")
    assert "GTX 1080" in html.text


def test_rst_titles_become_headings() -> None:
    blocks = parse_plain("README.rst", "Install\n=======\n\nNeeds CUDA 9.\nAnd cuDNN.\n\n- a\n")
    assert [(b.kind, b.line) for b in blocks] == [
        ("heading", 1),
        ("paragraph", 4),
        ("list_item", 7),
    ]
    assert blocks[1].section == "install"


def test_an_rst_admonition_body_is_prose_and_a_literal_block_code() -> None:
    text = (
        ".. warning::\n\n    This project is discontinued.\n\nInstall it::\n\n    pip install net\n"
    )
    blocks = parse_plain("README.rst", text)
    assert [(b.kind, b.text) for b in blocks] == [
        ("paragraph", ".. warning::"),
        ("paragraph", "This project is discontinued."),
        ("paragraph", "Install it::"),
        ("code", "    pip install net"),
    ]


def test_documents_read_every_doc_in_order(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    (tmp_path / "README.md").write_text("Read [this](docs/x.md).\n")
    (tmp_path / "docs" / "x.md").write_text("# X\nHello.\n")
    docs = Documents(RepoTree(tmp_path))
    assert [(b.path, b.text) for b in docs.prose()] == [
        ("README.md", "Read this."),
        ("docs/x.md", "X"),
        ("docs/x.md", "Hello."),
    ]
