"""Hardware requirements from the documentation (the codebook's hardware rule), with spaCy.

A blank English pipeline (tokenizer + sentencizer, no model download) and a Matcher over the
gazetteer's token patterns find device models, memory sizes and core counts in the docs' prose
(headings, paragraphs, list items, table rows, HTML) and in comment or job-scheduler lines of
code blocks. Each match is then judged in its sentence: memory must be GPU memory or RAM (not
disk or data), core counts must describe a machine (not a data-loader setting), and devices
named only for another project's results do not count. Vague mentions ("a GPU is required",
"8 GPUs", CUDA versions, "AWS p2.xlarge") match no pattern at all.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, replace
from functools import lru_cache
from typing import Any

from miner.audit.classify.gazetteer import (
    BARE_CARD,
    CARD_COUNTERS,
    INFIXES,
    PATTERNS,
    PREFIXES,
    labels_to_match,
)
from miner.audit.classify.hardware_context import (
    FIRST_PERSON,
    GPU_MEMORY_TALK,
    USED,
    after_gpu,
    count_before,
    machine_cores,
    memory_after,
    memory_at,
    memory_kind,
    not_own,
    number,
    ram_of_gpu,
)
from miner.audit.classify.hardware_tables import table_cells
from miner.audit.detect import AuditContext
from miner.audit.docs import Block
from miner.audit.files import RepoTree
from miner.audit.ownership import about_others, quoted
from miner.codebook import Evidence
from miner.models import Label

FIELDS = ("hw_gpu", "hw_cpu", "hw_memory", "hw_other")
# A file only a full copy of the framework's source has: the repository is a fork of it.
FRAMEWORK_SOURCES = {
    "caffe": ("include/caffe/caffe.hpp", "src/caffe/net.cpp"),
    "caffe2": ("caffe2/core/net.h",),
    "mxnet": ("include/mxnet/base.h",),
    "darknet": ("include/darknet.h", "src/darknet.c"),
    "tensorflow": ("tensorflow/core/framework/op.h",),
    # OpenMMLab toolboxes and Detectron2 copied whole into a project, docs/ included.
    "mmseg": ("mmseg/version.py", "mmseg/apis/train.py"),
    "mmdet": ("mmdet/version.py", "mmdet/apis/train.py"),
    "detectron2": ("detectron2/engine/defaults.py",),
}
MAX_EVIDENCE = 6
CATALOGUE_QUOTES = 8  # quoted device or size examples that make a page a catalogue of patterns
SCHEDULER = re.compile(r"^\s*#(?:SBATCH\b|PBS\b|BSUB\b|\$)(.*)$")
SCHED_MEMORY = re.compile(
    r"(?:^|[\s,:\[])(?:--mem(?:-per-\w+)?|h_vmem|tmem|mem_free|mem|vmem)\s*=\s*"
    r"(\d+(?:\.\d+)?)\s*([gmt])?",
    re.I,
)
SCHED_GPU = re.compile(r"--gres[= ]gpu:([A-Za-z][\w-]*):(\d+)", re.I)
SCHED_CPUS = re.compile(r"(?:--cpus-per-task|ncpus|ppn)(?:\s*=\s*|\s+)(\d+)", re.I)
# A Slurm launch written as a command (srun/sbatch options on continuation lines), whose values
# may be shell variables given defaults earlier in the same block.
SCHED_LAUNCH = re.compile(r"^\s*(?:srun|sbatch)\b", re.M)
SCHED_OPTION = re.compile(r"--(?:cpus-per-task|mem(?:-per-\w+)?|gres)[= ]")
SHELL_DEFAULT = re.compile(r"^\s*(?:export\s+)?([A-Z_][A-Z0-9_]*)=[\"']?(?:\$\{\1:-)?(\d+)", re.M)
SHELL_VAR = re.compile(r"\$\{?([A-Z_][A-Z0-9_]*)\}?")
FOREIGN_PAGE = re.compile(
    r"\badoption\b|\bused by\b|\bwho uses\b|showcase|in the wild|powered by|"
    r"\bcommunity\b|\becosystem\b|\bawesome\b",
    re.IGNORECASE,
)
# GPUs listed by CUDA architecture, in a table or a sentence ("for a 4090 GPU use
# TCNN_CUDA_ARCHITECTURES=89"): what a build targets, not what was used.
BUILD_TABLE = re.compile(r"cuda[ _-]?arch|compute[ _-]?capabilit|\bsm[ _]?\d{2}\b", re.I)
CAPTURE = re.compile(
    r"\b(?:captur\w*|record(?:s|ed|ing)?\b|record3d|collect\w* (?:data|images|videos?)|"
    r"scan(?:s|ned|ning)?\b|photograph\w*|filmed|take (?:photos|pictures|videos?))",
    re.I,
)
CODE_COMMENT = re.compile(r"^\s*#+\s*(?![!]|include|define|if|endif|pragma|import)(\S.*)$")
# A comment after a command says what the command runs on (`bash train.sh  # 4xA100 80G`).
TRAILING_COMMENT = re.compile(r"^\s*[^#\s][^#]*?\s#+\s+(\S.*)$")
# ... and so does a remark in parentheses set off after it
# (`pip install -r requirements_2080.txt   (GPU 2080Ti, CUDA 10.2)`).
TRAILING_NOTE = re.compile(r"^\s*[^#(\s][^#(]*?\s{2,}\(([^()]+)\)\s*$")
# A code block used to set out the machine, a line per part (```\nGPU：NVIDIA Tesla P40\n```).
SPEC_LINE = re.compile(
    r"^\s*((?:gpus?|cpus?|ram|memory|hardware|devices?|显卡|显存|内存)\s*[:：]\s*\S.*)$", re.I
)
LEADING_WORDS = {"gpu", "gpus", "card", "cards", "(", *BARE_CARD}
GENERIC_DEVICE_WORDS = {"gpu", "gpus", "card", "cards", "graphics", "chip", "cpu", "processor",
                        "soc", "mac", "macbook"}  # fmt: skip
# Letters or an underscore written right after a device's number make it part of a name:
# "iphone2dslr_flower" is a dataset, "rtx3090_config" a file (a plural "V100s" is a device).
GLUED_TAIL = re.compile(r"_|[A-Za-z]{2,}")


@dataclass(frozen=True)
class Segment:
    """A piece of documentation text to match, with where it sits."""

    path: str
    line: int
    text: str
    section: str = ""
    header: str = ""
    kind: str = "paragraph"
    gpu_talk: bool = False


@dataclass(frozen=True)
class Hit:
    """One accepted hardware statement: the field it sets, its evidence and its spec."""

    field: str
    evidence: Evidence
    spec: dict[str, Any]


def _import_spacy() -> Any:
    """Import spaCy without letting thinc import PyTorch (seconds, unused by a blank pipeline)."""
    import sys

    if "spacy" in sys.modules or "torch" in sys.modules:
        import spacy

        return spacy
    sys.modules["torch"] = None  # type: ignore[assignment]  # makes thinc's probe fail fast
    try:
        import spacy
    finally:
        del sys.modules["torch"]
    return spacy


@lru_cache(maxsize=1)
def _pipeline() -> tuple[Any, dict[str, Any]]:
    """The blank English pipeline and one Matcher per pattern label, built once per process."""
    spacy = _import_spacy()
    from spacy.matcher import Matcher
    from spacy.util import compile_infix_regex, compile_prefix_regex

    nlp = spacy.blank("en")
    infixes = [*(nlp.Defaults.infixes or ()), *INFIXES]
    nlp.tokenizer.infix_finditer = compile_infix_regex(infixes).finditer
    prefixes = [*PREFIXES, *(nlp.Defaults.prefixes or ())]
    nlp.tokenizer.prefix_search = compile_prefix_regex(prefixes).search
    nlp.add_pipe("sentencizer")
    matchers = {}
    for label, patterns in PATTERNS.items():
        matchers[label] = Matcher(nlp.vocab)
        matchers[label].add(label, patterns)
    return nlp, matchers


def _segments(blocks: Iterable[Block]) -> Iterator[Segment]:
    """Prose blocks as they are; from code blocks only comments, whole lines or after a
    command (job scripts aside).

    Each knows whether its section's prose talks about GPU memory, which decides bare sizes.
    """
    blocks = list(blocks)
    titles: dict[str, str] = {}
    for b in blocks:
        if b.kind == "heading":
            titles.setdefault(b.path, b.text)
    # A page that lists others' uses of the project ("Mamba adoption", "Used by") is not its own.
    # The root README is the project's own page whatever its first heading ("Used by ...").
    foreign = {
        path for path, title in titles.items()
        if FOREIGN_PAGE.search(title) and not re.match(r"readme", path, re.I)
    }  # fmt: skip
    blocks = [b for b in blocks if b.path not in foreign]
    gpu_talk = {
        (b.path, b.section)
        for b in blocks
        if b.kind != "code" and GPU_MEMORY_TALK.search(f"{b.text} {b.heading_path}")
    }
    for b in blocks:
        if b.kind == "table_row" and BUILD_TABLE.search(f"{b.header} {b.heading_path}"):
            continue  # GPUs by CUDA architecture: what a build targets, not what was used
        talk = (b.path, b.section) in gpu_talk
        where = b.heading_path  # "Hardware > Training": every heading above says what it is
        if b.kind != "code":
            yield Segment(b.path, b.line, b.text, where, b.header, b.kind, talk)
            continue
        for n, raw in enumerate(b.text.splitlines()):
            comment = (
                CODE_COMMENT.match(raw)
                or TRAILING_COMMENT.match(raw)
                or TRAILING_NOTE.match(raw)
                or SPEC_LINE.match(raw)
            )
            if comment and not SCHEDULER.match(raw):
                yield Segment(b.path, b.line + n, comment.group(1), where, "", "code", talk)


def _with_defaults(line: str, defaults: Mapping[str, str]) -> str:
    """`line` with shell variables replaced by their defaults: "--cpus-per-task=${N}" -> "=8"."""
    return SHELL_VAR.sub(lambda m: defaults.get(m.group(1), m.group(0)), line)


def _scheduler_hits(blocks: Iterable[Block]) -> Iterator[Hit]:
    """Resources a job script in the docs requests: memory, GPU model, CPU cores."""
    for b in blocks:
        if b.kind != "code":
            continue
        launches = SCHED_LAUNCH.search(b.text)
        defaults = dict(SHELL_DEFAULT.findall(b.text)) if launches and "$" in b.text else {}
        for n, raw in enumerate(b.text.splitlines()):
            line = SCHEDULER.match(raw)
            if line:
                request = line.group(1)
            elif launches and SCHED_OPTION.search(raw):
                request = _with_defaults(raw, defaults)
            else:
                continue
            source = f"{b.path}:{b.line + n}"
            ev = Evidence(b.path, b.line + n, raw.strip()[:300], "hardware.scheduler_request")
            if m := SCHED_MEMORY.search(request):
                unit = (m.group(2) or "g").lower()
                gb = float(m.group(1)) * {"g": 1.0, "m": 1 / 1024, "t": 1024.0}[unit]
                spec = {"kind": "memory", "device": None, "count": None, "memory_gb": gb}
                yield Hit("hw_memory", ev, {**spec, "source": source})
            if m := SCHED_GPU.search(request):
                spec = {"kind": "gpu", "device": m.group(1), "count": int(m.group(2))}
                yield Hit("hw_gpu", ev, {**spec, "memory_gb": None, "source": source})
            if m := SCHED_CPUS.search(request):
                spec = {"kind": "cpu", "device": None, "count": int(m.group(1)), "memory_gb": None}
                yield Hit("hw_cpu", ev, {**spec, "source": source})


MULTIPLIED = frozenset(CARD_COUNTERS)  # "8*P40", "4x 3090", "4张3090"
# Chinese (and Japanese) text runs words together: "基于4*3090进行训练", "需要12G显存". A space
# where CJK script meets Latin letters or digits lets the tokenizer see "4*3090" and "12G".
CJK_BOUNDARY = re.compile(
    r"(?<=[\u3000-\u303f\u3040-\u30ff\u4e00-\u9fff\uff00-\uffef])(?=[A-Za-z0-9])"
    r"|(?<=[A-Za-z0-9])(?=[\u3000-\u303f\u3040-\u30ff\u4e00-\u9fff\uff00-\uffef])"
)


def spaced(seg: Segment) -> Segment:
    """The segment with a space where CJK script meets Latin letters or digits (lines kept)."""
    text = CJK_BOUNDARY.sub(" ", seg.text)
    return seg if text == seg.text else replace(seg, text=text)


def _multiplied_count(doc: Any, start: int, end: int) -> int | None:
    """The count a device name between `start` and `end` opens with, multiplied out ("8*P40":
    8); None when it opens with none."""
    if end - start > 2 and doc[start + 1].lower_ in MULTIPLIED and doc[start].text.isdigit():
        return int(doc[start].text)
    return None


def _device_name(span: Any) -> str:
    """The device as written, spacing normalised and model codes upper-cased ("Tesla V100")."""
    start, end = span.start, span.end
    while start < end - 1 and span.doc[start].lower_ in LEADING_WORDS:
        if span.doc[start].lower_ == "a" and not span.doc[start].whitespace_:
            break  # the A of "A100", "A-100", not an article
        start += 1  # "GPUs (3090)" -> "3090", "a consumer 4090" -> "4090"
    if _multiplied_count(span.doc, start, end) is not None:
        start += 2  # "8*P40" -> "P40": the count is read apart
    if end - start > 1 and (span.doc[end - 1].is_punct or span.doc[end - 1].is_stop):
        end -= 1  # "a single 3090!" -> "3090"
    while end - 1 > start and span.doc[end - 1].lower_.strip("):") in GENERIC_DEVICE_WORDS | {""}:
        end -= 1  # "V100 GPUs" -> "V100", "M1 chip" -> "M1"
    name = " ".join(span.doc[start:end].text.rstrip(".").split())
    name = re.sub(r"\b([kmpvtahl])-(\d{2,4})\b", r"\1\2", name, flags=re.I)  # "K-80" -> "K80"
    name = re.sub(r"\b(gtx|rtx|gt|mx|tpu|dgx)\b", lambda m: m.group(1).upper(), name, flags=re.I)
    return re.sub(
        r"(?<!\d )\b(gh|gb|mi|[kmpvtahlb])(\d{1,4})([gsx]?)\b",
        lambda m: m.group(1).upper() + m.group(2) + m.group(3).upper(),
        name,
    )


def _own_use(text: str) -> bool:
    """True when the sentence says the authors used the hardware ("We use Titan X (Pascal)
    with compute = 6.1, but we support compute_50/52/60/61 devices")."""
    person = FIRST_PERSON.search(text)
    return bool(person and USED.search(text, person.end()))


def _glued_into_name(text: str, end: int) -> bool:
    """True when the device matched before `end` runs on into a longer name or identifier."""
    tail = GLUED_TAIL.match(text, end)
    return tail is not None and tail.group(0).lower() not in GENERIC_DEVICE_WORDS


def _evidence_text(sent: Any, span: Any) -> str:
    text = " ".join(sent.text.split())
    if len(text) <= 300:
        return text
    at = max(0, span.start_char - sent.start_char - 120)
    return text[at : at + 300]


def _judge(doc: Any, seg: Segment, labels: Iterable[str], shown: Counter[str]) -> Iterator[Hit]:
    """Accepted hardware statements in one text, matched with the patterns of `labels`;
    `shown` counts, per file, the devices and sizes quoted as examples."""
    from spacy.util import filter_spans

    _, matchers = _pipeline()
    spans = filter_spans([s for label in labels for s in matchers[label](doc, as_spans=True)])
    gpu_tokens = {i for s in spans if s.label_ == "GPU" for i in range(s.start, s.end)}
    ram_is_gpu_from = None  # the sentence where the text first called GPU memory "RAM"
    for span in spans:
        label, sent = span.label_, span.sent
        if not_own(sent.text, span.start_char - sent.start_char, seg):
            continue
        if quoted(seg.text, span.start_char, span.end_char):
            shown[seg.path] += 1  # a pattern quoted as an example
            continue
        if about_others(sent.text):
            continue  # a news item or a grant
        line = seg.line + (seg.text.count("\n", 0, sent.start_char) if seg.kind != "html" else 0)
        source = f"{seg.path}:{line}"
        spec: dict[str, Any] = {"kind": None, "device": None, "count": None, "memory_gb": None}
        spec["source"] = source
        if label in ("GPU", "CPU", "ACCELERATOR"):
            if span.end < len(doc) and doc[span.end].lower_ in ("driver", "drivers"):
                continue  # "NVIDIA 418 driver" is software
            if label == "ACCELERATOR" and CAPTURE.search(sent.text):
                continue  # a phone that records the data is a camera, not the model's hardware
            if label == "GPU" and BUILD_TABLE.search(sent.text) and not _own_use(sent.text):
                continue  # a GPU named to pick the build's CUDA architecture
            if _glued_into_name(seg.text, span.end_char):
                continue  # "iphone2dslr_flower": a dataset's or a file's name
            kind, field, rule = {
                "GPU": ("gpu", "hw_gpu", "hardware.gpu_model"),
                "CPU": ("cpu", "hw_cpu", "hardware.cpu_model"),
                "ACCELERATOR": ("other", "hw_other", "hardware.accelerator"),
            }[label]
            count = _multiplied_count(doc, span.start, span.end)
            if count is None:
                count = count_before(doc, span.start)
            spec.update(kind=kind, device=_device_name(span), count=count)
            if kind == "gpu":
                spec["memory_gb"] = memory_after(doc, span.end)
        elif label == "MEMORY":
            gb = memory_at(doc, span.start)
            later = ram_is_gpu_from is not None and sent.start > ram_is_gpu_from
            where = memory_kind(doc, span, seg, gpu_tokens, ram_is_gpu=later)
            if where == "gpu" and ram_is_gpu_from is None and ram_of_gpu(doc, span):
                ram_is_gpu_from = sent.start
            if (
                gb is None
                or where is None
                or not 0.25 <= gb <= 4096
                or after_gpu(doc, span, gpu_tokens)
            ):
                continue  # "A100 80GB", "Titan X (12GB)": already the device's memory
            kind, field = ("gpu", "hw_gpu") if where == "gpu" else ("memory", "hw_memory")
            rule = "hardware.gpu_memory" if where == "gpu" else "hardware.system_memory"
            spec.update(kind=kind, memory_gb=round(gb, 2))
        else:  # CORES
            if not machine_cores(doc, span):
                continue
            field, rule = "hw_cpu", "hardware.cpu_cores"
            spec.update(kind="cpu", count=number(doc[span.start]))
        yield Hit(field, Evidence(seg.path, line, _evidence_text(sent, span), rule), spec)


def _table_hits(seg: Segment) -> Iterator[Hit]:
    """GPU models and memory sizes a table row gives only through its column's header."""
    if seg.kind != "table_row" or not seg.header or seg.header == seg.text:
        return
    if not_own(seg.text, 0, seg):
        return
    for field, rule, spec in table_cells(seg.header, seg.text):
        ev = Evidence(seg.path, seg.line, seg.text[:300], rule)
        yield Hit(field, ev, {**spec, "source": f"{seg.path}:{seg.line}"})


def find_hardware(blocks: Iterable[Block]) -> list[Hit]:
    """Every hardware statement in the documentation blocks, in reading order."""
    blocks = list(blocks)
    segments = [spaced(seg) for seg in _segments(blocks)]
    hits = list(_scheduler_hits(blocks))
    hits.extend(hit for seg in segments for hit in _table_hits(seg))
    labelled = [(s, labels) for s in segments if (labels := labels_to_match(s.text))]
    shown: Counter[str] = Counter()
    if labelled:
        nlp, _ = _pipeline()
        texts = (s.text for s, _ in labelled)
        for (seg, labels), doc in zip(labelled, nlp.pipe(texts, batch_size=64), strict=True):
            hits.extend(_judge(doc, seg, sorted(labels), shown))
    # A page that quotes device and memory patterns by the dozen (a codebook, an annotation
    # guide, a tool's rules) is a catalogue of examples: none of its hardware is the project's.
    catalogues = {path for path, n in shown.items() if n >= CATALOGUE_QUOTES}
    hits = [h for h in hits if h.evidence.path not in catalogues]
    order = {path: i for i, path in enumerate(dict.fromkeys(b.path for b in blocks))}
    return sorted(hits, key=lambda h: (order.get(h.evidence.path, 0), h.evidence.line))


def bundled_framework_docs(tree: RepoTree) -> set[str]:
    """docs/ pages of a framework whose source the repository bundles (a Caffe fork's docs).

    Their benchmarks and tested hardware are the framework's, not this project's. A page
    naming the framework twice is its; when most pages do, docs/ is the framework's copy and
    every page in it is.
    """
    bundled = {fw for fw, files in FRAMEWORK_SOURCES.items() if tree.paths.intersection(files)}
    docs = [
        p for p in (tree.codebook_docs if bundled else ())
        if p.split("/", 1)[0].lower() in ("docs", "doc")
    ]  # fmt: skip
    pages = set()
    for path in docs:
        text = (tree.read_text(path) or "").lower()
        if any(text.count(fw) >= 2 for fw in bundled):
            pages.add(path)
    return set(docs) if len(pages) * 2 > len(docs) else pages


def classify_hardware(ctx: AuditContext, labels: Mapping[str, Label]) -> Iterable[Label]:
    """hw_gpu, hw_cpu, hw_memory, hw_other and hardware_req, with evidence and the spec."""
    hits: list[Hit] = []
    try:
        wanted = set(ctx.tree.codebook_docs) - bundled_framework_docs(ctx.tree)
        hits = find_hardware(b for b in ctx.docs.blocks if b.path in wanted)
    except Exception as exc:  # never lose the hardware fields to one unexpected text
        ctx.warnings.append(f"hardware: {type(exc).__name__}: {exc}")
    by_field: dict[str, list[Evidence]] = {f: [] for f in FIELDS}
    for hit in hits:
        if hit.evidence not in by_field[hit.field]:
            by_field[hit.field].append(hit.evidence)
    specs = [dict(s) for s in {tuple(h.spec.items()): h.spec for h in hits}.values()]
    ctx.details["hardware"] = specs
    for name in FIELDS:
        yield Label(name, bool(by_field[name]), tuple(by_field[name][:MAX_EVIDENCE]))
    any_evidence = [e for name in FIELDS for e in by_field[name][:2]]
    yield Label("hardware_req", bool(any_evidence), tuple(any_evidence[:MAX_EVIDENCE]))
