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

The model's size is a choice (`--side`, `--width`, `--pixel-embedding`), so the same script serves
a GPU experiment with enough work per run: digits enlarged to 32x32 (nearest neighbour, in the
data, not the model), wider convolutions (cuDNN's convolution back-propagation), and a learned
embedding of the 17 pixel intensities looked up with `index_select`, whose CUDA backward is an
`index_add` of float atomics: nondeterministic unless deterministic kernels are asked for.

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
    parser.add_argument("--side", type=int, default=8, help="image side (a multiple of 8)")
    parser.add_argument("--width", type=int, default=16, help="channels of the first convolution")
    parser.add_argument(
        "--pixel-embedding", type=int, default=0,
        help="embed the 17 pixel intensities in N learned channels (0: the raw intensity)",
    )  # fmt: skip
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


def load_split(seed: int, side: int = 8) -> tuple[np.ndarray, ...]:
    """Digits scaled to [0, 1] (enlarged to side x side), split 60/20/20 into train, validation
    and test."""
    from sklearn.datasets import load_digits

    if side % 8:
        raise SystemExit(f"--side {side}: give a multiple of 8")
    digits = load_digits()
    images = np.kron(digits.images, np.ones((side // 8, side // 8)))
    x = (images / 16.0).astype(np.float32)[:, None, :, :]
    y = digits.target.astype(np.int64)
    order = np.random.default_rng(seed).permutation(len(y))
    a, b = int(0.6 * len(y)), int(0.8 * len(y))
    parts = order[:a], order[a:b], order[b:]
    return tuple(arr for idx in parts for arr in (x[idx], y[idx]))


def build_model(dropout: float, side: int = 8, width: int = 16, pixel_embedding: int = 0):
    """Two 3x3 convolutions, max-pooling, dropout and a linear classifier over 10 digits; with
    `pixel_embedding`, a learned vector per pixel intensity goes in before them."""
    import torch
    from torch import nn

    class PixelEmbedding(nn.Module):
        """Intensity levels 0..16 (the digits' own scale) looked up in a learned table: the
        lookup is `index_select`, whose gradient is accumulated with `index_add`."""

        def __init__(self, channels: int) -> None:
            super().__init__()
            self.channels = channels
            self.table = nn.Parameter(torch.randn(17, channels) * 0.5)

        def forward(self, x):
            levels = torch.round(x * 16).long().clamp(0, 16)  # (N, 1, H, W)
            n, _, h, w = levels.shape
            looked_up = torch.index_select(self.table, 0, levels.reshape(-1))
            return looked_up.reshape(n, h, w, self.channels).permute(0, 3, 1, 2).contiguous()

    layers: list = [PixelEmbedding(pixel_embedding)] if pixel_embedding else []
    return nn.Sequential(
        *layers,
        nn.Conv2d(pixel_embedding or 1, width, 3, padding=1),
        nn.ReLU(),
        nn.Conv2d(width, 2 * width, 3, padding=1),
        nn.ReLU(),
        nn.MaxPool2d(2),
        nn.Flatten(),
        nn.Dropout(dropout),
        nn.Linear(2 * width * (side // 2) ** 2, 10),
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
        torch.from_numpy(a).to(device) for a in load_split(args.split_seed, args.side)
    )
    torch.manual_seed(drawn["init"])
    model = build_model(args.dropout, args.side, args.width, args.pixel_embedding).to(device)
    torch.manual_seed(drawn["dropout"])  # the global generator now only drives dropout
    if device.type == "cuda":
        torch.cuda.manual_seed_all(drawn["dropout"])
    order_gen = torch.Generator().manual_seed(drawn["data"])
    optimizer = torch.optim.SGD(model.parameters(), lr=args.lr, momentum=0.9)
    print(f"seeds: {json.dumps(seeds)} threads: {torch.get_num_threads()} device: {device}")
    training = 0.0  # the training steps alone, GPU work finished: start-up and evaluation apart
    for epoch in range(1, args.epochs + 1):
        order = torch.randperm(len(y_tr), generator=order_gen).to(device)
        _synchronize(device)
        epoch_started = time.perf_counter()
        for start in range(0, len(order), args.batch_size):
            idx = order[start : start + args.batch_size]
            optimizer.zero_grad()
            loss = torch.nn.functional.cross_entropy(model(x_tr[idx]), y_tr[idx])
            loss.backward()
            optimizer.step()
        _synchronize(device)
        training += time.perf_counter() - epoch_started
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
    print(f"train_seconds: {training:.4f}")
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
        "train_seconds": round(training, 4),
        "model": {"side": args.side, "width": args.width, "pixel_embedding": args.pixel_embedding},
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


def _synchronize(device) -> None:
    """Wait for queued GPU work, so a timer reads the work and not its launch."""
    import torch

    if device.type == "cuda":
        torch.cuda.synchronize(device)


if __name__ == "__main__":
    sys.exit(main())
