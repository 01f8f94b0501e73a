"""Data named in a project's documentation (codebook field `data_available`).

Dataset links in a data section or beside a download verb, a dataset host's link, "trained on
[X](url)", and documented commands that download data or run the repository's data script.
"""

from __future__ import annotations

import re

from miner.audit.classify.data_fetch import (
    DOWNLOAD_COMMAND,
    NOT_DATA_URL,
    URL,
    WEIGHTS,
    fetches_weights,
    is_data_script,
    names_fetch_tools,
)
from miner.audit.detect import AuditContext
from miner.audit.detect.sources import CodeIndex, in_copy
from miner.audit.docs import Block
from miner.audit.ownership import strip_shown_markdown
from miner.codebook import Evidence

COMMAND_HINT = re.compile(
    r"(?i)download|wget|curl|gdown|gsutil|kaggle|aria2c|axel|azcopy|s3 |"
    r"urlopen|urlretrieve|requests\.get|academictorrents|\.sh\b|\.py\b|make |unzip|tar |7z "
)
# "unzip dataset.zip", "tar -xzf data.tar.gz": unpacking an archive named as the data (shipped in
# the repository or fetched before) is the step that makes the data available.
UNPACK_DATA = re.compile(
    r"\b(?:unzip|tar\s+-?[a-z]*x[a-z]*|7z\s+x|unrar\s+x)\s+(?:-\S+\s+)*[\w./\-]*?"
    r"(?<![a-z])(?:data|dataset|datasets|corpus|corpora)(?![a-z])[\w.\-]*"
    r"\.(?:zip|tar|tgz|tar\.gz|tar\.bz2|7z|rar)\b",
    re.I,
)
SCRIPT_RUN = re.compile(
    r"(?:\bbash|\bsh|\bpython3?|\bsource|\./)\s*(?:-m\s+)?([\w./\-]+\.(?:sh|py))|"
    r"\bmake\s+([\w\-]*data[\w\-]*)",
    re.I,
)

# "下载处理好的 ADGEN 数据集" (download the processed ADGEN dataset): Chinese and Japanese
# write "download" and "dataset" with no word boundary; both, near each other, with a link.
CJK_DATA_DOWNLOAD = re.compile(
    r"(?:下载|ダウンロード)[^。.\n]{0,30}?(?:数据集|データセット)"
    r"|(?:数据集|データセット)[^。.\n]{0,30}?(?:下载|ダウンロード)"
)
DATA_WORDS = re.compile(
    r"\b(?:data\s*sets?|datasets?|data|corpus|corpora|benchmarks?|annotations?|videos|"
    r"(?:train|training|testing|test|val|validation|eval|evaluation) (?:sets?|images|samples))\b",
    re.I,
)
# "Download images of ChestX-ray14 from this [page](url)", "download the COCO images": images,
# videos or scans of a named dataset are the data ("the seed images", "docker images" are not).
MEDIA = r"(?i:images|videos|frames|scans|recordings|audio)"
DOWNLOADED_MEDIA = re.compile(
    rf"\b(?i:download\w*)\s+(?:(?i:the|all)\s+)?(?:{MEDIA}\s+(?i:of|from)\s+(?:(?i:the)\s+)?"
    r"(?!(?i:paper|example|sample|demo|test)\b)[A-Z0-9][\w\-]*|"
    rf"(?!(?i:docker|example|sample|demo|test)\b)[A-Z][\w\-]*\s+{MEDIA}\b)"
)
MEDIA_WORD = re.compile(rf"\b{MEDIA}\b")
ARCHIVE_URL = re.compile(r"\.(?:tar(?:\.gz|\.bz2|\.xz)?|tgz|zip|7z|rar)(?:$|[?#\"'])", re.I)
DATA_HOSTS = re.compile(
    r"image-net\.org|cocodataset\.org|kaggle\.com/(?:datasets|c/|competitions/[\w\-]+/data)|archive\.ics\.uci\.edu|cs\.toronto\.edu/~kriz|"
    r"yann\.lecun\.com/exdb/mnist|cityscapes-dataset|host\.robots\.ox\.ac\.uk|physionet\.org|"
    r"zenodo\.org|figshare|huggingface\.co/datasets|tensorflow\.org/datasets|"
    r"academictorrents\.com|motchallenge\.net|opendatalab",
    re.I,
)
DATA_SECTION = re.compile(
    r"^.{0,40}?\b(?:data|download|prepar|getting started|train(?:ing)?\b|quick ?start)", re.I
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
# "trained on [LAION-400M](https://...)": the link right after "trained on" is the data's.
# "training or inference on [MPI-Sintel](...) clean and final datasets" too.
TRAINED_ON_LINK = re.compile(
    r"\b(?:train(?:s|ed|ing)?|fine-?tun(?:e|es|ed|ing)|pre-?trained|learned)\s+(?:\w+\s+){0,3}?"
    r"on\s+(?:the\s+)?"
    r"\[(?![^\]]*\b(?:gpus?|tpus?|nodes?|cards?|machines?)\b)[^\]]{2,60}\]\((https?://[^)\s]+)\)",
    re.I,
)  # not "trained on [8 GPUs](...)"
# "the ~80K subset of [Objaverse](https://...) used to train LGM": the link before "used to
# train" is the data's.
USED_TO_TRAIN_LINK = re.compile(
    r"\[[^\]]{2,60}\]\((https?://[^)\s]+)\)[*_]{0,2}\s+(?:(?:that|which)\s+(?:was|were|is|are)\s+)?"
    r"(?:used|collected|curated)\s+(?:to\s+train|for\s+(?:the\s+)?training)\b",
    re.I,
)
# A page of a model, not of data: a Hub model repository, a weights file.
# Another repository's data folder (`github.com/org/repo/tree/master/Data`): linked in a sentence
# about data, it is where the data is (codebook: another project's page for this one's data).
DATA_FOLDER_URL = re.compile(
    r"(?:github|gitlab)\.com/[^/\s]+/[^/\s]+/(?:tree|blob)/[^/\s]+/(?:[^\s)#?]*/)?"
    r"(?:data|datasets?)/?(?:$|[)#?])",
    re.I,
)
MODEL_URL = re.compile(r"huggingface\.co/(?!datasets/)|\.(?:pth?|ckpt|safetensors|bin)\b", re.I)
NOT_DATA_SECTION = re.compile(
    r"evaluat|benchmark|citation|acknowledg|licen[cs]e|news|updates|related|"
    # the same sections of a translated README: news, changelog, citation, acknowledgements,
    # evaluation, licence (Chinese and Japanese)
    r"更新|新闻|动态|日志|引用|致谢|评测|评估|许可|ニュース|謝辞|評価|ライセンス",
    re.I,
)
# Sections that run a trained model on an example ("Zero-Shot Prediction", "Inference", "Demo")
# take their inputs from a dataset; they do not obtain the training data. A heading that also
# names training is a training section.
USE_SECTION = re.compile(
    # a short heading: "Cell boundary predictions for lightsheet images of ..." names a task
    r"^(?=.{0,40}$)(?!.*\btrain).*\b(?:zero[- ]?shot|inference|demos?|predictions?)\b",
    re.I,
)
# Sections about released models: only a dataset host's link, or a heading naming data, counts.
MODEL_SECTION = re.compile(r"model zoo|pre-?trained|checkpoints?|weights|models\b", re.I)
# Another repository's instructions prepare the data (codebook: another project's instructions
# for the data count); preparing an environment or the dependencies is installation.
REPOSITORY_LINK = re.compile(r"https?://(?:www\.)?(?:github|gitlab)\.com/[\w.\-]+/[\w.\-]+")
INSTALL_WORD = re.compile(r"\binstall(?:s|ed|ing|ation)?\b", re.I)
# A link named as the tool a step uses: after "software/tool such as", or a known package's name.
TOOL_LINK = re.compile(
    r"(?:\b(?:software|tools?|programs?|apps?|applications?|packages?|librar(?:y|ies))\s+"
    r"(?:such\s+as|like|called)\s+|\busing\s+(?=\[(?:numpy|pandas|scipy|opencv|ffmpeg|sox|"
    r"librosa|pillow|h5py|matplotlib|imagemagick|gdal|blender)\]))"
    r"\[[^\]]{2,60}\]\((https?://[^)\s]+)\)",
    re.I,
)
# A line that labels its link as the data set ("Dataset: [alpaca](url)", "数据集：[X](url)").
DATASET_LABEL = re.compile(
    r"(?im)^\W*(?:training\s+)?(?:datasets?|data|数据集|数据|データセット)\s*[:：]\s*\[[^\]]{2,60}\]\("
    r"https?://"
)
# A documentation page about evaluation (`doc/eval.md`): the sets it links are test sets.
EVALUATION_PAGE = re.compile(r"(?:^|/)(?:eval|evaluation|evaluating|benchmarks?)[\w-]*\.\w+$", re.I)
PREPARED_ELSEWHERE = re.compile(
    r"\b(?:data(?:set)?s?\s+)?preparation\b(?!\s+of\s+(?:the\s+)?(?:env|environment|"
    r"dependencies))[^.]{0,40}?\b(?:follows?|is the same as|as in|same as)\b|"
    r"\bfollow\w*\b[^.]{0,80}?\bto prepare\s+(?:the\s+|your\s+)?(?:data|datasets?|"
    r"training data|benchmarks?)\b|"
    r"\bprepare\s+(?!(?:the\s+|your\s+)?(?:env|environment|dependencies|packages)\b)(?:[\w\-]+\s+){1,3}?"
    r"(?:as in|following|according to)\b|"
    # "download ImageNet by following the instructions in the [requirements](github URL)"
    r"\bdownload\s+(?!(?:the\s+)?(?:pre-?trained|weights|models?|checkpoints?|code)\b)"
    r"(?:[\w\-]+\s+){1,3}?(?:by\s+)?follow\w*\b[^.]{0,30}?\binstructions?\b",
    re.I,
)
# "you can extract ImageNet by this [script](url)": a script that only unpacks data the user
# already has obtains nothing (codebook); its link is not the data's.
UNPACKING_LINK = re.compile(
    r"\b(?:extract|unpack|unzip|untar|decompress|uncompress)\w*\b[^.\[]{0,60}?"
    r"\b(?:by|with|using|via|through)\s+(?:this|the|our|a|that)\s+\[[^\]]*\]\([^)]*\)",
    re.I,
)
MODEL_CARD = re.compile(r"model[-_ ]?card", re.I)
# An HTML tag starts with its name, `/` or `!` (`PyTorch >= 1.7.0 < 1.11.0;` is no tag).
TAGS = re.compile(r"<[A-Za-z/!][^>]*>")
HEADING_MARK = re.compile(r"^\s{0,3}#{1,6}\s*|\s#+\s*$", re.M)
SENTENCE_END = re.compile(r"(?<=[.!?])\s+(?=[A-Z])")


DATA_FOLDER_DOC = re.compile(r"(?:^|/)(?:data|datasets?|dataset_preparation)/readme\.\w+$", re.I)


def _under_data_heading(block: Block) -> bool:
    """True under a data heading at any depth, unless a heading at or below it is about
    installing software ("Quick start > Install dependencies" is no data section)."""
    trail = block.trail or (block.section,)
    if DATA_FOLDER_DOC.search(block.path) and not any(INSTALL_SECTION.search(h) for h in trail):
        return True  # a data folder's README (`datasets/README.md`) speaks of data throughout
    for i in range(len(trail) - 1, -1, -1):
        if DATA_SECTION.search(trail[i]):
            if INSTALL_SECTION.search(trail[i]) and not DATA_WORDS.search(trail[i]):
                return False
            return not any(INSTALL_SECTION.search(h) for h in trail[i + 1 :])
    return False


def raw_lines(lines: list[str], block: Block) -> str:
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
        key = (m.group(2) or m.group(1)).lower()
        # a footnote (`[^1]`) cites a source for the sentence; it links nothing it presents
        url = None if key.startswith("^") else targets.get(key)
        return f"{m.group(0)} ({url})" if url else m.group(0)

    return REFERENCE_USE.sub(linked, raw)


def _data_link(raw: str, data_section: bool, models_only: bool) -> bool:
    """A sentence linking a dataset: a dataset host, or data words with a download verb (or in
    a data section), unless the sentence is about a model first ("the model trained on 5
    datasets can be found here"); or another repository whose instructions prepare the data."""
    if not models_only and _prepared_as_elsewhere(raw):
        return True
    if not models_only and DATASET_LABEL.search(raw):
        return True  # "Dataset: [alpaca](https://...)", "数据集: [alpaca](...)"
    for sentence in SENTENCE_END.split(raw):
        sentence = UNPACKING_LINK.sub(" ", sentence)
        urls = [u for u in URL.findall(sentence) if not NOT_DATA_URL.search(u)]
        if INSTALL_WORD.search(sentence):  # "install [accelerate](github.com/...)": software
            urls = [u for u in urls if not REPOSITORY_LINK.match(u)]
        # "prepare the input data using [numpy](...)", "using software such as [UVR](...)"
        urls = [u for u in urls if u not in {m.group(1) for m in TOOL_LINK.finditer(sentence)}]
        if not urls:
            continue
        if any(DATA_HOSTS.search(u) for u in urls):
            return True
        trained_on = TRAINED_ON_LINK.search(sentence) or USED_TO_TRAIN_LINK.search(sentence)
        if trained_on and not NOT_DATA_URL.search(trained_on.group(1)):
            if not MODEL_URL.search(trained_on.group(1)):
                return True
        if models_only:
            continue
        if LINK_IS_DATA.search(sentence):
            return True  # "[Fashion-mnist](url) is a recently proposed dataset"
        words = TAGS.sub(" ", URL.sub(" ", sentence))
        if DATA_WORDS.search(words) and any(DATA_FOLDER_URL.search(u) for u in urls):
            return True  # "the two sub datasets provided by X's [repo](.../tree/master/Data)"
        if CJK_DATA_DOWNLOAD.search(words):
            return True
        data = DATA_WORDS.search(words) or DOWNLOADED_MEDIA.search(words)
        if not data and data_section and DOWNLOAD_VERB.search(words):
            # under a data or training heading, "Download the raw images ... from [site](url)"
            # and "Download [ILSVRC15](...VID.tar.gz)" need no data word: the media it
            # downloads, or the archive it links, are the data
            data = MEDIA_WORD.search(words) or next(
                (m for u in urls if not MODEL_URL.search(u) and (m := ARCHIVE_URL.search(u))),
                None,
            )
            if not data and not WEIGHTS.search(words) and any(
                not MODEL_URL.search(u) for u in urls
            ):  # fmt: skip
                return True  # "## Dataset > ### PASCAL VOC: Visit [this](url), download SBD"
        if not data:
            continue
        weights = WEIGHTS.search(words)
        if weights and weights.start() < data.start() and not _data_anchor(sentence):
            continue  # about a model first, unless the link itself is the data's
        if DOWNLOAD_VERB.search(words) or data_section:
            return True
    return False


ANCHOR = re.compile(r"\[([^\]]{2,80})\]\((https?://[^)\s]+)\)")
# A link that the sentence itself calls a dataset: "[X](url) is a (new, large) dataset of ...".
LINK_IS_DATA = re.compile(
    r"\[[^\]]{2,80}\]\(https?://[^)\s]+\)\s+(?:is|are)\s+(?:an?\s+|the\s+)?(?:[\w-]+\s+){0,4}"
    r"(?:data\s*sets?|datasets?|corpus|corpora|benchmarks?)\b",
    re.I,
)


def _data_anchor(sentence: str) -> bool:
    """True when a link's own text names data ("trained using the images from the [COCO
    dataset](http://mscoco.org/)"): the link is the data's, whatever the sentence speaks of."""
    return any(
        DATA_WORDS.search(text) and not WEIGHTS.search(text)
        and not NOT_DATA_URL.search(url) and not MODEL_URL.search(url)
        for text, url in ANCHOR.findall(sentence)
    )  # fmt: skip


def _tools_only(raw: str) -> bool:
    """True when every link of `raw` is a tool it names for a step (`using [numpy](...)`)."""
    urls = set(URL.findall(raw))
    return bool(urls) and urls <= {m.group(1) for m in TOOL_LINK.finditer(raw)}


def _download(raw: str) -> bool:
    """True for a paragraph that downloads from a link of its own ("download https://...")
    under a heading that announces the data's download ("Option 1: download the processed
    data"): the heading names the data the sentence leaves unnamed."""
    urls = [u for u in URL.findall(raw) if not NOT_DATA_URL.search(u) and not MODEL_URL.search(u)]
    words = TAGS.sub(" ", URL.sub(" ", raw))
    return bool(urls) and bool(DOWNLOAD_VERB.search(words)) and not WEIGHTS.search(words)


def _prepared_as_elsewhere(raw: str) -> bool:
    """True when the text sends the reader to another repository to prepare the data ("This
    repo is a modification of [X](github URL). Installation and preparation follow that repo.",
    "Follow [Y](url) to prepare the datasets"): its instructions obtain this project's data."""
    lowered = raw.lower()
    if ("prepar" not in lowered and "download" not in lowered) or not REPOSITORY_LINK.search(raw):
        return False
    return bool(PREPARED_ELSEWHERE.search(TAGS.sub(" ", URL.sub(" ", raw))))


# A code example that reads a table straight from the network: the URL of a data file, held in a
# name or given inline, and a reader of tables (`url = "https://.../Twitter_volume_AMZN.csv"`,
# then `pd.read_csv(url)`).
TABLE_URL = re.compile(r"""['"]https?://[^'"\s]+\.(?:csv|tsv|parquet)(?:\.gz|\.zip)?['"]""", re.I)
TABLE_READER = re.compile(r"\bread_(?:csv|table|parquet)\(|\bload_dataset\(\s*['\"](?:csv|parquet)")


def _reads_table_url(block: Block) -> tuple[int, str] | None:
    """The line of a code example that names a data table's URL, when the example reads it."""
    if block.kind != "code" or not TABLE_READER.search(block.text):
        return None
    for n, line in enumerate(block.text.splitlines()):
        if TABLE_URL.search(line):
            return block.line + n, line.strip()[:200]
    return None


def _runs_data_script(ctx: AuditContext, block: Block, raw: str = "") -> tuple[int, str] | None:
    """A documented command that downloads data, or runs the repository's script that does; or
    a code example that reads a data table from the network."""
    if (table := _reads_table_url(block)) is not None:
        return table
    if not COMMAND_HINT.search(block.text):
        return None
    for n, line in enumerate(block.text.splitlines()):
        if (
            DOWNLOAD_COMMAND.search(line)
            and not fetches_weights(line)
            and not names_fetch_tools(line)
        ):
            if DATA_WORDS.search(line) or _under_data_heading(block):
                return block.line + n, line.strip()[:200]
        if UNPACK_DATA.search(line):
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
            if target or (script in ctx.tree.paths and is_data_script(ctx, script)):
                return block.line + n, line.strip()[:200]
    return None


def documented_data(ctx: AuditContext, index: CodeIndex) -> list[Evidence]:
    """The first dataset link or data download command of the documentation."""
    readable = set(ctx.tree.codebook_docs)
    # "... can be downloaded as follows:": the list or table below, in the same section, links
    # the data (None: nothing announced; "" is the section before the first heading).
    announced: str | None = None
    lines_of: dict[str, list[str]] = {}
    references: dict[str, dict[str, str]] = {}
    for block in ctx.docs.blocks:
        path = block.path
        if path not in readable or MODEL_CARD.search(path) or EVALUATION_PAGE.search(path):
            continue
        section = block.heading_path  # "Data > Pascal VOC": read with every heading above
        if in_copy(path, index.framework_copies) or block.any_heading(NOT_DATA_SECTION):
            continue
        if block.any_heading(USE_SECTION):
            continue
        if block.kind == "code":
            found = _runs_data_script(ctx, block)
            if found:
                return [Evidence(path, found[0], found[1], "data_available.command")]
            continue
        if path not in lines_of:
            lines_of[path] = (ctx.tree.read_text(path) or "").splitlines()
            references[path] = _references(lines_of[path])
        raw = strip_shown_markdown(
            _with_references(raw_lines(lines_of[path], block), references[path])
        )
        models_only = bool(MODEL_SECTION.search(section)) and "data" not in section
        if block.kind == "heading":  # "Download the train set and place it in ./data:"
            heading = block.text
            says = DATA_WORDS.search(heading) and DOWNLOAD_VERB.search(heading)
            announced = section if says else None
            # "### Step 1: Download METR-LA data from [Google Drive](url)": a heading that
            # links the data is read as the sentence it is.
            if ("http" in raw or "www." in raw) and _data_link(
                HEADING_MARK.sub("", raw), _under_data_heading(block), models_only
            ):
                return [Evidence(path, block.line, heading[:200], "data_available.link")]
            continue
        linked = ("http" in raw or "www." in raw) and not _tools_only(raw)
        if linked and block.kind in ("list_item", "table_row") and announced == section:
            return [Evidence(path, block.line, block.text[:200], "data_available.link")]
        if linked and block.kind == "paragraph" and announced == section and _download(raw):
            return [Evidence(path, block.line, block.text[:200], "data_available.link")]
        if linked and _data_link(raw, _under_data_heading(block), models_only):
            return [Evidence(path, block.line, block.text[:200], "data_available.link")]
        if block.kind in ("paragraph", "html"):
            text = block.text.rstrip()
            announces = text.endswith(":") and DATA_WORDS.search(text)
            announced = section if announces and DOWNLOAD_VERB.search(text) else None
        found = _runs_data_script(ctx, block, raw)
        if found and block.kind != "table_row":
            return [Evidence(path, found[0], found[1], "data_available.command")]
    return []
