"""Where code fixes its randomness and its thread counts: seed calls and thread settings.

Each pattern carries the framework its snippet must cover, so a later stage can say which seed
call a project is missing. Read by `select` (seed sites and thread hooks of a manifest) and by
`lint` (a seed never set, threads left to the default).
"""

from __future__ import annotations

import re

# Deterministic kernels: listed with the seed sites (a run needs both), but they seed nothing.
DETERMINISM = re.compile(r"\btorch\.use_deterministic_algorithms\s*\(|cudnn\.deterministic\s*=")
# (framework, pattern) for seed sites.
SEED_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("python", re.compile(r"\brandom\.seed\s*\(|\brandom\.Random\s*\(\s*\w")),
    ("numpy", re.compile(r"\b(?:np|numpy)\.random\.(?:seed|default_rng|RandomState)\s*\(")),
    ("pytorch", re.compile(r"\btorch\.(?:cuda\.)?manual_seed(?:_all)?\s*\(")),
    ("pytorch", DETERMINISM),
    ("pytorch", re.compile(r"\b(?:generator|gen|g|rng)\.manual_seed\s*\(")),
    ("tensorflow1", re.compile(
        r"\btf\.(?:compat\.v1\.)?(?:random\.)?set_random_seed\s*\(|\btf_random_seed\s*=\s*\w")),
    ("tensorflow2", re.compile(r"\btf\.random\.set_seed\s*\(")),
    ("keras", re.compile(r"\bkeras\.utils\.set_random_seed\s*\(")),
    ("jax", re.compile(r"\b(?:jax\.)?random\.(?:PRNGKey|key)\s*\(|\bPRNGKey\s*\(\s*\w"
                       r"|\bnnx\.Rngs\s*\(|\bhk\.PRNGSequence\s*\(")),
    ("paddlepaddle", re.compile(r"\bpaddle\.seed\s*\(")),
    ("theano", re.compile(r"\b(?:MRG_)?RandomStreams\s*\(\s*(?:seed\s*=\s*)?\w")),
)  # fmt: skip
# Seeds outside Python: Lua Torch (`torch.manualSeed(opt.seed)`) and a Caffe solver's
# `random_seed: 1701`; read by lint, which scans Lua code and solver files too.
OTHER_SEEDS = re.compile(r"\b(?:torch|cutorch)\.manualSeed(?:All)?\s*\(|^\s*random_seed\s*:\s*\d")
# Seed helpers of training libraries (Lightning, Transformers, MXNet) that set every RNG.
SEED_HELPERS = re.compile(
    r"\b(?:set_seed|seed_everything|set_random_seed|mx\.random\.seed)\s*\("
    # a project's own helper (`init_seeds(args.seed)`, `random_seed(args.seed, rank)`,
    # `setup_seed(42)`, `fix_seed(...)`): it is called with a value, which it seeds with
    r"|\b(?:set|init|fix|setup|seed|random|manual)_?seeds?(?:_\w+)?\s*\(\s*[\w.\[]"
    r"|\bGenerator\(\)\.manual_seed\s*\("
    # Hugging Face's Trainer seeds every RNG from TrainingArguments.seed (default 42)
    r"|\b(?:Seq2Seq)?TrainingArguments\s*\("
)
# A random module or generator bound to another name, then seeded under it: `import random as
# rng`, `sample_random = random.Random()` ... `sample_random.seed(123456)`.
RNG_BINDING = re.compile(
    r"^\s*(?:import\s+(?:numpy\.)?random\s+as\s+(\w+)|from\s+numpy\s+import\s+random\s+as\s+(\w+)"
    r"|((?:self\.)?\w+)\s*=\s*(?:random\.Random|(?:np|numpy)\.random\.RandomState)\s*\(\s*\))",
    re.M,
)
# (framework, pattern) for thread settings.
THREAD_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("pytorch", re.compile(r"\btorch\.set_num(?:_interop)?_threads\s*\(")),
    ("tensorflow2", re.compile(r"\btf\.config\.threading\.set_(?:intra|inter)_op_parallelism")),
    ("tensorflow1", re.compile(r"\b(?:intra|inter)_op_parallelism_threads\s*=")),
    ("environment", re.compile(r"\b(?:OMP|MKL|OPENBLAS)_NUM_THREADS\b")),
)  # fmt: skip


def sets_seed(line: str) -> bool:
    """Whether a code line seeds a random number generator."""
    if SEED_HELPERS.search(line) or OTHER_SEEDS.search(line):
        return True
    return any(p.search(line) for _, p in SEED_PATTERNS if p is not DETERMINISM)


def seeded_aliases(text: str) -> list[int]:
    """The lines (1-based) of a module's text that seed a random module or generator bound to
    another name (`sample_random.seed(123456)` after `sample_random = random.Random()`)."""
    names = {name for m in RNG_BINDING.finditer(text) for name in m.groups() if name}
    if not names:
        return []
    call = re.compile(rf"(?<![\w.])(?:{'|'.join(map(re.escape, names))})\.seed\s*\(\s*[\w.\[]")
    return [n for n, line in enumerate(text.splitlines(), 1) if call.search(line)]


def sets_threads(line: str) -> bool:
    """Whether a code line fixes a thread count."""
    return any(p.search(line) for _, p in THREAD_PATTERNS)
