"""Misspelt headings and file names still say what they are."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.audit.classify.doc_requirements import doc_requirements
from miner.audit.classify.software import classify_software
from miner.audit.detect import AuditContext
from miner.audit.docs import Documents, parse_markdown
from miner.audit.files import RepoTree


@pytest.mark.parametrize("name", ["requirments.txt", "requirement.txt", "requriements.txt"])
def test_misspelt_requirement_lists_are_dependency_files(tmp_path: Path, name: str) -> None:
    (tmp_path / "README.md").write_text("# T\n", encoding="utf-8")
    (tmp_path / name).write_text("torch==1.7\n", encoding="utf-8")
    tree = RepoTree(tmp_path)
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    labels = {label.field: label for label in classify_software(ctx, {})}
    assert labels["dependency_file"].value is True


@pytest.mark.parametrize("name", ["retirement.txt", "measurements.txt", "requests.txt"])
def test_words_near_requirements_are_not(name: str) -> None:
    from miner.audit.files import REQUIREMENTS_LIST

    assert not REQUIREMENTS_LIST.search(name)


@pytest.mark.parametrize("heading", ["Requirments", "Instalation", "Dependancies", "Prerequisits"])
def test_misspelt_headings_open_a_requirements_list(heading: str) -> None:
    text = f"# T\n\n## {heading}\n\n- foo-bar 1.2\n- torch 1.7\n"
    found = doc_requirements(parse_markdown("README.md", text), frozenset())
    assert {d.name for f in found for d in f.deps} >= {"torch"}


def test_a_results_heading_opens_no_list() -> None:
    text = "# T\n\n## Results\n\n- resnet 1.7\n"
    assert doc_requirements(parse_markdown("README.md", text), frozenset()) == []
