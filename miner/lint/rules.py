"""The lint codes: one check per code, each a plain function in the registry.

Codes are stable (new ones are added, none is renumbered): MNR1xx hardware, MNR2xx software,
MNR3xx data, MNR4xx reproducibility. A check reads the audit's labels and evidence, the facts
the code implies and what the docs state, and returns findings that carry their evidence; each
code names the project kinds (`miner.lint.scope`) it applies to.
"""

from __future__ import annotations

import re
from collections.abc import Callable

from miner.codebook import Evidence
from miner.lint.context import Finding, LintContext, Rule
from miner.lint.framework_use import framework_deps, training_closure
from miner.lint.scope import EDUCATIONAL, INFERENCE, LIBRARY, TRAINING, training_entry
from miner.lint.shipped_data import environment_data, named_data
from miner.lint.software_checks import SOFTWARE_CHECKS
from miner.lint.statements import (
    CPU_CLAIM,
    CPU_OPTION,
    CPU_TRAINED,
    OWN_DATA,
    claims,
    data_folder_statement,
    data_in_code,
    gpu_in_pages,
    stated,
)

__all__ = ["CHECKS", "RULES", "RULE_BY_CODE", "Finding", "LintContext", "Rule", "framework_deps"]

RUNS = (TRAINING, INFERENCE)
ANY = (TRAINING, INFERENCE, LIBRARY, EDUCATIONAL)
RULES = (
    Rule("MNR101", "gpu-unstated", "The code trains on a GPU; no GPU model or memory is stated."),
    Rule("MNR102", "cpu-claim-contradicted", "The docs say it runs on CPU; the code needs CUDA.",
         RUNS),
    Rule("MNR201", "requirements-unstated", "No dependency file and no stated requirements.", RUNS),
    Rule("MNR202", "framework-unpinned",
         "A framework the code imports is missing from the dependency files, or has no version "
         "there (a lower bound is not a version).", RUNS),
    Rule("MNR203", "framework-version-contradicted",
         "The allowed framework versions lack an API the code calls.", ANY),
    Rule("MNR204", "python-unstated", "No Python version is stated.", RUNS),
    Rule("MNR205", "dependency-file-unparseable",
         "A requirements file `pip install -r` cannot read (`pip list` output, conda lists).", ANY),
    Rule("MNR206", "framework-range-too-open",
         "An open version range admits a major release the code cannot run on.",
         (TRAINING, INFERENCE, EDUCATIONAL)),
    Rule("MNR207", "framework-unknown",
         "The code uses a framework without a pip package (Caffe, Lua Torch, ...) and no "
         "version of it is stated.", RUNS),
    # Opt-in: on fresh repositories about half its findings were right; whether a named data
    # set ("ImageNet") says how to obtain it is a judgement readers split on.
    Rule("MNR301", "data-unstated", "Training code, but no stated way to obtain the data "
         "(opt-in: --select MNR301).", opt_in=True),
    Rule("MNR401", "seed-unset", "Training code that never sets a random seed."),
    # Retired: results stated as trained on CPUs and reproducible were too rare for a code of
    # their own; MNR401's fix asks for the thread count where training runs on CPUs.
    Rule("MNR402", "threads-unset",
         "Retired: the thread count for results trained on CPU is part of MNR401's fix.",
         folded_into="MNR401"),
)  # fmt: skip
RULE_BY_CODE = {rule.code: rule for rule in RULES}


# JAX built for CUDA is the only sign of a GPU in code that JAX places by itself; where the
# training code works on TPUs ("Local TPUs:", `jax.devices("tpu")`, `TPUStrategy`), such an
# install is a GPU image for inference or a second platform, not how the model was trained.
JAX_CUDA = re.compile(r"\bjax\[cuda")
TPU_CODE = re.compile(
    r"\bTPUs?\b|jax\.devices\(\s*['\"]tpu|\bTPU(?:Strategy|ClusterResolver)\b|\btpu_driver\b"
)


def _trains_on_tpus(ctx: LintContext) -> bool:
    if not all(JAX_CUDA.search(e.text) for e in ctx.facts.gpu):
        return False
    return any(
        TPU_CODE.search(line) and not line.lstrip().startswith("#")
        for lines in ctx.facts.code_lines.values()
        for line in lines
    )


def _gpu_unstated(ctx: LintContext) -> list[Finding]:
    if not ctx.facts.gpu or ctx.label("hw_gpu") or _trains_on_tpus(ctx):
        return []
    if gpu_in_pages(ctx.tree, ctx.other_pages):
        return []  # stated in a page the root README does not link (a config folder's README)
    implied = []
    if ctx.facts.gpus:
        implied.append(f"{ctx.facts.gpus} GPUs (from the launcher)")
    elif ctx.facts.distributed:
        implied.append("several GPUs (distributed training)")
    if ctx.facts.mixed_precision:
        implied.append("mixed precision")
    if ctx.facts.batch:
        implied.append(f"batch size {ctx.facts.batch}")
    hint = f"; the code implies {', '.join(implied)}" if implied else ""
    fix = (
        "add a 'Hardware' section naming the GPU model and memory you trained and evaluated "
        f"on, e.g. '<N> x <GPU model> (<memory> GB each)'{hint}"
    )
    evidence = (
        *ctx.facts.gpu[:2],
        *(e for _, e in ctx.facts.gpu_count[:1]),
        ctx.absent("no GPU model or GPU memory"),
    )
    return [
        Finding(
            "MNR101",
            ctx.readme,
            1,
            "the code trains on a GPU, but the docs name no GPU model or GPU memory",
            fix,
            tuple(evidence),
        )
    ]


def _cpu_claim_contradicted(ctx: LintContext) -> list[Finding]:
    if not ctx.facts.hard_cuda or ctx.facts.cpu_fallback:
        return []
    claim = stated(ctx.tree, ctx.docs, CPU_CLAIM)
    if claim is None:
        return []
    site = ctx.facts.hard_cuda[0]
    return [
        Finding(
            "MNR102",
            site.path,
            site.line,
            f"the docs say it runs on CPU "
            f"({claim.path}:{claim.line}), but this line needs CUDA and the code has no "
            "CPU fallback",
            "choose the device with torch.cuda.is_available() (or a "
            "--device option), or say in the docs that a GPU is required",
            (site, claim),
        )
    ]


def _data_unstated(ctx: LintContext) -> list[Finding]:
    if ctx.label("data_available") is not False or claims(ctx.tree, ctx.docs, OWN_DATA):
        return []  # data stated, or stated to be the user's own ("train on your own dataset")
    if data_folder_statement(ctx.tree):
        return []  # the data folder's own README gives the download
    if data_in_code(ctx.tree, ctx.docs, ctx.facts.code_lines):
        return []  # "the download URL is in the file", and a comment there gives it
    code = {path: "\n".join(lines) for path, lines in ctx.facts.code_lines.items()}
    if named_data(ctx.tree, code):
        return []  # the data ships, and the training code reads it by its path
    if environment_data(code):
        return []  # an agent learns from the environment it acts in: no data set to obtain
    entry = training_entry(ctx.audit, ctx.own_code)[:1]
    return [
        Finding(
            "MNR301",
            ctx.readme,
            1,
            "the project trains a model but does not say how to obtain the data",
            "link the dataset and give the download or preparation "
            "steps (or ship a script that fetches it)",
            (*entry, ctx.absent("no dataset link, download step or data script")),
        )
    ]


SEED_CALLS = {
    "pytorch": "torch.manual_seed(seed)",
    "tensorflow": "tf.random.set_seed(seed) (tf.set_random_seed in TensorFlow 1)",
    "keras": "keras.utils.set_random_seed(seed)",
    "jax": "jax.random.PRNGKey(seed)",
    "mxnet": "mx.random.seed(seed)",
    "paddlepaddle": "paddle.seed(seed)",
    "torch7": "torch.manualSeed(seed)",
    "caffe": "random_seed in the solver",
}
# Fixes that are no `--seed` wired to a framework call plus Python's and NumPy's RNGs.
SEED_FIXES = {
    "caffe": "set random_seed in the solver (and seed any Python data layers)",
    "torch7": "add a -seed option and call torch.manualSeed(seed) with it (and "
    "cutorch.manualSeedAll(seed) when training on GPUs)",
    "theano": "add a --seed option and call numpy.random.seed(seed) and random.seed(seed) with "
    "it (Theano and Lasagne draw initial weights from NumPy), and pass it to any RandomStreams",
}


CODE_FIRST = (".py", ".ipynb", ".lua", ".prototxt")


def _code_read(ctx: LintContext, what: str) -> Evidence:
    """Evidence of an absence in the code: how many files were read, and the first of them."""
    read = sorted(ctx.facts.scanned, key=lambda p: (not p.endswith(CODE_FIRST), p))
    shown = ", ".join(read[:4]) + (f" and {len(read) - 4} more" if len(read) > 4 else "")
    return Evidence("", 0, f"{shown or 'no code files'}: {what}", "lint.absent")


# How each framework fixes its CPU thread count: on CPUs the count changes the results.
THREAD_CALLS = {
    "pytorch": "torch.set_num_threads",
    "tensorflow": "tf.config.threading, or ConfigProto's intra_op_parallelism_threads in "
    "TensorFlow 1",
    "keras": "tf.config.threading",
    "torch7": "torch.setnumthreads",
    "mxnet": "MXNET_CPU_WORKER_NTHREADS",
    "paddlepaddle": "CPU_NUM",
}


def _thread_advice(ctx: LintContext, framework: str) -> str:
    """MNR401's advice for training on CPUs (the code shows no GPU, or the docs say the model
    was trained on CPUs), where the thread count is left to the default."""
    if ctx.facts.threads:
        return ""
    if ctx.facts.gpu and claims(ctx.tree, ctx.docs, CPU_TRAINED, CPU_OPTION) is None:
        return ""
    call = THREAD_CALLS.get(framework)
    how = f"{call} and OMP_NUM_THREADS" if call else "OMP_NUM_THREADS"
    return f"; for results on CPU, also state and set the thread count ({how})"


def _seeded_where_training_leads(ctx: LintContext) -> bool:
    """True when a module the training code imports seeds an RNG, wherever it lies (a
    `setup_seed` helper under `src/misc/` is still what training runs)."""
    from miner.audit.detect.reproducibility import seeded_aliases, sets_seed

    for path in training_closure(ctx) - set(ctx.facts.scanned):
        text = ctx.tree.read_text(path) or ""
        if any(sets_seed(line) for line in text.splitlines() if "seed" in line):
            return True
        if ".seed" in text and seeded_aliases(text):
            return True
    return False


# A framework's data pipeline seeded where it is built: Keras' generators reseed NumPy from
# `seed=` every batch (`flow_from_directory(..., seed = seed)`, the call spread over lines).
PIPELINE_SEED = re.compile(
    r"\.flow(?:_from_directory|_from_dataframe)?\((?:[^()]|\([^()]*\))*?\bseed\s*=\s*"
    r"(?!None\b)[\w.]",
    re.S,
)


def _seeded_pipeline(ctx: LintContext) -> bool:
    """True when training code builds a Keras data generator with a seed."""
    for path in training_closure(ctx) | set(ctx.facts.scanned):
        if not path.endswith(".py"):
            continue
        text = ctx.tree.read_text(path) or ""
        if "seed" in text and ".flow" in text and PIPELINE_SEED.search(text):
            return True
    return False


def _training_framework(ctx: LintContext, entry: tuple[Evidence, ...]) -> str:
    """The framework the cited training code runs on: Lua Torch in a Lua file, else the one
    with a seed call that file imports (the primary framework when it imports it, or none),
    Theano under Keras when the audit found Keras on a Theano backend."""
    framework = ctx.label("primary_framework") or ""
    if entry and entry[0].path.endswith(".lua"):
        return "torch7"
    if entry:
        here = [
            f for f, sites in ctx.facts.framework_sites.items()
            if (f in SEED_CALLS or f in SEED_FIXES) and any(s.path == entry[0].path for s in sites)
        ]  # fmt: skip
        if here and framework not in here:
            framework = here[0]
    if framework == "keras" and ctx.audit.details.get("keras_backend") == "theano":
        return "theano"
    return framework


def _seed_unset(ctx: LintContext) -> list[Finding]:
    if ctx.facts.seed or _seeded_where_training_leads(ctx) or _seeded_pipeline(ctx):
        return []
    entry = training_entry(ctx.audit, ctx.own_code)[:1]
    framework = _training_framework(ctx, entry)
    call = SEED_CALLS.get(framework, "every framework RNG's seed function")
    fix = SEED_FIXES.get(
        framework, f"add a --seed option and call {call}, random.seed and numpy.random.seed with it"
    )
    return [
        Finding(
            "MNR401",
            entry[0].path if entry else ctx.readme,
            entry[0].line if entry else 1,
            "training code that never sets a random seed",
            fix + _thread_advice(ctx, framework),
            (*entry, _code_read(ctx, "no seed call")),
        )
    ]


Check = Callable[[LintContext], list[Finding]]
CHECKS: tuple[Check, ...] = (
    _gpu_unstated,
    _cpu_claim_contradicted,
    *SOFTWARE_CHECKS,
    _data_unstated,
    _seed_unset,
)
