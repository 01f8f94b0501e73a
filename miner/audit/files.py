"""Which files of a checkout are read (the codebook's "What is read"), and reading them safely.

A checkout is untrusted input: symlinks are never followed out of it, binary and oversized files
are skipped, and any encoding decodes (invalid bytes become U+FFFD) instead of failing.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path, PurePosixPath
from urllib.parse import unquote

MAX_FILE_BYTES = 2_000_000
MAX_FILES = 60_000
SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".ipynb_checkpoints", ".venv", "venv",
     "site-packages", ".tox", ".mypy_cache", ".pytest_cache", ".idea", ".vscode"}
)  # fmt: skip
DOC_SUFFIXES = (".md", ".markdown", ".rst", ".txt", ".mdown", ".rest")
# Quarto and MDX pages are documentation when the README links them; a site's whole source
# tree of them (docs/source/*.mdx) is not read as this project's statements.
LINKED_DOC_SUFFIXES = (*DOC_SUFFIXES, ".qmd", ".mdx")
NOT_DOCS = re.compile(
    r"(^|/)(licen[cs]e|copying|notice|changelog|changes|history|news|code_of_conduct|authors|"
    r"contributors|citation|patents|code_?owners)[^/]*$|(^|/)requi?r[a-z]{0,3}ments?[^/]*\.txt$|(^|/)[^/]*cmakelists\.txt$",
    re.IGNORECASE,
)
ROOT_TEXT_DOC = re.compile(
    r"^(readme|install|installation|setup|usage|getting|guide|hardware|requirements?_?notes|"
    r"docs?|instructions?|howto|tutorial|notes)[^/]*\.txt$",
    re.IGNORECASE,
)
# "requirement.txt", "requirments.txt", "requriements.txt" are requirement lists too.
REQUIREMENTS_LIST = re.compile(r"(^|/)[^/]*requi?r[a-z]{0,3}ments?[^/]*\.(txt|in|pip)$", re.I)
DEPENDENCY_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("requirements_file", REQUIREMENTS_LIST),
    ("conda_env", re.compile(r"(^|/)(environment[^/]*|conda[^/]*)\.ya?ml$", re.I)),
    ("setup", re.compile(r"(^|/)(setup\.py|setup\.cfg|pyproject\.toml)$", re.I)),
    ("pipfile", re.compile(r"(^|/)Pipfile(\.lock)?$")),
    ("poetry", re.compile(r"(^|/)poetry\.lock$")),
    ("dockerfile", re.compile(
        r"(^|/)(Dockerfile[^/]*|[^/]*\.dockerfile|docker-compose[^/]*\.ya?ml)$", re.I)),
    ("other_manifest", re.compile(
        r"(^|/)([^/]*\.rockspec|package\.json|CMakeLists\.txt|DESCRIPTION|install[^/]*\.sh|"
        r"Project\.toml|requirements\.R|go\.mod|pom\.xml|build\.gradle)$", re.I)),
)  # fmt: skip
DEPENDENCY_HINT = re.compile(
    r"requi?r[a-z]{0,3}ment|environment|conda|setup|pyproject|pipfile|poetry|docker|rockspec|package\.json|"
    r"cmakelists|description|install|project\.toml|go\.mod|pom\.xml|build\.gradle",
    re.IGNORECASE,
)
# A link written as a full GitHub address into a sub-folder ("https://github.com/o/n/tree/main/ros"):
# it is the repository's own when the name matches the checkout's folder (NAME or OWNER__NAME),
# or when the repository was renamed since: same owner, and every one of several such links
# (one at least into a nested folder) names a path of the checkout.
GITHUB_TREE_LINK = re.compile(
    r"https?://github\.com/([^/]+)/([^/]+)/(?:tree|blob)/[^/]+/(.+?)/?$", re.IGNORECASE
)
RENAMED_MIN_LINKS = 2
LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|href=[\"']([^\"']+)[\"']")
# Links written the other ways: a Markdown reference definition ("[train]: training/README.md"),
# a reST inline link ("`Training <training/README.rst>`_") and a reST target (".. _x: path").
OTHER_LINK = re.compile(
    r"^\s{0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?|`[^`<]*<([^>`\s]+)>`__?|^\.\.\s+_[^:]+:\s*(\S+)",
    re.MULTILINE,
)
# A path named in prose ("see `tf/README.md`", "docs/INSTALL.md explains ...") is a link too;
# a named `.txt` is mostly data ("`names.txt` holds the training names").
PROSE_PATH = re.compile(
    r"`((?:[\w.\-]+/)*[\w.\-]+(?:\.(?:md|markdown|rst)|/))`|"
    r"(?<![\w/.(\[\]])((?:[\w.\-]+/)+[\w.\-]+\.(?:md|markdown|rst))\b"
)
CODE_WORD = re.compile(r"`([\w.\-]+)`")
# "Go to *datasets* directory and follow the README": a folder named in prose, by its name.
FOLDER_WORD = re.compile(r"[*_`]?\b([\w.\-]+)[*_`]?\s+(?:sub-?)?(?:directory|folder)\b", re.I)
# "See the README in each folder": every first-level folder's README is linked.
EACH_FOLDER_README = re.compile(
    r"\breadme\b[^.\n]{0,40}\b(?:each|every)\s+(?:sub-?)?(?:folder|directory|dir)\b|"
    r"\b(?:each|every)\s+(?:sub-?)?(?:folder|directory|dir)\b[^.\n]{0,40}\breadme\b",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class RepoFile:
    """One regular file of a checkout: its POSIX path relative to the root and its size."""

    path: str
    size: int

    @property
    def name(self) -> str:
        """The file name."""
        # String operations, not PurePosixPath: detectors ask this of every file of big trees.
        return self.path.rsplit("/", 1)[-1]

    @property
    def suffix(self) -> str:
        """The lower-case suffix, e.g. '.py' ('' for '.bashrc' or 'Makefile', as pathlib)."""
        name = self.path.rsplit("/", 1)[-1]
        dot = name.rfind(".")
        return name[dot:].lower() if 0 < dot < len(name) - 1 else ""

    @property
    def depth(self) -> int:
        """0 for a file at the root, 1 one folder down, and so on."""
        return self.path.count("/")


@dataclass
class RepoTree:
    """The readable files of one checkout (a plain folder is enough; .git is ignored)."""

    root: Path
    max_bytes: int = MAX_FILE_BYTES
    warnings: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.root = Path(self.root).resolve()
        self._cache: dict[str, str | None] = {}

    @cached_property
    def files(self) -> tuple[RepoFile, ...]:
        """Every regular file under the root, sorted; links out of the tree are left out."""
        found: list[RepoFile] = []
        root = str(self.root)
        prefix = root.rstrip(os.sep) + os.sep  # slicing, not os.path.relpath: big trees
        for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS)
            for name in filenames:
                full = os.path.join(dirpath, name)
                rel = full[len(prefix) :].replace(os.sep, "/")
                size = self._regular_size(full, rel)
                if size is not None:
                    found.append(RepoFile(rel, size))
                if len(found) >= MAX_FILES:
                    self.warnings.append(f"more than {MAX_FILES} files: the rest is not read")
                    return tuple(sorted(found, key=lambda f: f.path))
        return tuple(sorted(found, key=lambda f: f.path))

    def _regular_size(self, full: str, rel: str) -> int | None:
        try:
            if os.path.islink(full):
                target = os.path.realpath(full)
                if not target.startswith(str(self.root) + os.sep) or not os.path.isfile(target):
                    self.warnings.append(f"{rel}: symlink out of the checkout, not followed")
                    return None
                return os.path.getsize(target)
            return os.path.getsize(full) if os.path.isfile(full) else None
        except OSError:
            return None

    @cached_property
    def paths(self) -> frozenset[str]:
        """The set of relative paths, for membership tests."""
        return frozenset(f.path for f in self.files)

    @property
    def read_paths(self) -> tuple[str, ...]:
        """The paths read so far (for measuring what an audit reads)."""
        return tuple(self._cache)

    def read_text(self, rel: str) -> str | None:
        """The file's text, or None when it is missing, binary, oversized or unreadable."""
        if rel in self._cache:
            return self._cache[rel]
        text = self._read(rel)
        self._cache[rel] = text
        return text

    def _read(self, rel: str) -> str | None:
        if rel not in self.paths:
            return None
        full = os.path.realpath(self.root / rel)
        if not full.startswith(str(self.root) + os.sep):
            return None
        try:
            if os.path.getsize(full) > self.max_bytes:
                self.warnings.append(f"{rel}: larger than {self.max_bytes} bytes, skipped")
                return None
            with open(full, "rb") as fh:
                data = fh.read()
        except OSError as exc:
            self.warnings.append(f"{rel}: unreadable ({exc.strerror})")
            return None
        # UTF-16 text (a README saved by Windows tools) is half NUL bytes: its byte-order mark
        # tells it from a binary file before the NULs would.
        if data.startswith(b"\xff\xfe") or data.startswith(b"\xfe\xff"):
            return data.decode("utf-16", errors="replace")
        if b"\0" in data[:8192]:
            return _text_with_stray_nuls(data)
        return data.decode("utf-8-sig", errors="replace")

    def with_suffix(self, *suffixes: str) -> list[RepoFile]:
        """Files whose lower-case suffix is one of `suffixes`."""
        wanted = tuple(s.lower() for s in suffixes)
        return [f for f in self.files if f.suffix in wanted]

    @cached_property
    def readme(self) -> str | None:
        """The root README (Markdown preferred), if any."""
        candidates = [f for f in self.files if f.depth == 0 and f.name.lower().startswith("readme")]
        # `README.md` before `README-MUP.md`: a variant's name sorts first ("-" < ".").
        candidates.sort(
            key=lambda f: (
                f.suffix not in (".md", ".markdown"),
                f.suffix == "",
                f.name.lower().rsplit(".", 1)[0] != "readme",
                f.path,
            )
        )
        return candidates[0].path if candidates else None

    @cached_property
    def docs(self) -> tuple[str, ...]:
        """Documentation files in reading order: README, files it links to, root and docs/ prose."""
        chosen: list[str] = []
        if self.readme:
            chosen.append(self.readme)
            chosen.extend(self._linked_docs(self.readme))
        for f in self.files:
            if f.suffix not in DOC_SUFFIXES or NOT_DOCS.search(f.path):
                continue
            top = f.path.split("/", 1)[0].lower()
            if f.depth == 0:
                if f.suffix == ".txt" and not ROOT_TEXT_DOC.match(f.name):
                    continue
                chosen.append(f.path)
            elif top in ("docs", "doc"):
                chosen.append(f.path)
            elif f.name.lower().startswith("readme") and f.depth <= 2 and f.suffix != ".txt":
                # Sub-project READMEs often carry the install and hardware notes of the model.
                chosen.append(f.path)
        return tuple(dict.fromkeys(chosen))

    @cached_property
    def codebook_docs(self) -> tuple[str, ...]:
        """`docs` as the codebook reads them: sub-folder READMEs only when the README links them."""
        linked = set(self._linked_docs(self.readme)) if self.readme else set()
        return tuple(
            p for p in self.docs
            if "/" not in p or p.split("/", 1)[0].lower() in ("docs", "doc") or p in linked
        )  # fmt: skip

    def _linked_docs(self, doc: str) -> list[str]:
        text = self.read_text(doc) or ""
        base = PurePosixPath(doc).parent
        linked = []
        named = [m.group(1) or m.group(2) for m in PROSE_PATH.finditer(text)]
        # A folder named in inline code ("see `v1` for the first version") is a folder link.
        named += [w for w in CODE_WORD.findall(text) if f"{w}/README.md" in self.paths]
        named += [w for w in FOLDER_WORD.findall(text) if f"{w}/README.md" in self.paths]
        if EACH_FOLDER_README.search(text):
            named += sorted({f.path.split("/", 1)[0] for f in self.files if f.depth == 1})
        targets = [m.group(1) or m.group(2) or "" for m in LINK.finditer(text)] + named
        targets += [next(filter(None, m.groups()), "") for m in OTHER_LINK.finditer(text)]
        renamed = self._renamed_selves(targets)
        for target in targets:
            target = target.split("#", 1)[0].split("?", 1)[0].rstrip("/") or target
            target = unquote(target)  # "Getting%20Started.md" names "Getting Started.md"
            here = base
            own = GITHUB_TREE_LINK.match(target)
            if own and (self._is_named(own.group(2)) or own.group(2).lower() in renamed):
                target, here = own.group(3), PurePosixPath()  # the repository's own sub-folder
            elif target.startswith("/") and not target.startswith("//"):
                target, here = target.lstrip("/"), PurePosixPath()  # GitHub reads it from the root
            if not target or "://" in target or target.startswith(("mailto:", "/")):
                continue
            rel = os.path.normpath(str(here / target)).replace(os.sep, "/")
            rel = self._folder_readme(rel) or rel  # a folder link reads the folder's README
            if rel in self.paths and PurePosixPath(rel).suffix.lower() in LINKED_DOC_SUFFIXES:
                name = rel.rsplit("/", 1)[-1]
                if rel.lower().endswith(".txt") and not ROOT_TEXT_DOC.match(name):
                    continue  # a linked log, word list or data file is no documentation
                if not NOT_DOCS.search(rel):
                    linked.append(rel)
        return linked

    def _is_named(self, name: str) -> bool:
        """True when the checkout's folder is named after repository `name`."""
        folder, name = self.root.name.lower(), name.lower()
        return folder == name or folder.endswith(f"__{name}")

    def _renamed_selves(self, targets: list[str]) -> set[str]:
        """Repository names (lower-cased) of the checkout's owner whose links all name paths
        of the checkout, several of them and one nested at least: its own earlier or later name."""
        owner = self.root.name.lower().split("__", 1)[0] if "__" in self.root.name else None
        paths: dict[str, set[str]] = {}
        for target in targets:
            m = GITHUB_TREE_LINK.match(target.split("#", 1)[0].split("?", 1)[0])
            if m and owner and m.group(1).lower() == owner and not self._is_named(m.group(2)):
                paths.setdefault(m.group(2).lower(), set()).add(m.group(3).rstrip("/"))
        return {
            name for name, found in paths.items()
            if len(found) >= RENAMED_MIN_LINKS and any("/" in p for p in found)
            and all(self._has_path(p) for p in found)
        }  # fmt: skip

    def _has_path(self, path: str) -> bool:
        """True when `path` is a file or a folder of the checkout."""
        return path in self.paths or any(p.startswith(f"{path}/") for p in self.paths)

    def _folder_readme(self, folder: str) -> str | None:
        """The README of a sub-folder of the checkout, if `folder` is one that has a README."""
        if folder in self.paths or folder in (".", ""):
            return None
        for name in ("README.md", "readme.md", "README.rst", "README.markdown", "Readme.md"):
            if f"{folder}/{name}" in self.paths:
                return f"{folder}/{name}"
        return None

    @cached_property
    def dependency_files(self) -> tuple[tuple[str, str], ...]:
        """(path, source kind) for every dependency file, kind named as in software_req_sources."""
        found = []
        for f in self.files:
            if not DEPENDENCY_HINT.search(f.name):
                continue  # one cheap test per file; most files of a big tree are not manifests
            for kind, pattern in DEPENDENCY_PATTERNS:
                if pattern.search(f.path):
                    found.append((f.path, kind))
                    break
        return tuple(found)


def _text_with_stray_nuls(data: bytes) -> str | None:
    """A text file that an editor left a short run of NUL bytes in (a README otherwise plain
    UTF-8) without them; None for a binary file, whose bytes are no printable UTF-8 once the
    NULs go."""
    if data.count(b"\0") > max(64, len(data) // 50):
        return None
    try:
        text = data.replace(b"\0", b"").decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    control = sum(1 for c in text if c < " " and c not in "\t\n\r\f")
    return text if control <= len(text) // 100 else None


def is_vendored(path: str) -> bool:
    """True for third-party or generated code that does not define the project's own model."""
    parts = path.lower().split("/")
    return any(
        p in ("third_party", "thirdparty", "3rdparty", "external", "externals", "vendor",
              "vendored", "deps", "lib64", "site-packages", "dist", "build")
        for p in parts[:-1]
    )  # fmt: skip
