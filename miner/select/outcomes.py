"""Classify a smoke run from its logs, with the log line that shows why.

Classes: `ok` (trained at least one step or printed a metric), `install` (the environment could
not be built), `import`, `python2` (Python 2 code), `usage` (required arguments missing: the
argparse message), `needs_gpu` (hard-coded CUDA), `needs_weights` (a pretrained checkpoint to
download or a weights file missing), `needs_data` (a file-path dataset missing), `data` (a data
set download blocked), `runtime` (any other crash; a missing output folder is one, not a data
failure), `timeout` (still silent when the time was up).
"""

from __future__ import annotations

import re
from pathlib import Path

from miner.codebook import Evidence
from miner.select.cuda_only import CUDA_ONLY
from miner.select.ladder import TRAINING_BAR, shows_step

CLIP = 500  # evidence is kept whole, up to a long traceback line

# Training progress: a loss or accuracy with a number, an epoch/step counter, a Keras bar.
PROGRESS = re.compile(
    r"(?i)(?<![a-z0-9])(?:loss|acc|accuracy|perplexity|ppl|f1|bleu)(?![a-z0-9_])"
    # a number of its own, not the digits of a name (`training.loss.StyleGAN2Loss`)
    r"[^\d\n]{0,20}(?<![a-z_])[-+]?\d*\.?\d+"
    r"|\b(?:epoch|iter(?:ation)?|step|batch)\b\s*[:#=\[(]?\s*\d+"
    r"|\d+/\d+\s*\[[=>.]+\]"
    rf"|{TRAINING_BAR}"
)
# The entry point missing, or a program a shell script runs that this machine lacks (`mpirun`).
NO_SCRIPT = re.compile(r"can't open file|No such file or directory: '[^']*\.py'|command not found$")
INSTALL_REASONS: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("no_wheel", re.compile(r"(?i)no (?:matching )?(?:wheels?|distribution)|no .*wheels? with")),
    ("unsatisfiable", re.compile(r"\bBecause\b.*")),
    ("not_found", re.compile(r"(?i)not found in the package registry|no matching distribution")),
    ("unreachable", re.compile(r"(?i)could not resolve host|dns error|network is unreachable")),
    ("build", re.compile(r"(?i)failed to (?:build|prepare|download|fetch)\b.*")),
    ("unsatisfiable", re.compile(r"(?i)no solution found")),
    ("error", re.compile(r"^\s*(?:error|ERROR)\b.*")),
)
GPU = re.compile(
    r"(?i)not compiled with CUDA|no NVIDIA driver|no CUDA-capable device|CUDA driver version"
    r"|NVIDIA driver on your system|cuda runtime error|CUDA error|on a CUDA device"
    r"|libcud(?:art|a|nn|blas)|CUDA_ERROR|device specification '/device:GPU|invalid device ordinal"
    r"|nvidia-smi|torch\.cuda\.is_available\(\) is False|Cannot access accelerator device"
    r"|ProcessGroupNCCL is only supported with GPUs|Distributed package doesn't have NCCL"
    # a CUDA extension compiled at run time for no GPU; Lightning's accelerator asked for one
    r"|Unknown CUDA arch \([^)]*\) or GPU not supported|No supported gpu backend found"
    r"|CUDA_HOME environment variable is not set"
    r"|You requested GPUs: \[|Attempting to start raylet with \d+ GPUs"
    # The project's own words (`raise RuntimeError("No GPUs available for training.")`).
    r"|\bno (?:GPUs?|CUDA(?: devices?)?|CUDA-enabled devices?) (?:is |are )?(?:available|found"
    r"|detected)|\b(?:GPUs?|CUDA) (?:is |are )?not (?:available|found|detected)"
)
# A launcher's words for a worker that failed; the worker's own exception says why.
LAUNCHER_FAILED = re.compile(r"ChildFailedError|CalledProcessError: Command .*returned non-zero")
# The failing line of a bare AssertionError that asks for a GPU (`assert torch.cuda.is_available()`,
# `assert num_gpu <= torch.cuda.device_count()`): the machine, not the project, fell short.
GPU_ASSERT = re.compile(r"(?i)^\s*assert\b.*(?:\bcuda\b|\bgpus?\b|device_count)")
# ... or that its data is where it looks (`assert os.path.exists(img_dir)`, `os.path.isdir(root)`).
DATA_ASSERT = re.compile(r"^\s*assert\b[\s(]*(?:os\.path\.(?:exists|isdir|isfile)|\w+\.exists)\(")
CUDA_ARCH_LIST = re.compile(r"^arch_list\[-1\] \+= '\+PTX'")
GPU_COUNT_DIVISOR = re.compile(
    r"(?i)[/%]\s*(?:\w+\.)*(?:n_?gpus?|num_?gpus?|gpu_?(?:num|count)s?|device_count\(\))\b"
)
IMPORT = re.compile(
    r"ModuleNotFoundError|ImportError|No module named|cannot import name|undefined symbol"
    r"|cannot open shared object file"
)
PYTHON2 = re.compile(
    r"Missing parentheses in call to|print statement|No module named '?(?:cPickle|urllib2|Queue"
    r"|cStringIO|StringIO|ConfigParser|Tkinter|commands|itertools\.izip)\b"
    r"|name '(?:xrange|unicode|raw_input|basestring|long|unichr|reduce|file|execfile)' is not"
    r"|has no attribute '(?:iteritems|itervalues|iterkeys|has_key|maxint)'"
    # tabs and spaces mixed as Python 2 read them (a tab to the next multiple of eight)
    r"|^TabError: inconsistent use of tabs and spaces in indentation"
)
USAGE = re.compile(
    r"^\S+: error: (?:the following arguments are required|unrecognized arguments|argument )"
    r"|Flags parsing error|FATAL Flags parsing error"
    # click's words (`Error: Missing option '--outdir'.`)
    r"|^Error: (?:Missing (?:option|argument|parameter)|No such option|Invalid value for)"
)
WEIGHTS_DOWNLOAD = re.compile(
    r"(?i)Downloading:? \S*(?:\.pth|\.pt|\.ckpt|\.h5|\.bin|\.params|\.t7|\.npy)\b"
    r"|Downloading data from \S*(?:keras-applications|models|weights)"
    r"|keras-applications/|download\.pytorch\.org/models|huggingface\.co|hub\.load"
    r"|Can't load (?:weights|config|tokenizer|the model)|pretrained model"
    # transformers' and huggingface_hub's words for a model folder that is not there and is no
    # Hub name either (a README's `/root/phi-2`, `path/to/llama-7b`)
    r"|Incorrect path_or_model_id: |is not a local folder and is not a valid model identifier"
    # a traceback through a helper that fetches a pretrained checkpoint (taming's LPIPS)
    r"|\b(?:load_from_pretrained|get_ckpt_path|load_pretrained\w*|download_pretrained\w*)\("
    # a detection toolbox's checkpointer before its download (maskrcnn-benchmark, mmcv)
    r"|load(?:ing)? checkpoint from (?:http|catalog://|modelzoo://|open-mmlab://|torchvision://)"
)
STAND_IN_WEIGHTS_LINE = "miner: stand-in weights"
# A file a checkpoint's suffix names, unless its own name says it holds data ('QM9_data.pt',
# 'train.h5', 'test_split.pt'): PyTorch and HDF5 files carry data sets as often as weights.
WEIGHTS_FILE = re.compile(
    r"(?i)No such file or directory: "
    r"'(?![^']*?(?:data|split|feature|corpus)[^'/]*'|(?:[^']*/)?(?:train|test|val|valid)\.\w+')"
    r"[^']*(?:\.pth|\.pt|\.ckpt[^'/]*|\.caffemodel|\.weights"
    r"|\.h5|\.hdf5|\.t7|\.params|\.pb|pretrain[^']*)'"
    r"|Unable to open file \(unable to open file: name = '[^']*(?:\.h5|\.hdf5)'"
    # TensorFlow's words for a checkpoint's shard, index or graph it cannot open
    r"|\S\.(?:data-\d{5}-of-\d{5}|index|meta); No such file or directory"
)
DOWNLOAD = re.compile(
    r"(?i)Dataset not found|download=True|urlopen error|URLError|Network is unreachable"
    r"|Name or service not known|Temporary failure in name resolution|gaierror|ConnectionError"
    r"|Connection refused|Failed to establish a new connection|Max retries exceeded"
    r"|HTTP Error \d+"
    # hubs that say they are offline: torch.hub, Hugging Face
    r"|no internet connection|couldn't connect to|LocalEntryNotFoundError|offline mode is enabled"
    # transformers' words for a Hub file it could not fetch (its hub is offline in a smoke run)
    r"|Can't load (?:tokenizer|config|the configuration|weights|feature extractor"
    r"|image processor|processor) for '"
    r"|Incorrect path_or_model_id: |is not a local folder and is not a valid model identifier"
    r"|Cannot find the requested files in the (?:disk )?cache"
    # an archive a blocked download left empty (`wget -O data.zip` with the network cut)
    r"|BadZip[Ff]ile: File is not a zip file|ReadError: (?:file could not be opened|empty file)"
    r"|Not a gzipped file"
    # NLTK's corpora and models, downloaded on first use (`nltk.download('cmudict')`)
    r"|Please use the NLTK Downloader"
)
DATA = re.compile(
    r"(?i)^(?!\s*tee: )"  # tee's log file in a missing folder is an output, not data
    r".*(?:FileNotFoundError|No such file(?: or directory)?\b|(?:please|manually) download"
    r"|not found[.!] (?:Download|Please|You can download)|does not exist|doesn't exist"
    r"|IsADirectoryError"
    r"|NotADirectoryError"
    # an empty data folder: "No audio files found in 'corpus'", "Found 0 images in ...",
    # a DataLoader over nothing ("num_samples=0")
    r"|\bno (?:\w+ ){0,2}files? (?:were )?found|\bfound 0 (?:\w+ )?(?:files|images|samples)"
    r"|\bfound no (?:\w+ )?(?:files|images)|num_samples=0"
    r"|datasets should not be an empty iterable"  # a ConcatDataset over no data set found
    # TensorFlow 1's input producers ("Failed to find file: ./data/cityscapes/...png")
    r"|Failed to find (?:any )?(?:matching )?files?\b"
    r"|\b(?:did not|didn't|could not|couldn't|cannot) find any (?:\w+ ){0,2}files\b"
    r"|is not a valid directory"  # the CycleGAN family's image folders
    r"|^(?:OS|IO)Error: \S*[/.]\S* not found\.?$)"  # NumPy's loadtxt: "../data/r.txt not found."
)
# The memory limit reached: worth a rerun with a larger --memory rather than a fix.
MEMORY = re.compile(r"can't allocate memory|Cannot allocate memory|^MemoryError\b|std::bad_alloc"
                    r"|ResourceExhaustedError.*\bOOM\b")  # fmt: skip
# A traceback's code line that writes: its missing folder is an output folder, not data.
WRITES = re.compile(
    r"""open\([^)]*['"](?:w|wb|a|ab|w\+)['"]|\.save\w*\(|savefig\(|\.to_csv\(|\.dump\(|"""
    r"""imwrite\(|imsave\(|SummaryWriter\(|FileWriter\(|\.write\(|ModelCheckpoint\(|\bmkdir\("""
)
EXCEPTION_LINE = re.compile(r"^(?:[A-Za-z_][\w.]*\.)?[A-Z]\w*(?:Error|Exception|Exit|Warning)\b")


def _clip(text: str) -> str:
    return " ".join(text.split())[:CLIP]


def _lines(log: Path) -> list[str]:
    try:
        return log.read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return []


def progress_line(log: Path) -> Evidence | None:
    """The last line of the log that shows training progress, if any."""
    found = None
    for no, line in enumerate(_lines(log), start=1):
        if shows_step(line, PROGRESS):
            found = Evidence(log.name, no, _clip(line), "smoke.ok.progress")
    return found


def install_failure(log: Path, timed_out: bool, timeout: float, since: int = 0) -> Evidence:
    """Why the install step failed: the resolver's explanation or the first error line (of the
    lines after the first `since`, the attempt that failed)."""
    lines = _lines(log)
    if timed_out:
        text = f"install killed after {timeout:g} s"
        return Evidence(log.name, len(lines), text, "smoke.install.timeout")
    for rule, pattern in INSTALL_REASONS:
        for no, line in enumerate(lines[since:], start=since + 1):
            if pattern.search(line):
                return Evidence(log.name, no, _clip(line), f"smoke.install.{rule}")
    return _last_line(log, lines, "smoke.install.exit")


def _last_line(log: Path, lines: list[str], rule: str) -> Evidence:
    for no in range(len(lines), 0, -1):
        if lines[no - 1].strip():
            return Evidence(log.name, no, _clip(lines[no - 1]), rule)
    return Evidence(log.name, 0, "(empty log)", rule)


def _error_tail(lines: list[str]) -> list[tuple[int, str]]:
    """The crash's message: from the last exception line to the end, else the last 5 lines. A
    launcher's report that its worker failed (torchrun's `ChildFailedError`, `accelerate
    launch`'s `CalledProcessError`) gives way to the worker's own exception above it."""
    numbered = [(no, line) for no, line in enumerate(lines, start=1) if line.strip()]
    found: list[tuple[int, str]] = []
    for i in range(len(numbered) - 1, -1, -1):
        if EXCEPTION_LINE.match(numbered[i][1].strip()):
            tail = numbered[i:][:10]
            if not found:
                found = tail
                if LAUNCHER_FAILED.search(numbered[i][1]) or _handler_broke(numbered, i):
                    continue  # look on for the worker's, or the first, exception
            else:
                # the worker's, or the first, exception, without what followed it
                ends = [k for k, (_, line) in enumerate(tail) if DURING_HANDLING in line]
                return tail[: ends[0]] if ends else tail
            break
    return found or numbered[-5:]


# A clean-up's own slip while it handled the crash: `finally: if trainer.global_rank == 0` in the
# `main.py` latent-diffusion's descendants share, where `trainer` was never bound.
HANDLER_SLIP = re.compile(r"^(?:NameError|UnboundLocalError): ")
DURING_HANDLING = "During handling of the above exception, another exception occurred"


def _handler_broke(numbered: list[tuple[int, str]], index: int) -> bool:
    """True when the exception at `index` is a name the handler of an earlier exception used
    before it was bound: the earlier exception is the crash."""
    if not HANDLER_SLIP.match(numbered[index][1].strip()):
        return False
    for _, line in reversed(numbered[max(0, index - TRACEBACK_LINES) : index]):
        if DURING_HANDLING in line:
            return True
        if EXCEPTION_LINE.match(line.strip()):
            return False
    return False


def classify_training(
    log: Path, exit_code: int | None, timed_out: bool, timeout: float, wrote_weights: str | None
) -> tuple[str, Evidence]:
    """The outcome of the training step and the line behind it."""
    progress = progress_line(log)
    lines = _lines(log)
    if timed_out:
        if progress is not None:
            return "ok", progress
        waiting = _waits_for_a_gpu(lines)
        if waiting is not None:  # a script that polls for an idle GPU until the time bound
            return "needs_gpu", Evidence(log.name, waiting[0], _clip(waiting[1]),
                                         "smoke.needs_gpu.waits")  # fmt: skip
        return "timeout", Evidence(
            log.name, len(lines), f"no training progress in {timeout:g} s", "smoke.timeout"
        )
    if exit_code == 0:
        if progress is not None:
            return "ok", progress
        if wrote_weights:
            return "ok", Evidence(wrote_weights, 0, "weights written", "smoke.ok.weights")
        reported = _reported_data_error(lines)
        if reported is not None:  # "ERROR: The path ... of the config file does not exist!"
            return _refine(log, lines, "needs_data", *reported)
        asked = _asks_for_an_argument(lines)
        if asked is not None:  # "Please indicate max sequence length. Exit": a usage message
            return "usage", Evidence(log.name, asked[0], _clip(asked[1]), "smoke.usage.asked")
        if not _ends_in_a_traceback(lines):
            return "runtime", Evidence(
                log.name, len(lines), "exited 0 without a training step or a metric",
                "smoke.runtime.no_progress",
            )  # fmt: skip
        # a logger caught the crash and the process still exited 0 (loguru's `logger.catch`,
        # a `try: main() except: traceback.print_exc()`): the crash says why it stopped
    tail = _error_tail(lines)
    usage = _usage(lines, exit_code)
    if usage is not None:
        return "usage", Evidence(log.name, usage[0], _clip(usage[1]), "smoke.usage")
    for no, line in tail:
        if MEMORY.search(line):  # the run's address-space limit (--memory), not the project
            return "runtime", Evidence(log.name, no, _clip(line), "smoke.runtime.memory")
    above = _code_line_above(lines, tail)
    for final, pattern, outcome, rule in FAILED_CHECKS:
        if above is not None and tail[0][1].strip().startswith(final):
            if pattern.search(above[1]):
                return outcome, Evidence(log.name, above[0], _clip(above[1]), rule)
    checks = (
        ("runtime", NO_SCRIPT), ("python2", PYTHON2), ("needs_gpu", GPU), ("needs_gpu", CUDA_ONLY),
        ("import", IMPORT),
        ("needs_weights", WEIGHTS_FILE), ("data", DOWNLOAD), ("needs_data", DATA),
    )  # fmt: skip
    for outcome, pattern in checks:
        # The exception line decides first; its message lines only when it says nothing.
        for no, line in sorted(tail, key=lambda item: not EXCEPTION_LINE.match(item[1].strip())):
            if pattern.search(line):
                return _refine(log, lines, outcome, no, line)
    if exit_code is not None and exit_code < 0:
        text = f"killed by signal {-exit_code}" + (" (memory limit?)" if exit_code == -9 else "")
        return "runtime", Evidence(log.name, len(lines), text, "smoke.runtime.signal")
    raised = [item for item in tail if EXCEPTION_LINE.match(item[1].strip())]
    if raised:
        exception = raised[-1]
        return "runtime", Evidence(log.name, exception[0], _clip(exception[1]), "smoke.runtime")
    return "runtime", _last_line(log, lines, "smoke.runtime.exit")


SWALLOWED_TAIL = 3  # the crash's message within the last lines of the log
TRACEBACK_LINES = 400  # how far up its traceback may start


# A project that checks its data itself prints its own error and exits 0.
REPORTED_ERROR = re.compile(r"^\W*(?:error|fatal)\b", re.I)
# A short line of the project's own that a data folder or file is not there ("input directory
# not found"), printed as it stops.
REPORTED_MISSING = re.compile(
    r"(?i)^\W*[\w ./'-]{0,60}?\b(?:director(?:y|ies)|folder|file|dataset|data)\s+"
    r"(?:not found|does not exist|doesn't exist|is missing|missing)\W*$"
)


def _reported_data_error(lines: list[str]) -> tuple[int, str] | None:
    """(line number, line) of an error the project printed about missing data among the last
    lines of a log whose run exited 0; None when there is none."""
    numbered = [(no, line) for no, line in enumerate(lines, 1) if line.strip()]
    for no, line in numbered[-SWALLOWED_TAIL:]:
        if (REPORTED_ERROR.match(line) and DATA.search(line)) or REPORTED_MISSING.match(line):
            return no, line
    return None


def _ends_in_a_traceback(lines: list[str]) -> bool:
    """True when a traceback's exception is among the log's last few lines."""
    last = [line.strip() for line in lines if line.strip()][-SWALLOWED_TAIL:]
    if not any(EXCEPTION_LINE.match(line) for line in last):
        return False
    # loguru's annotated traceback runs to a hundred lines and more, its frames indented
    return any(line.lstrip().startswith(("Traceback (most recent call last)", "File \""))
               for line in lines[-TRACEBACK_LINES:])  # fmt: skip


# A launch script's wait for an idle GPU: its probe fails or finds none, and it sleeps and asks
# again ("nvidia-smi: command not found" then "No GPU available at the moment. Retrying in 1
# minute."), so it reaches the time bound without starting Python.
GPU_PROBE_FAILED = re.compile(r"nvidia-smi: (?:command )?not found|nvidia-smi.*No such file")
WAITS = 2


def _waits_for_a_gpu(lines: list[str]) -> tuple[int, str] | None:
    """The first line of a GPU wait the log repeats (the probe's failure or the script's own
    words), None where the log shows none."""
    seen = [(no, line) for no, line in enumerate(lines, 1)
            if GPU_PROBE_FAILED.search(line) or GPU.search(line)]  # fmt: skip
    words = {line.strip() for _, line in seen}
    return seen[0] if len(seen) >= WAITS and len(words) < len(seen) else None


# The code line above a final exception that says what the machine or the checkout lacks: an
# assert that asks for a GPU, a division by the GPU count (`rank % num_gpus`, zero on a CPU), an
# assert that the data's path exists.
FAILED_CHECKS = (
    ("AssertionError", GPU_ASSERT, "needs_gpu", "smoke.needs_gpu.assert"),
    ("ZeroDivisionError", GPU_COUNT_DIVISOR, "needs_gpu", "smoke.needs_gpu.assert"),
    ("AssertionError", DATA_ASSERT, "needs_data", "smoke.needs_data.assert"),
    # torch's build of a CUDA extension at run time, on a machine with no GPU's architecture
    ("IndexError", CUDA_ARCH_LIST, "needs_gpu", "smoke.needs_gpu.extension"),
)


def _code_line_above(lines: list[str], tail: list[tuple[int, str]]) -> tuple[int, str] | None:
    """The code line of the traceback just above the crash's final exception (past the `^^^`
    markers of newer Pythons), with its number."""
    if not tail:
        return None
    for index in range(tail[0][0] - 2, max(-1, tail[0][0] - 5), -1):
        text = lines[index].strip()
        if text and not set(text) <= set("^~ "):
            return index + 1, text
    return None


# A script's own words for an option it needs (`if FLAGS.max_sequence_length == 0: print
# 'Please indicate max sequence length. Exit'`), printed as it stops without training.
ASKS_FOR = re.compile(
    r"(?i)^\W*please\s+(?:indicate|specify|provide|set|give|pass|enter)\s+(?:the\s+|a\s+)?"
    r"[\w -]{2,40}?(?:\s+(?:with|via|using)\s+--?\w+)?\W*(?:exit(?:ing)?\W*)?$"
)


def _asks_for_an_argument(lines: list[str]) -> tuple[int, str] | None:
    """The last of the closing lines of a run that ended without training, when it asks the
    user for a setting."""
    for no in range(len(lines), max(0, len(lines) - 3), -1):
        if ASKS_FOR.search(lines[no - 1].strip()):
            return no, lines[no - 1]
    return None


def _usage(lines: list[str], exit_code: int | None) -> tuple[int, str] | None:
    """argparse's (or absl's) complaint about the command line, when that is how it ended."""
    if exit_code not in (1, 2):
        return None
    for no in range(len(lines), max(0, len(lines) - 15), -1):
        if USAGE.search(lines[no - 1]):
            return no, lines[no - 1]
    return None


def _refine(log: Path, lines: list[str], outcome: str, no: int, line: str) -> tuple[str, Evidence]:
    """A blocked download that fetched a pretrained checkpoint needs weights, not data; a missing
    folder the failing code line writes into is an output folder, not data."""
    if outcome == "data":
        for index, text in enumerate(lines, start=1):
            if WEIGHTS_DOWNLOAD.search(text) and not _stood_in(lines, index):
                return "needs_weights", Evidence(
                    log.name, index, _clip(text), "smoke.needs_weights"
                )
    if outcome == "needs_data" and _writes(lines, no):
        return "runtime", Evidence(log.name, no, _clip(line), "smoke.runtime.output_folder")
    return outcome, Evidence(log.name, no, _clip(line), f"smoke.{outcome}")


def _stood_in(lines: list[str], index: int) -> bool:
    """True when the weights download on line `index` was answered by stand-in weights (the
    hook's line, or one right after it)."""
    for later in lines[index - 1 : index + 5]:
        if later.startswith(STAND_IN_WEIGHTS_LINE):
            return True
    return False


def _writes(lines: list[str], no: int) -> bool:
    """True when a code line of the innermost three frames above line `no` writes a file."""
    code = []
    for index in range(no - 2, max(-1, no - 40), -1):
        text = lines[index].strip()
        if text.startswith("Traceback"):
            break
        if text and not text.startswith("File ") and not text.startswith("^"):
            code.append(text)
        if len(code) == 3:
            break
    return any(WRITES.search(text) for text in code)
