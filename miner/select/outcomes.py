"""Classify a smoke run from its logs, with the log line that shows why.

Classes: `ok` (trained at least one step or printed a metric), `install` (the environment could
not be built), `import`, `data` (dataset missing, or a download blocked), `gpu_only` (hard-coded
CUDA), `runtime` (any other crash), `timeout` (still silent when the time was up).
"""

from __future__ import annotations

import re
from pathlib import Path

from miner.codebook import Evidence

CLIP = 200

# Training progress: a loss or accuracy with a number, an epoch/step counter, a Keras bar.
PROGRESS = re.compile(
    r"(?i)\b(?:loss|acc|accuracy|perplexity|ppl|f1|bleu)\b[^\d\n]{0,20}[-+]?\d*\.?\d+"
    r"|\b(?:epoch|iter(?:ation)?|step|batch)\b\s*[:#=\[(]?\s*\d+"
    r"|\d+/\d+\s*\[[=>.]+\]"
)
NO_SCRIPT = re.compile(r"can't open file|No such file or directory: '[^']*\.py'")
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
)
IMPORT = re.compile(
    r"ModuleNotFoundError|ImportError|No module named|cannot import name|undefined symbol"
    r"|cannot open shared object file"
)
DATA = re.compile(
    r"(?i)FileNotFoundError|No such file or directory|Dataset not found|download=True"
    r"|urlopen error|URLError|Network is unreachable|Name or service not known"
    r"|Temporary failure in name resolution|gaierror|ConnectionError|Connection refused"
    r"|Failed to establish a new connection|Max retries exceeded|HTTP Error \d+"
    r"|(?:please|manually) download|not found\. (?:Download|Please)"
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
        if PROGRESS.search(line) and "Traceback" not in line:
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
    """The crash's message: from the last exception line to the end, else the last 5 lines."""
    numbered = [(no, line) for no, line in enumerate(lines, start=1) if line.strip()]
    for i in range(len(numbered) - 1, -1, -1):
        if EXCEPTION_LINE.match(numbered[i][1].strip()):
            return numbered[i:][:10]
    return numbered[-5:]


def classify_training(
    log: Path, exit_code: int | None, timed_out: bool, timeout: float, wrote_weights: str | None
) -> tuple[str, Evidence]:
    """The outcome of the training step and the line behind it."""
    progress = progress_line(log)
    lines = _lines(log)
    if timed_out:
        if progress is not None:
            return "ok", progress
        return "timeout", Evidence(
            log.name, len(lines), f"no training progress in {timeout:g} s", "smoke.timeout"
        )
    if exit_code == 0:
        if progress is not None:
            return "ok", progress
        if wrote_weights:
            return "ok", Evidence(wrote_weights, 0, "weights written", "smoke.ok.weights")
        return "runtime", Evidence(
            log.name, len(lines), "exited 0 without a training step or a metric",
            "smoke.runtime.no_progress",
        )  # fmt: skip
    tail = _error_tail(lines)
    checks = (("runtime", NO_SCRIPT), ("gpu_only", GPU), ("import", IMPORT), ("data", DATA))
    for outcome, pattern in checks:
        # The exception line decides first; its message lines only when it says nothing.
        for no, line in sorted(tail, key=lambda item: not EXCEPTION_LINE.match(item[1].strip())):
            if pattern.search(line):
                return outcome, Evidence(log.name, no, _clip(line), f"smoke.{outcome}")
    if exit_code is not None and exit_code < 0:
        text = f"killed by signal {-exit_code}" + (" (memory limit?)" if exit_code == -9 else "")
        return "runtime", Evidence(log.name, len(lines), text, "smoke.runtime.signal")
    raised = [item for item in tail if EXCEPTION_LINE.match(item[1].strip())]
    if raised:
        exception = raised[-1]
        return "runtime", Evidence(log.name, exception[0], _clip(exception[1]), "smoke.runtime")
    return "runtime", _last_line(log, lines, "smoke.runtime.exit")
