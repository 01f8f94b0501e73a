"""Clones are untrusted: no hooks, no LFS smudge, no submodules, no token on disk, no escapes."""

from __future__ import annotations

import base64
import os
import subprocess
from pathlib import Path

import pytest
from clone_repos import TOKEN, GitServer, Upstream, add_repo, git

from miner.clone import CloneOptions, clone_all, clone_path
from miner.clone.git import auth_config, public_url
from miner.store import Store

HOSTILE_CONFIG = """\
[core]
\thooksPath = .githooks
[init]
\ttemplateDir = {template}
[submodule]
\trecurse = true
[fetch]
\trecurseSubmodules = true
[filter "lfs"]
\tsmudge = "touch {marks}/SMUDGED; cat"
\trequired = true
[protocol "file"]
\tallow = always
"""


def test_hooks_lfs_and_submodules_never_run_even_when_the_user_config_asks(
    tmp_path: Path, store: Store, upstream: Upstream, quiet_git_config: Path
) -> None:
    marks = upstream.path.parent  # the repository's hook scripts touch HOOK-RAN-* files here
    template = tmp_path / "template"
    (template / "hooks").mkdir(parents=True)
    for hook in ("post-checkout", "reference-transaction", "post-index-change"):
        script = template / "hooks" / hook
        script.write_text(f'#!/bin/sh\ntouch "{marks}/TEMPLATE-RAN-{hook}"\n')
        script.chmod(0o755)
    quiet_git_config.write_text(HOSTILE_CONFIG.format(template=template, marks=marks))

    # Control: a plain clone with this user config runs the repository's hooks and the smudge.
    subprocess.run(["git", "clone", "-q", upstream.url, str(tmp_path / "control")], check=True)
    assert (marks / "HOOK-RAN-post-checkout").exists() and (marks / "SMUDGED").exists()
    for mark in marks.glob("*"):
        if mark.is_file():
            mark.unlink()

    add_repo(store, 1, "acme/deep", upstream.url)
    summary = clone_all(store, CloneOptions(root=tmp_path / "repos"))
    assert summary.cloned == 1, summary.results
    assert sorted(p.name for p in marks.iterdir() if p.is_file()) == []
    checkout = tmp_path / "repos" / "acme" / "deep"
    assert (checkout / "model.lfs").read_text().startswith("version https://git-lfs")
    assert list((checkout / ".git" / "hooks").glob("*")) == []
    # The submodule is an empty folder; nothing of it was fetched.
    assert (checkout / "third_party" / "sub").is_dir()
    assert list((checkout / "third_party" / "sub").iterdir()) == []
    assert not (checkout / ".git" / "modules").exists()
    sub_head = git("ls-tree", "HEAD", "third_party/sub", cwd=checkout).split()[2]
    missing = subprocess.run(
        ["git", "cat-file", "-e", sub_head],
        cwd=checkout,
        env={**os.environ, "GIT_ALLOW_PROTOCOL": "none"},
        capture_output=True,
    )
    assert missing.returncode != 0


def test_symlinks_stay_links_and_are_never_followed(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "acme/deep", upstreams["deep"].url)
    clone_all(store, CloneOptions(root=tmp_path / "repos"))
    checkout = tmp_path / "repos" / "acme" / "deep"
    assert (checkout / "passwd-link").is_symlink()
    assert os.readlink(checkout / "passwd-link") == "/etc/passwd"
    assert os.readlink(checkout / "readme-link") == "README.md"


@pytest.mark.parametrize(
    ("full_name", "expected"),
    [
        ("acme/deep", "acme/deep"),
        ("../../etc", "__/.._etc"),
        ("acme/..", "acme/__"),
        ("acme/../../x", "acme/.._.._x"),
        (".partial/x", "_partial/x"),
        ("/abs/path", "_/abs_path"),
        ("own er/na:me", "own_er/na_me"),
        ("org/.github", "org/.github"),
        ("noslash", "id-7/noslash"),
    ],
)
def test_names_are_sanitised_so_no_path_leaves_the_clone_root(
    tmp_path: Path, full_name: str, expected: str
) -> None:
    path = clone_path(tmp_path, full_name, 7)
    assert path == tmp_path / expected
    assert path.resolve().is_relative_to(tmp_path.resolve())


def test_hostile_names_are_cloned_inside_the_root(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream]
) -> None:
    add_repo(store, 1, "../../escape", upstreams["deep"].url)
    add_repo(store, 2, "odd/x y", upstreams["deep"].url)
    add_repo(store, 3, "odd/x:y", upstreams["deep"].url)  # sanitises like the one above
    summary = clone_all(store, CloneOptions(root=tmp_path / "data" / "repos"))
    assert summary.cloned == 3
    root = tmp_path / "data" / "repos"
    paths = sorted(str(r.path.relative_to(root)) for r in summary.results if r.path)
    assert paths == ["__/.._escape", "odd/x_y", "odd/x_y-3"]
    assert not (tmp_path / "escape").exists() and not (tmp_path / "data" / "escape").exists()


def test_the_token_is_sent_as_a_header_and_never_written(
    tmp_path: Path, store: Store, git_server: GitServer, quiet_git_config: Path
) -> None:
    url = git_server.url("private", "deep")
    # A credential helper the user configured is never asked (it would answer with the token).
    saved = tmp_path / "saved-credentials"
    saved.write_text(f"http://x-access-token:{TOKEN}@127.0.0.1:{git_server.server_address[1]}\n")
    quiet_git_config.write_text(f"[credential]\n\thelper = store --file={saved}\n")
    control = subprocess.run(["git", "ls-remote", url], capture_output=True, text=True)
    assert control.returncode == 0  # plain git does use the helper
    add_repo(store, 1, "acme/private", url)
    root = tmp_path / "data" / "repos"
    denied = clone_all(store, CloneOptions(root=root))
    assert denied.failed == {"auth": 1}
    saved.unlink()  # it holds the token: keep it out of the scan below
    summary = clone_all(store, CloneOptions(root=root, token=TOKEN))
    assert summary.cloned == 1, summary.results
    assert any(h.get("Authorization") == git_server.auth for _, _, h in git_server.requests)
    assert not any(TOKEN in path for _, path, _ in git_server.requests)
    encoded = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
    written = [p for p in tmp_path.rglob("*") if p.is_file() and not p.is_symlink()]
    assert any(p.name == "config" for p in written)
    for path in written:
        data = path.read_bytes()
        assert TOKEN.encode() not in data and encoded.encode() not in data, path


def test_a_caller_s_git_variables_never_redirect_a_clone(
    tmp_path: Path, store: Store, upstreams: dict[str, Upstream], monkeypatch: pytest.MonkeyPatch
) -> None:
    # As inside a pre-commit hook: GIT_DIR and GIT_INDEX_FILE name the developer's repository.
    mine = tmp_path / "mine"
    mine.mkdir()
    git("init", "--quiet", cwd=mine)
    (mine / "work.txt").write_text("mine\n")
    git("add", "work.txt", cwd=mine)
    index = (mine / ".git" / "index").read_bytes()
    monkeypatch.setenv("GIT_DIR", str(mine / ".git"))
    monkeypatch.setenv("GIT_WORK_TREE", str(mine))
    monkeypatch.setenv("GIT_INDEX_FILE", str(mine / ".git" / "index"))
    monkeypatch.setenv("GIT_OBJECT_DIRECTORY", str(mine / ".git" / "objects"))
    add_repo(store, 1, "acme/deep", upstreams["deep"].url)
    assert clone_all(store, CloneOptions(root=tmp_path / "repos")).cloned == 1
    assert (mine / ".git" / "index").read_bytes() == index
    assert not (mine / "README.md").exists()
    assert (tmp_path / "repos" / "acme" / "deep" / "README.md").is_file()


def test_the_token_only_travels_over_tls_or_to_this_machine() -> None:
    assert auth_config("http://example.org/a/b.git", TOKEN) == ()
    assert auth_config("file:///srv/a/b", TOKEN) == ()
    assert auth_config("https://github.com/a/b.git", None) == ()
    ((key, value),) = auth_config("https://user@github.com/a/b.git", TOKEN)
    assert key == "http.https://github.com/.extraHeader"
    assert value.startswith("Authorization: Basic ") and TOKEN not in value
    assert auth_config("http://127.0.0.1:8080/a/b", TOKEN)
    assert public_url("https://me:secret@github.com/a/b.git") == "https://github.com/a/b.git"
