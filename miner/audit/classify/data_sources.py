"""Where a project's training and test data come from (codebook field `data_available`).

Yes when the data are in the repository, or a script or link in it obtains them: data files in a
data folder or a sizeable data file at the root, code that fetches a public dataset
(`torchvision.datasets.X(download=True)`, `tfds.load`, `load_dataset("org/name")`, Keras
`datasets.*.load_data()`), a download script for data, environments an RL agent is trained in,
and dataset links or download commands in the documentation. A script that fetches model weights,
or a dataset named without a link, does not count.
"""

from __future__ import annotations

import re
from collections import Counter

from miner.audit.detect import AuditContext
from miner.audit.detect.code_views import CodeViews
from miner.audit.detect.sources import LANG_BY_SUFFIX, CodeIndex, in_copy
from miner.audit.docs import Block
from miner.audit.ownership import strip_shown_markdown
from miner.codebook import Evidence

DATA_SUFFIXES = frozenset({
    ".csv", ".tsv", ".npy", ".npz", ".h5", ".hdf5", ".pkl", ".pickle", ".mat", ".tfrecord",
    ".tfrecords", ".jpg", ".jpeg", ".png", ".bmp", ".tif", ".tiff", ".wav", ".mp3", ".flac",
    ".json", ".jsonl", ".txt", ".xml", ".ppm", ".pgm", ".nii", ".gz", ".zip",
    ".parquet", ".arff", ".data", ".conll", ".midi", ".mid",
})  # fmt: skip
DATA_FOLDERS = frozenset({
    "data", "dataset", "datasets", "corpus", "corpora", "samples", "train", "training", "test",
    "testing", "val", "valid", "validation",
})  # fmt: skip
NOT_DATA_FOLDERS = frozenset({
    "docs", "doc", "assets", "images", "img", "imgs", "figures", "fig", "static", "media",
    "results", "output", "outputs", "logs", "tests",
})  # fmt: skip
# Files in a data folder that are not data: code, prose and configuration.
NOT_DATA_SUFFIXES = frozenset(LANG_BY_SUFFIX) | frozenset({
    ".md", ".rst", ".yaml", ".yml", ".cfg", ".ini", ".toml", ".lock", ".gitignore", ".gitkeep",
    ".html", ".css",
    # binaries and model weights are not data
    ".dll", ".so", ".dylib", ".exe", ".bin", ".pyc", ".o", ".a", ".jar", ".class", ".pt", ".pth",
    ".ckpt", ".safetensors", ".onnx", ".caffemodel", ".pb", ".tflite",
    ".ttf", ".otf", ".woff", ".woff2", ".eot", ".svg", ".pdf",  # fonts and figures
})  # fmt: skip
MIN_DATA_FILES = 20
MIN_FOLDER_BYTES = 40_000  # a data folder holding a real dataset, not one example file
# Folders whose name says data: size alone decides (a graph, a names list); `samples` and the
# like often hold generated outputs and need many files.
NAMED_DATA_FOLDERS = frozenset({"data", "dataset", "datasets", "corpus", "corpora"})
# Example inputs, evaluation sets and deployment fixtures are not the training data (unless
# there are many files).
EXAMPLE_FOLDER = re.compile(r"example|demo|sample|eval|inference|deploy|playground")
IMAGE_SUFFIXES = frozenset({".jpg", ".jpeg", ".png", ".bmp", ".gif", ".tif", ".tiff", ".webp"})
# File lists, label maps and vocabularies describe a dataset the user fetches; they are not it.
LISTING = re.compile(
    r"list|meta|label|synset|class|idx|index|indices|split|vocab|dict|map|mean", re.I
)
MIN_ROOT_FILE_BYTES = 100_000  # a data file at the root (a names list, an instruction set)
ROOT_DATA_SUFFIXES = frozenset({".txt", ".json", ".jsonl", ".csv", ".tsv", ".gz", ".parquet"})
NOT_DATA_NAME = re.compile(
    r"requirement|licen[cs]e|vocab|merges|token|lock|package|changelog", re.I
)

# Code that fetches a public dataset when it runs.
FETCH_CALL = re.compile(
    r"\bdownload\s*=\s*True\b|"  # torchvision, torchaudio, PyG, ESM dataset classes
    r"\btfds\.(?:load|builder)\(|"
    r"\bdatasets\.(?:mnist|cifar10|cifar100|fashion_mnist|imdb|reuters|boston_housing)"
    r"\.load_data\(|"
    r"\bload_dataset\(\s*['\"](?!json['\"]|csv['\"]|text['\"]|parquet['\"]|imagefolder['\"]|"
    r"audiofolder['\"]|arrow['\"]|pandas['\"])[\w.\-/]+['\"]|"
    r"\bfetch_openml\(|\binput_data\.read_data_sets\(|\bPygNodePropPredDataset\(|"
    r"\bPygGraphPropPredDataset\(|\bPlanetoid\(",
)
# Fetchers the token signals do not see (a cheap filter before FETCH_CALL).
FETCH_HINTS = ("download=", "load_data(", "load_dataset(", "tfds.", "Planetoid", "Pyg")
# Environments stand in for a dataset when an agent is trained by interacting with them.
ENVIRONMENT = re.compile(
    r"\b(?:gym|gymnasium)\.make\(|\bfrom\s+dm_control\s+import\b|\benvpool\.make\w*\(|"
    r"\bprocgen\b|\bAtariEnv\(|\bimport\s+(?:gym|gymnasium)\b"
)
# A command or call that fetches files from the network.
DOWNLOAD_COMMAND = re.compile(
    r"\b(?:wget|curl|gdown|axel|aria2c|azcopy)\b|\bgsutil\s+(?:-m\s+)?(?:cp|rsync)\b|"
    r"\bkaggle\s+(?:competitions|datasets)\s+download\b|"
    r"\bhuggingface-cli\s+download\b|\bhf\s+download\b|\baws\s+s3\s+(?:cp|sync)\b|"
    r"\burlretrieve\(|\bdownload_url\(|\bdownload_and_extract\w*\(|\bsnapshot_download\(|"
    r"\bacademictorrents\b|\w_download\w*\(|\bdownload_\w+\(|\.download\(|\burlopen\(|\brequests\.get\(",
    re.I,
)
DOWNLOAD_LITERALS = (
    "wget", "curl", "gdown", "axel", "aria2c", "azcopy", "gsutil", "kaggle", "download",
    "Download", "DOWNLOAD", "aws s3", "urlretrieve", "urlopen", "requests.get", "academictorrents",
)  # fmt: skip
# What a line fetches when it fetches model weights rather than data.
WEIGHTS = re.compile(
    r"\.(?:pth?|ckpt|bin|safetensors|h5|onnx|caffemodel|pb|tflite|t7|weights|pkl)\b|"
    r"checkpoint|ckpt|weights?\b|pretrain|pre-train|model",
    re.I,
)
# A Hugging Face Hub download fetches a model repository unless it names a dataset repository.
HUB_DOWNLOAD = re.compile(
    r"\b(?:huggingface-cli|hf)\s+download\b|\bsnapshot_download\(|\bhf_hub_download\("
)
HUB_DATASET = re.compile(r"repo[-_]type[\s=:]*[\"']?datasets?\b|/datasets/|\bdatasets?/", re.I)
TOOL_FILE = re.compile(r"\.(?:sh|bash|py|ps1|whl|deb|rpm|exe|msi|dmg)\b(?!\.)", re.I)
DATA_SCRIPT = re.compile(r"data|corpus|download|fetch|^get_|^prepare", re.I)
MODEL_SCRIPT = re.compile(r"model|weight|pretrain|checkpoint|ckpt|snapshot", re.I)
# What a documented command needs to contain to fetch data or run a script (a cheap filter).
COMMAND_HINT = re.compile(
    r"(?i)download|wget|curl|gdown|gsutil|kaggle|aria2c|axel|azcopy|s3 |"
    r"urlopen|urlretrieve|requests\.get|academictorrents|\.sh\b|\.py\b|make "
)
SCRIPT_RUN = re.compile(
    r"(?:\bbash|\bsh|\bpython3?|\bsource|\./)\s*(?:-m\s+)?([\w./\-]+\.(?:sh|py))|"
    r"\bmake\s+([\w\-]*data[\w\-]*)",
    re.I,
)

DATA_WORDS = re.compile(
    r"\b(?:data\s*sets?|datasets?|data|corpus|corpora|benchmarks?|annotations?|videos|"
    r"(?:train|training|testing|test|val|validation|eval|evaluation) (?:sets?|images|samples))\b",
    re.I,
)
DATA_HOSTS = re.compile(
    r"image-net\.org|cocodataset\.org|kaggle\.com/(?:datasets|c/|competitions/[\w\-]+/data)|archive\.ics\.uci\.edu|cs\.toronto\.edu/~kriz|"
    r"yann\.lecun\.com/exdb/mnist|cityscapes-dataset|host\.robots\.ox\.ac\.uk|physionet\.org|"
    r"zenodo\.org|figshare|huggingface\.co/datasets|tensorflow\.org/datasets|"
    r"academictorrents\.com|motchallenge\.net|opendatalab",
    re.I,
)
DATA_SECTION = re.compile(
    r"^.{0,40}?\b(?:data|download|prepar|getting started|training|quick ?start)", re.I
)  # a short heading: a long title that mentions data is not a data section
INSTALL_SECTION = re.compile(
    r"instal|dependen|dependec|requirement|environment|\bset ?up\b|docker|\bbuild", re.I
)
DOWNLOAD_VERB = re.compile(
    r"\b(?:download\w*|obtain\w*|fetch\w*|available (?:at|from|here|on)|can be found|"
    r"prepar(?:e|ed|ation|ing)|"
    r"get (?:it|them|the)|from (?:this|the) link)\b",
    re.I,
)
URL = re.compile(r"https?://[^\s)\]>\"'`]+|\bwww\.[^\s)\]>\"'`]+")
NOT_DATA_URL = re.compile(
    r"shields\.io|badge|arxiv\.org|\.(?:png|jpe?g|gif|svg|pdf)(?:\?|$)|colab\.research|"
    r"paperswithcode|openreview|youtube|twitter|x\.com/|pytorch\.org|tensorflow\.org/install|"
    r"pypi\.org|anaconda\.org|conda\.io|nvidia\.com|python\.org|"
    r"licen[cs]e|github\.com/\S+/blob/\S+\.(?:py|ya?ml|sh|ipynb|cfg|json)\b|/discussions?/",
    re.I,
)
# Sections whose data are for evaluation only, or other projects' data.
# "trained on [LAION-400M](https://...)": the link right after "trained on" is the data's.
TRAINED_ON_LINK = re.compile(
    r"\b(?:trained|fine-?tuned|pre-?trained|learned)\s+(?:\w+\s+){0,2}?on\s+(?:the\s+)?"
    r"\[(?![^\]]*\b(?:gpus?|tpus?|nodes?|cards?|machines?)\b)[^\]]{2,60}\]\((https?://[^)\s]+)\)",
    re.I,
)  # not "trained on [8 GPUs](...)"
# A page of a model, not of data: a Hub model repository, a weights file.
MODEL_URL = re.compile(r"huggingface\.co/(?!datasets/)|\.(?:pth?|ckpt|safetensors|bin)\b", re.I)
NOT_DATA_SECTION = re.compile(
    r"evaluat|benchmark|citation|acknowledg|licen[cs]e|news|updates|related", re.I
)
# Sections about released models: only a dataset host's link, or a heading naming data, counts.
MODEL_SECTION = re.compile(r"model zoo|pre-?trained|checkpoints?|weights|models\b", re.I)
MODEL_CARD = re.compile(r"model[-_ ]?card", re.I)
TAGS = re.compile(r"<[^>]+>")
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


def data_evidence(ctx: AuditContext, index: CodeIndex) -> list[Evidence]:
    """Data in the tree, code that fetches a dataset, download scripts for data, environments of
    an agent, and dataset links or download commands in the documentation."""
    out: list[Evidence] = []
    out += _in_repository(ctx)
    out += _fetching_code(index)
    out += _download_scripts(ctx, index)
    out += _environments(index)
    out += _documented(ctx, index)
    return out


def _in_repository(ctx: AuditContext) -> list[Evidence]:
    files: Counter[str] = Counter()
    sizes: Counter[str] = Counter()
    for f in ctx.tree.files:
        parts = f.path.lower().split("/")
        folders = set(parts[:-1])
        if not folders:
            if (
                f.suffix in ROOT_DATA_SUFFIXES
                and f.size >= MIN_ROOT_FILE_BYTES
                and not NOT_DATA_NAME.search(f.name)
            ):
                text = f"{f.size} bytes of data"
                return [Evidence(f.path, 0, text, "data_available.in_repository")]
            continue
        if (
            folders & NOT_DATA_FOLDERS
            or f.suffix in NOT_DATA_SUFFIXES
            or f.name.startswith(".")
            or f.name.lower().startswith("readme")
        ):
            continue
        if any(p.endswith((".app", ".framework", ".bundle")) or "cache" in p for p in parts[:-1]):
            continue  # an application bundle or a build cache (a packaged simulator) is no dataset
        if folders & DATA_FOLDERS or (f.suffix in DATA_SUFFIXES and f.size > 5_000_000):
            folder = "/".join(f.path.split("/")[:-1])
            files[folder] += f.suffix in DATA_SUFFIXES  # many files: known data formats only
            # One example picture is no dataset: images count by number, not by size.
            if f.suffix not in IMAGE_SUFFIXES and not LISTING.search(f.name):
                sizes[folder] += f.size
    for folder, n in sorted(files.items(), key=lambda kv: -sizes[kv[0]]):
        parts = folder.lower().split("/")
        named = not NAMED_DATA_FOLDERS.isdisjoint(parts)
        example = any(EXAMPLE_FOLDER.search(p) for p in parts)
        parent = folder.rsplit("/", 1)[0] if "/" in folder else ""
        data_package = parent.rsplit("/", 1)[-1].lower() in NAMED_DATA_FOLDERS
        if parent and not data_package and f"{parent}/__init__.py" in ctx.tree.paths:
            named = False  # a package's own resources (reference tables, demo inputs): by count
        if n >= MIN_DATA_FILES or (named and not example and sizes[folder] >= MIN_FOLDER_BYTES):
            text = f"{n} data files" if n >= MIN_DATA_FILES else f"{sizes[folder]} bytes of data"
            return [Evidence(folder, 0, text, "data_available.in_repository")]
    return []


def _under_data_heading(block: Block) -> bool:
    """True under a data heading at any depth, unless a heading at or below it is about
    installing software ("Quick start > Install dependencies" is no data section)."""
    trail = block.trail or (block.section,)
    for i in range(len(trail) - 1, -1, -1):
        if DATA_SECTION.search(trail[i]):
            if INSTALL_SECTION.search(trail[i]) and not DATA_WORDS.search(trail[i]):
                return False
            return not any(INSTALL_SECTION.search(h) for h in trail[i + 1 :])
    return False


def _weights(line: str) -> bool:
    """True when a download line fetches model weights or a tool rather than data: a weight
    file or word, a Hugging Face Hub download of a model repository (no `--repo-type
    dataset`), an installer or script (`install_x.sh`, a wheel), or a file of a software host."""
    if WEIGHTS.search(line) or TOOL_FILE.search(line):
        return True
    urls = URL.findall(line)
    if urls and all(NOT_DATA_URL.search(u) for u in urls):
        return True  # software hosts (download.pytorch.org, pypi.org, nvidia.com ...)
    return bool(HUB_DOWNLOAD.search(line) and not HUB_DATASET.search(line))


def _catalogue(line: str) -> bool:
    """True for a line that names three or more fetch tools ("wget, curl, gdown ..."): a list
    of tools, in a tool's rules or docs, not a command that runs one."""
    return len({m.group(0).lower() for m in DOWNLOAD_COMMAND.finditer(line)}) >= 3


def _is_code(views: CodeViews | None, pos: int) -> bool:
    """True when offset `pos` of a source text is code, not a comment or a string literal (a
    docstring quoting `tfds.load(`, a pattern naming `wget`): what a tool says is not run."""
    return views is None or pos >= len(views.code) or not views.code[pos].isspace()


def _is_command_string(views: CodeViews | None, pos: int) -> bool:
    """True when offset `pos` starts a string literal that is a shell command ("wget -O ...",
    ["curl", url]), or is code; a regular expression or prose that names the tool is neither."""
    if _is_code(views, pos) or views is None:
        return True
    span = next(((a, b) for a, b in views.literals if a <= pos < b), None)
    if span is None or views.text[span[0] : pos].strip("rRbBuUfF\"' "):
        return False
    if " " in views.text[pos : span[1]].strip("\"' "):
        return True  # "wget -O data.zip URL"
    # A lone tool name is a command only as a call's first argument: ["wget", url].
    return views.text[: span[0]].rstrip().endswith(("[", "("))


def _fetching_code(index: CodeIndex) -> list[Evidence]:
    for sf in index.own():
        if not sf.read or sf.support or sf.role == "test":
            continue
        text = index.text(sf)
        if "proj.data_loader" not in sf.hits and not any(h in text for h in FETCH_HINTS):
            continue
        views = index.views.get(sf.path)
        m = next((m for m in FETCH_CALL.finditer(text) if _is_code(views, m.start())), None)
        if m:
            line, code = index.where(sf.path, m.group(0))
            return [Evidence(sf.path, line, code or m.group(0), "data_available.loader")]
    return []


def _fetches_data(text: str, views: CodeViews | None = None) -> tuple[int, str] | None:
    """The first line of a script that downloads something other than model weights; in
    source code, a call or a command string, not a comment, docstring or pattern."""
    starts = set()
    for literal in DOWNLOAD_LITERALS:  # substring search first: scripts can be long
        pos = text.find(literal)
        while pos >= 0:
            starts.add(text.rfind("\n", 0, pos) + 1)
            newline = text.find("\n", pos)
            pos = text.find(literal, newline) if newline >= 0 else -1
    for start in sorted(starts):
        end = text.find("\n", start)
        line = text[start : len(text) if end < 0 else end]
        stripped = line.strip()
        if stripped.startswith(("#", "echo", "print", "def ", "import ", "from ", "http", "//")):
            continue
        command = DOWNLOAD_COMMAND.search(stripped)
        if command and not _weights(stripped) and not _catalogue(stripped):
            indent = len(line) - len(line.lstrip())
            if _is_command_string(views, start + indent + command.start()):
                return text.count("\n", 0, start) + 1, stripped[:200]
    return None


def _download_scripts(ctx: AuditContext, index: CodeIndex) -> list[Evidence]:
    scripts = [sf.path for sf in index.own() if sf.read and sf.lang == "python"]
    scripts += [a.path for a in index.artifacts if a.kind == "shell" and a.weight > 0]
    for path in scripts:
        views = None if path in index.code_text else index.views.get(path)  # notebooks: JSON
        found = _data_script(ctx, path, views) and _fetches_data(
            ctx.tree.read_text(path) or "", views
        )
        if found:
            return [Evidence(path, found[0], found[1], "data_available.download_script")]
    return []


def _environments(index: CodeIndex) -> list[Evidence]:
    for sf in index.own():
        if not sf.read or sf.support or not ("rl.gym" in sf.hits or "net.rl" in sf.hits):
            continue
        m = ENVIRONMENT.search(index.text(sf))
        if m:
            line, code = index.where(sf.path, m.group(0).rstrip("("))
            return [Evidence(sf.path, line, code or m.group(0), "data_available.environment")]
    return []


def _raw_lines(lines: list[str], block: Block) -> str:
    """The block's lines as written (Markdown links and HTML attributes kept)."""
    start = max(block.line - 1, 0)
    span = block.text.count("\n") + 1
    if block.kind == "html":
        end = start
        while end < len(lines) and end - start < 40 and lines[end].strip():
            end += 1
        return "\n".join(lines[start:end])
    return "\n".join(lines[start : start + span])


REFERENCE_DEFINITION = re.compile(r"^\s{0,3}\[([^\]]+)\]:\s*<?(\S+?)>?(?:\s|$)", re.M)
REFERENCE_USE = re.compile(r"\[([^\]]+)\](?:\[([^\]]*)\])?(?!\()")


def _references(lines: list[str]) -> dict[str, str]:
    """Reference-style link targets of a document: `[LJ Speech]: https://...`, by label."""
    return {
        m.group(1).lower(): m.group(2)
        for line in lines
        if "]:" in line and (m := REFERENCE_DEFINITION.match(line))
    }


def _with_references(raw: str, targets: dict[str, str]) -> str:
    """`raw` with the target of each reference-style link (`[LJ Speech][1]`, `[LJ Speech]`)
    written right after it, in the same sentence."""
    if not targets or "[" not in raw:
        return raw

    def linked(m: re.Match[str]) -> str:
        url = targets.get((m.group(2) or m.group(1)).lower())
        return f"{m.group(0)} ({url})" if url else m.group(0)

    return REFERENCE_USE.sub(linked, raw)


def _data_link(raw: str, data_section: bool, models_only: bool) -> bool:
    """A sentence linking a dataset: a dataset host, or data words with a download verb (or in
    a data section), unless the sentence is about a model first ("the model trained on 5
    datasets can be found here")."""
    for sentence in SENTENCE_END.split(raw):
        urls = [u for u in URL.findall(sentence) if not NOT_DATA_URL.search(u)]
        if not urls:
            continue
        if any(DATA_HOSTS.search(u) for u in urls):
            return True
        trained_on = TRAINED_ON_LINK.search(sentence)
        if trained_on and not NOT_DATA_URL.search(trained_on.group(1)):
            if not MODEL_URL.search(trained_on.group(1)):
                return True
        if models_only:
            continue
        words = TAGS.sub(" ", URL.sub(" ", sentence))
        data = DATA_WORDS.search(words)
        if not data:
            continue
        weights = WEIGHTS.search(words)
        if weights and weights.start() < data.start():
            continue
        if DOWNLOAD_VERB.search(words) or data_section:
            return True
    return False


def _runs_data_script(ctx: AuditContext, block: Block, raw: str = "") -> tuple[int, str] | None:
    """A documented command that downloads data, or runs the repository's script that does."""
    if not COMMAND_HINT.search(block.text):
        return None
    for n, line in enumerate(block.text.splitlines()):
        if DOWNLOAD_COMMAND.search(line) and not _weights(line) and not _catalogue(line):
            if DATA_WORDS.search(line) or _under_data_heading(block):
                return block.line + n, line.strip()[:200]
        for m in SCRIPT_RUN.finditer(line):
            script = (m.group(1) or "").lstrip("./")
            # "make data" is a command in a code block, leading a line or in inline code, not
            # a verb in a sentence ("does not make data_available yes").
            target = m.group(2) and (
                block.kind == "code"
                or line.lstrip().startswith("make")
                or f"`make {m.group(2)}" in raw
            )
            if target or (script in ctx.tree.paths and _data_script(ctx, script)):
                return block.line + n, line.strip()[:200]
    return None


def _data_script(ctx: AuditContext, path: str, views: CodeViews | None = None) -> bool:
    """A script of the repository that downloads data (by its name and its commands)."""
    known: dict[str, bool] = ctx.cache.setdefault("data_scripts", {})
    if path not in known:
        name = path.rsplit("/", 1)[-1]
        known[path] = (
            not (
                not DATA_SCRIPT.search(name) or MODEL_SCRIPT.search(path) or "test" in name.lower()
            )
            and _fetches_data(ctx.tree.read_text(path) or "", views) is not None
        )
    return known[path]


def _documented(ctx: AuditContext, index: CodeIndex) -> list[Evidence]:
    readable = set(ctx.tree.codebook_docs)
    announced = ""  # "... can be downloaded as follows:": the list or table below links the data
    lines_of: dict[str, list[str]] = {}
    references: dict[str, dict[str, str]] = {}
    for block in ctx.docs.blocks:
        path = block.path
        if path not in readable or MODEL_CARD.search(path):
            continue
        section = block.heading_path  # "Data > Pascal VOC": read with every heading above
        if in_copy(path, index.framework_copies) or block.any_heading(NOT_DATA_SECTION):
            continue
        if block.kind == "code":
            found = _runs_data_script(ctx, block)
            if found:
                return [Evidence(path, found[0], found[1], "data_available.command")]
            continue
        if block.kind == "heading":  # "Download the train set and place it in ./data:"
            heading = block.text
            says = DATA_WORDS.search(heading) and DOWNLOAD_VERB.search(heading)
            announced = section if says else ""
            continue
        if path not in lines_of:
            lines_of[path] = (ctx.tree.read_text(path) or "").splitlines()
            references[path] = _references(lines_of[path])
        raw = strip_shown_markdown(
            _with_references(_raw_lines(lines_of[path], block), references[path])
        )
        models_only = bool(MODEL_SECTION.search(section)) and "data" not in section
        linked = "http" in raw or "www." in raw
        if linked and block.kind in ("list_item", "table_row") and announced == section:
            return [Evidence(path, block.line, block.text[:200], "data_available.link")]
        if linked and _data_link(raw, _under_data_heading(block), models_only):
            return [Evidence(path, block.line, block.text[:200], "data_available.link")]
        if block.kind in ("paragraph", "html"):
            text = block.text.rstrip()
            announces = text.endswith(":") and DATA_WORDS.search(text)
            announced = section if announces and DOWNLOAD_VERB.search(text) else ""
        found = _runs_data_script(ctx, block, raw)
        if found and block.kind != "table_row":
            return [Evidence(path, found[0], found[1], "data_available.command")]
    return []
