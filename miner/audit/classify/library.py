"""Is the repository a library (codebook exclusion `library`)?

A package meant to be installed and built upon: published to PyPI/conda or installed with
`pip install <this project>` (from an index or a git URL) and then imported, or a project whose
introduction presents it as a library or toolkit. A local `pip install -e .` that runs the
repository's own scripts does not make it one.
"""

from __future__ import annotations

import re

from miner.audit.detect import AuditContext
from miner.audit.docs import Block
from miner.codebook import Evidence

INTRO_BLOCKS = 3
# What a package built upon is called ("an open platform for training X" is a project's service,
# not a library).
LIBRARY_WORDS = re.compile(
    r"\b(?:library|toolkit|toolbox|framework|package|python module|api|sdk)\b", re.I
)
# An engine or platform for a framework's users is built upon ("DI-engine is a generalized
# decision intelligence engine for PyTorch and JAX").
FOR_FRAMEWORK = re.compile(
    r"\bis\s+an?\s+(?:[\w-]+\s+){0,5}?(?:engine|platform)\s+for\s+(?:PyTorch|TensorFlow|JAX|"
    r"Keras|MXNet|PaddlePaddle|MindSpore)\b",
    re.I,
)
# "X is an open-source deep learning toolkit ...": the project presents itself as a library.
SELF_LIBRARY = re.compile(
    r"\bis\s+an?\s+(?:[\w-]+,?\s+){0,5}?(?:library|toolkit|toolbox|framework|package|"
    r"python (?:module|package))\b",
    re.I,
)
# "This library is in wide use", "this repository records X's library for ...": said of itself,
# with no build file needed (a framework run from its checkout is still a library).
THIS_LIBRARY = re.compile(
    r"\b(?:this|our)\s+(?:library|toolkit|python package)\s+(?:is|provides|supports|offers)\b|"
    r"\b(?:this|the)\s+(?:repository|repo)\s+(?:records|hosts|contains)\s+(?:[\w.\-]+'s\s+)?"
    r"(?:library|toolkit)\b",
    re.I,
)
# "This toolkit provides the VAD code and our recorded dataset": what it hands over is a study's
# code and data, a project's release, whatever it calls itself.
CODE_AND_DATA = re.compile(
    r"\bprovides?\s+(?:the\s+|our\s+)?(?:[\w()/-]+\s+){0,6}?(?:code|implementation)s?\s+and\s+"
    r"(?:the\s+|our\s+)?(?:[\w-]+\s+){0,2}?(?:datasets?|data|corpus|recordings)\b",
    re.I,
)
BUILD_FILES = ("setup.py", "setup.cfg", "pyproject.toml", "Makefile", "CMakeLists.txt")
# `pip install -U name`, `pip install "name[extra]"`, `pip install git+https://host/owner/name.git`
PIP_SELF = re.compile(
    r"\b(?:pip3?|conda|mamba)\s+install\s+(?:(?:-c|--channel)\s+\S+\s+|"
    r"(?!-e\b|--editable\b)-{1,2}[\w\-]+\s+)*[\"']?"
    r"(?:git\+\S+?/([\w.\-]+?)(?:\.git)?(?:@[\w.\-]+)?(?=[\s\"'#]|$)|([A-Za-z][\w.\-]*))",
    re.M,
)
PACKAGE_PAGE = re.compile(
    r"(?:pypi\.(?:org|python\.org)/(?:project|pypi)|badge\.fury\.io/py|img\.shields\.io/pypi/"
    r"(?:v|dm|pyversions|l)|anaconda\.org/[\w\-]+|img\.shields\.io/conda/vn/[\w\-]+)/"
    r"([A-Za-z][\w.\-]*?)(?:\.svg|/|\)|\?|\s|$)",
    re.I | re.M,
)
SETUP_NAME = re.compile(r"""\b(?:name|PACKAGE_NAME)\s*[=:]\s*['"]?([\w.\-]+)""")
# The README presents the code of a paper or a model: installing it is a convenience.
PAPER_OR_MODEL = re.compile(
    r"\b(?:code|implementation|models?)\s+(?:[\w-]+\s+){0,3}?(?:for|of)\s+(?:our|the)\s+"
    r"(?:[\w-]+\s+)?paper\b|\bofficial\s+(?:[\w-]+\s+)?(?:implementation|code|repository)\b|"
    r"\bis\s+an?\s+(?:[\w-]+\s+){0,6}?model\b",
    re.I,
)
PRESENTATION_BLOCKS = 8
# Anywhere in the README of a published package, the authors call it their library or
# framework ("We supported X in our framework", "If you use this library, please cite").
OWN_LIBRARY = re.compile(
    r"\b(?:this|our)\s+(?:library|toolkit|toolbox|framework)\b(?![-\w])|"
    r"^\W*the\s+(?:library|toolkit|toolbox)\s+(?:supports|provides|offers|is)\b",
    re.I | re.M,
)
# The README sends its reader to use the package in code of their own ("If you want to `import
# minlora` into your project", "For writing custom CIFAR-10 experiments ... use the dataloader").
OWN_USE = re.compile(
    r"\b(?:into|in|for|from)\s+your\s+(?:own\s+)?(?:projects?|code(?:base)?|experiments?|"
    r"applications?|pipelines?|scripts?)\b|\bcustom\s+(?:[\w-]+\s+){0,2}?experiments\b",
    re.I,
)
USE_REACH = 2  # blocks after the sentence in which the import may come
DESCRIPTION = re.compile(r"""\bdescription\s*[=:]\s*(?:"([^"\n]{5,300})"|'([^'\n]{5,300})')""")
IMPORT = re.compile(r"^\s*(?:>>>\s*)?(?:import|from)\s+(\w+)", re.M)
IMPORT_SPAN = re.compile(r"\b(?:import|from)\s+`?(\w+)")  # "`import minlora` into your project"


def _norm(name: str) -> str:
    return name.lower().replace("_", "-")


PACKAGING = ("setup.py", "setup.cfg", "pyproject.toml")


def _packages(ctx: AuditContext) -> set[str]:
    """Importable packages of the repository: folders with an `__init__.py` at the root or
    under `src/`, or so in a sub-folder with packaging of its own (`rwkv_pip_package/src/rwkv`,
    the pip package of a repository that is more than its package)."""
    found = set()
    for path in ctx.tree.paths:
        parts = path.split("/")
        if parts[-1] != "__init__.py":
            continue
        if len(parts) == 2:
            found.add(parts[0])
        elif len(parts) == 3 and parts[0] == "src":
            found.add(parts[1])
        elif len(parts) in (3, 4) and parts[0] in _packaged_folders(ctx):
            if len(parts) == 3 or parts[1] == "src":
                found.add(parts[-2])
    return found


def _packaged_folders(ctx: AuditContext) -> set[str]:
    """Folders at the root's level with packaging of their own."""
    return {p.split("/")[0] for p in ctx.tree.paths
            if p.count("/") == 1 and p.split("/")[1] in PACKAGING}  # fmt: skip


def _names(ctx: AuditContext, packages: set[str]) -> set[str]:
    names = {ctx.tree.root.name.split("__", 1)[-1]} | packages
    sub = [f"{folder}/{name}" for folder in sorted(_packaged_folders(ctx)) for name in PACKAGING]
    for path in (*PACKAGING, *sub):
        text = ctx.tree.read_text(path) if path in ctx.tree.paths else None
        if text:
            names.update(SETUP_NAME.findall(text))
            if path == "setup.py":
                names.update(_named_by_variable(text))
    return {_norm(n) for n in names}


def _named_by_variable(text: str) -> list[str]:
    """`setup(name=package_name)` with `package_name = os.environ.get('X', 'mosaicml')`: the
    last string the variable's assignment names."""
    found = []
    for variable in re.findall(r"\bname\s*=\s*([A-Za-z_]\w*)\s*[,)]", text):
        assigned = re.search(rf"^{variable}\s*=\s*(.+)$", text, re.M)
        strings = re.findall(
            r"""['"]([A-Za-z][\w.\-]*)['"]""", assigned.group(1) if assigned else ""
        )
        found += strings[-1:]
    return found


def _published(ctx: AuditContext, names: set[str]) -> Evidence | None:
    for block in ctx.docs.blocks:
        if block.path != ctx.tree.readme:
            continue
        for m in PIP_SELF.finditer(block.text):
            name = m.group(1) or m.group(2)
            if _norm(name) in names:
                line = block.line + block.text.count("\n", 0, m.start())
                return Evidence(block.path, line, m.group(0).strip(), "exclude.library_install")
    # A badge or link to the project's own PyPI or conda page (link targets are in the raw text).
    raw = ctx.tree.read_text(ctx.tree.readme) if ctx.tree.readme else None
    for m in PACKAGE_PAGE.finditer(raw or ""):
        if _norm(m.group(1)) in names:
            line = raw.count("\n", 0, m.start()) + 1 if raw else 0
            return Evidence(ctx.tree.readme or "", line, m.group(0), "exclude.library_pypi")
    return None


def _imported(ctx: AuditContext, packages: set[str]) -> Evidence | None:
    """A README code example importing the repository's own package."""
    for block in ctx.docs.code():
        if block.path != ctx.tree.readme:
            continue
        for m in IMPORT.finditer(block.text):
            if m.group(1) in packages:
                line = block.line + block.text.count("\n", 0, m.start())
                text = m.group(0).strip()
                return Evidence(block.path, line, text, "exclude.library_import")
    return None


def _used_in_own_code(ctx: AuditContext, packages: set[str]) -> list[Evidence] | None:
    """A README sentence that sends the reader to use the repository's package in code of their
    own, with the import of the package in it or in a code block just after."""
    readme = [b for b in ctx.docs.blocks if b.path == ctx.tree.readme]
    for index, block in enumerate(readme):
        if block.kind == "code" or not OWN_USE.search(block.text):
            continue
        for later in readme[index : index + 1 + USE_REACH]:
            pattern = IMPORT if later.kind == "code" else IMPORT_SPAN
            found = next((m for m in pattern.finditer(later.text) if m.group(1) in packages), None)
            if found is not None:
                said = Evidence(block.path, block.line, block.text[:200], "exclude.library_own_use")
                line = later.line + later.text.count("\n", 0, found.start())
                return [said, Evidence(later.path, line, found.group(0).strip(),
                                       "exclude.library_import")]  # fmt: skip
    return None


def _package_description(ctx: AuditContext) -> Evidence | None:
    """The package metadata's own description calls it a library (`description="... library"`);
    an indented `description = "..."` in `setup.py` is a class attribute (a custom command's,
    "Build and publish the package."), not the package's."""
    for path in ("setup.py", "setup.cfg", "pyproject.toml"):
        text = ctx.tree.read_text(path) if path in ctx.tree.paths else None
        for m in DESCRIPTION.finditer(text or ""):
            if path == "setup.py" and text and _class_attribute(text, m.start()):
                continue
            if LIBRARY_WORDS.search(m.group(1) or m.group(2)):
                line = text.count("\n", 0, m.start()) + 1 if text else 0
                return Evidence(path, line, m.group(0)[:200], "exclude.library_description")
    return None


def _class_attribute(text: str, pos: int) -> bool:
    """True when the line at `pos` sits in a class body: the nearest line above it that starts
    at the margin opens a class (not a `setup(` call whose keywords are indented too)."""
    for line in reversed(text[:pos].splitlines()[:-1] or [""]):
        if line[:1].strip():
            return line.startswith("class ")
    return False


# A sentence says what something is; a banner's slogan ("Deep Learning Framework for Training
# at Scale") or a row of badges does not.
SENTENCE = re.compile(r"\b(?:is|are|provides|offers|supports)\b", re.I)


def _introduction(blocks: list[Block]) -> list[Block]:
    """The first INTRO_BLOCKS blocks of prose, past headings and an HTML banner of logos,
    slogans and badges (read too, but not counted)."""
    intro: list[Block] = []
    counted = 0
    for block in blocks:
        if counted == INTRO_BLOCKS:
            break
        if block.kind == "heading":
            continue
        intro.append(block)
        counted += block.kind != "html" or bool(SENTENCE.search(block.text))
    return intro


def library_evidence(ctx: AuditContext, blocks: list[Block], trains: bool) -> list[Evidence]:
    """Why the repository is a library: installed under its own name and imported, or
    installed and described as a library, or presenting itself as one.

    A project that trains its model and presents itself as a paper's code or a model is kept
    even when it can be installed and imported: the package is a convenience, not the point.
    """
    packages = _packages(ctx)
    published = _published(ctx, _names(ctx, packages))
    prose = [b for b in blocks if b.kind != "heading"][:PRESENTATION_BLOCKS]
    paper = trains and any(PAPER_OR_MODEL.search(b.text) for b in prose)
    if published is not None:
        imported = _imported(ctx, packages)
        if imported is not None and not paper:
            return [published, imported]
        for block in blocks[: INTRO_BLOCKS + 2]:
            if LIBRARY_WORDS.search(block.text):
                described = Evidence(
                    block.path, block.line, block.text[:200], "exclude.library_description"
                )
                return [published, described]
        for block in prose:
            if SELF_LIBRARY.search(block.text) or FOR_FRAMEWORK.search(block.text):
                said = Evidence(block.path, block.line, block.text[:200], "exclude.library_self")
                return [published, said]
        metadata = _package_description(ctx)
        if metadata is not None:
            return [published, metadata]
        own = next((b for b in blocks if b.kind != "heading" and OWN_LIBRARY.search(b.text)), None)
        if own is not None:
            said = Evidence(own.path, own.line, own.text[:200], "exclude.library_self")
            return [published, said]
    own_use = _used_in_own_code(ctx, packages)
    if own_use is not None and not paper and any(p in ctx.tree.paths for p in BUILD_FILES):
        return own_use
    for block in _introduction(blocks):
        if CODE_AND_DATA.search(block.text):
            continue
        if THIS_LIBRARY.search(block.text) or (
            SELF_LIBRARY.search(block.text) and any(p in ctx.tree.paths for p in BUILD_FILES)
        ):
            return [Evidence(block.path, block.line, block.text[:200], "exclude.library_self")]
    return []
