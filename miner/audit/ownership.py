"""Whose words a line is: this project's, or another's that must not vote for it.

Every classifier that reads documentation asks this module before a sentence counts:

- `quoted`: a pattern quoted as an example ("16GB RAM", "Tesla V100" in a tool's rules or its
  codebook) is shown, not stated: the text inside double quotation marks (unless a verb of use
  names it: `tested on a "1x A100 (40 GB)" instance`), and Markdown shown as inline code
  (`` `[COCO](https://...)` ``);
- `about_others`: sentences about other projects: news items, other tools' results and claims,
  grant acknowledgements and the entries of an awesome or reading list;
- `foreign_trees`: folders that are another project bundled or vendored whole, known by their
  own licence and packaging under another name than the repository's: their documentation is
  not read (their code still is: a bundled model the project trains is its model), and their
  data files and download code are not this project's data (`in_foreign_tree`);
- `fork_page`: a repository whose root packages a library under another name is that library's
  fork; the pages of its documentation site that never name the repository are the library's;
- `other_project_page`: a documentation page titled with the name of another repository it links
  presents that project (a framework's page for a method or plugin built on it);
- `link_entries`: the entries of an awesome or reading list (a document most of whose list
  items open with a link to another site) describe the works they link, not this project;
- `borrowed_folders`: folders the documentation says were copied or borrowed from another
  repository: their downloads and training loops are that repository's, not this project's.
"""

from __future__ import annotations

import re

from miner.audit.detect.framework_map import python_framework
from miner.audit.files import RepoTree

QUOTATION = re.compile(r"\"[^\"\n]{1,80}\"|“[^”\n]{1,80}”")
SHOWN_MARKDOWN = re.compile(r"`[^`\n]*\]\([^`\n]*`")
# "[2024/05] We release ...", "🔥 News: X now supports ...", "Supported by NSF grant ...".
NEWS_ITEM = re.compile(
    r"^\W*(?:\[?\d{4}[./-]\d{1,2}(?:[./-]\d{1,2})?\]?|news\b|update\b|🔥|📢|🚀|\*\*\d{4})", re.I
)
GRANT = re.compile(
    r"\b(?:supported|funded|sponsored) (?:in part )?by\b[^.]{0,80}\b(?:grant|foundation|"
    r"program|programme|council|fund|nsf|darpa|erc|nih)\b|\bgrant (?:no\.?|number|#)",
    re.I,
)


# A quotation that names what the authors used (`tested on a Lambda Labs "1x A100 (40 GB SXM4)"
# instance`) is a name in use, not a pattern shown as an example: a verb of use, then at most
# an article and a few capitalised words, right before the opening quote.
NAMED_IN_USE = re.compile(
    r"(?i:\b(?:tested|trained|run|ran|used|using|benchmarked|measured|evaluated|conducted|"
    r"performed|done|carried out)\s+(?:on|with|in)\s+(?:an?\s+|the\s+|one\s+|our\s+|single\s+)?)"
    r"(?:[A-Z][\w.-]*\s+){0,3}$"
)


def quoted(text: str, start: int, end: int) -> bool:
    """True when text[start:end] sits inside a quotation or inline-code Markdown shown as text."""
    for pattern in (QUOTATION, SHOWN_MARKDOWN):
        for m in pattern.finditer(text):
            if m.start() < start and end <= m.end():
                if pattern is QUOTATION and NAMED_IN_USE.search(text, 0, m.start()):
                    return False
                return True
            if m.start() >= end:
                break
    return False


def strip_shown_markdown(raw: str) -> str:
    """`raw` without inline code that shows Markdown source (its links are not links)."""
    return SHOWN_MARKDOWN.sub(" ", raw) if "`" in raw else raw


# A list item that opens with a link to another site: the entries of awesome and reading lists.
LIST_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+\.)[ \t]+\S", re.M)
LINK_ITEM = re.compile(r"^[ \t]*(?:[-*+]|\d+\.)[ \t]+(?:\*\*)?\[[^\]\n]+\]\(https?://", re.M)
LINK_LIST_ITEMS = 20  # a list of links this long, most of the document's list items, is a list
LINK_LIST_SHARE = 0.6  # of resources, not instructions for this project


def link_list(text: str) -> bool:
    """True for an awesome or reading list: at least `LINK_LIST_ITEMS` list items open with a
    link to another site, and they are most of the document's list items."""
    links = len(LINK_ITEM.findall(text))
    return links >= LINK_LIST_ITEMS and links >= LINK_LIST_SHARE * len(LIST_ITEM.findall(text))


LINK_ROW = re.compile(r"^[ \t]*\|.*\]\(https?://", re.M)


def link_entries(text: str) -> frozenset[int]:
    """The lines (1-based) of a link list's entries, as list items or as table rows that link
    their work: "- [MInference](https://...) - reduces latency on an A100" says what the linked
    work does, on its hardware, with its data, framework and networks. Empty when the document
    is no link list."""
    if not link_list(text):
        return frozenset()
    starts = [m.start() for p in (LINK_ITEM, LINK_ROW) for m in p.finditer(text)]
    return frozenset(text.count("\n", 0, at) + 1 for at in starts)


def about_others(sentence: str) -> bool:
    """True for a news item or a grant acknowledgement: it reports, it states no need."""
    return bool(NEWS_ITEM.search(sentence) or GRANT.search(sentence))


LICENCES = frozenset({"LICENSE", "LICENSE.txt", "LICENSE.md", "COPYING", "LICENCE"})
OWN_MARKERS = LICENCES | {"README.md", "README.rst", "setup.py", "pyproject.toml"}
# An unpacked release of another project keeps its versioned folder name (`tool-1.1.0`), however
# deep it sits (a data-preparation tool copied under `data/<set>/`).
RELEASE_FOLDER = re.compile(r"[A-Za-z][\w.]*-v?\d+(?:\.\d+)+$")
MAX_COPY_DEPTH = 3
MAX_RELEASE_DEPTH = 6
PACKAGE_NAME = re.compile(
    r"""^\s*name\s*=\s*["']([\w.\-]+)["']|\bname\s*=\s*["']([\w.\-]+)["']""", re.M
)


def _normal(name: str) -> str:
    return re.sub(r"[-_.\s]+", "", name.lower())


def foreign_trees(tree: RepoTree) -> tuple[str, ...]:
    """Folders that hold another project whole: a folder with its own packaging (setup.py or
    pyproject.toml) and its own licence, under a package name unrelated to the repository's.
    The root is never one: a repository that is itself a framework's fork keeps its docs."""
    known = tree.__dict__.get("_foreign_trees")  # asked by the docs and the code index alike
    if known is None:
        known = tree.__dict__["_foreign_trees"] = _foreign_trees(tree)
    return known


def _foreign_trees(tree: RepoTree) -> tuple[str, ...]:
    repo = _normal(tree.root.name.split("__")[-1])
    found: list[str] = []
    folders: dict[str, set[str]] = {}
    for f in tree.files:
        if f.name not in OWN_MARKERS or not 1 <= f.depth <= MAX_RELEASE_DEPTH:
            continue
        folder = f.path.rsplit("/", 1)[0]
        if f.depth <= MAX_COPY_DEPTH or RELEASE_FOLDER.search(folder.rsplit("/", 1)[-1]):
            folders.setdefault(folder, set()).add(f.name)
    for folder, names in sorted(folders.items()):
        packaging = names & {"setup.py", "pyproject.toml"}
        if not packaging or not names & LICENCES:
            continue  # a copied project brings its licence; a sub-package of this one does not
        if any(folder.startswith(done + "/") for done in found):
            continue
        text = tree.read_text(f"{folder}/{sorted(packaging)[0]}") or ""
        m = PACKAGE_NAME.search(text)
        name = _normal((m.group(1) or m.group(2)) if m else "")
        if name and repo not in name and name not in repo:
            found.append(folder)
    return tuple(found)


DEPENDENCY_MARKER = re.compile(
    r"^(?:requirements?[\w.-]*\.txt|setup\.py|pyproject\.toml|environment[\w.-]*\.ya?ml)$", re.I
)
LICENCE_NAME = re.compile(r"^(?:licen[cs]e|copying)(?:\.\w+)?$", re.I)


def copied_trees(tree: RepoTree) -> tuple[str, ...]:
    """Folders that hold another project's code, each ending in "/": the `foreign_trees`, any
    sub-folder with its own licence, and a folder two levels down or deeper with its own README
    and dependency file that the root README never names (a sub-folder of another repository
    copied whole brings those, but not the licence at that repository's root). Code there is
    not the project's own: its training loop is not the project's model."""
    known = tree.__dict__.get("_copied_trees")
    if known is None:
        known = tree.__dict__["_copied_trees"] = _copied_trees(tree)
    return known


def _copied_trees(tree: RepoTree) -> tuple[str, ...]:
    readme = _normal(tree.read_text(tree.readme) or "") if tree.readme else ""
    found = {folder + "/" for folder in foreign_trees(tree)}
    markers: dict[str, set[str]] = {}
    for f in tree.files:
        if f.depth < 1 or f.path.startswith("."):
            continue
        folder = f.path.rsplit("/", 1)[0]
        if LICENCE_NAME.match(f.name):
            found.add(folder + "/")
        elif f.depth >= 2 and f.name.lower().startswith("readme"):
            markers.setdefault(folder, set()).add("readme")
        elif f.depth >= 2 and DEPENDENCY_MARKER.match(f.name):
            markers.setdefault(folder, set()).add("dependencies")
    for folder, kinds in markers.items():
        if kinds == {"readme", "dependencies"} and _normal(folder.rsplit("/", 1)[-1]) not in readme:
            found.add(folder + "/")
    found.update(library_copies(tree))
    return tuple(sorted(f for f in found if not any(f.startswith(o) and f != o for o in found)))


BARE_FRAMEWORKS = frozenset({
    "torch", "pytorch", "tensorflow", "keras", "jax", "flax", "mxnet", "caffe", "caffe2", "theano",
    "chainer", "paddle", "onnx", "darknet", "dynet", "cntk", "lightning", "optax", "haiku",
})  # fmt: skip


def library_copies(tree: RepoTree) -> set[str]:
    """Packages of a published deep-learning library copied inside another folder
    (`annotator/uniformer/mmcv/`, the ControlNet layout): a folder below the root, holding
    Python code, named as the library's import name, in a repository not named after it."""
    known = tree.__dict__.get("_library_copies")
    if known is not None:
        return set(known)
    repo = _normal(tree.root.name.split("__")[-1])
    found: set[str] = set()
    for f in tree.files:
        if f.suffix != ".py" or f.depth < 2:
            continue
        parts = f.path.split("/")[:-1]
        for i in range(1, len(parts)):
            name = parts[i]
            if not python_framework(name) or "." in name or _normal(name) in repo:
                continue
            if name in BARE_FRAMEWORKS:
                continue  # `embodied/jax/`, `examples/keras/`: the project's code for it
            found.add("/".join(parts[: i + 1]) + "/")
            break
    tree.__dict__["_library_copies"] = frozenset(found)
    return found


def forked_package(tree: RepoTree) -> str:
    """The name of the package the repository's root packages when it is another name than the
    repository's (a model's repository that is a fork of a whole library: `yolov10` packaging
    `ultralytics`); empty when the root packages the project itself or nothing."""
    known = tree.__dict__.get("_forked_package")
    if known is None:
        known = tree.__dict__["_forked_package"] = _forked_package(tree)
    return known


def _forked_package(tree: RepoTree) -> str:
    repo = _normal(tree.root.name.split("__")[-1])
    for marker in ("pyproject.toml", "setup.py", "setup.cfg"):
        if marker not in tree.paths:
            continue
        m = PACKAGE_NAME.search(tree.read_text(marker) or "")
        name = _normal((m.group(1) or m.group(2)) if m else "")
        if name and repo and repo not in name and name not in repo:
            return name
        return ""
    return ""


def fork_page(tree: RepoTree, path: str, text: str) -> bool:
    """True for a page of the forked library's own documentation site: under `docs/` or `doc/`
    of a fork (`forked_package`), never naming the repository. Its devices, sizes and datasets
    are the library's examples, not this project's."""
    if not path.lower().startswith(("docs/", "doc/")) or not forked_package(tree):
        return False
    repo = _normal(tree.root.name.split("__")[-1])
    return repo not in _normal(text)


# The first Markdown or reST heading of a page, and the repositories a page links.
PAGE_TITLE = re.compile(r"^\s{0,3}#{1,2}\s+(.+)$|^(\S.*)\n(?:=+|-+)\s*$", re.M)
GITHUB_REPOSITORY = re.compile(r"github\.com/[\w.\-]+/([\w.\-]+)", re.I)


def other_project_page(tree: RepoTree, path: str, text: str) -> bool:
    """True for a page under `docs/` or `doc/` that presents another project: its title is the
    name of a GitHub repository the page links, other than this one ("# Instruct-NeRF2NeRF"
    linking github.com/x/instruct-nerf2nerf in a framework's list of methods built on it), a name
    unrelated to the repository's. Its devices, sizes and datasets are that project's."""
    if not path.lower().startswith(("docs/", "doc/")):
        return False
    title = PAGE_TITLE.search(text)
    if not title:
        return False
    name = _normal(title.group(1) or title.group(2) or "")
    repo = _normal(tree.root.name.split("__")[-1])
    if not name or name in repo or repo in name:
        return False  # a port's page titled with the original it reimplements is its own
    linked = {_normal(m.removesuffix(".git")) for m in GITHUB_REPOSITORY.findall(text)}
    return name in linked


# "`configs/` and `tools/` are copied from https://github.com/x/y", "`extern/ldm` is borrowed
# from `other/ldm`", "Part of the code is borrowed from the following repos: ...".
BORROWED = re.compile(
    r"\b(?:is|are|was|were|ha(?:s|ve) been)\s+(?:\w+\s+)?(?:copied|borrowed|taken|forked)\s+"
    r"(?:directly\s+)?from\b",
    re.I,
)
SENTENCE_START = re.compile(r"(?:^|[.!?]\s|\n\s*\n)(?=[^.!?]*$)")
NAMED_FOLDER = re.compile(r"`\.?/?([\w.\-]+(?:/[\w.\-]+)*)/?`")
NEXT_HEADING = re.compile(r"^\s{0,3}#{1,6}\s|^\S.*\n(?:=+|-+)\s*$", re.M)
DOC_NAME = re.compile(r"^readme(?:\.\w+)?$", re.I)


def borrowed_folders(tree: RepoTree) -> tuple[str, ...]:
    """Folders, each ending in "/", that a README says were copied or borrowed from another
    repository: the folders a borrowing sentence names (`configs/`, read from the README's own
    folder or the root) and, where it links the repositories borrowed from, the sub-folders
    named after one of them (`audioldm/clap/` under "code is borrowed from ... LAION-AI/CLAP")."""
    known = tree.__dict__.get("_borrowed_folders")
    if known is None:
        known = tree.__dict__["_borrowed_folders"] = _borrowed_folders(tree)
    return known


def _borrowed_folders(tree: RepoTree) -> tuple[str, ...]:
    folders = {path.rsplit("/", 1)[0] for path in tree.paths if "/" in path}
    folders |= {f.rsplit("/", i)[0] for f in list(folders) for i in range(1, f.count("/") + 1)}
    repo = _normal(tree.root.name.split("__")[-1])
    found: set[str] = set()
    for f in tree.files:
        if not DOC_NAME.match(f.name):
            continue
        text = tree.read_text(f.path) or ""
        base = f.path.rsplit("/", 1)[0] + "/" if "/" in f.path else ""
        for m in BORROWED.finditer(text):
            head = text[: m.start()]
            start = max(head.rfind(". "), head.rfind("\n\n"), head.rfind("**"), 0)
            for name in NAMED_FOLDER.findall(head[start:]):
                for candidate in (base + name, name):
                    if candidate in folders:
                        found.add(candidate + "/")
                        break
            section = text[m.end() :]
            end = NEXT_HEADING.search(section)
            linked = {
                _normal(n.removesuffix(".git"))
                for n in GITHUB_REPOSITORY.findall(section[: end.start() if end else 2000])
            } - {repo, ""}
            # A component inside the project's package (`audioldm/clap/`); a top-level folder
            # named for the repository borrowed from is the code base the project builds on.
            found.update(
                folder + "/"
                for folder in folders
                if "/" in folder and _normal(folder.rsplit("/", 1)[-1]) in linked
            )
    return tuple(sorted(f for f in found if not any(f.startswith(o) and f != o for o in found)))


def in_foreign_tree(tree: RepoTree, path: str) -> bool:
    """True when `path` lies in a folder that holds another project whole, or in one the
    documentation says was copied from another repository."""
    return any(path.startswith(folder + "/") for folder in foreign_trees(tree)) or in_borrowed(
        tree, path
    )


def in_borrowed(tree: RepoTree, path: str) -> bool:
    """True when `path` lies in a folder the documentation says was copied from elsewhere."""
    return any(path.startswith(folder) for folder in borrowed_folders(tree))
