"""Train a small NumPy classifier on generated data: the example project for `miner experiment`.

Self-contained (NumPy only, no download) and about a second per run. The data are always the same
(`--data-seed`); the training seed (`--seed`, else the MINER_SEED environment variable) drives
weight initialisation and shuffling, and without one the run draws fresh entropy the way an
unseeded project does.

Threads matter here as in DL back-ends: every mini-batch gradient is computed in float32 by
`threads` workers on equal slices of the batch (NumPy's matrix products release the GIL and run
on multithreaded BLAS) and the partial sums are added in worker order. A different thread count
splits the reduction differently, so rounding differs and, over many steps, so do the trained
weights. The count comes from `--threads`, else OMP_NUM_THREADS, else the CPUs this process may
run on.

Output: one line per epoch (training, validation and test loss/accuracy), then `test_accuracy:
...` and `test_loss: ...`; a metrics JSON (`--metrics` or MINER_METRICS_FILE), the weights
(`--weights` or MINER_WEIGHTS_FILE; the arrays W1, b1, W2, b2 saved one after another with np.save,
so the bytes are reproducible) and the test predictions and labels (`--predictions`, `--labels`).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np

DTYPE = np.float32


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options, with environment fallbacks for the ones a runner sets."""
    env = os.environ
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--seed",
        type=int,
        default=_env_int("MINER_SEED"),
        help="training seed (default: MINER_SEED, else fresh entropy)",
    )
    parser.add_argument("--data-seed", type=int, default=0, help="seed of the generated data")
    parser.add_argument(
        "--threads",
        type=int,
        default=None,
        help="gradient workers (default: OMP_NUM_THREADS, else usable CPUs)",
    )
    parser.add_argument("--epochs", type=int, default=20)
    parser.add_argument("--batch-size", type=int, default=64)
    parser.add_argument("--hidden", type=int, default=64)
    parser.add_argument("--lr", type=float, default=0.1)
    parser.add_argument("--samples", type=int, default=3000, help="training samples")
    parser.add_argument("--features", type=int, default=32)
    parser.add_argument("--classes", type=int, default=4)
    parser.add_argument(
        "--metrics", default=env.get("MINER_METRICS_FILE"), help="write the metrics JSON here"
    )
    parser.add_argument(
        "--weights", default=env.get("MINER_WEIGHTS_FILE"), help="write the trained weights here"
    )
    parser.add_argument("--predictions", help="write the test predictions (.npy) here")
    parser.add_argument("--labels", help="write the test labels (.npy) here")
    return parser.parse_args(argv)  # fmt: skip


def _env_int(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    return int(value) if value else None


def thread_count(requested: int | None) -> int:
    """Workers to use: the option, else OMP_NUM_THREADS, else the CPUs in this process's mask."""
    if requested:
        return max(1, requested)
    env = _env_int("OMP_NUM_THREADS")
    if env:
        return max(1, env)
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1


def make_data(seed: int, samples: int, features: int, classes: int) -> tuple[np.ndarray, ...]:
    """Overlapping Gaussian clusters pushed through a fixed non-linear map; 25% held out (half
    for validation, half for test)."""
    rng = np.random.default_rng(seed)
    total = samples + samples // 3
    centers = rng.normal(0.0, 1.6, size=(classes, features))
    y = rng.integers(0, classes, size=total)
    x = centers[y] + rng.normal(0.0, 2.6, size=(total, features))
    mix = rng.normal(0.0, 1.0 / np.sqrt(features), size=(features, features))
    x = np.tanh(x @ mix) + 0.1 * x
    x = (x - x.mean(axis=0)) / x.std(axis=0)
    val = samples + (total - samples) // 2
    return (
        x[:samples].astype(DTYPE), y[:samples], x[samples:val].astype(DTYPE), y[samples:val],
        x[val:].astype(DTYPE), y[val:],
    )  # fmt: skip


def init_weights(rng: np.random.Generator, features: int, hidden: int, classes: int) -> list:
    """He-initialised two-layer perceptron weights [W1, b1, W2, b2] in float32."""
    w1 = rng.normal(0.0, np.sqrt(2.0 / features), size=(features, hidden)).astype(DTYPE)
    w2 = rng.normal(0.0, np.sqrt(2.0 / hidden), size=(hidden, classes)).astype(DTYPE)
    return [w1, np.zeros(hidden, DTYPE), w2, np.zeros(classes, DTYPE)]


def forward(weights: list, x: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Hidden ReLU activations and class probabilities."""
    w1, b1, w2, b2 = weights
    hidden = np.maximum(x @ w1 + b1, 0.0)
    logits = hidden @ w2 + b2
    logits -= logits.max(axis=1, keepdims=True)
    probs = np.exp(logits)
    probs /= probs.sum(axis=1, keepdims=True)
    return hidden, probs


def slice_gradient(weights: list, x: np.ndarray, y: np.ndarray, scale: float) -> list:
    """Cross-entropy gradient summed over one slice of a batch (float32 throughout)."""
    hidden, probs = forward(weights, x)
    delta = probs
    delta[np.arange(len(y)), y] -= 1.0
    delta *= DTYPE(scale)
    grad_w2 = hidden.T @ delta
    grad_b2 = delta.sum(axis=0)
    back = (delta @ weights[2].T) * (hidden > 0)
    return [x.T @ back, back.sum(axis=0), grad_w2, grad_b2]


def batch_gradient(pool: ThreadPoolExecutor | None, workers: int, weights, x, y) -> list:
    """The batch gradient as the in-order sum of each worker's slice gradient."""
    scale = 1.0 / len(y)
    bounds = np.linspace(0, len(y), workers + 1).astype(int)
    parts = [(x[a:b], y[a:b]) for a, b in zip(bounds[:-1], bounds[1:], strict=True) if b > a]
    if pool is None or len(parts) == 1:
        grads = [slice_gradient(weights, px, py, scale) for px, py in parts]
    else:
        grads = list(pool.map(lambda p: slice_gradient(weights, p[0], p[1], scale), parts))
    total = grads[0]
    for grad in grads[1:]:
        total = [t + g for t, g in zip(total, grad, strict=True)]
    return total


def evaluate(weights: list, x: np.ndarray, y: np.ndarray) -> tuple[float, float]:
    """Accuracy and mean cross-entropy on (x, y)."""
    _, probs = forward(weights, x)
    loss = float(-np.log(np.maximum(probs[np.arange(len(y)), y], 1e-12)).mean())
    return float((probs.argmax(axis=1) == y).mean()), loss


def predict(weights: list, x: np.ndarray) -> np.ndarray:
    """Predicted class of each row of x."""
    return forward(weights, x)[1].argmax(axis=1)


def blas_info() -> list[dict]:
    """The BLAS/OpenMP pools this process loaded and their thread counts (threadpoolctl)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        return []
    keys = ("user_api", "internal_api", "num_threads", "version")
    return [{k: pool.get(k) for k in keys} for pool in threadpool_info()]


def main(argv: list[str] | None = None) -> int:
    """Train, evaluate, print the metrics and write the metrics and weights files."""
    args = parse_args(argv)
    started = time.perf_counter()
    workers = thread_count(args.threads)
    seed = args.seed
    entropy = None
    if seed is None:
        # An unseeded run: fresh OS entropy, as in a project that never sets a seed.
        entropy = int(np.random.SeedSequence().entropy) % 2**63  # type: ignore[arg-type]
    rng = np.random.default_rng(seed if seed is not None else entropy)
    print(f"seed: {seed if seed is not None else 'default'}  workers: {workers}", flush=True)

    x_train, y_train, x_val, y_val, x_test, y_test = make_data(
        args.data_seed, args.samples, args.features, args.classes
    )
    weights = init_weights(rng, args.features, args.hidden, args.classes)
    pool = ThreadPoolExecutor(max_workers=workers) if workers > 1 else None
    try:
        for epoch in range(1, args.epochs + 1):
            order = rng.permutation(len(y_train))
            for start in range(0, len(order), args.batch_size):
                idx = order[start : start + args.batch_size]
                grads = batch_gradient(pool, workers, weights, x_train[idx], y_train[idx])
                for w, g in zip(weights, grads, strict=True):
                    w -= DTYPE(args.lr) * g
            train_acc, train_loss = evaluate(weights, x_train, y_train)
            val_acc, val_loss = evaluate(weights, x_val, y_val)
            test_acc, _ = evaluate(weights, x_test, y_test)
            print(
                f"epoch {epoch} train_loss {train_loss:.6f} train_accuracy {train_acc:.4f} "
                f"val_loss {val_loss:.6f} val_accuracy {val_acc:.4f} test_accuracy {test_acc:.4f}"
            )
        blas = blas_info()  # read while the worker threads are alive
    finally:
        if pool is not None:
            pool.shutdown()

    test_acc, test_loss = evaluate(weights, x_test, y_test)
    print(f"test_accuracy: {test_acc:.6f}")
    print(f"test_loss: {test_loss:.8f}")
    metrics = {
        "test_accuracy": test_acc,
        "test_loss": test_loss,
        "train_accuracy": train_acc,
        "train_loss": train_loss,
        "seed": seed,
        "seed_entropy": entropy,
        "workers": workers,
        "affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "blas": blas,
        "numpy": np.__version__,
        "python": platform.python_version(),
        "seconds": round(time.perf_counter() - started, 4),
    }
    if args.metrics:
        with open(args.metrics, "w", encoding="utf-8") as fh:
            json.dump(metrics, fh, indent=2)
    if args.weights:
        with open(args.weights, "wb") as fh:
            for array in weights:
                np.save(fh, array)
    if args.predictions:
        np.save(args.predictions, predict(weights, x_test).astype(np.int64))
    if args.labels:
        np.save(args.labels, y_test.astype(np.int64))
    return 0


if __name__ == "__main__":
    sys.exit(main())
