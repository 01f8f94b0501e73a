"""The layout of the user-item interaction sets of graph recommenders (NGCF and the models that
copied its data folder: LightGCN, KGAT, SGL, SimGCL): `Data/<set>/train.txt` and `test.txt`, one
line per user, `user item item ...` with ids counted from 0, beside `user_list.txt` and
`item_list.txt` (`org_id remap_id`). The writer fills that folder with a small synthetic set in
the same form: every user has items to train on and one to test."""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from miner.select.standins.benchmark_layouts import WrittenFiles, seeded_rng

# The sets NGCF published in this form, as their folders are named.
INTERACTION_SETS = frozenset(("gowalla", "yelp2018", "amazon-book", "amazon_book", "last-fm"))
SPLIT_FILES = frozenset(("train.txt", "test.txt", "user_list.txt", "item_list.txt"))
USERS, ITEMS, PER_USER = 200, 300, 8


def interaction_root(path: PurePosixPath) -> PurePosixPath | None:
    """The set's folder when `path` is one of its split files (`Data/gowalla/train.txt`)."""
    if path.name in SPLIT_FILES and path.parent.name.lower() in INTERACTION_SETS:
        return path.parent
    return None


def write_interactions(root: Path, seed: int) -> WrittenFiles:
    """`train.txt`, `test.txt`, `user_list.txt` and `item_list.txt` of USERS users and ITEMS
    items: PER_USER distinct items each, the last one held out for the test split. A list the
    folder already holds is kept."""
    state = seeded_rng(seed, root.name)
    root.mkdir(parents=True, exist_ok=True)
    train, test = [], []
    for user in range(USERS):
        items = [int(i) for i in state.choice(ITEMS, size=PER_USER, replace=False)]
        train.append(" ".join(str(v) for v in [user, *items[:-1]]))
        test.append(f"{user} {items[-1]}")
    (root / "train.txt").write_text("\n".join(train) + "\n", encoding="utf-8")
    (root / "test.txt").write_text("\n".join(test) + "\n", encoding="utf-8")
    for name, count in (("user_list.txt", USERS), ("item_list.txt", ITEMS)):
        if (root / name).exists():
            continue  # the set's own list, shipped without its splits: kept
        rows = ["org_id remap_id", *(f"{1000 + i} {i}" for i in range(count))]
        (root / name).write_text("\n".join(rows) + "\n", encoding="utf-8")
    arrays = (
        ("train.txt", (USERS, PER_USER - 1), "int"),
        ("test.txt", (USERS, 1), "int"),
    )
    return WrittenFiles(root, 4, arrays)
