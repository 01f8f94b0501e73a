"""Train a small PyTorch CNN on scikit-learn's bundled digits: the framework example for
`miner experiment`.

No download: the 1,797 8x8 digit images ship inside scikit-learn. The split into training,
validation and test sets is fixed (`--split-seed`); the algorithmic noise sources each take their
own seed, so a runner can vary one at a time:

- `--init-seed`: weight initialisation;
- `--data-seed`: the order of the training batches;
- `--dropout-seed`: the dropout masks;
- `--seed` (else MINER_SEED): the default for all three.

A source without a seed draws fresh entropy, as in a project that never sets one. Implementation
noise comes from PyTorch itself: the thread count (`--threads`, else MINER_NUM_THREADS, else
PyTorch's own default) changes how its kernels split reductions, and deterministic kernels are
whatever the process was started with (this script never calls use_deterministic_algorithms: the
runner's launcher does, so the project's code stays as it is).

Output: one line per epoch (`epoch N train_loss .. val_loss .. val_accuracy .. test_accuracy ..`),
then `test_accuracy: ...`; the metrics JSON (`--metrics`), the test predictions and labels as
.npy arrays (`--predictions`, `--labels`) and the trained state_dict (`--weights`).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time

import numpy as np


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    """Command-line options, with environment fallbacks for the ones a runner sets."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    seed = _env_int("MINER_SEED")
    parser.add_argument("--seed", type=int, default=seed, help="default seed of every source")
    parser.add_argument("--init-seed", type=int, default=None, help="weight initialisation seed")
    parser.add_argument("--data-seed", type=int, default=None, help="batch order seed")
    parser.add_argument("--dropout-seed", type=int, default=None, help="dropout mask seed")
    parser.add_argument("--split-seed", type=int, default=0, help="train/val/test split seed")
    parser.add_argument("--threads", type=int, default=_env_int("MINER_NUM_THREADS"))
    parser.add_argument("--device", default=os.environ.get("MINER_DEVICE", "cpu"))
    parser.add_argument("--epochs", type=int, default=8)
    parser.add_argument("--batch-size", type=int, default=32)
    parser.add_argument("--lr", type=float, default=0.05)
    parser.add_argument("--dropout", type=float, default=0.25)
    parser.add_argument("--metrics", help="write the metrics JSON here")
    parser.add_argument("--predictions", help="write the test predictions (.npy) here")
    parser.add_argument("--labels", help="write the test labels (.npy) here")
    parser.add_argument("--weights", help="write the trained state_dict here")
    return parser.parse_args(argv)


def _env_int(name: str) -> int | None:
    value = os.environ.get(name, "").strip()
    return int(value) if value else None


def fresh_seed() -> int:
    """A seed from OS entropy, for a source the caller did not seed."""
    return int.from_bytes(os.urandom(8), "little") >> 1


def load_split(seed: int) -> tuple[np.ndarray, ...]:
    """Digits scaled to [0, 1], split 60/20/20 into train, validation and test."""
    from sklearn.datasets import load_digits

    digits = load_digits()
    x = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    a, b = int(0.6 * len(y)), int(0.8 * len(y))
    parts = order[:a], order[a:b], order[b:]
    return tuple(arr for idx in parts for arr in (x[idx], y[idx]))


def build_model(dropout: float):
    """Two 3x3 convolutions, max-pooling, dropout and a linear classifier over 10 digits."""
    from torch import nn

    return nn.Sequential(
        nn.Conv2d(1, 16, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(16, 32, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Dropout(dropout),
        nn.Linear(32 * 4 * 4, 10),
    )


def evaluate(model, x, y) -> tuple[float, float, np.ndarray]:
    """Accuracy, mean cross-entropy and predicted classes on (x, y)."""
    import torch

    model.eval()
    with torch.no_grad():
        logits = model(x)
        loss = float(torch.nn.functional.cross_entropy(logits, y))
        predicted = logits.argmax(dim=1)
    model.train()
    return float((predicted == y).float().mean()), loss, predicted.cpu().numpy()


def main(argv: list[str] | None = None) -> int:
    """Train, print per-epoch metrics, write metrics, predictions, labels and weights."""
    import torch

    args = parse_args(argv)
    started = time.perf_counter()
    if args.threads:
        torch.set_num_threads(args.threads)
    seeds = {
        source: value if value is not None else (args.seed if args.seed is not None else None)
        for source, value in
        (("init", args.init_seed), ("data", args.data_seed), ("dropout", args.dropout_seed))
    }  # fmt: skip
    drawn = {k: v if v is not None else fresh_seed() for k, v in seeds.items()}
    device = torch.device(args.device)
    x_tr, y_tr, x_val, y_val, x_te, y_te = (
        torch.from_numpy(a).to(device) for a in load_split(args.split_seed)
    )
    torch.manual_seed(drawn["init"])
    model = build_model(args.dropout).to(device)
    torch.manual_seed(drawn["dropout"])  # the global generator now only drives dropout
    if device.type == "cuda":
        torch.cuda.manual_seed_all(drawn["dropout"])
    order_gen = torch.Generator().manual_seed(drawn["data"])
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    print(f"seeds: {json.dumps(seeds)} threads: {torch.get_num_threads()} device: {device}")
    for epoch in range(1, args.epochs + 1):
        order = torch.randperm(len(y_tr), generator=order_gen).to(device)
        for start in range(0, len(order), args.batch_size):
            idx = order[start : start + args.batch_size]
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x_tr[idx]), y_tr[idx])
            loss.backward()
            optimizer.step()
        train_acc, train_loss, _ = evaluate(model, x_tr, y_tr)
        val_acc, val_loss, _ = evaluate(model, x_val, y_val)
        test_acc, test_loss, predicted = evaluate(model, x_te, y_te)
        print(
            f"epoch {epoch} train_loss {train_loss:.6f} val_loss {val_loss:.6f} "
            f"val_accuracy {val_acc:.6f} test_accuracy {test_acc:.6f}",
            flush=True,
        )
    print(f"test_accuracy: {test_acc:.6f}")
    print(f"test_loss: {test_loss:.8f}")
    metrics = {
        "test_accuracy": test_acc,
        "test_loss": test_loss,
        "val_accuracy": val_acc,
        "val_loss": val_loss,
        "train_accuracy": train_acc,
        "train_loss": train_loss,
        "seeds": seeds,
        "seeds_drawn": drawn,
        "threads": torch.get_num_threads(),
        "deterministic_algorithms": torch.are_deterministic_algorithms_enabled(),
        "cudnn_deterministic": bool(torch.backends.cudnn.deterministic),
        "device": str(device),
        "affinity": sorted(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else None,
        "torch": torch.__version__,
        "seconds": round(time.perf_counter() - started, 4),
    }
    if args.metrics:
        with open(args.metrics, "w", encoding="utf-8") as fh:
            json.dump(metrics, fh, indent=2)
    if args.predictions:
        np.save(args.predictions, predicted.astype(np.int64))
    if args.labels:
        np.save(args.labels, y_te.cpu().numpy())
    if args.weights:
        torch.save({k: v.cpu() for k, v in model.state_dict().items()}, args.weights)
    return 0


if __name__ == "__main__":
    sys.exit(main())
