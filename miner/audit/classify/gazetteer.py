"""Hardware names as spaCy token patterns: GPU, CPU and accelerator models, memory sizes, cores.

The tokenizer used with these patterns splits letters from digits ("GTX1080Ti" -> GTX 1080 Ti,
"V100" -> V 100, "i7-8700K" -> i 7 - 8700 K) and CJK runs from Latin ones, so one pattern covers
every spelling. Adding a device is one entry here. A family alone ("an NVIDIA GPU", "Intel
Xeon", "Apple Silicon", "a TPU", "FPGA") is deliberately not a model and has no pattern.
"""

from __future__ import annotations

import re
from typing import Any

Pattern = list[dict[str, Any]]

CJK = r"\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uff00-\uffef"
# Extra tokenizer infixes: letter|digit boundaries, digit-digit hyphens ("E5-2620"), "4x" counts,
# and CJK|Latin boundaries ("GTX1080上" -> GTX 1080 上).
INFIXES = (
    r"(?<=[A-Za-z])(?=[0-9])",
    r"(?<=[0-9])(?=[A-Za-z])",
    r"(?<=[0-9])[-/](?=[0-9])",
    r"(?<=[A-Za-z0-9])/(?=[A-Za-z0-9])",  # "Titan X/1080Ti/Xp": devices listed with slashes
    r"(?<=[A-Za-z])-(?=[0-9])",
    r"(?<=[0-9])[xX×](?=[A-Za-z])",
    rf"(?<=[{CJK}])(?=[A-Za-z0-9])",
    rf"(?<=[A-Za-z0-9])(?=[{CJK}])",
    r"[()\[\]:=,×+*]",
)
# Approximate and bound signs against a number ("~24G", "≥16GB") and the "#" of "#GPUs" split off.
PREFIXES = (r"[~≈≥≤#]",)
# Cheap tests that a text may hold a pattern of each label; spaCy only sees texts that pass one,
# and only that label's patterns run on it (the Matcher's cost grows with its patterns). Word
# lookups in a set are much faster than one large case-insensitive alternation.
LETTERS = re.compile(r"[a-z]+")
NEVER = re.compile(r"(?!)")
GEFORCE_NUMBERS = r"(?:10[5-8]0|16[56]0|20[6-8]0|30[5-9]0|40[6-9]0|50[6-9]0)"
# How a count of cards is written before the card: multiplied out ("4*3090", "8x 4090") or
# counted in Chinese ("4张3090": 张 and 块 count flat things, cards among them).
CARD_COUNTERS = ("x", "×", "*", "张", "块")
TRIGGERS: dict[str, tuple[frozenset[str], re.Pattern[str]]] = {
    "GPU": (
        frozenset(
            "gtx rtx gt mx titan titanx titanxp titanv titian tesla quadro radeon geforce nvidia "
            "instinct dgx gpu gpus card cards graphics".split()
        ),
        re.compile(
            r"[vpakmthlb]-?\d\d|mi\d\d|\d ?ti\b"
            rf"|\b(?:consumer|single|one|two|four|eight|an?) {GEFORCE_NUMBERS}\b"
            # a count of GeForce cards ("4*3090", "8x 4090", "4 张 3090") or a graphics card (显卡)
            rf"|\b\d{{1,2}} ?[{''.join(CARD_COUNTERS)}] ?{GEFORCE_NUMBERS}\b|显卡"
        ),
    ),
    "CPU": (
        frozenset(
            "intel core xeon ryzen threadripper epyc opteron apple mac macbook imac cortex "
            "snapdragon kirin exynos dimensity helio bionic graviton altra".split()
        ),
        re.compile(r"(?<![a-z])[im][1-9](?![0-9])"),
    ),
    "ACCELERATOR": (
        frozenset(
            "tpu tpus tpuv jetson xavier raspberry zcu pynq alveo ultra zedboard movidius hailo "
            "graphcore gaudi compute myriad coral ascend hygon iphone pixel galaxy trainium "
            "inferentia cerebras ncs arduino esp stm".split()
        ),
        NEVER,
    ),
    "MEMORY": (
        frozenset(),
        re.compile(r"\d ?(?:gb|g\b|gib|mb|mib|tb|tib|gigabyte|megabyte|terabyte|gigs)"),
    ),
    "CORES": (frozenset("core cores thread threads vcpu vcpus cpu cpus".split()), NEVER),
}


def labels_to_match(text: str) -> frozenset[str]:
    """The pattern labels that may match in `text`; empty for most prose, which spaCy skips."""
    low = text.lower()
    words = set(LETTERS.findall(low))
    return frozenset(
        label
        for label, (keywords, regex) in TRIGGERS.items()
        if not keywords.isdisjoint(words) or regex.search(low)
    )


def may_name_hardware(text: str) -> bool:
    """False when `text` cannot contain any pattern below (most prose), so spaCy can skip it."""
    return bool(labels_to_match(text))


def _w(*words: str, op: str | None = None) -> dict[str, Any]:
    token: dict[str, Any] = {"LOWER": {"IN": list(words)}}
    if op:
        token["OP"] = op
    return token


def _glued(*words: str) -> dict[str, Any]:
    """A letter written against the digits that follow it ("V100", "i7", "M1"), not "a 4"."""
    return {"LOWER": {"IN": list(words)}, "SPACY": False}


def _re(regex: str, op: str | None = None) -> dict[str, Any]:
    token: dict[str, Any] = {"LOWER": {"REGEX": regex}}
    if op:
        token["OP"] = op
    return token


NUM = _re(r"^\d{1,5}$")
HYPHEN = _w("-", op="?")
SUFFIX = _re(r"^[a-z]{1,3}\.?$", op="?")  # the K of i7-8700K, the X of 3700X
VENDOR_GTX = _w("nvidia", "geforce", "gtx", op="?")
GEFORCE_SUFFIX = _re(r"^(ti|super|m\.?)$", op="?")  # 1080 Ti, 2080 Super, 980M
TITAN = _w("titan", "titian")  # "Titian" is a frequent misspelling
VENDOR = _w("nvidia", "geforce", op="?")
GPU_WORD = _w("gpu", "gpus", "card", "cards", "graphics", "显卡")
GEFORCE_NUMBER = _re(rf"^{GEFORCE_NUMBERS}$")
# A table cell under a "GPU" column that holds only a GeForce number: "3090", "8x 4090", "2080Ti".
GEFORCE_CELL = re.compile(
    rf"^\s*(?:(\d{{1,3}})\s*[x×*]\s*)?({GEFORCE_NUMBERS}(?:\s*(?:ti|super))?)\s*$", re.IGNORECASE
)
GPU_COLUMN = re.compile(r"\bgpus?\b|graphics|\bcards?\b|\bdevices?\b|hardware", re.IGNORECASE)
# Words before a GeForce number that make it one card: "a consumer 4090", "a single 3090".
BARE_CARD = ("consumer", "single", "one", "two", "four", "eight", "a", "an")
DC_LETTER = ("k", "m", "p", "v", "t", "a", "h", "l")  # Tesla K80, P100, V100, T4, A100, H100, L4

GPU: list[Pattern] = [
    # GeForce: GTX 1080 Ti, RTX 2080 Super, GTX 980M, GT 730, MX150, GeForce 920M, "Nvidia 780".
    [VENDOR, VENDOR, _w("gtx", "rtx"), HYPHEN, _re(r"^\d{3,4}$"), GEFORCE_SUFFIX],
    [VENDOR, _w("gt"), _re(r"^(610|620|630|640|710|720|730|740|750|1030)$"), _w("m", op="?")],
    [_w("mx"), _re(r"^(110|130|150|230|250|330|350|450|550)$")],
    [_w("nvidia", "geforce"), _re(r"^\d{3,4}$"), _re(r"^(m\.?|mx|ti|titan)$", op="?")],
    [_re(r"^\d{3,4}$"), _w("ti")],  # "1080Ti", "2080 Ti"
    # A bare GeForce number beside a GPU word: "3090 GPUs", "4 GPUs (3090)", "GPU 3090",
    # "3090显卡" (a graphics card).
    [GEFORCE_NUMBER, GPU_WORD],
    [GPU_WORD, _w("("), GEFORCE_NUMBER, {"TEXT": {"REGEX": r"^\)"}}],
    [_w("gpu", "gpus", "显卡"), GEFORCE_NUMBER, {"LOWER": {"NOT_IN": ["p", "x", "×", "*", "px"]}}],
    # A count of cards multiplied out ("4*3090", "8x 4090") or counted in Chinese ("4张3090");
    # a count of one or two digits, so that a resolution ("1920x1080") is no card.
    [_re(r"^\d{1,2}$"), _w(*CARD_COUNTERS), GEFORCE_NUMBER, GEFORCE_SUFFIX],
    # One card named by its number alone: "on a consumer 4090!", "in 2 hours on a single 3090"
    # (not a resolution: "a 1080p video", "a 1080 x 720 frame").
    [_w(*BARE_CARD), GEFORCE_NUMBER, {"LOWER": {"NOT_IN": ["p", "x", "×", "*", "i", "px"]}}],
    # TITAN family: Titan X/Xp/V/Z/Black/RTX, TitanX, "GTX Titan", "Titan GPU" (and "Titian").
    [VENDOR_GTX, VENDOR_GTX, TITAN, HYPHEN, _re(r"^(x|xp|v|z|black|rtx)\.?$")],
    [VENDOR_GTX, VENDOR_GTX, _re(r"^titan(x|xp|v|z)$")],
    [VENDOR, _w("rtx"), _w("titan")],
    [_w("nvidia", "gtx", "geforce"), _w("titan", "titian")],
    [_w("titan", "titian"), GPU_WORD],
    # Data-centre cards: Tesla V100, NVIDIA P40, K40 GPU, standalone V100/P100/A100/H100/K80.
    [_w("tesla"), _w(*DC_LETTER), _re(r"^\d{1,3}$")],
    # ... and written with a hyphen: "NVidia K-80", "Tesla V-100", "a K-80"
    [_w("nvidia"), _glued(*DC_LETTER), HYPHEN, _re(r"^\d{1,4}$")],
    [_glued(*DC_LETTER), HYPHEN, _re(r"^\d{1,4}$"), GPU_WORD],
    [_glued("v", "p", "a", "h"), HYPHEN, _w("100")],
    # a count of cards multiplied out ("8*P40", "4x K40"): a data-centre card, not a phone
    [NUM, _w("x", "×", "*"), _glued(*DC_LETTER), _re(r"^\d{1,3}$")],
    [_glued("k"), HYPHEN, _w("80")],
    [_w("rtx"), _w("a"), _re(r"^\d{4}$")],  # RTX A6000
    # Today's data-centre cards, unambiguous without a GPU word: A6000, A800, A10G, L40S, H200,
    # H800, B200, GH200 (short ones such as A10, L4 or T4 need "NVIDIA" or "GPU" beside them).
    [_glued("a", "l", "h", "b", "gh", "gb"),
     _re(r"^(?:40|800|2000|4000|4500|5000|5500|6000|200|300)$"), _w("s", op="?")],
    [_glued("a"), _w("10"), _w("g")],
    [_w("nvidia"), _glued(*DC_LETTER), _re(r"^\d{1,4}$"), _w("g", "s")],  # NVIDIA A10G
    [_glued("mi"), _re(r"^(?:50|60|100|210|250|300|325|355)$"), _w("x", "a", op="?")],
    [_w("quadro"), _w("rtx", "gv", "gp", op="?"), _w(*DC_LETTER, op="?"), _re(r"^\d{2,4}$")],
    [_w("amd", op="?"), _w("radeon"), _w("rx", "pro", "hd", "r9", "r7", op="?"),
     _re(r"^(\d{2,4}|vii)$")],
    [_w("instinct"), _w("mi"), NUM],
    [_w("dgx"), HYPHEN, _re(r"^(1|2|station|a|h|a100|h100)$")],
]  # fmt: skip

CPU: list[Pattern] = [
    # Intel Core: i7-8700K, i9 9900K, Core i5, Core(TM) i7, Intel i7, i7 CPU.
    [_w("intel", op="?"), _w("core", op="?"), _w("(", op="?"), _w("tm", op="?"), _w(")", op="?"),
     _glued("i"), _re(r"^[3579]$"), HYPHEN, _re(r"^\d{3,5}$"), SUFFIX],
    [_w("intel", op="?"), _w("core"), _w("(", op="?"), _w("tm", op="?"), _w(")", op="?"),
     _glued("i"), _re(r"^[3579]$")],
    [_w("intel"), _glued("i"), _re(r"^[3579]$")],
    [_glued("i"), _re(r"^[3579]$"), _w("cpu", "processor")],
    [_w("core"), _w("2"), _w("duo", "quad")],
    # Xeon E5-2620 v4, Xeon(R) CPU E5-2680, Xeon Gold 6148, Xeon W-2133, Xeon Phi 7250.
    [_w("xeon"), _w("(", op="?"), _w("r", op="?"), _w(")", op="?"), _w("cpu", op="?"),
     _w("gold", "silver", "platinum", "bronze", "phi", op="?"),
     _re(r"^(e|w|d|x|l|e\d)$", op="?"), _re(r"^\d$", op="?"), HYPHEN, _re(r"^\d{3,5}$"),
     _w("v", op="?"), _re(r"^\d\.?$", op="?")],
    # AMD: Ryzen 7 3700X, Ryzen 9, Threadripper 3990X, EPYC 7742, Opteron 6376.
    [_w("ryzen"), _w("threadripper", op="?"), _re(r"^[3579]$"), _re(r"^(pro|\d{4})$", op="?"),
     SUFFIX],
    [_w("threadripper"), _w("pro", op="?"), _re(r"^\d{4}$"), SUFFIX],
    [_w("epyc", "opteron"), _re(r"^\d{3,4}$"), SUFFIX],
    # Apple silicon and other SoCs: Apple M1, M1 Max, M2 chip, Snapdragon 855, Cortex-A72.
    [_w("apple", "mac", "macbook", "imac"), _w("pro", "air", "mini", "studio", op="?"),
     _glued("m"), _re(r"^[1-5]$")],
    [_glued("m"), _re(r"^[1-5]$"), _w("pro", "max", "ultra", "chip", "mac", "macbook", "soc")],
    [_w("apple"), _glued("a"), _re(r"^1\d$")],
    [_glued("a"), _re(r"^1\d$"), _w("bionic")],
    [_w("cortex"), HYPHEN, _w("a", "m", "r"), _re(r"^\d{1,3}$")],
    [_w("snapdragon", "kirin", "exynos", "dimensity", "helio"), _re(r"^\d{3,4}$")],
    [_w("snapdragon"), _re(r"^\d$"), _w("gen"), _re(r"^\d$")],  # Snapdragon 8 Gen 2
    [_w("graviton"), _re(r"^[2-4]e?$", op="?")],
    [_w("ampere"), _w("altra")],
    [_w("core"), _w("ultra"), _re(r"^[579]$"), _re(r"^\d{3}$", op="?"), SUFFIX],  # Core Ultra 7
]  # fmt: skip

TPU_KIND = _w("e", "p", "lite", op="?")  # TPU v5e, v5p
ACCELERATOR: list[Pattern] = [
    # TPUs: TPU v3-8, TPUv2, Cloud TPU v3, v3-8 TPU, Edge TPU, Coral.
    [_w("tpu"), HYPHEN, _w("v"), _re(r"^[2-6]$"), TPU_KIND, HYPHEN, _re(r"^\d{1,4}$", op="?")],
    [_w("tpuv"), _re(r"^[2-6]$"), TPU_KIND, HYPHEN, _re(r"^\d{1,4}$", op="?")],
    [_w("v"), _re(r"^[2-5]$"), HYPHEN, _re(r"^\d{1,4}$", op="?"), _w("tpu", "tpus", "pod")],
    [_w("edge"), HYPHEN, _w("tpu", "tpus")],
    [_w("google"), _w("coral")],
    [_w("coral"), _w("usb", "dev", "board", "accelerator", "edge", "tpu")],
    # Boards: Jetson Nano/TX1/TX2/Xavier/Orin, Xavier NX, Raspberry Pi (3, 4, Zero), FPGA boards.
    [_w("jetson"), _w("agx", op="?"), _w("nano", "xavier", "orin", "tx", "tk"),
     _re(r"^[12]$", op="?")],
    [_w("xavier"), _w("nx", "agx")],
    [_w("raspberry"), _w("pi"), _re(r"^([0-5]|zero)$", op="?")],
    [_w("zcu"), _re(r"^\d{3}$")],
    [_w("pynq"), HYPHEN, _w("z"), _re(r"^[12]$")],
    [_w("alveo"), _w("u"), _re(r"^\d{2,3}$")],
    [_glued("ultra"), _w("96")],  # the tokenizer splits "Ultra96"
    [_w("zedboard", "movidius", "hailo", "graphcore", "gaudi")],
    [_w("neural"), _w("compute"), _w("stick")],
    [_glued("ncs"), _w("2")],
    # Microcontroller boards: Arduino Nano 33 BLE, ESP32, STM32F746.
    [_w("arduino"), _w("nano", "uno", "mega", "portenta", "nicla")],
    [_glued("esp"), _w("32", "8266")],
    [_glued("stm"), _w("32")],
    [_w("myriad"), _re(r"^(x\.?|2)$")],
    # Other vendors' accelerators: Huawei Ascend 910B, Hygon DCU.
    [_w("ascend"), _re(r"^(310|910)$"), _re(r"^[a-c]$", op="?")],
    [_w("hygon"), _w("dcu")],
    [_w("trainium", "inferentia"), _re(r"^[1-3]$", op="?")],
    [_w("cerebras"), _w("cs"), HYPHEN, _re(r"^[1-3]$")],
    # Phones by model: iPhone 12 Pro, Pixel 4, Galaxy S21 (a bare "iPhone" or "Android" is not).
    [_w("iphone"), _re(r"^\d{1,2}$"), _w("pro", "max", "mini", "plus", op="?")],
    [{"LOWER": "pixel", "SPACY": True}, _re(r"^[1-9]$"), _w("pro", "xl", "a", op="?")],
    [_w("galaxy"), _w("s", "note"), _re(r"^\d{1,2}$")],
]  # fmt: skip

MEMORY_UNITS = {
    "gb": 1.0, "g": 1.0, "gib": 1.0, "gigabyte": 1.0, "gigabytes": 1.0, "gbs": 1.0, "gigs": 1.0,
    "gbyte": 1.0, "mb": 1 / 1024, "mib": 1 / 1024, "megabytes": 1 / 1024, "tb": 1024.0,
    "tib": 1024.0, "terabytes": 1024.0,
}  # fmt: skip
MEMORY: list[Pattern] = [[_re(r"^\d+(\.\d+)?$"), _w(*MEMORY_UNITS)]]

WORD_NUMBERS = {
    "a": 1, "an": 1, "one": 1, "single": 1, "two": 2, "dual": 2, "three": 3, "four": 4, "quad": 4,
    "six": 6, "hexa": 6, "eight": 8, "octa": 8, "sixteen": 16,
}  # fmt: skip
CORES: list[Pattern] = [
    [_re(r"^\d{1,3}$"), HYPHEN, _w("core", "cores", "vcpu", "vcpus", "cpus")],
    [_re(r"^\d{1,3}$"), _w("cpu", "physical", "logical"), _w("cores", "threads")],
    [_re(r"^\d{1,3}$"), HYPHEN, _w("thread", "threads"), _w("cpu", "cpus", "processor")],
    [_w("dual", "quad", "hexa", "octa", "six", "eight"), HYPHEN, _w("core")],
]

PATTERNS: dict[str, list[Pattern]] = {
    "GPU": GPU,
    "CPU": CPU,
    "ACCELERATOR": ACCELERATOR,
    "MEMORY": MEMORY,
    "CORES": CORES,
}
