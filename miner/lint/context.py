"""What every check reads (the audit, the code facts, the docs) and what it returns."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from miner.audit.files import RepoTree
from miner.codebook import Evidence
from miner.lint.code_facts import CodeFacts
from miner.lint.scope import OwnCode, is_own
from miner.models import AuditResult

SHOWN_FILES = 6
# Dependency-file kinds `pip install`, conda or poetry read; a Dockerfile's apt line, a gradle
# file, a CMake `find_package` or an install script list packages but are not these.
PACKAGE_FILE_KINDS = frozenset({"requirements_file", "conda_env", "setup", "pipfile", "poetry"})
DOCS_FOLDER = re.compile(r"(?:^|/)docs?/", re.I)
DOCS_BUILDER = re.compile(r"sphinx|mkdocs", re.I)


@dataclass(frozen=True)
class Rule:
    """A lint code: what it checks, and the project kinds it applies to."""

    code: str
    name: str
    summary: str
    kinds: tuple[str, ...] = ("training",)
    # A retired code raises nothing; its advice lives on in the code named here, and configs
    # that select or ignore it still parse.
    folded_into: str | None = None
    # An opt-in code runs only where `select` names it (its code, or a prefix such as `MNR`):
    # on repositories it was not written on, too few of its findings were right for a default.
    opt_in: bool = False


@dataclass(frozen=True)
class Finding:
    """One finding: where it points, what is wrong, how to fix it, and why miner thinks so."""

    code: str
    path: str
    line: int
    message: str
    fix: str
    evidence: tuple[Evidence, ...] = ()


@dataclass
class LintContext:
    """What every check reads."""

    tree: RepoTree
    audit: AuditResult
    facts: CodeFacts
    docs: tuple[str, ...]
    kind: str = "training"
    cache: dict[str, Any] = field(default_factory=dict)

    @property
    def readme(self) -> str:
        """Where a missing statement belongs: the README, or the project root."""
        return self.tree.readme or "README.md"

    def label(self, name: str) -> Any:
        """An audit label's value (None when the audit did not decide it)."""
        return self.audit.value(name)

    @property
    def own_code(self) -> OwnCode:
        """The project's own code, for the training entry points."""
        if "own_code" not in self.cache:
            readme = self.tree.read_text(self.tree.readme) if self.tree.readme else ""
            self.cache["own_code"] = OwnCode(
                self.facts.code_lines, self.facts.bundled, readme or "",
                "\n".join(self.facts.config_text),
            )  # fmt: skip
        own: OwnCode = self.cache["own_code"]
        return own

    @property
    def other_pages(self) -> list[str]:
        """Markdown pages of the project's own folders that the codebook's reading leaves out
        (a config folder's README, a sub-project's README two links from the root)."""
        read = set(self.docs)
        return [
            f.path for f in self.tree.files
            if f.suffix in (".md", ".markdown") and f.path not in read
            and is_own(f.path, self.facts.bundled)
        ]  # fmt: skip

    @property
    def dependency_files(self) -> dict[str, str]:
        """path -> kind of every dependency file the audit parsed."""
        found = self.audit.details.get("dependency_files")
        return dict(found) if isinstance(found, dict) else {}

    @property
    def package_files(self) -> list[str]:
        """The dependency files an installer reads, shallowest first (a copied project's own
        requirements are not the project's)."""
        paths = [
            p for p, k in self.dependency_files.items()
            if k in PACKAGE_FILE_KINDS and not p.startswith(self.facts.bundled)
            and not self._builds_the_docs(p)
        ]  # fmt: skip
        return sorted(paths, key=lambda p: (p.count("/"), p))

    def _builds_the_docs(self, path: str) -> bool:
        """A requirements file in the docs folder that names Sphinx or MkDocs: what Read the
        Docs installs to build the pages, not what the project runs on."""
        if not DOCS_FOLDER.search(path):
            return False
        return bool(DOCS_BUILDER.search(self.tree.read_text(path) or ""))

    def absent(self, what: str, extra: tuple[str, ...] = ()) -> Evidence:
        """Evidence of an absence: the files read, then what none of them states."""
        files = list(dict.fromkeys((*self.docs, *extra, *self.dependency_files)))
        shown = ", ".join(files[:SHOWN_FILES]) or "no README, docs or dependency files"
        if len(files) > SHOWN_FILES:
            shown += f" and {len(files) - SHOWN_FILES} more"
        return Evidence("", 0, f"{shown}: {what}", "lint.absent")
