"""Fixtures for the clone stage: real git repositories built here, served over file:// and HTTP.

Every repository is an ordinary git repository made with the git command line, with commit dates
set through GIT_COMMITTER_DATE/GIT_AUTHOR_DATE. The HTTP server is `git http-backend` behind a
small handler on 127.0.0.1 that can also answer 401, 404, 451 or hang, like GitHub does.
"""

from __future__ import annotations

import base64
import os
import subprocess
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from miner.store import Store

WEIGHTS_BYTES = 3_000_000
DATA_BYTES = 1_500_000
TOKEN = "ghp_testTOKEN0123456789abcdefghijklmnop"
DATES = ("2020-01-01T00:00:00Z", "2020-06-01T00:00:00Z", "2021-03-01T00:00:00Z")


def git(*args: str, cwd: Path, date: str | None = None, offline: bool = False) -> str:
    """Run git for building fixtures, isolated from the machine's own git config; `offline`
    makes any fetch (a lazy fetch of a missing blob included) fail instead of downloading."""
    env = {
        **os.environ,
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_NAME": "Ada",
        "GIT_AUTHOR_EMAIL": "ada@example.org",
        "GIT_COMMITTER_NAME": "Ada",
        "GIT_COMMITTER_EMAIL": "ada@example.org",
    }
    for key in ("GIT_DIR", "GIT_WORK_TREE", "GIT_INDEX_FILE", "GIT_OBJECT_DIRECTORY"):
        env.pop(key, None)
    if date:
        env["GIT_AUTHOR_DATE"] = env["GIT_COMMITTER_DATE"] = date
    if offline:
        env["GIT_ALLOW_PROTOCOL"] = "none"
    done = subprocess.run(
        ["git", *args], cwd=cwd, env=env, capture_output=True, text=True, check=False
    )
    if done.returncode != 0:
        raise AssertionError(f"git {' '.join(args)} failed: {done.stderr}")
    return done.stdout.strip()


def commit(repo: Path, message: str, date: str) -> str:
    """Commit every change in `repo` at `date`; return the new commit's SHA."""
    # Random bytes do not compress: skip zlib. Gitlinks (submodules) have no folder here, so
    # they are staged apart and `add` must not record them as deleted.
    git("-c", "core.looseCompression=0", "add", "--ignore-removal", ".", cwd=repo)
    git("commit", "--quiet", "--allow-empty", "-m", message, cwd=repo, date=date)
    return git("rev-parse", "HEAD", cwd=repo)


def serve_config(repo: Path) -> None:
    """Let clients ask for filters and for any commit, as GitHub does."""
    git("config", "uploadpack.allowFilter", "true", cwd=repo)
    git("config", "uploadpack.allowAnySHA1InWant", "true", cwd=repo)


@dataclass
class Upstream:
    """A repository the tests clone from: its folder, URL and commits (oldest first)."""

    path: Path
    commits: list[str] = field(default_factory=list)
    blobs: dict[str, str] = field(default_factory=dict)  # path -> blob id of large files

    @property
    def url(self) -> str:
        """The file:// URL (a plain path would make git ignore --filter)."""
        return self.path.as_uri()

    def add_commit(self, date: str, name: str = "NEWS.md", text: str = "news\n") -> str:
        """Commit one more small change at `date`."""
        (self.path / name).write_text(text)
        sha = commit(self.path, f"change {name}", date)
        self.commits.append(sha)
        return sha


def build_upstream(root: Path, name: str = "deep", submodule: Path | None = None) -> Upstream:
    """A DL-like repository: source and docs, a 3 MB weights file and 1.5 MB of data (large
    blobs), a symlink out of the tree, hook-like files, LFS attributes and a submodule, over three
    commits dated 2020-01-01, 2020-06-01 and 2021-03-01."""
    repo = root / name
    repo.mkdir(parents=True)
    git("init", "--quiet", "--initial-branch=main", cwd=repo)
    up = Upstream(repo)
    (repo / "README.md").write_text("# Deep\n\nRequires TensorFlow 1.4 and a GTX 1080 Ti.\n")
    (repo / "requirements.txt").write_text("tensorflow==1.4\n")
    (repo / "train.py").write_text("import tensorflow as tf\n")
    (repo / "models").mkdir()
    (repo / "models" / "weights.bin").write_bytes(os.urandom(WEIGHTS_BYTES))
    os.symlink("/etc/passwd", repo / "passwd-link")
    os.symlink("README.md", repo / "readme-link")
    up.commits.append(commit(repo, "first", DATES[0]))
    (repo / "README.md").write_text("# Deep v2\n\nRequires TensorFlow 1.4.\n")
    (repo / "data").mkdir()
    (repo / "data" / "train.npy").write_bytes(os.urandom(DATA_BYTES))
    hooks = repo / ".githooks"
    hooks.mkdir()
    for hook in ("post-checkout", "post-index-change", "reference-transaction", "post-merge"):
        script = hooks / hook
        script.write_text(f'#!/bin/sh\ntouch "{root}/HOOK-RAN-{hook}"\n')
        script.chmod(0o755)
    (repo / ".gitattributes").write_text("*.lfs filter=lfs diff=lfs merge=lfs -text\n")
    (repo / "model.lfs").write_text("version https://git-lfs.github.com/spec/v1\noid sha256:0\n")
    up.commits.append(commit(repo, "second", DATES[1]))
    if submodule is not None:  # what `git submodule add` records, without cloning it here
        (repo / ".gitmodules").write_text(
            f'[submodule "sub"]\n\tpath = third_party/sub\n\turl = {submodule.as_uri()}\n'
        )
        sub_head = git("rev-parse", "HEAD", cwd=submodule)
        git("update-index", "--add", "--cacheinfo", f"160000,{sub_head},third_party/sub", cwd=repo)
    (repo / "README.md").write_text("# Deep v3\n\nRequires TensorFlow 1.15.\n")
    up.commits.append(commit(repo, "third", DATES[2]))
    for path in ("models/weights.bin", "data/train.npy"):
        up.blobs[path] = git("rev-parse", f"HEAD:{path}", cwd=repo)
    serve_config(repo)
    return up


def build_unfiltered(root: Path) -> Upstream:
    """A repository whose server ignores filters (no uploadpack.allowFilter): a full clone."""
    plain = root / "plain"
    plain.mkdir()
    git("init", "--quiet", "--initial-branch=main", cwd=plain)
    (plain / "README.md").write_text("plain\n")
    (plain / "weights.bin").write_bytes(os.urandom(WEIGHTS_BYTES))
    return Upstream(plain, [commit(plain, "only", DATES[0])])


def build_submodule(root: Path) -> Path:
    """A tiny repository that the DL-like one references as a submodule."""
    sub = root / "subproject"
    sub.mkdir(parents=True)
    git("init", "--quiet", "--initial-branch=main", cwd=sub)
    (sub / "SUB_README.md").write_text("a submodule\n")
    commit(sub, "sub", DATES[0])
    serve_config(sub)
    return sub


def add_repo(store: Store, repo_id: int, full_name: str, url: str | None, **extra: object) -> None:
    """Store one search result the way the search stage does."""
    row = {
        "id": repo_id,
        "full_name": full_name,
        "html_url": f"https://github.com/{full_name}",
        "clone_url": url,
        "default_branch": "main",
        "fork": 0,
        "archived": 0,
        "disabled": 0,
        "stars": 10,
        "created_at": "2019-01-01T00:00:00Z",
        "pushed_at": "2021-03-01T00:00:00Z",
        "first_seen": "2024-01-01T00:00:00Z",
        "last_seen": "2024-01-01T00:00:00Z",
        **extra,
    }
    store.upsert("repos", [row], key=["id"])


class GitHTTP(BaseHTTPRequestHandler):
    """Smart HTTP like GitHub's: /git/ serves, /private/ needs the token, /gone/ is 404,
    /blocked/ is 451 (DMCA) and /slow/ never answers until the server stops."""

    server: GitServer

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        """Quiet: the tests read `requests` instead."""

    def do_GET(self) -> None:
        self._handle()

    def do_POST(self) -> None:
        self._handle()

    def _handle(self) -> None:
        self.server.requests.append((self.command, self.path, dict(self.headers.items())))
        kind, _, rest = self.path.lstrip("/").partition("/")
        if kind == "gone":
            self._reply(404, b"Repository not found.\n")
        elif kind == "blocked":
            self._reply(451, b"Repository unavailable due to DMCA takedown.\n")
        elif kind == "slow":
            self.server.stopping.wait(30)
            self._reply(503, b"gave up\n")
        elif kind == "private" and self.headers.get("Authorization") != self.server.auth:
            self._reply(401, b"Authentication required\n", {"WWW-Authenticate": 'Basic realm="x"'})
        elif kind in ("git", "private"):
            self._backend("/" + rest)
        else:
            self._reply(404, b"no such route\n")

    def _reply(self, status: int, body: bytes, headers: dict[str, str] | None = None) -> None:
        self.send_response(status)
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.send_header("Content-Type", "text/plain")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _backend(self, path: str) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        path_info, _, query = path.partition("?")
        env = {
            **os.environ,
            "GIT_PROJECT_ROOT": str(self.server.root),
            "GIT_HTTP_EXPORT_ALL": "1",
            "PATH_INFO": path_info,
            "QUERY_STRING": query,
            "REQUEST_METHOD": self.command,
            "CONTENT_TYPE": self.headers.get("Content-Type", ""),
            "CONTENT_LENGTH": str(len(body)),
            "GIT_PROTOCOL": self.headers.get("Git-Protocol", ""),
            "HTTP_CONTENT_ENCODING": self.headers.get("Content-Encoding", ""),
            "REMOTE_ADDR": "127.0.0.1",
        }
        done = subprocess.run(
            ["git", "http-backend"], input=body, env=env, capture_output=True, check=False
        )
        head, _, payload = done.stdout.partition(b"\r\n\r\n")
        headers = dict(
            line.split(": ", 1) for line in head.decode("latin-1").split("\r\n") if ": " in line
        )
        status = int(headers.pop("Status", "200").split()[0])
        self.send_response(status)
        for key, value in headers.items():
            self.send_header(key, value)
        self.send_header("Content-Length", str(len(payload)))
        self.end_headers()
        self.wfile.write(payload)


class GitServer(ThreadingHTTPServer):
    """The local git host: repositories under `root`, requests recorded."""

    daemon_threads = True

    def __init__(self, root: Path, token: str) -> None:
        super().__init__(("127.0.0.1", 0), GitHTTP)
        self.root = root
        self.auth = "Basic " + base64.b64encode(f"x-access-token:{token}".encode()).decode()
        self.requests: list[tuple[str, str, dict[str, str]]] = []
        self.stopping = threading.Event()

    def url(self, kind: str, name: str) -> str:
        """The clone URL of repository `name` under route `kind` (git, private, gone...)."""
        return f"http://127.0.0.1:{self.server_address[1]}/{kind}/{name}"
