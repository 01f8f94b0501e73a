"""Per-framework code to fix seeds and thread counts, for the manifest.

`miner experiment run` passes the seed in MINER_SEED (fixed-seed mode only) and the thread count
in MINER_NUM_THREADS and the OpenMP/MKL/OpenBLAS/TF variables; these snippets read them, so one
edit at the top of the entry point makes a project follow the experiment's configuration.
"""

from __future__ import annotations

_COMMON = """import os, random
import numpy as np
SEED = os.environ.get("MINER_SEED")            # unset in default-seed runs
THREADS = int(os.environ.get("MINER_NUM_THREADS", "0")) or None
if SEED is not None:
    random.seed(int(SEED))
    np.random.seed(int(SEED))
"""

SEED_SNIPPETS = {
    "pytorch": _COMMON
    + """import torch
if SEED is not None:
    torch.manual_seed(int(SEED))               # seeds CPU and every CUDA device
if THREADS:
    torch.set_num_threads(THREADS)             # intra-op pool
    torch.set_num_interop_threads(THREADS)     # must run before any parallel work starts
""",
    "tensorflow1": _COMMON
    + """import tensorflow as tf                     # TensorFlow 1.x (or tf.compat.v1)
if SEED is not None:
    tf.set_random_seed(int(SEED))              # graph-level seed; set before building the graph
config = tf.ConfigProto(intra_op_parallelism_threads=THREADS or 0,
                        inter_op_parallelism_threads=THREADS or 0)
# pass config=config to every tf.Session(...)
""",
    "tensorflow2": _COMMON
    + """import tensorflow as tf                     # TensorFlow 2.x
if SEED is not None:
    tf.random.set_seed(int(SEED))
if THREADS:
    tf.config.threading.set_intra_op_parallelism_threads(THREADS)
    tf.config.threading.set_inter_op_parallelism_threads(THREADS)
""",
    "keras": _COMMON
    + """import tensorflow as tf
if SEED is not None:
    tf.keras.utils.set_random_seed(int(SEED))  # TF >= 2.7: python, numpy and tf seeds at once
if THREADS:
    tf.config.threading.set_intra_op_parallelism_threads(THREADS)
    tf.config.threading.set_inter_op_parallelism_threads(THREADS)
# standalone Keras on TF 1.x: use the tensorflow1 snippet and keras.backend.set_session(...)
""",
    "jax": _COMMON
    + """import jax
# JAX has no global seed: thread an explicit key through the code.
key = jax.random.PRNGKey(int(SEED) if SEED is not None else random.SystemRandom().getrandbits(32))
# Threads: XLA's CPU client reads XLA_FLAGS at start-up, e.g. in the manifest's run.env:
#   XLA_FLAGS: "--xla_cpu_multi_thread_eigen=false intra_op_parallelism_threads={threads}"
""",
    "numpy": _COMMON,
}


def snippet_kind(framework: str, major: str | None, tf1_calls: bool) -> str:
    """Which snippet fits: tensorflow1/2 by version (or TF1-only calls), keras, pytorch, jax."""
    if framework == "tensorflow":
        return "tensorflow1" if major == "1" or (major is None and tf1_calls) else "tensorflow2"
    if framework == "keras":
        return "tensorflow1" if tf1_calls else "keras"  # standalone Keras 2.0-2.3 ran on TF 1
    if framework in ("pytorch", "jax"):
        return framework
    return "numpy"
