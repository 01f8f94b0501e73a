"""What a project's code, scripts and docs imply about the requirements it should state.

Each fact is found by a named pattern and kept as Evidence (file, line, text), so every finding
built from it can point at the line that triggered it. Python comments are skipped; strings are
kept, because `torch.device("cuda")` and `--nproc_per_node=8` live in them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from miner.audit.detect.framework_map import HF_LIBRARIES, hf_port, module_framework
from miner.audit.detect.reproducibility import seeded_aliases, sets_seed, sets_threads
from miner.audit.files import RepoTree
from miner.codebook import Evidence
from miner.lint.scope import bundled_folders, is_own

CODE_SUFFIXES = (".py", ".ipynb")
# Lua Torch code and Caffe solvers carry seeds and device choices too (`torch.manualSeed`,
# `:cuda()`, `random_seed:`, `solver_mode: GPU`).
SCRIPT_SUFFIXES = (".sh", ".bash", ".yaml", ".yml", ".cfg", ".slurm", ".sbatch", ".lua", ".m")
SOLVER = re.compile(r"solver[^/]*\.prototxt$", re.I)
SCRIPT_NAMES = ("makefile", "dockerfile", "justfile")
MAX_FILES = 2000
MAX_LINES = 20_000
CLIP = 160

GPU = re.compile(
    r"\.cuda\(|\.to\(\s*['\"]cuda|device\s*=\s*['\"]cuda|torch\.device\(\s*['\"]cuda"
    r"|(?i:tf\.device\(\s*['\"]/?(?:device:)?gpu)|set_mode_gpu\(|\bmx\.gpu\("
    r"|jax\.devices\(\s*['\"]gpu|\bnum_gpus\b|\bCUDA_VISIBLE_DEVICES\b"
    r"|:cuda\(\)|require\s*\(?\s*['\"]cunn|^\s*solver_mode\s*:\s*GPU"
    # JAX finds the GPU by itself: its CUDA build in an environment file or script is the sign
    r"|\bjax\[cuda"
)
# A line that hides every GPU (`os.environ["CUDA_VISIBLE_DEVICES"] = ""`, `=-1`, a launcher's
# command list that starts with `'CUDA_VISIBLE_DEVICES=',`): the code runs on CPUs there (A3C's
# worker processes), which is no sign of GPU training. `"CUDA_VISIBLE_DEVICES=" + gpu` and
# `"CUDA_VISIBLE_DEVICES=%s" % gpu` give a value.
HIDES_GPUS = re.compile(
    r"CUDA_VISIBLE_DEVICES['\"]?\s*\]?\s*=\s*(?:\"\"|''|['\"]?-1\b|\s*$|\s+\S*python"
    r"|['\"]\s*(?:[,)\]]|$))"
)
HARD_CUDA = re.compile(r"\.cuda\(\)|torch\.device\(\s*['\"]cuda(?::\d)?['\"]\s*\)")
CPU_FALLBACK = re.compile(
    r"cuda\.is_available\(\)|is_gpu_available\(|list_physical_devices\(\s*['\"]GPU"
    r"|['\"]--(?:cpu|no[-_]cuda|no[-_]gpu|device)['\"]|\buse_cuda\b|\bargs\.cuda\b"
    r"|device\s*=\s*['\"]cpu['\"]|set_mode_cpu\("
    # a CPU path behind a GPU-count or GPU-id option: `if args.ngpu > 0`, `opt.gpu >= 0`,
    # `--gpu_ids -1 for CPU`, Lua's `if opt.gpuid >= 0 then`
    r"|\b(?:n_?gpus?|num_gpus|gpu_?ids?|gpuid|use_gpu|no_cuda|cuda)\s*(?:>=?|==|!=)\s*-?\d"
    r"|-1 (?:for|=|means|to use) CPU|\b(?:args|opt|opts|cfg|config)\.(?:cpu|use_cpu|no_cuda)\b"
    # a GPU switch the code tests before it moves anything (`if args.gpu:`, `if opt.use_cuda:`)
    r"|\bif\s+(?:not\s+)?(?:args|opt|opts|cfg|config|self)\.(?:use_)?(?:gpus?|cuda)\s*:"
)
DISTRIBUTED = re.compile(
    r"torch\.distributed|DistributedDataParallel|nn\.DataParallel|\btorchrun\b"
    r"|accelerate\s+launch|\bdeepspeed\b|\bhorovod|MirroredStrategy|\bpmap\("
)
GPU_COUNT = re.compile(
    r"--nproc[_-]per[_-]node[= ](\d+)|--(?:num[_-])?gpus[= ](\d+)|horovodrun\s+-np\s+(\d+)"
    r"|CUDA_VISIBLE_DEVICES=((?:\d,)*\d)\b"
)
MIXED_PRECISION = re.compile(
    r"torch\.(?:cuda\.)?amp\b|\bautocast\(|GradScaler\(|['\" ]--(?:fp16|bf16|amp)\b"
    r"|mixed_float16|mixed_bfloat16|apex\.amp|precision\s*=\s*['\"]?(?:16|bf16)"
)
# A module-level import: the frameworks the project's code runs on (an import inside a function,
# such as an exporter's `import onnx`, is an optional extra).
TOP_IMPORT = re.compile(r"(?:import|from)\s+([\w.]+)")
FROM_NAMES = re.compile(r"from\s+[\w.]+\s+import\s+\(?([\w\s,]+)")
# A seed in a configuration file the code reads (`manual_seed: 0`, `seed = 42`).
CONFIG_SEED = re.compile(
    r"^\s*[\w.]*?(?:random_|manual_|global_|rng_)?seed(?:_everything)?\s*[:=]\s*\d+\s*(?:#.*)?$"
)
# Library helpers that seed every RNG under other names (detectron2's `seed_all_rng(1234)`, and
# its `default_setup(cfg, args)`, which seeds Python, NumPy and torch from `cfg.SEED`).
SEED_ALL = re.compile(
    r"\b(?:seed_all_rng|seed_all|set_global_seeds?|set_all_seeds?)\s*\("
    r"|\bdefault_setup\(\s*cfg\b"
    # a Sacred experiment's main function: Sacred seeds random, NumPy and the framework from
    # the run's `seed` before it calls it (`@ex.automain`, `@ex.main`)
    r"|^\s*@(?:\w+\.automain|ex\.main)\b"
)
# An opt-in GPU backend: `if self.use_gpu:` (or `x.cuda() if use_gpu else x`) where the flag
# defaults to False (`def __init__(self, ..., use_gpu=False)`) and nothing turns it on.
GPU_FLAG = r"(?:use_|on_|with_)?(?:gpus?|cuda)"
GATE = re.compile(rf"^(\s*)(?:el)?if\s+(?:(?:self|args|opt|cfg|config)\.){{0,2}}({GPU_FLAG})\s*:")
INLINE_GATE = re.compile(rf"\bif\s+(?:(?:self|args|opt|cfg|config)\.){{0,2}}({GPU_FLAG})\s+else\b")
BATCH_SIZE = re.compile(
    r"['\"]--batch[_-]size['\"][^)\n]*default\s*=\s*(\d+)|^\s*batch_size\s*[:=]\s*(\d+)\s*(?:#.*)?$"
)


@dataclass
class CodeFacts:
    """Evidence of GPU use, launchers, precision, batch size, seeds and thread settings."""

    gpu: list[Evidence] = field(default_factory=list)
    hard_cuda: list[Evidence] = field(default_factory=list)
    cpu_fallback: list[Evidence] = field(default_factory=list)
    distributed: list[Evidence] = field(default_factory=list)
    gpu_count: list[tuple[int, Evidence]] = field(default_factory=list)
    mixed_precision: list[Evidence] = field(default_factory=list)
    batch_size: list[tuple[int, Evidence]] = field(default_factory=list)
    seed: list[Evidence] = field(default_factory=list)
    threads: list[Evidence] = field(default_factory=list)
    code_lines: dict[str, list[str]] = field(default_factory=dict)  # path -> lines, for APIs
    config_text: list[str] = field(default_factory=list)  # scripts' and configs' own lines
    scanned: list[str] = field(default_factory=list)  # the files read, for absences
    bundled: tuple[str, ...] = ()  # sub-folders that are copies of other projects
    frameworks: dict[str, Evidence] = field(default_factory=dict)  # imported at module level
    framework_sites: dict[str, list[Evidence]] = field(default_factory=dict)  # every such import
    local_modules: frozenset[str] = frozenset()  # the checkout's own module names (darknet.py)
    # GPU sites behind an opt-in flag, by flag, dropped from `gpu` unless something turns it on
    optional_gpu: dict[str, list[Evidence]] = field(default_factory=dict)
    gpu_switches_off: frozenset[str] = frozenset()  # declared `store_true` by the project

    @property
    def gpus(self) -> int | None:
        """The largest GPU count a launcher or device list asks for, if any."""
        return max((n for n, _ in self.gpu_count), default=None)

    @property
    def batch(self) -> int | None:
        """The first default batch size found, if any."""
        return self.batch_size[0][0] if self.batch_size else None


def _ev(path: str, line: int, text: str, rule: str) -> Evidence:
    text = " ".join(text.split())
    return Evidence(path, line, text if len(text) <= CLIP else text[: CLIP - 3] + "...", rule)


def _notebook_lines(text: str) -> list[str]:
    import json

    try:
        cells = json.loads(text).get("cells", [])
    except (ValueError, AttributeError):
        return []
    lines: list[str] = []
    for cell in cells:
        if isinstance(cell, dict) and cell.get("cell_type") == "code":
            source = cell.get("source", [])
            lines.extend("".join(source).splitlines() if isinstance(source, list) else [])
    return lines


def _scanned_files(tree: RepoTree, bundled: tuple[str, ...]) -> list[tuple[str, bool]]:
    """(path, is_python) for the project's own code and scripts (vendored and bundled trees,
    examples, tests and docs left out)."""
    chosen: list[tuple[str, bool]] = []
    for f in tree.files:
        if not is_own(f.path, bundled):
            continue
        if f.suffix in CODE_SUFFIXES:
            chosen.append((f.path, True))
        elif f.suffix in SCRIPT_SUFFIXES or f.name.lower() in SCRIPT_NAMES or SOLVER.search(f.name):
            chosen.append((f.path, False))
    return chosen[:MAX_FILES]


def _count(match: re.Match[str]) -> int:
    nproc, gpus, horovod, devices = match.groups()
    if devices:
        return len(devices.split(","))
    return int(nproc or gpus or horovod)


def scan_code(tree: RepoTree) -> CodeFacts:
    """Scan code, notebooks, shell scripts and configs (and README code) for requirement facts."""
    facts = CodeFacts()
    facts.bundled = bundled_folders(tree)
    facts.local_modules = frozenset(
        part.removesuffix(".py")
        for f in tree.files
        if f.suffix == ".py"
        for part in f.path.split("/")
    )
    sources = _scanned_files(tree, facts.bundled)
    if tree.readme:
        sources.append((tree.readme, False))
    # GPU switches off by default where they are declared (`parser.add_argument('--cuda',
    # action='store_true')` in arguments.py), which other files test (`if self.args.cuda:`)
    facts.gpu_switches_off = _switches_off(tree, [p for p, py in sources if py])
    for path, is_python in sources:
        text = tree.read_text(path)
        if text is None:
            continue
        lines = _notebook_lines(text) if path.endswith(".ipynb") else text.splitlines()
        if path != tree.readme:
            facts.scanned.append(path)
        if is_python:
            facts.code_lines[path] = lines[:MAX_LINES]
        elif path != tree.readme:
            facts.config_text.extend(lines[:MAX_LINES])
        _scan_lines(facts, path, lines[:MAX_LINES], is_python)
        if is_python and ".seed" in text:
            for number in seeded_aliases("\n".join(lines[:MAX_LINES])):
                facts.seed.append(_ev(path, number, lines[number - 1], "lint.seed"))
        if is_python and "Trainer" in text:
            number = hub_trainer_line(lines[:MAX_LINES])
            if number:
                facts.seed.append(_ev(path, number, lines[number - 1], "lint.seed.hub_trainer"))
    _drop_opt_in_gpu(facts, tree, [p for p, _ in sources])
    return facts


# Hugging Face's `Trainer` seeds every RNG when it is built (`set_seed(args.seed)`, 42 unless
# the arguments say otherwise), and so do the trainers built on it (TRL's `SFTTrainer`, ...).
HUB_TRAINER_IMPORT = re.compile(
    r"^\s*from\s+(?:transformers|trl)(?:\.[\w.]+)?\s+import\s+(\([^)]*\)|[^\n]*)", re.M
)
TRAINER_NAME = re.compile(r"\b(\w*Trainer)\b")


def hub_trainer_line(lines: list[str]) -> int:
    """The line (1-based) that builds or subclasses a trainer imported from `transformers` or
    `trl` (or `transformers.Trainer(` itself); 0 when none does."""
    text = "\n".join(lines)
    names = {n for m in HUB_TRAINER_IMPORT.finditer(text) for n in TRAINER_NAME.findall(m.group(1))}
    names.discard("TrainerCallback")
    uses = [r"\btransformers\.\w*Trainer\s*\("]
    if names:
        alternatives = "|".join(sorted(map(re.escape, names)))
        uses += [
            rf"(?<![\w.])(?:{alternatives})\s*\(",
            rf"^\s*class\s+\w+\s*\([^)]*\b(?:{alternatives})\b",
        ]
    use = re.compile("|".join(uses))
    for number, line in enumerate(lines, 1):
        if use.search(line) and not line.lstrip().startswith(("#", "from ", "import ")):
            return number
    return 0


def _option(flag: str) -> str:
    """The command-line spellings of a flag: `--use_cuda` or `--use-cuda`."""
    return "--" + flag.replace("_", "[-_]")


def _off_by_default(flag: str, text: str) -> bool:
    """`use_gpu=False` in a signature or an assignment, or an argparse switch that is off
    unless given (`add_argument('--use-cuda', action='store_true')`)."""
    if re.search(rf"\b{flag}\s*(?::\s*bool\s*)?=\s*False\b", text):
        return True
    return re.search(_store_true(_option(flag)), text) is not None


def _store_true(option: str) -> str:
    """An argparse switch declared off unless given: `'<option>', ..., action='store_true'`."""
    return rf"['\"]({option})['\"][^\n]*action\s*=\s*['\"]store_true"


def _switches_off(tree: RepoTree, paths: list[str]) -> frozenset[str]:
    """The GPU switches (`cuda`, `use_gpu`) an argparse parser of the project declares off
    unless given."""
    declared = re.compile(_store_true("--" + GPU_FLAG.replace("_", "[-_]")), re.I)
    found: set[str] = set()
    for path in paths:
        text = tree.read_text(path) or ""
        if "store_true" in text:
            found.update(m.group(1)[2:].replace("-", "_") for m in declared.finditer(text))
    return frozenset(found)


def _gated_lines(lines: list[str], switches_off: frozenset[str] = frozenset()) -> dict[int, str]:
    """Line number -> GPU flag, for the lines a GPU flag that is off by default (in this file,
    or as a switch the project's parser declares) guards in this file."""
    text = "\n".join(lines)
    gated: dict[int, str] = {}
    gate: tuple[int, str] | None = None  # (indentation of the `if`, flag)
    for number, raw in enumerate(lines, 1):
        if raw.strip() and gate and len(raw) - len(raw.lstrip()) <= gate[0]:
            gate = None
        m = GATE.match(raw)
        if m and (m.group(2) in switches_off or _off_by_default(m.group(2), text)):
            gate = (len(m.group(1)), m.group(2))
            continue
        inline = INLINE_GATE.search(raw)
        if gate or inline:
            flag = gate[1] if gate else inline.group(1) if inline else ""
            if gate or flag in switches_off or _off_by_default(flag, text):
                gated[number] = flag
    return gated


def _drop_opt_in_gpu(facts: CodeFacts, tree: RepoTree, paths: list[str]) -> None:
    """Drop GPU sites behind a flag that defaults to False when no code or script turns it on
    (`use_gpu=True`, `--use_gpu`) and no command in the README passes it: the default training
    path runs on CPUs ("to use the GPU, set use_gpu=True" is an option, not the path)."""
    if not facts.optional_gpu:
        return
    for flag, sites in facts.optional_gpu.items():
        on = re.compile(rf"\b{flag}\s*=\s*True\b|{_option(flag)}\b")
        # in the README, a command that passes it ("If you want to use GPU, just add the flag
        # `--cuda`" offers it)
        passed = re.compile(rf"^[^\n]*\b(?:python\d?|bash|sh|torchrun|mpirun)\b[^\n]*"
                            rf"{_option(flag)}\b", re.M)  # fmt: skip
        if any((passed if p == tree.readme else on).search(_without_declarations(tree, p))
               for p in paths):  # fmt: skip
            continue
        facts.gpu = [e for e in facts.gpu if e not in sites]


def _without_declarations(tree: RepoTree, path: str) -> str:
    """A file's text without its argparse declarations, which name a switch without giving it."""
    text = tree.read_text(path) or ""
    if "add_argument(" not in text:
        return text
    return "\n".join(line for line in text.splitlines() if "add_argument(" not in line)


def _scan_lines(facts: CodeFacts, path: str, lines: list[str], is_python: bool) -> None:
    is_readme = path == path.split("/")[-1] and path.lower().startswith("readme")
    checks = is_python and ("False" in "".join(lines) or bool(facts.gpu_switches_off))
    gated = _gated_lines(lines, facts.gpu_switches_off) if checks else {}
    for number, raw in enumerate(lines, 1):
        line = raw.strip()
        if not line or (is_python and line.startswith("#")):
            continue
        if is_python and " #" in line:
            line = line.split(" #", 1)[0]
        where = (path, number, raw)
        if is_python and raw[:1] in ("i", "f") and (module := TOP_IMPORT.match(raw)):
            top = module.group(1).split(".")[0]
            framework = (
                None if top in facts.local_modules else module_framework("python", module.group(1))
            )
            if top in HF_LIBRARIES and (names := FROM_NAMES.match(line)):
                framework = hf_port(re.findall(r"\w+", names.group(1))) or framework
            if framework:
                site = _ev(*where, "lint.framework_import")
                facts.frameworks.setdefault(framework, site)
                facts.framework_sites.setdefault(framework, []).append(site)
        if not is_readme:
            if GPU.search(line) and not HIDES_GPUS.search(line):
                facts.gpu.append(_ev(*where, "lint.gpu_code"))
                if number in gated:
                    facts.optional_gpu.setdefault(gated[number], []).append(facts.gpu[-1])
            if is_python and HARD_CUDA.search(line):
                facts.hard_cuda.append(_ev(*where, "lint.hard_coded_cuda"))
            if CPU_FALLBACK.search(line):
                facts.cpu_fallback.append(_ev(*where, "lint.cpu_fallback"))
            if (
                sets_seed(line)
                or SEED_ALL.search(line)
                or (not is_python and CONFIG_SEED.match(line))
            ):
                facts.seed.append(_ev(*where, "lint.seed"))
            if sets_threads(line):
                facts.threads.append(_ev(*where, "lint.threads"))
            if MIXED_PRECISION.search(line):
                facts.mixed_precision.append(_ev(*where, "lint.mixed_precision"))
            size = BATCH_SIZE.search(line)
            if size:
                value = int(size.group(1) or size.group(2))
                facts.batch_size.append((value, _ev(*where, "lint.batch_size")))
        if DISTRIBUTED.search(line):
            facts.distributed.append(_ev(*where, "lint.distributed"))
        for match in GPU_COUNT.finditer(line):
            facts.gpu_count.append((_count(match), _ev(*where, "lint.gpu_count")))
