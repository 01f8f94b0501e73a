"""Pin this process to CPUs, report what was applied, then become the training command.

Run by path (`python launch.py --cpus 0,1 --report FILE -- CMD ...`), not as `miner.*`, so it
imports only the standard library and adds almost nothing to a run's start-up. The affinity is
set here, in the child, before exec: the training command inherits the mask and keeps this PID,
so the runner can also read it back from /proc/<pid>/status while the command runs.
"""

from __future__ import annotations

import json
import os
import sys

REPORTED_VARS = (
    "OMP_NUM_THREADS", "MKL_NUM_THREADS", "OPENBLAS_NUM_THREADS", "BLIS_NUM_THREADS",
    "NUMEXPR_NUM_THREADS", "VECLIB_MAXIMUM_THREADS", "TF_NUM_INTRAOP_THREADS",
    "TF_NUM_INTEROP_THREADS", "MINER_NUM_THREADS", "PYTHONHASHSEED", "MINER_SEED",
    "MINER_SEED_INIT", "MINER_SEED_DATA", "MINER_SEED_DROPOUT", "MINER_DETERMINISTIC",
    "CUBLAS_WORKSPACE_CONFIG", "TF_DETERMINISTIC_OPS", "TF_CUDNN_DETERMINISTIC", "XLA_FLAGS",
    "CUDA_VISIBLE_DEVICES", "MINER_DEVICE",
)  # fmt: skip


def main(argv: list[str]) -> int:
    """Parse `--cpus LIST --report FILE -- CMD...`, pin, report, exec; 127 when CMD is missing."""
    if "--" not in argv:
        sys.stderr.write("launch: usage: launch.py --cpus 0,1 --report FILE -- CMD ...\n")
        return 2
    split = argv.index("--")
    opts, command = argv[:split], argv[split + 1 :]
    values = dict(zip(opts[::2], opts[1::2], strict=False))
    cpus = {int(c) for c in values.get("--cpus", "").split(",") if c.strip()}
    report: dict[str, object] = {"pid": os.getpid(), "requested": sorted(cpus)}
    try:
        if cpus:
            os.sched_setaffinity(0, cpus)
        report["applied"] = sorted(os.sched_getaffinity(0))
    except (OSError, AttributeError) as exc:
        report["error"] = f"sched_setaffinity failed: {exc}"
    report["env"] = {name: os.environ.get(name) for name in REPORTED_VARS}
    if values.get("--report"):
        with open(values["--report"], "w", encoding="utf-8") as fh:
            json.dump(report, fh, indent=2)
    if not command:
        return 0
    try:
        os.execvp(command[0], command)
    except OSError as exc:
        sys.stderr.write(f"launch: cannot run {command[0]!r}: {exc.strerror}\n")
        return 127
    return 0  # not reached: exec replaced this process


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
