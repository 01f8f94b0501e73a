"""How a hardware match is judged in its sentence: whose hardware it is, what memory it is.

Pure functions over spaCy tokens and sentence text, used by miner.audit.classify.hardware: a device
named for another project or only as an example target is not this repository's; a memory size
is GPU memory, system RAM or neither (disk, data, bandwidth) by the words around it; a count of
devices is read from the words before a model ("8 V100", "a single GTX 1060").
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any, Protocol

from miner.audit.classify.gazetteer import MEMORY_UNITS, WORD_NUMBERS
from miner.audit.classify.hardware_tables import (
    MEMORY_COLUMN,
    NOT_MEMORY_COLUMN,
    system_memory_column,
)


class Where(Protocol):
    """Where a text sits: its section heading and, for a table row, the table's header."""

    @property
    def section(self) -> str:
        """The nearest heading above, lower-cased."""

    @property
    def header(self) -> str:
        """The table's header row, for a table row."""

    @property
    def text(self) -> str:
        """The text matched."""

    @property
    def kind(self) -> str:
        """The block kind ("table_row", "paragraph", ...)."""

    @property
    def gpu_talk(self) -> bool:
        """True when the section's prose talks about GPU memory (VRAM, "GPU memory", OOM)."""


FIRST_PERSON = re.compile(
    r"\b(we|our|ours|us|i|my|me|this (?:repo|repository|code|project|implementation|work|"
    r"research|model|paper))\b",
    re.IGNORECASE,
)
# "Caffe can process 40M images a day on a K40", "TensorRT now supports Jetson Nano": a tool's
# own claim, not this project's hardware.
OTHER_SUBJECT = re.compile(
    r"^\W*(?:\[[^\]]*\]\W*)?(?:(?:nvidia|google|microsoft|meta|intel|amd|apple|hugging ?face)\s+)?"
    r"(?:caffe2?|tensorflow|pytorch|torch|theano|mxnet|keras|cudnn|cuda|"
    r"tensorrt|onnx(?:runtime)?|openvino|tvm|darknet|detectron2?|mmdetection|jax|paddle\w*|"
    r"chainer|horovod|deepspeed|apex|digits|vllm|sglang|llama\.cpp|ollama|tensorrt-llm|mlx|"
    r"lmdeploy|ggml|xformers|flash-?attention|bitsandbytes|te|transformer engine)\b[^.]{0,40}?"
    r"\b(?:can|is|was|runs?|achieves?|processes|reaches|supports?|delivers|takes|trains?|has|now|"
    r"provides|offers|enables)\b",
    re.IGNORECASE,
)
OTHER_WORK = re.compile(
    r"\b(?:original|official) (?:implementation|code|repo(?:sitory)?|paper|authors?)|"
    r"\bthe authors\b|\bin the paper\b|"
    r"\b(?:paper|they|authors) (?:reports?|reported|used|trained)\b|"
    r"\breported (?:in|by)\b|"
    # "GPT-2 was trained by OpenAI on 32 TPU v3 chips": a run by someone else, named as agent.
    r"\b(?:was|were)\s+(?:originally\s+)?(?:pre-?)?(?:trained|tested|run|benchmarked)\s+by\s+"
    r"(?!us\b|me\b|the authors of this\b)",
    re.IGNORECASE,
)
FOREIGN_SECTION = re.compile(
    r"related (?:work|project)|other (?:implementation|project|repo|work|method)|third[- ]party|"
    r"see also|comparison with|alternatives|external|community|ecosystem|extensions|"
    r"projects? (?:using|based on|built)|built (?:on|upon|with) |awesome|"
    # "Notable forks", "Ports": other repositories that carry the project to other hardware.
    r"\bforks\b|\bports\b",
    re.IGNORECASE,
)
# A requirement addressed to the reader is the project's own, even beside the paper's results
# ("to reproduce the results reported in the paper, you would need a DGX1 with 8 V100 GPUs").
NEEDED = re.compile(r"\b(?:needs?|needed|requires?|required|recommend(?:s|ed)?)\b", re.I)
# "according to the paper" reports others' figures; "according to our experience" is the own use.
REPORTED = re.compile(
    r"\breported (?:in|by)\b|\baccording to\b(?! (?:our|my)\b)|\bas reported\b", re.I
)
EXAMPLES = re.compile(r"\betc\b|\be\.g\.|\bsuch as\b|\bfor (?:example|instance)\b", re.I)
POSSIBLE = re.compile(r"\b(?:deploy\w*|embedded|could|can be|may|might|possible|easier)\b", re.I)
USED = re.compile(
    r"\b(?:test(?:s|ed|ing)?|train(?:s|ed|ing)?|use[sd]?|using|ran|run(?:s|ning)?|measured|"
    r"benchmarked|evaluated|takes|took)\b",
    re.IGNORECASE,
)
# "faiss did not well support Nvidia Ampere GPUs (3090 and A100)": hardware ruled out, not used.
UNSUPPORTED = re.compile(
    r"\b(?:not|n't|never)\b(?:\s+\w+){0,2}?\s+(?:support|work|run|compatible)|\bunsupported\b|"
    r"\bincompatible\b",
    re.IGNORECASE,
)
DISK = re.compile(r"\b(?:disk|storage|ssd|hdd|hard drive|free space|download)", re.I)
MEMORY_CONTEXT = re.compile(r"memory|\bram\b|vram|hardware", re.I)
PROGRAM_SETTING = re.compile(
    r"worker|num_|--|=|n_jobs|nproc|processes|\bjobs\b|parallel|multiprocess|data ?load|"
    r"omp_num_threads|\bflag\b|argument",
    re.IGNORECASE,
)
# The tokenizer splits "DDR4" into DDR 4, so the words here are the letter parts.
# 显存 is Chinese for a GPU's memory ("12G显存"), 内存 for the machine's ("64G内存").
GPU_MEM_WORDS = {"vram", "gpu", "gpus", "card", "cards", "graphics", "gddr", "hbm", "tpu", "tpus",
                 "npu", "npus", "accelerator", "accelerators", "显存"}  # fmt: skip
RAM_WORDS = {"ram", "sdram", "ddr", "lpddr", "内存"}
GPU_WORDS = {"gpu", "gpus", "card", "cards", "graphics"}
MEM_WORDS = {"memory", "mem", "dram"}  # GPU or system memory by context ("GPUs with 11GB of DRAM")
SYSTEM_HINTS = {"main", "system", "host", "physical"}
SKIP_AFTER = {"of", "the", "ecc", "total", "onboard", "dedicated", "installed", "available",
              "free", "or", "more", "at", "least", "+", "unified", "的"} | SYSTEM_HINTS  # fmt: skip
NOT_MEMORY = {"disk", "disks", "storage", "ssd", "ssds", "hdd", "hdds", "space", "drive", "drives",
              "dataset", "datasets", "data", "file", "files", "download", "downloads", "zip",
              "tar", "archive", "image", "images", "model", "models", "checkpoint", "checkpoints",
              "weights", "videos", "size", "swap", "network", "lte", "bandwidth", "/s"}  # fmt: skip
# "Reserved / allocated memory" are the CUDA allocator's figures.
GPU_CUES = {"gpu", "gpus", "vram", "cuda", "card", "cards", "graphics", "nvidia", "video",
            "reserved", "allocated", "tpu", "tpus", "npu", "npus", "hbm"}  # fmt: skip
# A table of memory by model size or numeric precision ("7B | 14B", "Bits", "fp16", "QLoRA")
# gives what an accelerator must hold: GPU memory.
MODEL_SCALE = re.compile(
    r"\b\d+(?:\.\d+)?\s?[bm]\b|\bbits?\b|\b(?:fp|bf)16\b|\bint[48]\b|quantiz|lora\b", re.I
)
SYSTEM_CUES = {"cpu", "cpus", "ram", "system", "host", "machine", "server", "computer", "pc",
               "workstation", "laptop", "desktop", "node", "processor"}  # fmt: skip
MACHINE_WORDS = SYSTEM_CUES | {"processors", "machines", "nodes", "instance", "intel", "amd",
                               "xeon", "ryzen", "epyc", "vcpus", "vcpu"}  # fmt: skip


# Prose about GPU memory: a bare size in the same section ("the footprint drops from 112GB to
# 28GB", a profiling table of "6.7G" cells) is then GPU memory too.
GPU_MEMORY_TALK = re.compile(
    r"vram|\bgpu (?:memory|ram|mem)\b|memory (?:of|on|per|in) (?:the |each |a |one |your )?"
    r"(?:gpu|card|graphics)|\boom\b|out of memory|cuda memory|graphics memory|video memory|显存",
    re.IGNORECASE,
)
# A CUDA out-of-memory error quoted in the docs: its sizes are the reader's failed run.
OOM_ERROR = re.compile(
    r"tried to allocate|total capacity|already allocated|reserved in total", re.IGNORECASE
)


def column_header(seg: Where, at: int) -> str | None:
    """The header of the table column holding offset `at` of a table row; None off tables."""
    if seg.kind != "table_row" or not seg.header or seg.header == seg.text:
        return None
    columns = seg.header.split(" | ")
    index = seg.text.count(" | ", 0, at)
    return columns[index] if index < len(columns) else ""


def _nearest(pattern: re.Pattern[str], text: str, at: int) -> int:
    """Characters from `at` to the nearest match of `pattern` in `text` (far when none)."""
    return min((abs(m.start() - at) for m in pattern.finditer(text)), default=10**6)


def not_own(sentence: str, at: int, seg: Where) -> bool:
    """True when the hardware at offset `at` is not this repository's tested or required one.

    That is another project's or tool's hardware, or devices offered only as examples of
    where the model might go ("easier to deploy to embedded systems (Raspberry Pi, etc.)"):
    there the nearest verb to the device is a possibility, not a use. Likewise a device
    nearer to "reported in the paper" than to a verb of use is the compared work's, and one
    nearer to "does not support" is ruled out rather than used.
    """
    if FOREIGN_SECTION.search(seg.section):
        return True
    used = _nearest(USED, sentence, at)
    if EXAMPLES.search(sentence) and _nearest(POSSIBLE, sentence, at) < used:
        return True
    needed = _nearest(NEEDED, sentence, at)
    if _nearest(REPORTED, sentence, at) < min(used, needed):
        return True
    if _nearest(UNSUPPORTED, sentence, at) < used:
        return True
    if FIRST_PERSON.search(sentence) or needed < _nearest(OTHER_WORK, sentence, at):
        return False
    return bool(OTHER_SUBJECT.search(sentence) or OTHER_WORK.search(sentence))


def machine_cores(doc: Any, span: Any) -> bool:
    """True when a core count describes a machine, not a program setting.

    "a 16-core machine", "8 CPU cores" describe the machine; "num_workers to 8 cores for data
    loading" is a setting; a bare "8 cores" counts only beside machine words and no setting.
    """
    sent = span.sent
    article = span.start > sent.start and doc[span.start - 1].lower_ in ("a", "an", "one")
    if not article and PROGRAM_SETTING.search(
        doc[max(sent.start, span.start - 4) : span.start].text
    ):
        return False  # "regrids the data in parallel using 8 CPU cores": what a command uses
    attached = {t.lower_ for t in doc[span.start : min(span.end + 2, sent.end)]}
    if attached & MACHINE_WORDS - {"core", "cores"}:
        return True
    near = doc[max(sent.start, span.start - 3) : min(sent.end, span.end + 3)].text
    words = {t.lower_ for t in sent}
    return bool(words & MACHINE_WORDS - {"core", "cores"}) and not PROGRAM_SETTING.search(near)


def number(token: Any) -> int | None:
    """An integer written as digits ("8") or as a word ("eight", "single")."""
    if token.text.isdigit() and len(token.text) <= 3:
        return int(token.text)
    return WORD_NUMBERS.get(token.lower_)


def count_before(doc: Any, start: int) -> int | None:
    """The number of devices written before a model: "8 V100", "4x Titan X", "a single 1060"."""
    i, seen = start - 1, 0
    if i >= 2 and doc[i].text == "(" and doc[i - 1].lower_ in ("gpu", "gpus"):  # "8 GPUs (V100)"
        i -= 2
    while i >= 0 and seen < 3:
        token = doc[i]
        if token.lower_ in ("nvidia", "geforce", "tesla", "amd", "intel", "x", "×", "*", "single"):
            if token.lower_ == "single":
                return 1
            i, seen = i - 1, seen + 1
            continue
        return number(token)
    return None


def memory_at(doc: Any, i: int) -> float | None:
    """GB of a "<number> <unit>" starting at token i, if there is one."""
    if i + 1 < len(doc) and doc[i + 1].lower_ in MEMORY_UNITS:
        try:
            return float(doc[i].text) * MEMORY_UNITS[doc[i + 1].lower_]
        except ValueError:
            return None
    return None


def memory_after(doc: Any, end: int) -> float | None:
    """Memory written right after a device: "Titan X (12GB)", "A100 80GB", "V100 with 32 GB"."""
    i = end
    while i < len(doc) and i < end + 3 and doc[i].lower_ in ("(", "-", "with", ",", "of"):
        i += 1
    return memory_at(doc, i) if i < len(doc) else None


def after_gpu(doc: Any, span: Any, gpu_tokens: set[int]) -> bool:
    """True for a memory size written right after a GPU model, as its memory."""
    i = span.start - 1
    while i >= 0 and i >= span.start - 3 and doc[i].lower_ in ("(", "-", "with", ",", "of"):
        i -= 1
    return i in gpu_tokens


def _cue_kind(tokens: Iterable[Any], gpu_tokens: set[int]) -> str | None:
    for t in tokens:
        if t.i in gpu_tokens or t.lower_ in GPU_CUES:
            return "gpu"
        if t.lower_ in SYSTEM_CUES:
            return "system"
    return None


def _paragraph_cue(doc: Any, span: Any, gpu_tokens: set[int]) -> str | None:
    """The kind of the device word nearest to the size anywhere in its paragraph."""
    best: tuple[int, str] | None = None
    for t in doc:
        if span.start <= t.i < span.end or t.lower_ in RAM_WORDS:
            continue  # "RAM" names the memory, not whose it is
        kind = _cue_kind((t,), gpu_tokens)
        distance = span.start - t.i if t.i < span.start else t.i - span.end
        if kind and (best is None or distance < best[0]):
            best = (distance, kind)
    return best[1] if best else None


def _context_kind(doc: Any, span: Any, seg: Where, gpu_tokens: set[int]) -> str:
    """GPU memory or RAM for "N GB of memory", by the nearest device word in the sentence."""
    if seg.gpu_talk and seg.kind in ("table_row", "html"):
        return "gpu"  # a table's cells are no prose: the section says what its sizes are
    sent = span.sent  # words near the size only: a flattened table is one long "sentence"
    before = reversed(doc[max(sent.start, span.start - 10) : span.start])
    after = doc[span.end : min(sent.end, span.end + 6)]
    kind = _cue_kind(before, gpu_tokens) or _cue_kind(after, gpu_tokens)
    if kind:
        return kind
    if seg.kind not in ("table_row", "html") and (kind := _paragraph_cue(doc, span, gpu_tokens)):
        return kind  # "Training on a V100 takes 2 days. It needs 20 GB of memory."
    where = f"{seg.section} {column_header(seg, span.start_char) or seg.header}"
    if seg.gpu_talk or re.search(r"gpu|vram", where, re.I) or GPU_MEMORY_TALK.search(where):
        return "gpu"
    if seg.kind == "table_row" and MODEL_SCALE.search(seg.header):
        return "gpu"
    return "system"


def _gpu_has(doc: Any, span: Any) -> bool:
    """True for "a GPU with / that has (at least) N GB": the size is the GPU's own."""
    words = [t.lower_ for t in doc[max(span.sent.start, span.start - 7) : span.start]]
    for i, word in enumerate(words):
        if word in ("with", "has", "having") and set(words[max(0, i - 3) : i]) & GPU_WORDS:
            return True
    return False


def _on_gpu(doc: Any, i: int) -> bool:
    """True for "... RAM on your GPU", "... RAM of the graphics card": memory the GPU has."""
    words = [t.lower_ for t in doc[i : min(i + 4, doc[i - 1].sent.end)]]
    return bool(words) and words[0] in ("on", "of", "in") and bool(set(words[1:]) & GPU_WORDS)


def _on_gpu_after(doc: Any, span: Any) -> bool:
    """True for a size followed closely by "on / per / of the GPU": "needs 14 GB on the GPU"."""
    words = [t.lower_ for t in doc[span.end : min(span.sent.end, span.end + 6)]]
    return any(
        w in ("on", "per", "of") and set(words[i + 1 : i + 3]) & GPU_WORDS
        for i, w in enumerate(words)
    )


def ram_of_gpu(doc: Any, span: Any) -> bool:
    """True for "N GB of RAM on your GPU" / "a GPU with N GB of RAM": RAM meaning GPU memory."""
    j = span.end
    while j < len(doc) and j < span.end + 4 and doc[j].lower_ in SKIP_AFTER:
        j += 1
    if j >= len(doc) or doc[j].lower_ not in RAM_WORDS:
        return False
    return _gpu_has(doc, span) or _on_gpu(doc, j + 1)


# A size the program sets for itself: "runs by default with 512MB of memory", "a fixed memory
# budget (about 256 MB by default)" describe an allocation, not the machine it needs.
OWN_SETTING = re.compile(r"\bby default\b|\bbudget\b", re.I)
SETTING_REACH = 40  # characters between the size and the words that make it a setting


def _example_of(doc: Any, span: Any) -> str | None:
    """The memory word a requirement names before a size given as its example ("requires RAM
    amount sufficient to hold the weights (e.g. ~130GB for Llama65B)"): 'gpu', 'system', or
    None when the size is no example or no requirement names a memory."""
    i = span.start - 1
    while i >= span.sent.start and doc[i].is_punct:
        i -= 1
    if i < span.sent.start or not EXAMPLES.search(doc[max(span.sent.start, i - 1) : i + 1].text):
        return None
    for j in range(i - 1, span.sent.start - 1, -1):
        word = doc[j].lower_
        if word in RAM_WORDS | MEM_WORDS | GPU_MEM_WORDS:
            named = doc[span.sent.start : j].text
            if not NEEDED.search(named):
                return None
            if word in GPU_MEM_WORDS:
                return "gpu"
            whose = reversed(doc[max(span.sent.start, j - 4) : j])  # "a GPU with large memory"
            return "gpu" if _cue_kind(whose, set()) == "gpu" else "system"
    return None


def memory_kind(
    doc: Any, span: Any, seg: Where, gpu_tokens: set[int], ram_is_gpu: bool = False
) -> str | None:
    """'gpu', 'system' or None (disk, data, bandwidth ...) for a memory-size match.

    `ram_is_gpu`: an earlier sentence of the same text called the GPU's memory "RAM".
    """
    if OOM_ERROR.search(span.sent.text):
        return None
    at = span.start_char - span.sent.start_char
    if _nearest(OWN_SETTING, span.sent.text, at) < SETTING_REACH:
        return None
    j, hint = span.end, None
    while (
        j < len(doc)
        and j < span.end + 4
        and (doc[j].lower_ in SKIP_AFTER or (doc[j].is_punct and doc[j].text not in ".;，。；、"))
    ):
        hint = "system" if doc[j].lower_ in SYSTEM_HINTS else hint
        j += 1
    nxt = doc[j].lower_ if j < len(doc) else ""
    nxt2 = doc[j + 1].lower_ if j + 1 < len(doc) else ""
    if nxt == "video" and nxt2 in MEM_WORDS | RAM_WORDS:
        return "gpu"
    if j in gpu_tokens:
        return "gpu"  # "8x80GB H100", "a 24GB RTX 3090": the size of the GPU named next
    if nxt in NOT_MEMORY:
        return None
    if nxt in GPU_MEM_WORDS or (nxt == "per" and nxt2 in GPU_WORDS):
        return "gpu"  # "8GB VRAM", "12GB (GPU)", "60 GB per GPU"
    if nxt in ("cpu", "cpus", "host") or (nxt == "per" and nxt2 in ("node", "machine")):
        return "system"  # "32GB (CPU)", "512 GB per node"
    if nxt in RAM_WORDS:  # "16GB RAM", but "a GPU with 12GB of RAM" is the GPU's
        if _gpu_has(doc, span) or _on_gpu(doc, j + 1):
            return "gpu"
        system_said = hint or {t.lower_ for t in span.sent} & (SYSTEM_CUES - RAM_WORDS)
        # "... 3GB of RAM on your GPU. However, about 7GB of RAM will be required ...": the
        # paragraph already calls the GPU's memory RAM.
        return "gpu" if ram_is_gpu and not system_said else "system"
    if nxt in MEM_WORDS:
        return hint or _context_kind(doc, span, seg, gpu_tokens)
    column = column_header(seg, span.start_char)
    if column is not None:
        if NOT_MEMORY_COLUMN.search(column):
            return None  # "#FLOPs | 850.6G", "Model size | 1.2GB"
        if MEMORY_COLUMN.search(column):
            # A results table's "Testing memory" / "Training Mem" is the GPU's unless it says RAM.
            return "system" if system_memory_column(seg.header, seg.text, column) else "gpu"
    if _nearest(DISK, span.sent.text, span.start_char - span.sent.start_char) < 60:
        return None  # "enough disk space on your server (120GB recommended)"
    if _on_gpu_after(doc, span):
        return "gpu"  # "14 GB in fp16 on the GPU"
    # The cells of a table in a section about GPU memory are no prose: "#GPUs per node | 6.7G".
    table_of_gpu_memory = seg.gpu_talk and seg.kind in ("table_row", "html")
    machine_words = set() if table_of_gpu_memory else SYSTEM_CUES - {"cpu", "cpus"}
    i = span.start - 1
    while i >= max(span.sent.start, span.start - 4):
        word = doc[i].lower_
        if word == "显存":
            return "gpu"  # "显存：12G", GPU memory named first
        if word in MEM_WORDS:
            return _context_kind(doc, span, seg, gpu_tokens)
        if word in RAM_WORDS and (ram_is_gpu or (i > 0 and doc[i - 1].lower_ in GPU_WORDS)):
            return "gpu"  # "GPU RAM: 24GB"; "smaller RAM such as 2GB" after "RAM on your GPU"
        if word in RAM_WORDS or word in machine_words:
            return "system"
        if word in GPU_MEM_WORDS or i in gpu_tokens:
            return "gpu"
        if word in NOT_MEMORY:
            # "RAM sufficient to hold the weights (e.g. 130GB)": the example's words, not its
            return _example_of(doc, span)
        i -= 1
    if MEMORY_CONTEXT.search(f"{seg.section} | {column or seg.header}"):
        return _context_kind(doc, span, seg, gpu_tokens)  # "16 GB" under "## Hardware"
    return _example_of(doc, span)
