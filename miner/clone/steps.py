"""The steps of one clone, run through a GitSession: fetch only what is needed, check it out
without fetching anything back, and find the commit a study date pins."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from miner.clone.git import NO_FILTER, NO_SHALLOW, GitSession, pack_bytes, public_url
from miner.errors import CloneError

SHA = re.compile(rb"^[0-9a-f]{40}(?:[0-9a-f]{24})?$")
BAD_BRANCH = re.compile(r"^[-/.]|[/.]$|\.\.|//|@\{|[\x00-\x20\x7f~^:?*\[\\]|\.lock(/|$)|/\.")
URL = re.compile(r"^(https?|file)://[^\s]+$")
MAX_DEEPEN_ROUNDS = 8


@dataclass(frozen=True)
class Fetched:
    """What a finished checkout holds: the pinned commit and what was left out of it."""

    commit_sha: str
    commit_date: str
    ref: str
    bytes_received: int
    omitted: tuple[str, ...]


def check_url(url: str | None) -> str:
    """The clone URL if git may fetch it (https, http or file), else a CloneError."""
    if not url or not URL.match(url):
        raise CloneError(f"unsupported clone URL {public_url(url or '')!r}", "other")
    return url


def source_ref(branch: str | None) -> str:
    """What to fetch: the default branch when its name is a valid ref, else the remote HEAD."""
    if branch and not BAD_BRANCH.search(branch) and branch != "@":
        return f"refs/heads/{branch}"
    return "HEAD"


def init_repo(
    session: GitSession,
    git_dir: Path,
    work_tree: Path | None,
    url: str,
    filter_spec: str,
    branch: str = "main",
) -> None:
    """Create an empty repository whose origin is a promisor remote with `filter_spec`."""
    bare = [] if work_tree is not None else ["--bare"]
    session.run(
        ["init", "--quiet", f"--template={session.hooks_dir}", f"--initial-branch={branch}", *bare],
        git_dir,
        work_tree,
    )
    # One write instead of five `git config` processes; values are quoted as git quotes them.
    config = git_dir / "config"
    text = config.read_text(encoding="utf-8")
    text = text.replace("repositoryformatversion = 0", "repositoryformatversion = 1", 1)
    quoted = public_url(url).replace("\\", "\\\\").replace('"', '\\"')
    text += (
        f'[remote "origin"]\n\turl = "{quoted}"\n\tpromisor = true\n'
        f"\tpartialclonefilter = {filter_spec}\n[extensions]\n\tpartialClone = origin\n"
    )
    config.write_text(text, encoding="utf-8")


def fetch(
    session: GitSession,
    git_dir: Path,
    work_tree: Path | None,
    what: str,
    filter_spec: str,
    *extra: str,
) -> None:
    """Fetch `what` (a ref, refspec or commit) from origin with a filter; nothing else."""
    session.run(
        [
            "fetch",
            "--quiet",
            "--no-tags",
            "--no-recurse-submodules",
            f"--filter={filter_spec}",
            *extra,
            "origin",
            what,
        ],
        git_dir,
        work_tree,
        online=True,
        watch=git_dir,
    )
    if NO_FILTER.search(session.last_stderr):
        # The server sent everything, weights included: refuse such a checkout.
        raise CloneError("the server ignores --filter (no partial clone support)", "other")


def fetch_head(git_dir: Path) -> str:
    """The commit the last fetch brought, read from FETCH_HEAD."""
    first = (git_dir / "FETCH_HEAD").read_bytes().split(b"\n", 1)[0].split(b"\t", 1)[0].strip()
    if not SHA.match(first):
        raise CloneError("the fetch did not report a commit", "other")
    return first.decode("ascii")


def commit_date(session: GitSession, git_dir: Path, sha: str) -> str:
    """The commit's committer date in UTC ISO 8601, read from the commit object itself."""
    from datetime import datetime, timezone

    raw = session.run(["cat-file", "commit", sha], git_dir)
    header = raw.split(b"\n\n", 1)[0]
    match = re.search(rb"^committer .* (\d+) [+-]\d{4}$", header, re.M)
    if not match:
        raise CloneError(f"commit {sha} has no committer date", "other")
    moment = datetime.fromtimestamp(int(match.group(1)), tz=timezone.utc)
    return moment.isoformat(timespec="seconds")


def checkout(session: GitSession, git_dir: Path, work_tree: Path, sha: str) -> tuple[str, ...]:
    """Write the commit's tree except the blobs the filter left out; return those paths.

    A plain `git checkout` would fetch every missing blob back from the promisor remote. Instead
    the index is read from the tree, the filtered-out paths are marked skip-worktree, and only the
    rest is written; the whole step runs with no protocol allowed, so it cannot download.
    """
    missing = {
        line[1:]
        for line in session.run(
            ["rev-list", "--objects", "--missing=print", "--no-object-names", sha], git_dir
        ).splitlines()
        if line.startswith(b"?")
    }
    omitted: list[bytes] = []
    for entry in session.run(["ls-tree", "-r", "-z", "--full-tree", sha], git_dir).split(b"\0"):
        meta, _, path = entry.partition(b"\t")
        fields = meta.split()
        if len(fields) == 3 and fields[1] == b"blob" and fields[2] in missing:
            omitted.append(path)
    session.run(["read-tree", sha], git_dir, work_tree)
    if omitted:
        paths = b"".join(p + b"\0" for p in omitted)
        session.run(
            ["update-index", "-z", "--skip-worktree", "--stdin"], git_dir, work_tree, stdin=paths
        )
    session.run(["checkout-index", "--all", "--force", "--index", "--quiet"], git_dir, work_tree)
    return tuple(sorted(os.fsdecode(p) for p in omitted))


def fetch_checkout(
    session: GitSession, dest: Path, url: str, src: str, target: str | None, max_blob: int
) -> Fetched:
    """Partial clone of `target` (a commit) or else `src` at depth 1 into `dest`, checked out."""
    git_dir = dest / ".git"
    blob_filter = f"blob:limit={max_blob}"
    branch = src.removeprefix("refs/heads/") if src.startswith("refs/heads/") else "main"
    init_repo(session, git_dir, dest, url, blob_filter, branch)
    try:
        fetch(session, git_dir, dest, target or src, blob_filter, "--depth=1")
    except CloneError as exc:
        if target or src == "HEAD" or "couldn't find remote ref" not in str(exc):
            raise
        src = "HEAD"  # the default branch was renamed since the search: take the new one
        fetch(session, git_dir, dest, src, blob_filter, "--depth=1")
    sha = fetch_head(git_dir)
    if src.startswith("refs/heads/"):  # HEAD already names this branch (init)
        session.run(["update-ref", src, sha], git_dir, dest)
    else:
        session.run(["update-ref", "--no-deref", "HEAD", sha], git_dir, dest)
    omitted = checkout(session, git_dir, dest, sha)
    return Fetched(
        commit_sha=sha,
        commit_date=commit_date(session, git_dir, sha),
        ref=src.removeprefix("refs/heads/"),
        bytes_received=pack_bytes(git_dir),
        omitted=omitted,
    )


def remote_tip(session: GitSession, git_dir: Path, url: str, src: str) -> str | None:
    """The commit `src` names on the remote now (for --refresh), or None if it has none."""
    out = session.run(["ls-remote", public_url(url), src], git_dir, online=True)
    for line in out.splitlines():
        sha, _, name = line.partition(b"\t")
        if name.decode("utf-8", "replace") == src and SHA.match(sha):
            return sha.decode("ascii")
    return None


def as_of_commit(
    session: GitSession, work: Path, url: str, src: str, as_of_epoch: int
) -> tuple[str | None, int]:
    """The last first-parent commit of `src` strictly before the instant, and bytes received.

    Only commits are fetched (filter tree:0): those since the date, then deeper until one
    older than it appears. None when the branch has no commit before the date.
    """
    git_dir = work / "history.git"
    init_repo(session, git_dir, None, url, "tree:0")
    refspec = f"+{src}:refs/heads/tip"
    try:
        fetch(session, git_dir, None, refspec, "tree:0", f"--shallow-since=@{as_of_epoch}")
    except CloneError as exc:
        if not NO_SHALLOW.search(str(exc)):
            raise
        fetch(session, git_dir, None, refspec, "tree:0", "--depth=1")  # the tip is older
    before = f"--before=@{as_of_epoch - 1}"
    for rounds in range(MAX_DEEPEN_ROUNDS + 2):
        found = session.run(["rev-list", "-1", "--first-parent", before, "refs/heads/tip"], git_dir)
        if found.strip():
            return found.strip().decode("ascii"), pack_bytes(git_dir)
        if not (git_dir / "shallow").is_file():
            return None, pack_bytes(git_dir)
        deepen = "--unshallow" if rounds >= MAX_DEEPEN_ROUNDS else f"--deepen={2**rounds}"
        fetch(session, git_dir, None, refspec, "tree:0", deepen)
    return None, pack_bytes(git_dir)


def worktree_intact(session: GitSession, dest: Path) -> bool:
    """True when every checked-out file still matches the index (sizes, then contents)."""
    try:
        session.run(["diff-files", "--quiet"], dest / ".git", dest)
    except CloneError:
        return False
    return True
