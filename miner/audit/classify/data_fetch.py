"""Code and scripts that fetch a project's data (codebook field `data_available`).

Code that fetches a public dataset (`torchvision.datasets.X(download=True)`, `tfds.load`,
`load_dataset("org/name")`, Keras `datasets.*.load_data()`, Chainer's and MXNet's `get_mnist()`,
Gluon's and PaddlePaddle's data set classes), a download script for data and the
environments an RL agent is trained in. A line that fetches model weights or a tool is no data.
"""

from __future__ import annotations

import re

from miner.audit.detect import AuditContext
from miner.audit.detect.code_views import CodeViews
from miner.audit.detect.sources import CodeIndex
from miner.audit.ownership import in_foreign_tree
from miner.codebook import Evidence

# Folders of analysis and figures: a dataset fetched there is studied, not trained on.
ANALYSIS_FOLDERS = frozenset({
    "analyze", "analyse", "analysis", "analyses", "visualization", "visualisation",
    "visualize", "vis", "plots", "plotting", "figures", "notebooks",
})  # fmt: skip
# Folders of evaluation and benchmarks ("eval", "eval_mm", "evaluation", "lm_eval"): the sets they
# fetch are evaluation sets, which alone do not make the data available (codebook).
EVAL_FOLDER = re.compile(r"^(?:evals?|evaluations?|benchmarks?)(?:[_-]\w+)?$|^\w+[_-]evals?$")


# Scripts named for evaluation (`eval.py`, `evaluate_lm.py`, `eval_classeval.py`, `run_eval.py`,
# `benchmark.py`): the sets they load are evaluation sets; a script that also trains says so in
# its name (`train_eval.py`).
EVAL_SCRIPT = re.compile(
    r"^(?!.*train)(?:\w+_)?(?:evals?|evaluate|evaluation|benchmark)(?:[_-]\w+)?\.(?:py|sh)$"
)
# A loader asked only for an evaluation split (`load_dataset("wikitext", "wikitext-2-raw-v1",
# split="test")`, `tfds.load("mnist", split="test")`, `MNIST(root, train=False, download=True)`).
EVAL_SPLIT = re.compile(
    r"\bsplit\s*=\s*[rbuf]?[\"'](?:test|validation|valid|val|eval|dev)\w*(?:\[[^\]\"']*\])?[\"']"
    r"|\btrain\s*=\s*False\b"
)


def in_analysis_folder(path: str) -> bool:
    """True for a file under a folder of analysis, plots or notebooks, or of evaluation, and for a
    script named for evaluation."""
    parts = path.lower().split("/")
    folders = parts[:-1]
    return (
        not ANALYSIS_FOLDERS.isdisjoint(folders)
        or any(EVAL_FOLDER.match(f) for f in folders)
        or EVAL_SCRIPT.match(parts[-1]) is not None
    )


def _call_arguments(text: str, found: re.Match[str], limit: int = 600) -> str:
    """The arguments of the call `found` starts (`load_dataset(...)`) or sits in (`MNIST(root,
    download=True)` found at `download`), up to its closing parenthesis or `limit` characters."""
    opened = text.find("(", found.start(), found.end()) if "(" in found.group(0) else -1
    depth = 0
    for pos in range(found.start() - 1, max(-1, found.start() - limit), -1):
        if opened >= 0:
            break
        depth += {")": 1, "(": -1}.get(text[pos], 0)
        if depth < 0:
            opened = pos
    if opened < 0:
        return ""
    depth = 0
    for pos in range(opened, min(len(text), opened + limit)):
        depth += {"(": 1, ")": -1}.get(text[pos], 0)
        if depth == 0:
            return text[opened : pos + 1]
    return text[opened : opened + limit]


def evaluation_only(text: str, found: re.Match[str]) -> bool:
    """True when the loader call `found` asks only for an evaluation split: alone it does not
    obtain the data a model is trained on (codebook)."""
    return EVAL_SPLIT.search(_call_arguments(text, found)) is not None


# The data set loaders of Chainer (`chainer.datasets`) and MXNet (`mxnet.test_utils`) that
# download, Gluon's and PaddlePaddle's data set classes that download when built (their folder
# readers, `ImageFolderDataset`, `DatasetFolder`, read the user's files).
DOWNLOADING_GETTER = (
    r"get_(?:mnist|fashion_mnist|kuzushiji_mnist|cifar10|cifar100|svhn|ptb_words)\w*"
)
GLUON_DATASET = r"(?:MNIST|FashionMNIST|CIFAR10|CIFAR100)"
PADDLE_DATASET = (
    r"(?:MNIST|FashionMNIST|Cifar10|Cifar100|Flowers|VOC2012|Imdb|Imikolov|Movielens|UCIHousing|"
    r"WMT14|WMT16|Conll05st|ESC50|TESS)"
)
# Code that fetches a public dataset when it runs.
FETCH_CALL = re.compile(
    r"\bdownload\s*=\s*True\b|"  # torchvision, torchaudio, PyG, ESM dataset classes
    # ... or with the download asked for by an option (`CIFAR10(root, download=args.download)`)
    r"\bdatasets\.[A-Z]\w*\((?=[^()]*(?:\([^()]*\)[^()]*)*\bdownload\s*=\s*(?!False\b)[A-Za-z_])|"
    # a Keras data set module held in a name (`dataset = tf.keras.datasets.mnist`), then loaded
    r"\bkeras\.datasets\.(?:mnist|fashion_mnist|cifar10|cifar100|imdb|reuters)\b"
    r"(?=[\s\S]{0,2000}?\.load_data\()|"
    r"\btfds\.(?:load|builder|data_source)\(|"
    r"\bdatasets\.(?:mnist|cifar10|cifar100|fashion_mnist|imdb|reuters|boston_housing"
    r"|california_housing)\.load_data\(|"
    r"\bload_dataset\(\s*['\"](?!json['\"]|csv['\"]|text['\"]|parquet['\"]|imagefolder['\"]|"
    r"audiofolder['\"]|arrow['\"]|pandas['\"])[\w.\-/]+['\"]|"
    r"\bfetch_openml\(|\binput_data\.read_data_sets\(|\bPygNodePropPredDataset\(|"
    r"\bPygGraphPropPredDataset\(|\bPlanetoid\(|"
    # torchtext's data sets download when built: `torchtext.datasets.Multi30k.splits(...)`
    r"\btorchtext\.datasets\.\w+(?:\.splits|\.iters)?\(|"
    # the loaders of Chainer and MXNet download when called (`chainer.datasets.get_cifar10()`,
    # `mx.test_utils.get_mnist()`), Gluon's and PaddlePaddle's data sets when built
    # (`gluon.data.vision.MNIST(train=True)`, `paddle.vision.datasets.Cifar10(mode="train")`)
    rf"\b(?:datasets|test_utils)\.{DOWNLOADING_GETTER}\(|"
    rf"\bvision\.(?:datasets\.)?{GLUON_DATASET}\(|\bpaddle\.(?:vision|text|audio)\.datasets\."
    rf"{PADDLE_DATASET}\(|\bpaddle\.dataset\.\w+\.(?:train|test)\w*\(|"
    # a table read straight from the network: `pd.read_parquet("https://host/train.parquet")`
    r"\b(?:pd|pandas)\.read_(?:csv|parquet|json|table|excel|feather)\((?=\s*[rbuf]?[\"']https?://)",
)
# Data set loaders imported by name, and how each is called: a Keras data set module (`from
# keras.datasets import mnist`, then `mnist.load_data()`), a Chainer or MXNet getter (`from
# chainer.datasets import get_cifar10`, then `get_cifar10()`), a Gluon or PaddlePaddle data set
# class or their `datasets` module (`from mxnet.gluon.data.vision import datasets`, then
# `datasets.MNIST(train=True)`), a PyTorch Geometric data set class.
FROM_IMPORT = re.compile(r"^\s*from\s+([\w.]+)\s+import[ \t]+\(?([\w \t,]+)", re.M)
LOADER_IMPORTS = (
    (re.compile(r"(?:tensorflow\.)?(?:python\.)?keras\.datasets"), r"\w+", r"\.load_data\("),
    (re.compile(r"chainer\.datasets|mxnet\.test_utils"), DOWNLOADING_GETTER, r"\("),
    (re.compile(r"mxnet\.gluon\.data\.vision(?:\.datasets)?"), GLUON_DATASET, r"\("),
    (re.compile(r"mxnet\.gluon\.data\.vision"), "datasets", rf"\.{GLUON_DATASET}\("),
    (re.compile(r"paddle\.(?:vision|text|audio)\.datasets"), PADDLE_DATASET, r"\("),
    (re.compile(r"paddle\.(?:vision|text|audio)"), "datasets", rf"\.{PADDLE_DATASET}\("),
    # PyTorch Geometric's data sets download when built (`QM9(path)`, `TUDataset(root, "MUTAG")`)
    (re.compile(r"torch_geometric\.datasets"), r"[A-Z]\w+", r"\("),
    # torchtext's too, imported by name (`from torchtext import datasets`, then
    # `datasets.IMDB.splits(TEXT, LABEL)`; `from torchtext.datasets import AG_NEWS`)
    (re.compile(r"torchtext"), "datasets", r"\.[A-Z][\w]*(?:\.splits|\.iters)?\("),
    (re.compile(r"torchtext\.datasets"), r"[A-Z][\w]+", r"(?:\.splits|\.iters)?\("),
)
# Fetchers the token signals do not see (a cheap filter before FETCH_CALL).
FETCH_HINTS = (
    "download=",
    "load_data(",
    "load_dataset(",
    "tfds.",
    "Planetoid",
    "Pyg",
    ".read_",
    "torchtext",
    "get_mnist",
    "get_fashion",
    "get_kuzushiji",
    "get_cifar",
    "get_svhn",
    "get_ptb",
    "vision",
    "paddle",
    "torch_geometric.datasets",
)
# Environments stand in for a dataset when an agent is trained by interacting with them.
ENVIRONMENT = re.compile(
    r"\b(?:gym|gymnasium)\.make\(|\bfrom\s+dm_control\s+import\b|\benvpool\.make\w*\(|"
    r"\bprocgen\b|\bAtariEnv\(|\bimport\s+(?:gym|gymnasium)\b|"
    # a physics or game simulator the agent acts in
    r"\b(?:import|from)\s+(?:mujoco_py|mujoco|pybullet\w*|carla|isaacgym|vizdoom|habitat_sim|"
    r"airsim|ale_py)\b"
)
# A training loop that takes its examples from an environment it acts in: the assignment of a
# step's reward and end flag (`obs, reward, done, info = env.step(a)`, `x, r_t, terminal =
# game_state.frame_step(a_t)`, gymnasium's `terminated, truncated`). Such an agent's data is
# what it meets in the simulator or game, not a data set to download.
ENVIRONMENT_STEP = re.compile(
    r"(?m)^[ \t]*[\w\[\], \t]*\b(?:r|rew|rews|reward|rewards)(?:_\w+)?\s*,\s*"
    r"(?:done|dones|terminal|terminals|terminated|term)(?:_\w+)?\b[\w\[\], \t]*"
    r"=\s*[\w.\[\]]+\.\w*step\("
)
# An agent that plays against itself makes its own training data ("pure self-play training",
# `game.start_self_play(player)`, `collect_selfplay_data()`): there is none to obtain.
# A call in code, not in a comment: nothing but code before it on its line.
SELF_PLAY = re.compile(r"^[^#\n]*?\b((?:def\s+)?\w*self_?play\w*\s*\()", re.I | re.M)
# A command or call that fetches files from the network.
DOWNLOAD_COMMAND = re.compile(
    r"\b(?:wget|curl|gdown|axel|aria2c|azcopy)\b|\bgsutil\s+(?:-m\s+)?(?:cp|rsync)\b|"
    r"\bkaggle\s+(?:competitions|datasets)\s+download\b|"
    r"\bhuggingface-cli\s+download\b|\bhf\s+download\b|\baws\s+s3\s+(?:cp|sync)\b|"
    r"\burlretrieve\(|\b(?:Fancy)?URLopener\(|\bdownload_url\(|\bdownload_and_extract\w*\(|\bsnapshot_download\(|"
    r"\bacademictorrents\b|\w_download\w*\(|\bdownload_\w+\(|\.download\(|\burlopen\(|\brequests\.get\("
    # a data set kept as a git repository (`git clone .../deepmind/dsprites-dataset.git`)
    r"|\bgit\s+clone\s+(?:-\S+\s+)*\S*(?:data|corpus|corpora)\S*",
    re.I,
)
DOWNLOAD_LITERALS = (
    "wget", "curl", "gdown", "axel", "aria2c", "azcopy", "gsutil", "kaggle", "download",
    "Download", "DOWNLOAD", "aws s3", "urlretrieve", "URLopener", "urlopen", "requests.get",
    "academictorrents", "git clone",
)  # fmt: skip
# What a line fetches when it fetches model weights rather than data.
WEIGHTS = re.compile(
    r"\.(?:pth?|ckpt|bin|safetensors|h5|onnx|caffemodel|pb|tflite|t7|weights|pkl)\b|"
    # Darknet's pretrained convolutional layers: `darknet53.conv.74`, `yolov4.conv.137`
    r"\.conv\.\d+\b|"
    r"checkpoint|ckpt|weights?\b|pretrain|pre-train|model",
    re.I,
)
# A Hugging Face Hub download fetches a model repository unless it names a dataset repository.
HUB_DOWNLOAD = re.compile(
    r"\b(?:huggingface-cli|hf)\s+download\b|\bsnapshot_download\(|\bhf_hub_download\("
)
HUB_DATASET = re.compile(r"repo[-_]type[\s=:]*[\"']?datasets?\b|/datasets/|\bdatasets?/", re.I)
TOOL_FILE = re.compile(r"\.(?:sh|bash|py|ps1|whl|deb|rpm|exe|msi|dmg)\b(?!\.)", re.I)
# A licence, a policy page or a checksum list fetched beside weights (Meta's `download.sh`).
DOCUMENT_FILE = re.compile(r"\bLICEN[CS]E\b|\.(?:md|rst|chk|sha256|md5)\b(?!\.)", re.I)
DATA_SCRIPT = re.compile(r"data|corpus|download|fetch|^get_|^prepare", re.I)
MODEL_SCRIPT = re.compile(r"model|weight|pretrain|checkpoint|ckpt|snapshot", re.I)
# What a documented command needs to contain to fetch data or run a script (a cheap filter).
URL = re.compile(r"https?://[^\s)\]>\"'`]+|\bwww\.[^\s)\]>\"'`]+")
# X (Twitter) by its own host name only: "dropbox.com/" and "box.com/" hold datasets.
NOT_DATA_URL = re.compile(
    r"shields\.io|badge|arxiv\.org|\.(?:png|jpe?g|gif|svg|pdf)(?:\?|$)|colab\.research|"
    r"paperswithcode|openreview|youtube|twitter|(?<![\w-])x\.com/|pytorch\.org|"
    r"tensorflow\.org/install|"
    r"pypi\.org|anaconda\.org|conda\.io|nvidia\.com|python\.org|"
    r"licen[cs]e|github\.com/\S+/blob/\S+\.(?:py|ya?ml|sh|ipynb|cfg|json)\b|/discussions?/",
    re.I,
)
# Sections whose data are for evaluation only, or other projects' data.


def fetches_weights(line: str) -> bool:
    """True when a download line fetches model weights or a tool rather than data: a weight
    file or word, a Hugging Face Hub download of a model repository (no `--repo-type
    dataset`), an installer or script (`install_x.sh`, a wheel), a licence or checksum list,
    or a file of a software host."""
    if WEIGHTS.search(line) or TOOL_FILE.search(line) or DOCUMENT_FILE.search(line):
        return True
    urls = URL.findall(line)
    if urls and all(NOT_DATA_URL.search(u) for u in urls):
        return True  # software hosts (download.pytorch.org, pypi.org, nvidia.com ...)
    return bool(HUB_DOWNLOAD.search(line) and not HUB_DATASET.search(line))


def names_fetch_tools(line: str) -> bool:
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


def _imported_loader_call(text: str, views: CodeViews | None) -> re.Match[str] | None:
    """A call of a data set loader imported by name (`mnist.load_data()` on a module of
    `keras.datasets`, `get_cifar10()` from `chainer.datasets`)."""
    calls = []
    for found in FROM_IMPORT.finditer(text):
        for module, name, suffix in LOADER_IMPORTS:
            if not module.fullmatch(found.group(1)):
                continue
            for item in found.group(2).split(","):
                original, _, alias = item.strip().partition(" as ")
                if original and re.fullmatch(name, original.strip()):
                    calls.append(rf"\b{re.escape((alias or original).strip())}{suffix}")
    if not calls:
        return None
    call = re.compile("|".join(calls))
    return next((m for m in call.finditer(text) if _is_code(views, m.start())), None)


def fetching_code(index: CodeIndex) -> list[Evidence]:
    """The first call of the project's own code that fetches a public dataset."""
    for sf in index.own():
        if not sf.read or sf.support or sf.role == "test" or in_foreign_tree(index.tree, sf.path):
            continue
        if in_analysis_folder(sf.path):
            continue
        text = index.text(sf)
        if "proj.data_loader" not in sf.hits and not any(h in text for h in FETCH_HINTS):
            continue
        views = index.views.get(sf.path)
        m = next((m for m in FETCH_CALL.finditer(text) if _is_code(views, m.start())
                  and not evaluation_only(text, m)), None)  # fmt: skip
        if m is None and (imported := _imported_loader_call(text, views)) is not None:
            m = None if evaluation_only(text, imported) else imported
        if m:
            line, code = index.where(sf.path, m.group(0))
            return [Evidence(sf.path, line, code or m.group(0), "data_available.loader")]
    return []


def fetches_data(text: str, views: CodeViews | None = None) -> tuple[int, str] | None:
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
        if command and not fetches_weights(stripped) and not names_fetch_tools(stripped):
            indent = len(line) - len(line.lstrip())
            if _is_command_string(views, start + indent + command.start()):
                return text.count("\n", 0, start) + 1, stripped[:200]
    return None


def scripts_fetching_data(ctx: AuditContext, index: CodeIndex) -> list[Evidence]:
    """The first script of the project that downloads data (by its name and its commands)."""
    scripts = [sf.path for sf in index.own() if sf.read and sf.lang == "python"]
    scripts += [a.path for a in index.artifacts if a.kind == "shell" and a.weight > 0]
    for path in scripts:
        if in_foreign_tree(ctx.tree, path) or in_analysis_folder(path):
            continue  # another project's tool, copied whole, or an analysis of a dataset
        views = None if path in index.code_text else index.views.get(path)  # notebooks: JSON
        found = is_data_script(ctx, path, views) and fetches_data(
            ctx.tree.read_text(path) or "", views
        )
        if found:
            return [Evidence(path, found[0], found[1], "data_available.download_script")]
    return []


def environments(index: CodeIndex) -> list[Evidence]:
    """An environment an agent is trained in (`gym.make`, dm_control, a simulator), or the
    games an agent plays against itself: its data."""
    for sf in index.own():
        if not sf.read or sf.support:
            continue
        text = index.text(sf)
        m = SELF_PLAY.search(text)
        if m is None and ("rl.gym" in sf.hits or "net.rl" in sf.hits):
            m = ENVIRONMENT.search(text)
        if m is None:  # any environment the loop steps: gymnax, brax, a game of its own
            m = ENVIRONMENT_STEP.search(text)
        if m:
            found = m.group(m.lastindex or 0)
            line, code = index.where(sf.path, found.rstrip("("))
            return [Evidence(sf.path, line, code or found, "data_available.environment")]
    return []


def is_data_script(ctx: AuditContext, path: str, views: CodeViews | None = None) -> bool:
    """A script of the repository that downloads data (by its name and its commands)."""
    known: dict[str, bool] = ctx.cache.setdefault("data_scripts", {})
    if path not in known:
        name = path.rsplit("/", 1)[-1]
        known[path] = (
            not (
                not DATA_SCRIPT.search(name) or MODEL_SCRIPT.search(path) or "test" in name.lower()
            )
            and fetches_data(ctx.tree.read_text(path) or "", views) is not None
        )
    return known[path]


URL_LOOKBACK = 10  # lines above a download in which the URL it fetches is assigned
# The tools and calls that fetch a URL by themselves (not a helper named for downloading).
FETCH_TOOL = re.compile(
    r"\b(?:wget|curl|gdown|axel|aria2c)\b|\burlretrieve\(|\burlopen\(|\brequests\.get\("
    r"|\b(?:Fancy)?URLopener\(|\bdownload_url\(|\bdownload_and_extract\w*\("
)


def training_fetches(ctx: AuditContext, index: CodeIndex, paths: frozenset[str]) -> list[Evidence]:
    """A download in a training script itself (`subprocess.run(["wget", raw_data_source, ...])`
    two lines under `raw_data_source = 'https://.../wikitext-103-raw-v1.zip'`): the script
    fetches its data before it trains. The URL must be written on the line or just above it
    and be no model file or software host; a fetch of a path the user gives is none."""
    for path in sorted(paths):
        if in_foreign_tree(ctx.tree, path) or in_analysis_folder(path):
            continue
        text = ctx.tree.read_text(path) or ""
        found = fetches_data(text, index.views.get(path))
        if found is None or not FETCH_TOOL.search(found[1]):
            continue  # a project's own `download_x(...)` helper says nothing of what it fetches
        lines = text.splitlines()
        above = lines[max(0, found[0] - 1 - URL_LOOKBACK) : found[0]]
        urls = [u for line in above for u in URL.findall(line)
                if not NOT_DATA_URL.search(u) and not fetches_weights(u)]  # fmt: skip
        if urls:
            return [Evidence(path, found[0], found[1], "data_available.training_download")]
    return []
