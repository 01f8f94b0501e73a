"""What a run produced: metrics from its output or a metrics file, file hashes, library versions."""

from __future__ import annotations

import hashlib
import json
import math
import re
import subprocess
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

# Distribution names whose versions are recorded with every run (read from package metadata,
# so nothing is imported into the child).
LIBRARIES = (
    "numpy", "scipy", "torch", "torchvision", "tensorflow", "tensorflow-cpu", "keras", "jax",
    "jaxlib", "mxnet", "chainer", "paddlepaddle", "theano", "scikit-learn", "threadpoolctl",
)  # fmt: skip
_PROBE = """
import importlib.metadata as md, json, os, platform, sys
names = json.loads(sys.argv[1])
found = {}
for name in names:
    try:
        found[name] = md.version(name)
    except md.PackageNotFoundError:
        pass
cpu = ""
try:
    with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
        for line in fh:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
except OSError:
    pass
print(json.dumps({"python": platform.python_version(), "executable": sys.executable,
                  "platform": platform.platform(), "cpu_model": cpu, "cpu_count": os.cpu_count(),
                  "libraries": found}))
"""


def sha256_file(path: Path) -> str:
    """The SHA-256 of a file's bytes, read in chunks."""
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for chunk in iter(lambda: fh.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def combined_hash(hashes: Mapping[str, str]) -> str | None:
    """One SHA-256 over several files' (path, hash) pairs; None for no files."""
    if not hashes:
        return None
    if len(hashes) == 1:
        return next(iter(hashes.values()))
    text = "\n".join(f"{path}\t{digest}" for path, digest in sorted(hashes.items()))
    return hashlib.sha256(text.encode("utf-8")).hexdigest()


def find_outputs(root: Path, patterns: Iterable[str], since: float | None = None) -> list[Path]:
    """Regular files under `root` matching any glob, optionally modified at or after `since`."""
    found: dict[Path, None] = {}
    for pattern in patterns:
        for path in sorted(root.glob(pattern)):
            if path.is_symlink() or not path.is_file():
                continue
            if since is not None and path.stat().st_mtime < since - 1:
                continue
            found[path] = None
    return list(found)


def parse_output_metrics(text: str, patterns: Mapping[str, str]) -> dict[str, float]:
    """Each metric's value from the last line matching its regex (first capture group)."""
    values: dict[str, float] = {}
    for name, pattern in patterns.items():
        matches = list(re.finditer(pattern, text, flags=re.MULTILINE))
        for match in reversed(matches):
            number = _number(match.group(1))
            if number is not None:
                values[name] = number
                break
    return values


def _number(text: str) -> float | None:
    try:
        value = float(text.strip().rstrip("%"))
    except (ValueError, AttributeError):
        return None
    return value if math.isfinite(value) else None


def flatten_numbers(data: Any, prefix: str = "") -> dict[str, float]:
    """Numeric leaves of a JSON document as {'a.b': value}; booleans and strings are skipped."""
    out: dict[str, float] = {}
    if isinstance(data, dict):
        for key, value in data.items():
            out.update(flatten_numbers(value, f"{prefix}{key}."))
    elif isinstance(data, int | float) and not isinstance(data, bool):
        if math.isfinite(float(data)):
            out[prefix[:-1]] = float(data)
    return out


def read_metrics_file(path: Path, keys: Iterable[str] = ()) -> tuple[dict[str, float], Any]:
    """(numeric metrics, whole document) of a JSON metrics file; only `keys` when given."""
    try:
        document = json.loads(path.read_text(encoding="utf-8", errors="replace"))
    except (OSError, ValueError):
        return {}, None
    numbers = flatten_numbers(document)
    wanted = tuple(keys)
    if wanted:
        numbers = {k: v for k, v in numbers.items() if k in wanted}
    return numbers, document


def probe_environment(python: str, env: Mapping[str, str], cwd: Path) -> dict[str, Any]:
    """Python, platform, CPU model and library versions as the run's interpreter sees them."""
    try:
        done = subprocess.run(
            [python, "-c", _PROBE, json.dumps(LIBRARIES)],
            env=dict(env),
            cwd=str(cwd),
            capture_output=True,
            text=True,
            timeout=60,
            check=False,
        )
        return dict(json.loads(done.stdout))
    except (OSError, ValueError, subprocess.TimeoutExpired) as exc:
        return {"error": f"environment probe failed: {exc}"}
