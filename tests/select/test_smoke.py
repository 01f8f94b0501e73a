"""Smoke runs on fixture projects: every outcome class, the clone untouched, no secret leaked."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from smoke_projects import TINYFIT, build_wheel, projects, tree_hash

from miner.select.sandbox import network_cut_prefix, scrubbed_env
from miner.select.smoke import SmokeOptions, SmokeResult, SmokeTarget, smoke

SECRETS = {
    "GITHUB_TOKEN": "ghp_smokeTOKEN0123456789abcdefghijkl",
    "MY_API_KEY": "key-0123456789",
    "DB_PASSWORD": "hunter2-password",
    "AWS_SECRET_ACCESS_KEY": "aws-secret-0123456789",
}


class Counting(BaseHTTPRequestHandler):
    """Counts the requests it gets (a phone-home target on 127.0.0.1)."""

    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802
        Counting.hits.append(self.path)
        self.send_response(200)
        self.send_header("Content-Length", "2")
        self.end_headers()
        self.wfile.write(b"ok")

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture(scope="module")
def server() -> Iterator[ThreadingHTTPServer]:
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Counting)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture(scope="module")
def closed_port() -> Iterator[int]:
    """A port bound but never listening: connections to it are refused."""
    sock = socket.socket()
    sock.bind(("127.0.0.1", 0))
    yield sock.getsockname()[1]
    sock.close()


@pytest.fixture(scope="module")
def lab(tmp_path_factory, server, closed_port) -> dict[str, Path]:
    """The fixture projects as checkouts, built once for the module."""
    root = tmp_path_factory.mktemp("lab")
    wheels = root / "wheels"
    build_wheel(wheels, "tinyfit", "0.1", {"tinyfit/__init__.py": TINYFIT})
    specs = projects(wheels, root / "worker.pid", closed_port, server.server_address[1])
    checkouts = {}
    for name, files in specs.items():
        checkout = root / "repos" / name.replace("/", "__")
        for rel, text in files.items():
            (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
            (checkout / rel).write_text(text, encoding="utf-8")
        checkouts[name] = checkout
    checkouts["@pidfile"] = root / "worker.pid"
    return checkouts


def options(tmp_path: Path, timeout: float = 30.0) -> SmokeOptions:
    env = {
        **os.environ,
        **SECRETS,
        "UV_OFFLINE": "1",  # never the network: the fixtures install from a local folder
        "UV_CACHE_DIR": str(tmp_path / "uv-cache"),
    }
    return SmokeOptions(out_dir=tmp_path / "smoke", timeout=timeout, env=env, until="end")


def target(lab: dict[str, Path], name: str) -> SmokeTarget:
    checkout = lab[name]
    files = (("requirements.txt", "requirements_file"),)
    return SmokeTarget(
        full_name=name,
        repo_id=1,
        commit_sha="0" * 40,
        checkout=checkout,
        command=("{python}", "train.py"),
        environment_files=files if (checkout / "requirements.txt").exists() else (),
        weights=("*.pt",),
    )


def run(lab: dict[str, Path], name: str, tmp_path: Path, timeout: float = 30.0) -> SmokeResult:
    before = tree_hash(lab[name])
    result = smoke(target(lab, name), options(tmp_path, timeout))
    assert tree_hash(lab[name]) == before, "the clone changed"
    assert not (lab[name] / "model.pt").exists()
    return result


def test_installs_from_a_local_wheel_and_trains(lab, tmp_path):
    result = run(lab, "lab/fits", tmp_path)
    assert result.outcome == "ok", result
    assert result.evidence.path == "train.log" and result.evidence.text.startswith("step 2 loss")
    assert result.requirements[-1] == "tinyfit==0.1"
    assert result.environment and Path(result.environment, "bin", "python").exists()
    log = Path(result.log_dir)
    names = json.loads((log / "train.log").read_text().split("ENV ", 1)[1].splitlines()[0])
    assert "HOME" in names and "OMP_NUM_THREADS" in names
    assert {"TORCH_DEVICE_BACKEND_AUTOLOAD", "JAX_PLATFORMS"} <= set(names)  # CPU back-ends only
    assert "WANDB_MODE" in names  # no tracker asks for a key offline
    assert {"SDL_VIDEODRIVER", "QT_QPA_PLATFORM"} <= set(names)  # no screen: games draw nowhere
    assert not set(SECRETS) & set(names)
    for path in log.iterdir():
        if path.is_file():
            text = path.read_text(errors="replace")
            assert not any(secret in text for secret in SECRETS.values()), path
    cpus = (log / "train.log").read_text().split("CPUS ", 1)[1].splitlines()[0]
    assert len(json.loads(cpus.split(" ")[0])) == 1 and cpus.endswith(" 1")  # pinned: one CPU
    assert json.loads((log / "smoke.json").read_text())["outcome"] == "ok"


def test_an_unsatisfiable_pin_is_an_install_failure(lab, tmp_path):
    result = run(lab, "lab/pinned", tmp_path)
    assert result.outcome == "install"
    assert result.evidence.path == "install.log" and "tinyfit==9.9" in result.evidence.text
    assert result.environment is None and result.train_seconds == 0.0
    assert not (tmp_path / "smoke" / "envs" / "lab__pinned").exists()


def test_hard_coded_cuda_needs_gpu(lab, tmp_path):
    result = run(lab, "lab/cuda", tmp_path)
    assert result.outcome == "needs_gpu"
    assert "Found no NVIDIA driver" in result.evidence.text
    assert result.evidence.rule == "smoke.needs_gpu"


def test_a_dataset_download_is_data(lab, tmp_path):
    result = run(lab, "lab/download", tmp_path)
    assert result.outcome == "data"
    assert result.evidence.path == "train.log"
    assert "Network is unreachable" in result.evidence.text or "refused" in result.evidence.text


def test_a_silent_endless_loop_times_out_and_its_whole_group_dies(lab, tmp_path):
    pidfile = lab["@pidfile"]
    started = time.monotonic()
    result = run(lab, "lab/forever", tmp_path, timeout=3.0)
    assert result.outcome == "timeout" and result.evidence.rule == "smoke.timeout"
    assert 3.0 <= result.train_seconds < 30 and time.monotonic() - started < 60
    worker = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(worker):
        time.sleep(0.05)
    assert not _alive(worker), "the project's worker process outlived the timeout"


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "State:\tZ" not in status  # a zombie has already died


def test_the_network_is_cut_while_training(lab, tmp_path):
    if network_cut_prefix() is None:
        pytest.skip("this machine allows no new network namespace (unshare -n)")
    Counting.hits.clear()
    result = run(lab, "lab/phone-home", tmp_path)
    assert result.network_cut
    assert result.outcome == "ok"
    assert Counting.hits == []
    assert "upload failed" in (Path(result.log_dir) / "train.log").read_text()


def test_the_cut_network_keeps_loopback_for_a_single_process_group():
    prefix = network_cut_prefix()
    if prefix is None:
        pytest.skip("this machine allows no new network namespace (unshare -n)")
    script = (
        "import socket\n"
        "server = socket.socket()\nserver.bind(('127.0.0.1', 0))\nserver.listen()\n"
        "socket.create_connection(server.getsockname(), timeout=5).close()\n"
        "try:\n    socket.create_connection(('10.255.255.1', 9), timeout=2)\n"
        "except OSError:\n    print('loopback only')\n"
    )
    done = subprocess.run([*prefix, sys.executable, "-c", script], capture_output=True, text=True)
    assert done.stdout.strip() == "loopback only", done.stderr


def test_an_undeclared_framework_is_an_import_failure(lab, tmp_path):
    result = run(lab, "lab/undeclared", tmp_path)
    assert result.outcome == "import"
    assert "No module named 'tensorflow'" in result.evidence.text
    assert result.requirements == ()


def test_a_crash_after_a_step_is_runtime(lab, tmp_path):
    result = run(lab, "lab/crash", tmp_path)
    assert result.outcome == "runtime"
    assert result.evidence.text.startswith("ValueError: shapes (3,) and (4,) not aligned")
    assert result.stage == 5  # it took a step before it crashed


def test_secrets_are_scrubbed():
    env = scrubbed_env(
        {**SECRETS, "PATH": "/bin", "HOME": "/root", "PYTHONPATH": "/x", "SSH_AUTH_SOCK": "/s"}
    )
    account = env.pop("USER")
    assert env == {"PATH": "/bin", "HOME": "/root", "LOGNAME": account}


def test_the_account_name_is_given_where_the_host_sets_none():
    import pwd

    name = pwd.getpwuid(os.getuid()).pw_name
    assert scrubbed_env({"PATH": "/bin"}) == {"PATH": "/bin", "USER": name, "LOGNAME": name}
    assert scrubbed_env({"USER": "ann"})["USER"] == "ann"


def test_ctrl_c_stops_the_project_and_removes_its_copy(lab, tmp_path):
    pidfile = lab["@pidfile"]
    pidfile.unlink(missing_ok=True)
    script = (
        "import sys\nfrom pathlib import Path\n"
        "from miner.select.smoke import SmokeOptions, SmokeTarget, smoke\n"
        f"target = SmokeTarget('lab/forever', 1, '0' * 40, Path({str(lab['lab/forever'])!r}), "
        "('{python}', 'train.py'))\n"
        f"smoke(target, SmokeOptions(out_dir=Path({str(tmp_path / 'smoke')!r}), timeout=120))\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path), "UV_OFFLINE": "1",
           "UV_CACHE_DIR": str(tmp_path / "uv-cache")}  # fmt: skip
    # A Ctrl-C handled earlier in this test process leaves SIGINT ignored (as `miner` does after
    # an interrupt), and an ignored SIGINT is inherited: the child gets the terminal's default.
    default = lambda: signal.signal(signal.SIGINT, signal.SIG_DFL)  # noqa: E731
    proc = subprocess.Popen([sys.executable, "-c", script], env=env, stderr=subprocess.PIPE,
                            preexec_fn=default)  # fmt: skip
    deadline = time.monotonic() + 60
    while not pidfile.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert pidfile.exists(), "the project never started"
    time.sleep(0.2)
    proc.send_signal(signal.SIGINT)
    assert proc.wait(timeout=30) != 0
    assert b"KeyboardInterrupt" in proc.stderr.read()  # type: ignore[union-attr]
    worker = int(pidfile.read_text())
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and _alive(worker):
        time.sleep(0.05)
    assert not _alive(worker)
    assert not list(tmp_path.glob("miner-smoke-*")), "the throw-away copy was left behind"
