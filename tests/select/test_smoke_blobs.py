"""The whole checkout: a smoke copy fetches the blobs a partial clone's filter left out, from the
clone's promisor remote (a file:// repository the test builds), without touching the clone."""

from __future__ import annotations

import os
import random
import subprocess
import threading
import time
from pathlib import Path

import pytest

from miner.clone.git import GitSession
from miner.clone.steps import fetch_checkout
from miner.select.blobs import fetch_omitted

BIG = random.Random(0).randbytes(16384)  # over the clone's blob limit below, incompressible


def git(*args: str, cwd: Path) -> str:
    return subprocess.run(
        ["git", *args], cwd=cwd, check=True, capture_output=True, text=True
    ).stdout


@pytest.fixture
def partial_clone(tmp_path, monkeypatch) -> tuple[Path, Path]:
    """(upstream, checkout): the checkout a partial clone with a 4 KiB blob limit made."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    upstream = tmp_path / "upstream"
    upstream.mkdir()
    git("init", "-q", "-b", "main", cwd=upstream)
    (upstream / "data").mkdir()
    (upstream / "data" / "vocab.bin").write_bytes(BIG)
    (upstream / "weights.pt").write_bytes(BIG[::-1])
    (upstream / "train.py").write_text("print('loss 0.1')\n")
    git("add", "-A", cwd=upstream)
    git("-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one", cwd=upstream)
    git("config", "uploadpack.allowFilter", "true", cwd=upstream)
    git("config", "uploadpack.allowAnySHA1InWant", "true", cwd=upstream)
    hooks = tmp_path / "hooks"
    hooks.mkdir()
    session = GitSession(
        deadline=time.monotonic() + 60, timeout=60, max_size=10**8, hooks_dir=hooks,
        cancel=threading.Event(),
    )  # fmt: skip
    checkout = tmp_path / "clone"
    checkout.mkdir()
    fetched = fetch_checkout(session, checkout, f"file://{upstream}", "refs/heads/main", None, 4096)
    assert set(fetched.omitted) == {"data/vocab.bin", "weights.pt"}
    return upstream, checkout


def test_the_copy_gets_what_the_filter_left_out(partial_clone, tmp_path):
    _, checkout = partial_clone
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "train.py").write_text("print('loss 0.1')\n")
    objects = sorted(p.name for p in (checkout / ".git" / "objects").rglob("*"))
    fetched = fetch_omitted(checkout, copy, tmp_path / "work")
    assert fetched is not None and fetched.error is None
    assert fetched.paths == ("data/vocab.bin", "weights.pt")
    assert (copy / "data" / "vocab.bin").read_bytes() == BIG
    assert (copy / "weights.pt").read_bytes() == BIG[::-1]
    assert fetched.bytes_received > 2 * len(BIG)  # two blobs that do not compress
    assert "fetched 2 file(s)" in fetched.note()
    # The clone itself is untouched: no file written, no object added.
    assert not (checkout / "weights.pt").exists()
    assert sorted(p.name for p in (checkout / ".git" / "objects").rglob("*")) == objects


def test_an_unreachable_remote_is_recorded_not_raised(partial_clone, tmp_path):
    upstream, checkout = partial_clone
    upstream.rename(tmp_path / "gone")
    fetched = fetch_omitted(checkout, tmp_path / "copy", tmp_path / "work")
    assert fetched is not None and fetched.paths == () and fetched.error
    assert fetched.note().startswith("blobs left out by the clone not fetched")


def test_a_checkout_that_is_no_partial_clone_fetches_nothing(tmp_path):
    plain = tmp_path / "plain"
    plain.mkdir()
    assert fetch_omitted(plain, tmp_path / "copy", tmp_path / "work") is None
