"""Stand-in data and the CPU shim end to end: a smoke run that passes on stand-in data says so,
the shim keeps `.cuda()` on the CPU, the experiment runner refuses stand-in data unless asked,
and `--data` copies a data set into the run's copy."""

from __future__ import annotations

import glob
import os
import subprocess
import sys
from pathlib import Path

import pytest
from standin_runner import importable, need, run_hooked

from miner.errors import ConfigError, ExperimentError
from miner.experiment.run import run_experiment
from miner.report.smoke import outcome_table, project_table, smoke_label
from miner.select.manifest import Manifest, run_spec
from miner.select.smoke import SmokeOptions, SmokeTarget, smoke
from miner.select.standins.assists import (
    HOOK_DIR,
    Assists,
    ServedData,
    outcome_label,
    stand_in_refusal,
)
from miner.select.standins.mounts import DataMount

SHIM = """
import io, json, torch
@torch.jit.script
def scripted(x):  # TorchScript still compiles a function that calls a wrapped factory
    return x + torch.zeros(3)
assert scripted(torch.ones(3)).tolist() == [1.0, 1.0, 1.0]
model = torch.nn.Linear(4, 2).cuda()
x = torch.randn(8, 4).cuda(non_blocking=True)
y = torch.zeros(8, dtype=torch.long, device="cuda")
device = torch.device("cuda:0")
model = model.to(device)
loss = torch.nn.functional.cross_entropy(model(x.to("cuda")), y.to(device))
loss.backward()
torch.save(model.state_dict(), "m.pt")
state = torch.load("m.pt", map_location="cuda:0")
torch.cuda.set_device(0)
print("RESULT " + json.dumps({"loss": float(loss), "device": str(x.device),
                              "available": torch.cuda.is_available(), "keys": sorted(state)}))
"""


def test_the_cpu_shim_keeps_hard_coded_cuda_on_the_cpu(tmp_path):
    need("torch")
    result, assists, output = run_hooked(SHIM, tmp_path, stand_ins=False, cpu_shim=True)
    assert result["_exit"] == 0, output
    assert result["device"] == "cpu" and result["available"] is False
    assert result["keys"] == ["bias", "weight"] and result["loss"] > 0
    kinds = dict(assists.shim)
    assert kinds["Module.cuda()"] == 1 and kinds["Tensor.cuda()"] == 1
    assert kinds["torch.zeros(device=cuda)"] == 1 and kinds["torch.load(map_location=cpu)"] == 1
    assert kinds["Tensor.to(cuda)"] == 2 and kinds["Module.to(cuda)"] == 1
    assert assists.labels == ("cpu shim",)


COMPILED = """
import json, torch
@torch.compile
def square(x):
    return x * x
@torch.compile(mode="max-autotune")
def double(x):
    return x + x
model = torch.compile(torch.nn.Linear(4, 2).cuda(), mode="max-autotune")
other = torch.nn.Linear(2, 1).cuda()
other.compile(mode="max-autotune")
out = other(model(double(square(torch.ones(3, 4)))))
value = square(torch.full((1,), 3.0)).item()
kind = type(model).__name__
print("RESULT " + json.dumps({"kind": kind, "value": value, "shape": list(out.shape)}))
"""


def test_the_cpu_shim_leaves_a_compiled_model_eager(tmp_path):
    need("torch")
    result, assists, output = run_hooked(COMPILED, tmp_path, stand_ins=False, cpu_shim=True)
    assert result == {"kind": "Linear", "value": 9.0, "shape": [3, 1], "_exit": 0}, output
    assert dict(assists.shim)["torch.compile (eager on the CPU)"] == 4


HALVED = """
import json, torch
model = torch.nn.Conv2d(3, 4, 3).cuda().half()
x = torch.randn(2, 3, 8, 8).cuda().half()
y = torch.ones(2, dtype=torch.long).to(torch.float16)
z = torch.randn(2).to("cuda", torch.float16, non_blocking=True)
w = torch.randn(2).to(dtype=torch.half)
loss = model(x).sum()
loss.backward()
kinds = [str(t.dtype) for t in (model.weight, x, y, z, w)]
print("RESULT " + json.dumps({"kinds": kinds, "grad": model.weight.grad is not None}))
"""


def test_the_cpu_shim_keeps_half_precision_asked_by_hand_in_float32(tmp_path):
    need("torch")
    result, assists, output = run_hooked(HALVED, tmp_path, stand_ins=False, cpu_shim=True)
    assert result == {"kinds": ["torch.float32"] * 5, "grad": True, "_exit": 0}, output
    kinds = dict(assists.shim)
    assert kinds["Module.half() as float32"] == 1 and kinds["Tensor.half() as float32"] == 1
    assert kinds["Tensor.to(float16) as float32"] == 3


PROFILED = """
import json
@profile
def train_step(x):
    return x * 2
@profile(precision=4)
def evaluate(x):
    return x + 1
print("RESULT " + json.dumps({"value": evaluate(train_step(3))}))
"""


def test_a_script_decorated_for_a_profiler_runs_plainly_and_says_so(tmp_path):
    result, assists, output = run_hooked(PROFILED, tmp_path)
    assert result == {"value": 7, "_exit": 0}, output
    assert assists.builtins == (("profile", 2),)
    assert (
        "builtin: profile (a profiler's decorator, left as the function) x2" in assists.evidence()
    )
    assert assists.labels == ()  # nothing stood in for data, weights or a GPU
    (tmp_path / "plain").mkdir()
    plain, _, output = run_hooked(PROFILED, tmp_path / "plain", stand_ins=False)
    assert plain["_exit"] != 0 and "name 'profile' is not defined" in output


# Just enough of an old PyTorch for Python 2.7 (no wheel of it can be installed offline): a
# module that reaches for a driver the moment it is asked for a GPU.
FAKE_TORCH = {
    "torch/__init__.py": (
        "from . import cuda, nn, jit\n"
        "float16 = 'float16'\n"
        "class Tensor(object):\n"
        "    def cuda(self, *a, **k):\n"
        "        raise AssertionError('Found no NVIDIA driver on your system.')\n"
        "    def half(self):\n        return self\n"
        # a builtin method, as torch 0.x's C methods are: Python 2 has no `__module__` for it
        "    to = object.__sizeof__\n"
        "def load(f, map_location=None):\n    return {}\n"
    ),
    "torch/cuda.py": "def is_available():\n    return False\n"
    "def set_device(i):\n    raise AssertionError('no driver')\n"
    "def synchronize():\n    raise AssertionError('no driver')\n",
    "torch/jit.py": "",
    "torch/nn.py": (
        "class Module(object):\n"
        "    def cuda(self, *a, **k):\n"
        "        raise AssertionError('Found no NVIDIA driver on your system.')\n"
        "    def to(self, *a, **k):\n        return self\n"
        "    def half(self):\n        return self\n"
    ),
}
PYTHON2_CUDA = """
import json, sys, torch
net = torch.nn.Module().cuda()
x = torch.Tensor().cuda()
torch.cuda.set_device(0)
@profile
def step():
    return 1
print("RESULT " + json.dumps({"python": sys.version_info[0], "step": step()}))
"""


def python_2() -> str:
    """A Python 2.7 interpreter (the test is skipped without one)."""
    found = sorted(glob.glob(os.path.expanduser("~/.pyenv/versions/2.7.*/bin/python")))
    if not found:
        pytest.skip("needs a Python 2.7 under ~/.pyenv/versions")
    return found[-1]


def write_tree(folder: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_text(text, encoding="utf-8")


def test_the_cpu_shim_keeps_hard_coded_cuda_on_the_cpu_on_python_2(tmp_path):
    python = python_2()
    for folder in (tmp_path, tmp_path / "plain"):
        write_tree(folder / "work", FAKE_TORCH)
    result, assists, output = run_hooked(PYTHON2_CUDA, tmp_path, cpu_shim=True, python=python)
    assert result == {"python": 2, "step": 1, "_exit": 0}, output
    kinds = dict(assists.shim)
    assert kinds["Module.cuda()"] == 1 and kinds["Tensor.cuda()"] == 1
    assert kinds["torch.cuda.set_device()"] == 1 and assists.builtins == (("profile", 1),)
    plain, _, output = run_hooked(PYTHON2_CUDA, tmp_path / "plain", python=python)
    assert plain["_exit"] != 0 and "NVIDIA driver" in output


# `import input_data` in a package, on Python 2: `pkg.input_data` is tried first, and the copy at
# the top level only when no finder takes that name.
RELATIVE = {
    "pkg/__init__.py": "",
    "pkg/train.py": "import input_data\n",
    "input_data.py": "def read_data_sets(train_dir, one_hot=False):\n    raise IOError('no')\n",
}
PYTHON2_RELATIVE = """
import json, pkg.train
patched = getattr(pkg.train.input_data.read_data_sets, "_miner_standin", False)
print("RESULT " + json.dumps({"patched": patched}))
"""


def test_python_2_still_falls_back_from_an_implicit_relative_import(tmp_path):
    write_tree(tmp_path / "work", RELATIVE)
    result, assists, output = run_hooked(PYTHON2_RELATIVE, tmp_path, python=python_2())
    assert result == {"patched": True, "_exit": 0}, output
    assert assists.errors == ()


# Every hook can be reached on Python 2: the stand-ins of torchvision, Keras, TensorFlow's MNIST,
# scikit-learn and pretrained weights, the CPU shim's second level, and the Hub module (Hugging
# Face's `datasets` needs Python 3, but tensorflow_datasets 1.x ran on 2.7, and a project's own
# `datasets` package is handed to it).
COMPILE = """
import os, py_compile, sys
for path in sys.argv[2:]:
    try:
        py_compile.compile(path, os.path.join(sys.argv[1], os.path.basename(path) + "c"),
                           doraise=True)
    except py_compile.PyCompileError as exc:
        print(exc.msg)
"""


def test_every_hook_compiles_on_python_2(tmp_path):
    hooks = sorted(str(path) for path in HOOK_DIR.glob("*.py"))
    assert len(hooks) >= 10
    argv = [python_2(), "-c", COMPILE, str(tmp_path), *hooks]
    done = subprocess.run(argv, capture_output=True, text=True, check=False)
    assert done.returncode == 0 and done.stdout == "", done.stdout + done.stderr


# torchvision 0.2.x, as Python 2 projects have it: no VisionDataset, the data in
# `train_data`/`train_labels`, and a download that fails as Python 2's urllib does offline.
FAKE_TORCHVISION = {
    "torch/utils/__init__.py": "",
    "torch/utils/data.py": "class Dataset(object):\n    pass\n",
    "torchvision/__init__.py": "from torchvision import datasets\n",
    "torchvision/datasets/__init__.py": "from .cifar import CIFAR10, CIFAR100\n",
    "torchvision/datasets/cifar.py": (
        "import os\n"
        "import torch.utils.data as data\n"
        "class CIFAR10(data.Dataset):\n"
        "    url = 'https://www.cs.toronto.edu/~kriz/cifar-10-python.tar.gz'\n"
        "    def __init__(self, root, train=True, transform=None, target_transform=None,\n"
        "                 download=False):\n"
        "        self.root = os.path.expanduser(root)\n"
        "        self.transform, self.target_transform = transform, target_transform\n"
        "        self.train = train\n"
        "        if download:\n"
        "            self.download()\n"
        "        raise RuntimeError('Dataset not found or corrupted.')\n"
        "    def __getitem__(self, index):\n"
        "        if self.train:\n"
        "            return self.train_data[index], self.train_labels[index]\n"
        "        return self.test_data[index], self.test_labels[index]\n"
        "    def __len__(self):\n"
        "        return len(self.train_data if self.train else self.test_data)\n"
        "    def download(self):\n"
        "        raise IOError('[Errno socket error] [Errno -3] Temporary failure in name '\n"
        "                      'resolution')\n"
        "class CIFAR100(CIFAR10):\n"
        "    pass\n"
    ),
}
PYTHON2_CIFAR = """
import json, sys
import torchvision
train = torchvision.datasets.CIFAR10("./data", train=True, download=True)
test = torchvision.datasets.CIFAR10(root="./data", train=False, download=True)
image, label = train[0]
print("RESULT " + json.dumps({"python": sys.version_info[0], "sizes": [len(train), len(test)],
                              "image": list(image.shape), "labels": sorted(set(train.train_labels)),
                              "root": train.root}))
"""


def test_torchvision_0_2_data_sets_get_stand_ins_on_python_2(tmp_path):
    python = python_2()
    if not importable("numpy", python):
        pytest.skip(
            f"numpy is not installed for {python}: the stand-ins draw their data with it, and "
            "this test installs nothing (no network)"
        )
    for folder in (tmp_path, tmp_path / "plain"):
        write_tree(folder / "work", {**FAKE_TORCH, **FAKE_TORCHVISION})
    result, assists, output = run_hooked(PYTHON2_CIFAR, tmp_path, python=python)
    assert result == {
        "python": 2, "sizes": [50000, 10000], "image": [32, 32, 3], "labels": list(range(10)),
        "root": "./data", "_exit": 0,
    }, output  # fmt: skip
    assert [(s.loader, s.split) for s in assists.served] == [
        ("torchvision.datasets.CIFAR10", "train"),
        ("torchvision.datasets.CIFAR10", "test"),
    ], output
    train = assists.served[0]
    assert train.arrays == (("data", (50000, 32, 32, 3), "uint8"), ("targets", (50000,), "int"))
    assert train.classes == 10 and "Errno socket error" in train.reason
    assert assists.errors == () and assists.labels == ("stand-in data",)
    plain, _, output = run_hooked(PYTHON2_CIFAR, tmp_path / "plain", stand_ins=False, python=python)
    assert plain["_exit"] != 0 and "Errno socket error" in output


NCCL_GROUP = """
import json, socket, torch, torch.distributed as dist
probe = socket.socket(); probe.bind(("127.0.0.1", 0)); port = probe.getsockname()[1]; probe.close()
dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
total = torch.ones(3)
dist.all_reduce(total)
print("RESULT " + json.dumps({"backend": dist.get_backend(), "sum": float(total.sum())}))
"""


def test_the_cpu_shim_forms_a_process_group_asked_of_nccl_over_gloo(tmp_path):
    need("torch")
    result, assists, output = run_hooked(NCCL_GROUP, tmp_path, stand_ins=False, cpu_shim=True)
    assert result == {"backend": "gloo", "sum": 3.0, "_exit": 0}, output
    assert dict(assists.shim)["init_process_group(nccl)"] == 1


DDP_ON_GPU = """
import json, socket, torch, torch.distributed as dist
probe = socket.socket(); probe.bind(("127.0.0.1", 0)); port = probe.getsockname()[1]; probe.close()
dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
model = torch.nn.Linear(4, 2).cuda()
model = torch.nn.parallel.DistributedDataParallel(model, device_ids=[0], output_device=0)
loss = model(torch.ones(3, 4).cuda()).sum()
loss.backward()
print("RESULT " + json.dumps({"grad": model.module.weight.grad is not None}))
"""


def test_the_cpu_shim_wraps_a_model_kept_on_the_cpu_without_device_ids(tmp_path):
    need("torch")
    result, assists, output = run_hooked(DDP_ON_GPU, tmp_path, stand_ins=False, cpu_shim=True)
    assert result == {"grad": True, "_exit": 0}, output
    assert dict(assists.shim)["DistributedDataParallel(device_ids) on the CPU"] == 1


SYNC_BN = """
import json, socket, torch, torch.distributed as dist
probe = socket.socket(); probe.bind(("127.0.0.1", 0)); port = probe.getsockname()[1]; probe.close()
dist.init_process_group("nccl", init_method=f"tcp://127.0.0.1:{port}", rank=0, world_size=1)
net = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.BatchNorm2d(4), torch.nn.ReLU())
net = torch.nn.SyncBatchNorm.convert_sync_batchnorm(net).cuda()
direct = torch.nn.Sequential(torch.nn.Linear(4, 4), torch.nn.SyncBatchNorm(4)).cuda()
models = [torch.nn.parallel.DistributedDataParallel(m, device_ids=[0]) for m in (net, direct)]
loss = models[0](torch.ones(2, 3, 8, 8).cuda()).sum() + models[1](torch.ones(5, 4).cuda()).sum()
loss.backward()
kinds = sorted({type(m).__name__ for m in models[1].module.modules()})
print("RESULT " + json.dumps({"grad": net[0].weight.grad is not None, "kinds": kinds}))
"""


def test_the_cpu_shim_runs_synchronised_batch_norm_as_batch_norm(tmp_path):
    need("torch")
    result, assists, output = run_hooked(SYNC_BN, tmp_path, stand_ins=False, cpu_shim=True)
    assert result.get("_exit") == 0 and result["grad"], output
    assert "SyncBatchNorm" not in result["kinds"]
    assert dict(assists.shim)["SyncBatchNorm as BatchNorm on the CPU"] >= 1


ASKS_FOR_A_GPU = """
import json, torch
assert torch.cuda.is_available(), "this code trains on a GPU"
assert torch.cuda.device_count() >= 1
props = torch.cuda.get_device_properties(0)
model = torch.nn.DataParallel(torch.nn.Conv2d(3, 4, 3)).cuda()
scaler = torch.cuda.amp.GradScaler()
optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
start.record()
with torch.cuda.amp.autocast():
    out = model(torch.randn(2, 3, 8, 8, device="cuda"))
loss = out.float().pow(2).mean()
scaler.scale(loss).backward()
scaler.step(optimiser)
scaler.update()
end.record()
torch.cuda.synchronize()
torch.cuda.manual_seed_all(0)
print("RESULT " + json.dumps({
    "name": torch.cuda.get_device_name(0), "capability": list(torch.cuda.get_device_capability()),
    "memory": torch.cuda.max_memory_allocated(), "total": props.total_memory > 0,
    "dtype": str(out.dtype), "device": str(out.device), "ms": start.elapsed_time(end) >= 0,
    "event_class": issubclass(torch.cuda.Event, getattr(torch._C, "_EventBase", object)),
}))
"""


def test_a_run_that_insists_on_a_gpu_is_shown_the_cpu_as_one(tmp_path):
    need("torch")
    claim = {"MINER_CPU_SHIM_CLAIM": "1"}
    result, assists, output = run_hooked(ASKS_FOR_A_GPU, tmp_path, stand_ins=False,
                                         cpu_shim=True, extra_env=claim)  # fmt: skip
    assert result["_exit"] == 0, output
    assert result["device"] == "cpu" and result["dtype"] == "torch.float32"
    assert result["capability"] == [0, 0] and result["memory"] == 0 and result["ms"]
    assert result["event_class"]  # torch._dynamo checks the device interface's classes
    kinds = dict(assists.shim)
    assert kinds["torch.cuda.is_available() claimed"] >= 1
    assert kinds["DataParallel(one CPU)"] == 1 and kinds["torch.cuda.amp.autocast(off)"] == 1
    assert kinds["torch.cuda.amp.GradScaler(disabled)"] == 1
    assert assists.labels == ("cpu shim",)


def test_without_the_claim_the_same_code_still_refuses(tmp_path):
    need("torch")
    result, assists, output = run_hooked(ASKS_FOR_A_GPU, tmp_path, stand_ins=False, cpu_shim=True)
    assert result["_exit"] != 0 and "this code trains on a GPU" in output


def test_without_the_shim_the_same_script_needs_a_gpu(tmp_path):
    need("torch")
    result, assists, output = run_hooked(SHIM, tmp_path, stand_ins=False, cpu_shim=False)
    assert result["_exit"] != 0
    assert "CUDA" in output and assists.shim == ()


DATA_STEP = """
import json, os, sys, time
import joblib, numpy
from sklearn.datasets._base import _pkl_filepath
os.makedirs("cache")
joblib.dump(numpy.ones((50, 9)), _pkl_filepath("cache", "cal_housing.pkz"))  # on disk already
from sklearn.datasets import fetch_california_housing, fetch_20newsgroups
housing = fetch_california_housing(data_home="cache")
try:
    fetch_20newsgroups(data_home="cache")  # not there and no network: no stand-in in a data step
except Exception as exc:
    print("RESULT " + json.dumps({"rows": len(housing.data), "news": type(exc).__name__}))
print("training", flush=True)
time.sleep(120)  # the hook ends the data step soon after the last loader
"""


def test_the_data_step_lets_loaders_fetch_and_ends_after_them(tmp_path):
    need("sklearn")
    step = {"MINER_STANDINS": "0", "MINER_STANDIN_FETCH": "1", "MINER_STANDIN_FETCH_GRACE": "1"}
    result, assists, output = run_hooked(DATA_STEP, tmp_path, extra_env=step, timeout=100)
    assert result["_exit"] == 0 and "miner: data step done" in output, output
    assert result["rows"] == 50 and result["news"] != "served"
    assert assists.fetched == ("sklearn.datasets.fetch_california_housing",)
    assert assists.served == () and assists.labels == ()


TRAIN = """
import sys
from sklearn.datasets import fetch_20newsgroups
from sklearn.feature_extraction.text import HashingVectorizer
from sklearn.linear_model import SGDClassifier
news = fetch_20newsgroups(subset="train", data_home="./cache")
X = HashingVectorizer(n_features=256).transform(news.data[:500])
model = SGDClassifier(loss="log_loss")
for epoch in range(2):
    model.partial_fit(X, news.target[:500], classes=list(range(20)))
    print(f"epoch {epoch} accuracy {model.score(X, news.target[:500]):.3f}", flush=True)
"""


def _project(tmp_path: Path, script: str, extra: dict[str, str] | None = None) -> Path:
    checkout = tmp_path / "repo"
    checkout.mkdir(parents=True)
    (checkout / "train.py").write_text(script, encoding="utf-8")
    for rel, text in (extra or {}).items():
        (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
        (checkout / rel).write_text(text, encoding="utf-8")
    return checkout


def _smoke(tmp_path: Path, checkout: Path, args: tuple[str, ...] = (), **options: object):
    # The host interpreter runs the script (it has scikit-learn); the smoke run's own fresh
    # environment stays empty, so no index is needed.
    command = (sys.executable, "train.py", *args)
    target = SmokeTarget("lab/standin", 1, "0" * 40, checkout, command)
    env = {**os.environ, "UV_OFFLINE": "1", "UV_CACHE_DIR": str(tmp_path / "uv")}
    env.update(dict.fromkeys(("HTTP_PROXY", "HTTPS_PROXY", "https_proxy"), "http://127.0.0.1:9"))
    settings = SmokeOptions(out_dir=tmp_path / "smoke", timeout=120, env=env, **options)
    return smoke(target, settings)


def test_a_smoke_run_on_stand_in_data_says_so(tmp_path):
    need("sklearn")
    result = _smoke(tmp_path, _project(tmp_path, TRAIN))
    assert result.outcome == "ok" and result.ok
    assert result.label == "ok (stand-in data)"
    assert result.assists == ("stand-in data",)
    line = result.assist_evidence[0]
    assert line.startswith("stand-in: sklearn.datasets.fetch_20newsgroups (train): data 11314")
    assert "20 classes" in line
    row = result.as_row()
    assert row["assists"] == "stand-in data" and smoke_label(row) == "ok (stand-in data)"
    assert result.as_dict()["assist_evidence"] == list(result.assist_evidence)


GPU_CHECKED = """import sys, torch
assert torch.cuda.is_available()
assert int(sys.argv[sys.argv.index("--gpus") + 1]) <= torch.cuda.device_count()
model = torch.nn.Linear(2, 1).cuda()
optimiser = torch.optim.SGD(model.parameters(), lr=0.1)
for step in range(3):
    loss = model(torch.ones(4, 2).cuda()).pow(2).mean()
    optimiser.zero_grad(); loss.backward(); optimiser.step()
    print(f"step {step} loss {loss.item():.4f}")
"""


def test_a_shimmed_run_that_asserts_a_gpu_is_run_again_with_the_cpu_shown_as_one(tmp_path):
    need("torch")
    result = _smoke(tmp_path, _project(tmp_path, GPU_CHECKED), ("--gpus", "4"), cpu_shim=True)
    assert result.outcome == "ok" and result.label == "ok (cpu shim)", result
    note = next(n for n in result.notes if n.startswith("cpu shim: the CPU shown as a GPU"))
    assert "assert torch.cuda.is_available()" in note
    assert any("torch.cuda.is_available() claimed" in line for line in result.assist_evidence)
    assert "cpu shim: one device asked for: --gpus 4 -> 1" in result.notes
    assert result.command.endswith("train.py --gpus 1")
    plain = _project(tmp_path / "plain", GPU_CHECKED)
    unshimmed = _smoke(tmp_path / "plain", plain, ("--gpus", "4"))
    assert unshimmed.outcome == "needs_gpu"


def test_stand_ins_can_be_turned_off(tmp_path):
    need("sklearn")
    result = _smoke(tmp_path, _project(tmp_path, TRAIN), stand_in_data=False)
    assert result.outcome == "data" and result.assists == ()


def test_data_given_with_data_is_copied_where_the_project_reads_it(tmp_path):
    script = "print('epoch 1 loss', len(open('data/train/rows.csv').read().split()))\n"
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "rows.csv").write_text("1\n2\n3\n", encoding="utf-8")
    checkout = _project(tmp_path, script, {"data/train/README": "put the data here\n"})
    mount = DataMount.parse(f"{mine}:data/train")
    result = _smoke(tmp_path, checkout, data=(mount,))
    assert result.outcome == "ok", result
    assert "epoch 1 loss 3" in result.evidence.text and result.assists == ()
    assert f"--data {mine} copied to data/train" in result.notes
    assert not (checkout / "data" / "train" / "rows.csv").exists()  # the clone is untouched


def test_a_data_mount_must_exist_and_stay_inside_the_checkout(tmp_path):
    with pytest.raises(ConfigError, match="does not exist"):
        DataMount.parse(str(tmp_path / "nowhere"))
    with pytest.raises(ConfigError, match="inside the checkout"):
        DataMount.parse(f"{tmp_path}:../up")
    assert DataMount.parse(str(tmp_path)).dest == "data"


def _document(assists: list[str]) -> dict:
    evidence = ["stand-in: torchvision.datasets.MNIST (train): data 60000x28x28 torch.uint8"]
    return {
        "name": "lab/standin",
        "run": {"command": ["{python}", "-c", "print('accuracy 0.5')"], "workdir": "run_dir"},
        "smoke": {"outcome": "ok", "assists": assists, "assist_evidence": evidence},
    }


def test_the_experiment_runner_refuses_stand_in_data_unless_asked(tmp_path):
    document = _document(["stand-in data"])
    manifest = Manifest("lab/standin", run_spec(document["run"], "run"), document)
    with pytest.raises(ExperimentError, match="only on stand-in data .*MNIST.*--stand-in-data"):
        next(run_experiment(manifest, tmp_path / "exp", (1,), ("impl",), 1))
    events = list(run_experiment(manifest, tmp_path / "exp", (1,), ("impl",), 1,
                                 stand_in_data=True))  # fmt: skip
    assert [e.record.status for e in events] == ["ok"]
    assert stand_in_refusal(_document(["cpu shim"])) is None
    assert stand_in_refusal({**_document(["stand-in data"]), "smoke": {"outcome": "data"}}) is None


def test_the_report_shows_assisted_passes_apart():
    base = {
        "repo_id": 1, "commit_sha": "0" * 40, "rule": "smoke.ok.progress", "evidence_path":
        "train.log", "evidence_line": 3, "evidence_text": "epoch 1 loss 0.3", "network_cut": 1,
        "timeout": 60.0, "seconds": 1.0, "install_seconds": 0.5, "train_seconds": 0.5,
    }  # fmt: skip
    rows = [
        {**base, "full_name": "a/plain", "outcome": "ok", "assists": "", "assist_evidence": ""},
        {**base, "full_name": "b/standin", "outcome": "ok", "assists": "stand-in data",
         "assist_evidence": "stand-in: keras.datasets.mnist.load_data (train+test): x_train"},
        {**base, "full_name": "c/shim", "outcome": "ok", "assists": "cpu shim",
         "assist_evidence": "cpu shim: Module.cuda() x1"},
        {**base, "full_name": "d/old", "outcome": "data"},  # stored before assists existed
    ]  # fmt: skip
    shares = outcome_table(rows).frame.set_index("outcome")["projects"].to_dict()
    assert shares["ok"] == 1 and shares["ok (stand-in data)"] == 1 and shares["ok (cpu shim)"] == 1
    assert shares["data"] == 1 and "ok (stand-in data, cpu shim)" not in shares
    table = project_table(rows).frame
    standin = table[table["repository"] == "b/standin"].iloc[0]
    assert standin["outcome"] == "ok (stand-in data)"
    assert "keras.datasets.mnist.load_data" in standin["evidence"]


def test_labels_and_evidence_lines():
    arrays = (("data", (60000, 28, 28), "torch.uint8"),)
    served = ServedData("torchvision.datasets.MNIST", "train", arrays, 10, "RuntimeError: x")
    assists = Assists(served=(served,), shim=(("Tensor.cuda()", 3),))
    assert assists.labels == ("stand-in data", "cpu shim")
    assert outcome_label("ok", assists.labels) == "ok (stand-in data, cpu shim)"
    assert outcome_label("runtime", assists.labels) == "runtime"
    assert assists.evidence() == (
        "stand-in: torchvision.datasets.MNIST (train): data 60000x28x28 torch.uint8; 10 classes "
        "[real: RuntimeError: x]",
        "cpu shim: Tensor.cuda() x3",
    )


TORCH_WEIGHTS = """
import json, torch
from torch.utils import model_zoo
url = "https://download.pytorch.org/models/resnet18-f37072fd.pth"
model = torch.nn.Linear(4, 2)
before = model.weight.detach().clone()
model.load_state_dict(torch.hub.load_state_dict_from_url(url))
own = model.state_dict()  # the common partial load: keep the keys the model has
own.update({k: v for k, v in model_zoo.load_url(url).items() if k in own})
model.load_state_dict(own)
print("RESULT " + json.dumps({"kept": bool(torch.equal(before, model.weight))}))
"""


def test_a_pretrained_checkpoint_out_of_reach_leaves_the_random_initialisation(tmp_path):
    need("torch")
    result, assists, output = run_hooked(TORCH_WEIGHTS, tmp_path)
    assert result == {"kept": True, "_exit": 0}, output
    assert assists.labels == ("stand-in weights",)
    assert assists.weights[0].startswith(
        "torch.hub.load_state_dict_from_url: https://download.pytorch.org/models/resnet18"
    )
    assert "real: " in assists.weights[0] and not assists.served


CACHED_WEIGHTS = """
import json, os, torch
from torch.hub import download_url_to_file
url = "https://s3.amazonaws.com/models/vgg16_reducedfc.pth"
cached = os.path.join(os.path.expanduser("~"), ".torch", "vgg16_reducedfc.pth")
os.makedirs(os.path.dirname(cached), exist_ok=True)
download_url_to_file(url, cached, None, progress=True)  # a toolbox's own cache_url
model = torch.nn.Linear(4, 2)
before = model.weight.detach().clone()
model.load_state_dict(torch.load(cached, map_location="cpu"))
try:
    download_url_to_file("https://example.org/data.zip", cached + ".zip")
    other = "downloaded"
except OSError:
    other = "refused"
print("RESULT " + json.dumps({"kept": bool(torch.equal(before, model.weight)), "other": other}))
"""


def test_a_checkpoint_a_toolbox_caches_itself_stands_in_as_random_weights(tmp_path):
    need("torch")
    result, assists, output = run_hooked(CACHED_WEIGHTS, tmp_path)
    assert result == {"kept": True, "other": "refused", "_exit": 0}, output
    assert assists.labels == ("stand-in weights",)
    assert assists.weights[0].startswith(
        "torch.hub.download_url_to_file: https://s3.amazonaws.com/models/vgg16_reducedfc.pth"
    )


KERAS_APPLICATION = """
def MobileNetV2(input_shape=None, alpha=1.0, include_top=True, weights="imagenet"):
    if weights == "imagenet":
        raise Exception("URL fetch failure on https://storage.googleapis.com/tensorflow/"
                        "keras-applications/mobilenet_v2/x.h5: None -- [Errno -3] Temporary "
                        "failure in name resolution")
    if weights is not None:
        raise OSError("Unable to open file (unable to open file: name = '%s')" % weights)
    return {"alpha": alpha, "weights": weights}
"""


def test_a_keras_application_without_its_imagenet_weights_is_built_untrained(tmp_path):
    library = tmp_path / "work" / "keras" / "applications"  # beside the script: importable
    library.mkdir(parents=True)
    for folder in (library.parent, library):
        (folder / "__init__.py").write_text("")
    (library / "mobilenet_v2.py").write_text(KERAS_APPLICATION)
    script = (
        "import json\nfrom keras.applications.mobilenet_v2 import MobileNetV2\n"
        "built = [MobileNetV2(alpha=0.5), MobileNetV2(None, 0.75, False, 'imagenet')]\n"
        "try:\n    MobileNetV2(weights='mine.h5')\nexcept OSError as exc:\n"
        "    built.append(type(exc).__name__)\n"
        "print('RESULT ' + json.dumps({'built': built}))\n"
    )
    result, assists, output = run_hooked(script, tmp_path)
    assert result["built"] == [
        {"alpha": 0.5, "weights": None},
        {"alpha": 0.75, "weights": None},
        "OSError",
    ], output
    assert assists.labels == ("stand-in weights",) and len(assists.weights) == 1
    assert assists.weights[0].startswith(
        "keras.applications.mobilenet_v2.MobileNetV2: keras.applications.mobilenet_v2.MobileNetV2"
        "(weights='imagenet')"
    )
