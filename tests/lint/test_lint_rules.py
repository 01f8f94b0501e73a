"""Each lint code on a fixture project: fires when its requirement is missing, silent otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest
from lint_projects import COMPLETE_README, TRAIN, write_project

from miner.lint import RULES, LintOptions, lint
from miner.lint.rules import RULE_BY_CODE
from miner.lint.shipped_data import environment_data

MAIN = "if __name__ == '__main__':\n    pass\n"  # a script: run, so its imports are needed


def codes(root: Path) -> list[str]:
    """Every code's findings, opt-in codes too."""
    return [f.code for f in lint(root, LintOptions(select=("MNR",))).findings]


def _kind(root: Path, files: dict[str, str | None]) -> str:
    """The kind of project lint sees in `files` written at `root`."""
    return lint(write_project(root, files)).kind


def test_a_project_that_states_everything_is_silent(tmp_path: Path) -> None:
    assert lint(write_project(tmp_path / "p")).findings == ()


def test_gpu_code_without_a_stated_gpu(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("Trained on one NVIDIA RTX 3090 (24 GB)", "Trained")
    launcher = "python -m torch.distributed.launch --nproc_per_node=8 train.py --fp16\n"
    root = write_project(tmp_path / "p", {"README.md": readme, "scripts/run.sh": launcher})
    (finding,) = [f for f in lint(root).findings if f.code == "MNR101"]
    assert finding.path == "README.md"
    assert "8 GPUs (from the launcher)" in finding.fix and "batch size 64" in finding.fix
    assert any(e.path == "train.py" and "cuda" in e.text for e in finding.evidence)
    assert any(e.path == "scripts/run.sh" for e in finding.evidence)


def test_cpu_only_code_needs_no_gpu_statement(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace(
        "Trained on one NVIDIA RTX 3090 (24 GB)", "Trained on a laptop"
    )
    train = TRAIN.replace('"cuda" if torch.cuda.is_available() else "cpu"', '"cpu"')
    root = write_project(tmp_path / "p", {"README.md": readme, "train.py": train})
    assert "MNR101" not in codes(root)


def test_a_cpu_claim_contradicted_by_hard_coded_cuda(tmp_path: Path) -> None:
    readme = COMPLETE_README + "\nNo GPU required: it trains on a CPU in minutes.\n"
    hard = TRAIN.replace(
        '    device = "cuda" if torch.cuda.is_available() else "cpu"\n', ""
    ).replace(".to(device)", ".cuda()")
    root = write_project(tmp_path / "p", {"README.md": readme, "train.py": hard})
    (finding,) = [f for f in lint(root).findings if f.code == "MNR102"]
    assert finding.path == "train.py" and "cuda()" in finding.evidence[0].text
    assert finding.evidence[1].path == "README.md"
    # the same claim over code with a CPU fallback is no contradiction
    assert "MNR102" not in codes(write_project(tmp_path / "q", {"README.md": readme}))
    # and hard-coded CUDA without the claim is left to MNR101
    assert "MNR102" not in codes(write_project(tmp_path / "r", {"train.py": hard}))
    # `.cuda()` only after the code tests a GPU switch (`if args.gpu:`) has a CPU path
    switch = hard.replace("    model = Net().cuda()", "    model = Net()\n    if args.gpu:\n"
                          "        model = model.cuda()")  # fmt: skip
    assert switch != hard
    guarded = {"README.md": readme, "train.py": switch}
    assert "MNR102" not in codes(write_project(tmp_path / "s", guarded))


def test_no_requirements_at_all(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- torch==2.1.0, see requirements.txt\n", "")
    root = write_project(tmp_path / "p", {"README.md": readme, "requirements.txt": None})
    assert "MNR201" in codes(root)
    assert "MNR201" not in codes(write_project(tmp_path / "q"))
    # a benchmark's environment names the framework by its short name and version
    timed = readme + "\n## Time Benchmark\n\nTF 1.0.1(native pip install), TF 1.1.0(from source)\n"
    files = {"README.md": timed, "requirements.txt": None,
             "train.py": "import tensorflow as tf\nx = tf.constant(1)\n" + MAIN}  # fmt: skip
    assert "MNR201" not in codes(write_project(tmp_path / "r", files))
    files["README.md"] = readme
    assert "MNR201" in codes(write_project(tmp_path / "s", files))


UNSTATED = COMPLETE_README.replace("- torch==2.1.0, see requirements.txt\n", "- numpy\n")


def test_framework_listed_without_a_version(tmp_path: Path) -> None:
    files = {"README.md": UNSTATED, "requirements.txt": "torch\nnumpy\n"}
    (finding,) = [f for f in lint(write_project(tmp_path / "p", files)).findings
                  if f.code == "MNR202"]  # fmt: skip
    assert (finding.path, finding.line) == ("requirements.txt", 1)
    assert "torch==<version>" in finding.fix and finding.evidence[0].text == "torch"
    # a lower bound records no version either
    files["requirements.txt"] = "torch>=1.8\nnumpy\n"
    (bound,) = [f for f in lint(write_project(tmp_path / "q", files)).findings
                if f.code == "MNR202"]  # fmt: skip
    assert "only a lower bound" in bound.message
    # the version stated in the docs ("tested with PyTorch 1.13") is a statement
    files["README.md"] = UNSTATED + "\nTested with PyTorch 1.13 on Ubuntu.\n"
    assert "MNR202" not in codes(write_project(tmp_path / "r", files))
    # ... anywhere the name is followed by its version, but not by a lower bound
    for n, said in enumerate(
        (
            "Python `3.10` and Pytorch `1.13.1`/`2.0.0` are used here.",
            "This repository includes PyTorch (v1.4) implementations.",
        )
    ):
        files["README.md"] = UNSTATED + f"\n{said}\n"
        assert "MNR202" not in codes(write_project(tmp_path / f"s{n}", files)), said
    for n, said in enumerate(("It needs PyTorch >= 1.3 and CUDA.", "Any PyTorch 1.3+ works.")):
        files["README.md"] = UNSTATED + f"\n{said}\n"
        assert "MNR202" in codes(write_project(tmp_path / f"b{n}", files)), said


def test_framework_missing_from_the_dependency_file(tmp_path: Path) -> None:
    files = {"README.md": UNSTATED, "requirements.txt": "numpy==1.26.0\n"}
    (finding,) = [f for f in lint(write_project(tmp_path / "p", files)).findings
                  if f.code == "MNR202"]  # fmt: skip
    assert "no dependency file lists it" in finding.message
    assert finding.evidence[0].text.startswith("import torch")
    assert finding.evidence[-1].text == "requirements.txt: no torch"


def test_framework_unpinned_reads_only_real_dependency_files(tmp_path: Path) -> None:
    files = {
        "README.md": UNSTATED, "requirements.txt": "torch==2.1.0\n",
        "Dockerfile": "FROM ubuntu:22.04\nRUN apt-get install -y python3-torch\n",
    }  # fmt: skip
    assert "MNR202" not in codes(write_project(tmp_path / "p", files))


def test_every_framework_the_code_imports_is_checked(tmp_path: Path) -> None:
    files = {
        "README.md": UNSTATED, "requirements.txt": "torch==2.1.0\n",
        "train.py": "import tb\n" + TRAIN,
        "tb.py": "import tensorflow as tf\nwriter = tf.summary.create_file_writer('logs')\n",
        "export.py": "def export(m):\n    import onnx\n    onnx.save(m, 'm.onnx')\n",
    }  # fmt: skip
    found = [f for f in lint(write_project(tmp_path / "p", files)).findings if f.code == "MNR202"]
    assert [f.message for f in found] == [
        "the code uses TensorFlow, but no dependency file lists it"
    ]


def test_a_second_framework_outside_what_training_runs_is_not_checked(tmp_path: Path) -> None:
    files = {
        "README.md": UNSTATED, "requirements.txt": "torch==2.1.0\n",
        "train.py": "import tb\n" + TRAIN,
        "tb.py": "import tensorflow as tf\nwriter = tf.summary.create_file_writer('logs')\n",
        # a data-set builder of a copied toolkit: a script, but nothing training runs leads to it
        "data/rec_builder.py": "import mxnet as mx\nimport numpy\n"
        "if __name__ == '__main__':\n    print(mx.nd.zeros(3))\n",
    }  # fmt: skip
    found = [f for f in lint(write_project(tmp_path / "p", files)).findings if f.code == "MNR202"]
    assert [f.message for f in found] == [
        "the code uses TensorFlow, but no dependency file lists it"
    ]


@pytest.mark.parametrize(
    ("pin", "line", "fires"),
    [
        ("torch==1.4.0", "model = torch.compile(model)", True),
        ("torch>=1.4,<1.9", "with torch.inference_mode():", True),
        ("torch==2.1.0", "model = torch.compile(model)", False),
        ("torch>=1.4", "model = torch.compile(model)", False),
        ("torch==1.4.0", "def compile(model):  # torch.compile( in a comment", False),
    ],
)
def test_framework_versions_that_lack_an_api_the_code_calls(
    tmp_path: Path, pin: str, line: str, fires: bool
) -> None:
    train = TRAIN.replace("    optimizer = torch.optim", f"    {line}\n    optimizer = torch.optim")
    train = train.replace(":\n    optimizer", ":\n        pass\n    optimizer")
    root = write_project(tmp_path / "p", {"requirements.txt": pin + "\n", "train.py": train})
    found = [f for f in lint(root).findings if f.code == "MNR203"]
    assert bool(found) is fires
    if fires:
        assert found[0].path == "train.py" and pin in found[0].message


def test_tensorflow_1_code_under_a_tensorflow_2_pin(tmp_path: Path) -> None:
    code = (
        "import tensorflow as tf\nx = tf.placeholder(tf.float32, [None, 4])\nsess = tf.Session()\n"
    )
    compat = "import tensorflow.compat.v1 as tf\nx = tf.placeholder(tf.float32, [None, 4])\n"
    for name, text, fires in (("v1", code, True), ("compat", compat, False)):
        root = write_project(
            tmp_path / name,
            {"requirements.txt": "tensorflow>=2.4\n", "train.py": None, "model.py": text},
        )
        assert ("MNR203" in codes(root)) is fires, name


def test_python_version(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "")
    assert "MNR204" in codes(write_project(tmp_path / "p", {"README.md": readme}))
    pyproject = '[project]\nname = "t"\nrequires-python = ">=3.9"\n'
    stated = write_project(tmp_path / "q", {"README.md": readme, "pyproject.toml": pyproject})
    assert "MNR204" not in codes(stated)
    conda = "name: t\ndependencies:\n  - python=3.8\n  - pytorch=1.7\n"
    env = write_project(tmp_path / "r", {"README.md": readme, "environment.yml": conda})
    assert "MNR204" not in codes(env)


def test_data_source_unstated(tmp_path: Path) -> None:
    readme = COMPLETE_README.split("## Data")[0] + "## Training\n\n    python train.py\n"
    root = write_project(tmp_path / "p", {"README.md": readme, "prepare_data.py": None})
    assert "MNR301" in codes(root)


def test_the_data_check_is_opt_in(tmp_path: Path) -> None:
    readme = COMPLETE_README.split("## Data")[0] + "## Training\n\n    python train.py\n"
    root = write_project(tmp_path / "p", {"README.md": readme, "prepare_data.py": None})
    default = lint(root)
    assert "MNR301" not in {f.code for f in default.findings} | set(default.checked)
    for select in (("MNR301",), ("MNR3",), ("MNR",)):
        chosen = lint(root, LintOptions(select=select))
        assert "MNR301" in {f.code for f in chosen.findings} and "MNR301" in chosen.checked
    ignored = lint(root, LintOptions(select=("MNR",), ignore=("MNR301",)))
    assert "MNR301" not in {f.code for f in ignored.findings}
    assert RULE_BY_CODE["MNR301"].opt_in and not RULE_BY_CODE["MNR401"].opt_in


def test_an_agent_that_learns_from_its_environment_needs_no_data_set(tmp_path: Path) -> None:
    readme = COMPLETE_README.split("## Data")[0] + "## Training\n\n    python train.py\n"
    agent = (
        "import torch\nimport game\n\ndef train(net, optimizer):\n"
        "    state = game.GameState()\n    for t in range(1000):\n"
        "        x_t1, r_t, terminal = state.frame_step(net.act())\n"
        "        loss = net.loss(x_t1, r_t)\n        loss.backward()\n        optimizer.step()\n"
    )  # fmt: skip
    root = write_project(tmp_path / "p", {"README.md": readme, "train.py": agent})
    assert "MNR301" not in codes(root)
    # an offline agent that steps its environment only to evaluate still reads a data set
    offline = agent.replace("import game", "import game, d4rl")
    assert environment_data({"train.py": offline}) is None
    assert environment_data({"train.py": agent}) is not None


def test_seed_never_set(tmp_path: Path) -> None:
    train = "\n".join(line for line in TRAIN.splitlines() if "seed(" not in line)
    (finding,) = [
        f
        for f in lint(write_project(tmp_path / "p", {"train.py": train})).findings
        if f.code == "MNR401"
    ]
    assert finding.path == "train.py" and "torch.manual_seed" in finding.fix


CPU_TRAIN = TRAIN.replace("    torch.set_num_threads(args.threads)\n", "").replace(
    '"cuda" if torch.cuda.is_available() else "cpu"', '"cpu"'
)
CPU_README = COMPLETE_README.replace(
    "Trained on one NVIDIA RTX 3090 (24 GB) in about ten minutes.",
    "Trained on a laptop CPU in about ten minutes.",
)


def test_mnr402_is_retired_and_its_thread_advice_is_in_mnr401s_fix(tmp_path: Path) -> None:
    unseeded = "\n".join(line for line in CPU_TRAIN.splitlines() if "seed(" not in line)
    root = write_project(tmp_path / "p", {"README.md": CPU_README, "train.py": unseeded})
    report = lint(root, LintOptions(select=("MNR4",)))
    assert [f.code for f in report.findings] == ["MNR401"]
    assert "MNR402" not in report.checked and RULE_BY_CODE["MNR402"].folded_into == "MNR401"
    assert "torch.set_num_threads and OMP_NUM_THREADS" in report.findings[0].fix
    # a config or option that names the retired code still parses
    assert lint(root, LintOptions(ignore=("MNR402",))).findings
    seeded = write_project(tmp_path / "q", {"README.md": CPU_README, "train.py": CPU_TRAIN})
    assert not lint(seeded, LintOptions(select=("MNR4",))).findings


def _seed_fix(root: Path) -> str:
    (finding,) = [f for f in lint(root).findings if f.code == "MNR401"]
    return finding.fix


GPU_UNSEEDED = "\n".join(
    line for line in TRAIN.splitlines() if "seed(" not in line and "set_num_threads" not in line
)


def test_threads_on_gpu_stay_out_of_the_seed_fix_unless_trained_on_cpu(tmp_path: Path) -> None:
    assert "thread" not in _seed_fix(write_project(tmp_path / "p", {"train.py": GPU_UNSEEDED}))
    files = {"README.md": CPU_README, "train.py": GPU_UNSEEDED}
    assert "thread count" in _seed_fix(write_project(tmp_path / "q", files))
    # CPU code, and the docs never say where the numbers came from: the code decides
    plain = CPU_README.replace("Trained on a laptop CPU", "Trained")
    unseeded = "\n".join(line for line in CPU_TRAIN.splitlines() if "seed(" not in line)
    found = write_project(tmp_path / "r", {"README.md": plain, "train.py": unseeded})
    assert "thread count" in _seed_fix(found)


@pytest.mark.parametrize(
    "sentence",
    [
        "For small inputs the model can be run on CPU.",
        "To run pre-trained models locally on CPU, remove the CUDA packages.",
        "This option is provided if you want to train the model on the CPU (NOT advised).",
        "Training takes a day on a V100; inference runs on CPU.",
        "Trained on 64 TPUv3 cores in about ten minutes.",
    ],
)
def test_a_cpu_sentence_that_is_no_cpu_training(tmp_path: Path, sentence: str) -> None:
    readme = COMPLETE_README + f"\n{sentence}\n"
    root = write_project(tmp_path / "p", {"README.md": readme, "train.py": GPU_UNSEEDED})
    assert "thread" not in _seed_fix(root)


def test_every_code_is_documented_and_reached_by_a_test() -> None:
    here = Path(__file__).read_text(encoding="utf-8")
    for rule in RULES:
        assert f'"{rule.code}"' in here, rule.code


def test_requirements_in_a_requirements_folder_are_a_dependency_file(tmp_path: Path) -> None:
    root = write_project(
        tmp_path / "p",
        {"requirements.txt": None, "requirements/base.txt": "torch>=2.0.1\nnumpy\n"},
    )
    assert "MNR202" not in codes(root)
    unpinned = write_project(
        tmp_path / "q",
        {
            "README.md": UNSTATED,
            "requirements.txt": None,
            "requirements/base.txt": "torch\nnumpy\n",
        },
    )
    (finding,) = [f for f in lint(unpinned).findings if f.code == "MNR202"]
    assert finding.path == "requirements/base.txt" and "is listed without" in finding.message


def test_deterministic_kernels_are_not_a_seed(tmp_path: Path) -> None:
    train = "\n".join(line for line in TRAIN.splitlines() if "seed(" not in line)
    kernels = train.replace(
        "    torch.set_num_threads",
        "    torch.backends.cudnn.deterministic = True\n    torch.set_num_threads",
    )
    assert "MNR401" in codes(write_project(tmp_path / "p", {"train.py": kernels}))
    seeded = kernels.replace(
        "    torch.set_num_threads",
        "    rng = np.random.RandomState(args.seed)\n    torch.set_num_threads",
    )
    assert "MNR401" not in codes(write_project(tmp_path / "q", {"train.py": seeded}))


def test_pip_list_output_is_not_a_requirements_file(tmp_path: Path) -> None:
    table = "Package    Version\n---------- -------\ntorch      2.1.0\nnumpy      1.26.0\n"
    root = write_project(tmp_path / "p", {"requirements.txt": table})
    (finding,) = [f for f in lint(root).findings if f.code == "MNR205"]
    assert (finding.path, finding.line) == ("requirements.txt", 1)
    assert "`pip list` output" in finding.message and "pip freeze" in finding.fix
    conda = write_project(tmp_path / "q", {"requirements.txt": "torch=2.1.0=py3.10_cuda12\n"})
    assert "conda package list" in next(
        f.message for f in lint(conda).findings if f.code == "MNR205"
    )
    freeze = "torch==2.1.0\nnumpy @ file:///tmp/build/80754af9/numpy_1/work\n-e .\n"
    local = write_project(tmp_path / "r", {"requirements.txt": freeze})
    assert [f.line for f in lint(local).findings if f.code == "MNR205"] == [2]
    assert "MNR205" not in codes(write_project(tmp_path / "s"))
    commented = "torch==2.1.0\n# causal-conv1d @ file:///home/me/causal_conv1d-1.0.0.whl\n"
    assert "MNR205" not in codes(write_project(tmp_path / "t", {"requirements.txt": commented}))


def test_an_open_range_that_admits_a_major_release_the_code_cannot_run_on(tmp_path: Path) -> None:
    tf1 = "import tensorflow as tf\nx = tf.placeholder(tf.float32, [None, 4])\n"
    files = {"requirements.txt": "tensorflow>=1.4\n", "train.py": None, "model.py": tf1}
    (finding,) = [f for f in lint(write_project(tmp_path / "p", files)).findings
                  if f.code == "MNR206"]  # fmt: skip
    assert finding.path == "requirements.txt" and "tensorflow 2.0.0" in finding.message
    assert "<2.0" in finding.fix and finding.evidence[1].path == "model.py"
    # the same range stated in prose ("TensorFlow 1.4+") is an open range too
    readme = UNSTATED + "\nRequires TensorFlow 1.4+ and Python 3.6.\n"
    prose = {**files, "README.md": readme, "requirements.txt": None}
    assert "MNR206" in codes(write_project(tmp_path / "q", prose))
    bounded = {**files, "requirements.txt": "tensorflow>=1.4,<2\n"}
    assert "MNR206" not in codes(write_project(tmp_path / "r", bounded))
    # the call lies in a nested project with a dependency file of its own: that file governs it
    nested = {"requirements.txt": "tensorflow>=1.4\n", "train.py": None,
              "v2/model.py": tf1, "v2/requirements.txt": "tensorflow==1.15\n"}  # fmt: skip
    assert "MNR206" not in codes(write_project(tmp_path / "s", nested))


def test_a_range_in_a_note_beside_the_pin_the_same_page_installs(tmp_path: Path) -> None:
    tf1 = "import tensorflow as tf\nx = tf.placeholder(tf.float32, [None, 4])\n"
    readme = UNSTATED + "\nNote: CUDA 10 needs Tensorflow 1.13.0+.\n"
    files = {"README.md": readme, "requirements.txt": None, "train.py": None, "model.py": tf1}
    assert "MNR206" in codes(write_project(tmp_path / "p", files))
    pinned = readme + "\n    pip install tensorflow==1.15.0\n"
    assert "MNR206" not in codes(write_project(tmp_path / "q", {**files, "README.md": pinned}))


def test_an_attention_class_transformers_picks_by_the_torch_it_finds(tmp_path: Path) -> None:
    sdpa = (
        "import torch\n\n\nclass Qwen2Attention(torch.nn.Module):\n    pass\n\n\n"
        "class Qwen2SdpaAttention(Qwen2Attention):\n    def forward(self, q, k, v):\n"
        "        return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n"
    )
    files = {"requirements.txt": "torch>=1.12\n", "train.py": None, "modeling_qwen.py": sdpa}
    assert "MNR206" not in codes(write_project(tmp_path / "p", files))
    eager = sdpa.replace("Qwen2SdpaAttention", "Qwen2FastAttention")
    assert "MNR206" in codes(write_project(tmp_path / "q", {**files, "modeling_qwen.py": eager}))
    # the module asks whether the kernel exists and picks a fallback where it does not
    tested = ("import torch\n\nif hasattr(torch.nn.functional, 'scaled_dot_product_attention'):\n"
              "    MODE = 'flash'\nelse:\n    MODE = 'math'\n\n\n" + eager)  # fmt: skip
    assert "MNR206" not in codes(
        write_project(tmp_path / "r", {**files, "modeling_qwen.py": tested})
    )


CAFFE_SOLVER = "net: 'train.prototxt'\nbase_lr: 0.01\nlr_policy: 'step'\nmax_iter: 1000\n"
CAFFE_NET = "name: 'n'\nlayer { name: 'c' type: 'Convolution' }\nlayer { type: 'ReLU' }\n"
CAFFE_TRAIN = (
    "import caffe\ncaffe.set_mode_gpu()\nsolver = caffe.SGDSolver('solver.prototxt')\n"
    "solver.solve()\n"
)


def test_a_framework_without_a_pip_package_needs_a_stated_version(tmp_path: Path) -> None:
    files = {
        "README.md": UNSTATED, "train.py": CAFFE_TRAIN, "solver.prototxt": CAFFE_SOLVER,
        "train.prototxt": CAFFE_NET, "requirements.txt": "numpy==1.26.0\n",
    }  # fmt: skip
    (finding,) = [f for f in lint(write_project(tmp_path / "p", files)).findings
                  if f.code == "MNR207"]  # fmt: skip
    assert "Caffe" in finding.message and finding.evidence
    stated = {**files, "README.md": UNSTATED + "\nBuilt against Caffe 1.0 (BVLC).\n"}
    stated["README.md"] = stated["README.md"].replace("Built against", "Tested with")
    assert "MNR207" not in codes(write_project(tmp_path / "q", stated))
    # a fork pinned as a git submodule: the checkout fixes the version
    submodule = (
        '[submodule "caffe-fast-rcnn"]\n\tpath = caffe-fast-rcnn\n\turl = https://x.org/caffe.git\n'
    )
    pinned = {**files, ".gitmodules": submodule}
    assert "MNR207" not in codes(write_project(tmp_path / "r", pinned))
    # a submodule of another name that the docs build the framework in: its commit is pinned
    fork = '[submodule "PSPNet"]\n\tpath = PSPNet\n\turl = https://x.org/PSPNet\n'
    build = ("# Net\n\n1. Clone recursively.\n2. Build Caffe and matcaffe:\n\n"
             "    cd $ROOT/PSPNet\n    make -j8 && make matcaffe\n")  # fmt: skip
    inside = {**files, ".gitmodules": fork, "README.md": build}
    assert "MNR207" not in codes(write_project(tmp_path / "s", inside))
    elsewhere = {**inside, "README.md": build.replace("$ROOT/PSPNet", "caffe")}
    assert "MNR207" in codes(write_project(tmp_path / "t", elsewhere))


def test_a_pip_framework_forked_as_a_git_submodule_is_pinned_by_it(tmp_path: Path) -> None:
    train = "import mxnet as mx\nnet = mx.gluon.nn.Dense(2)\n" + MAIN
    files = {"README.md": UNSTATED, "requirements.txt": "numpy==1.26.0\n", "train.py": train}
    assert "MNR202" in codes(write_project(tmp_path / "p", files))
    fork = '[submodule "SNIPER-mxnet"]\n\tpath = SNIPER-mxnet\n\turl = https://x.org/SNIPER-mxnet\n'
    assert "MNR202" not in codes(write_project(tmp_path / "q", {**files, ".gitmodules": fork}))


def test_seeds_outside_python_count(tmp_path: Path) -> None:
    files = {
        "README.md": UNSTATED, "train.py": CAFFE_TRAIN,
        "solver.prototxt": CAFFE_SOLVER + "random_seed: 1701\n", "train.prototxt": CAFFE_NET,
    }  # fmt: skip
    assert "MNR401" not in codes(write_project(tmp_path / "p", files))
    config = "model: tiny\nmanual_seed: 0\n"
    train = "\n".join(line for line in TRAIN.splitlines() if "seed(" not in line)
    root = write_project(tmp_path / "q", {"train.py": train, "options/train.yml": config})
    assert "MNR401" not in codes(root)
    # a MATLAB driver that seeds Caffe before it solves
    unseeded = {**files, "solver.prototxt": CAFFE_SOLVER}
    assert "MNR401" in codes(write_project(tmp_path / "r", unseeded))
    driver = "function train(conf)\n  caffe.set_random_seed(conf.rng_seed);\nend\n"
    matlab = {**unseeded, "functions/rfcn_train.m": driver}
    assert "MNR401" not in codes(write_project(tmp_path / "s", matlab))


def test_a_seed_set_by_a_helper_training_imports_counts_wherever_it_lies(tmp_path: Path) -> None:
    helper = (
        "import random\n\nimport torch\n\n\ndef setup_seed(seed):\n"
        "    random.seed(seed)\n    torch.manual_seed(seed)\n"
    )
    train = "\n".join(line for line in TRAIN.splitlines() if "seed(" not in line)
    files = {"train.py": "from src.misc.dist_utils import setup_seed\n" + train,
             "src/misc/dist_utils.py": helper}  # fmt: skip
    assert "MNR401" not in codes(write_project(tmp_path / "p", files))
    files["train.py"] = train  # the helper is there, but nothing training runs calls it
    assert "MNR401" in codes(write_project(tmp_path / "q", files))


def test_a_cpu_path_behind_a_gpu_count_option_is_a_fallback(tmp_path: Path) -> None:
    readme = COMPLETE_README + "\nNo GPU required: it trains on a CPU in minutes.\n"
    guarded = TRAIN.replace(
        '    device = "cuda" if torch.cuda.is_available() else "cpu"\n', ""
    ).replace(
        "    model = Net().to(device)",
        "    model = Net()\n    if args.ngpu > 0:\n        model.cuda()",
    )
    root = write_project(tmp_path / "p", {"README.md": readme, "train.py": guarded})
    assert "MNR102" not in codes(root)


def test_version_statements_in_prose(tmp_path: Path) -> None:
    base = UNSTATED.replace("- Python 3.10\n", "")
    for n, sentence in enumerate(
        (
            "Tested with python3.8 and pytorch1.13.",
            "We used Python (3.9) and PyTorch (1.13).",
            "Verified on Python 3.10 with PyTorch 2.0.",
        )
    ):
        files = {"README.md": base + f"\n{sentence}\n", "requirements.txt": "torch\nnumpy\n"}
        found = codes(write_project(tmp_path / str(n), files))
        assert "MNR204" not in found and "MNR202" not in found, sentence


def test_an_environment_file_under_another_name_states_python(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "")
    env = "name: t\nchannels:\n  - pytorch\ndependencies:\n  - python=3.8\n  - pytorch=1.7\n"
    root = write_project(tmp_path / "p", {"README.md": readme, "conda/tiny.yaml": env})
    assert "MNR204" not in codes(root)


@pytest.mark.parametrize(
    ("script", "states"),
    [
        ("# 1. Use a new Anaconda environment with Python 3.10.8.\npython train.py\n", True),
        ("conda create -n tiny python=3.9 -y\nconda activate tiny\n", True),
        ("# Python 3.6+ only\n", True),
        ("python train.py --lr 3e-4\n", False),  # runs Python, says nothing of its version
        ("# train for 3.5 epochs on python data\n", False),
    ],
)
def test_a_set_up_script_states_python(tmp_path: Path, script: str, states: bool) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "")
    root = write_project(tmp_path / "p", {"README.md": readme, "scripts/pretrain.sh": script})
    assert ("MNR204" not in codes(root)) is states


def test_training_only_in_examples_or_bundled_code_is_not_the_projects(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("Trained on one NVIDIA RTX 3090 (24 GB)", "Trained")
    readme = readme.split("## Data")[0]
    unseeded = "\n".join(line for line in TRAIN.splitlines() if "seed(" not in line)
    for folder in ("examples", "third_party/othernet", "detector"):
        files: dict[str, str | None] = {
            "README.md": readme, "train.py": None, "prepare_data.py": None,
            f"{folder}/train.py": unseeded, "tinynet/model.py": "import torch\n"
            "net = torch.nn.Conv2d(1, 8, 3).cuda()\n",
        }  # fmt: skip
        if folder == "detector":
            files["detector/LICENSE"] = "MIT License\n"
        report = lint(write_project(tmp_path / folder.replace("/", "_"), files),
                      LintOptions(select=("MNR",)))  # fmt: skip
        found = {f.code for f in report.findings}
        assert report.kind != "training", folder
        assert not found & {"MNR101", "MNR301", "MNR401", "MNR402"}, (folder, found)
    own = {"README.md": readme, "train.py": unseeded, "prepare_data.py": None}
    report = lint(write_project(tmp_path / "own", own), LintOptions(select=("MNR",)))
    assert report.kind == "training" and {"MNR301", "MNR401"} <= {f.code for f in report.findings}


def test_data_stated_to_be_the_users_own(tmp_path: Path) -> None:
    readme = COMPLETE_README.split("## Data")[0] + (
        "## Training\n\nMake your own dataset into a json file, then run `python train.py`.\n"
    )
    root = write_project(tmp_path / "p", {"README.md": readme, "prepare_data.py": None})
    assert "MNR301" not in codes(root)


@pytest.mark.parametrize(
    "call",
    [
        "    random_seed(args.seed, 0)",
        "    args = TrainingArguments(output_dir='out')",
        "    g = torch.Generator().manual_seed(args.seed)",
    ],
)
def test_seed_helpers_count_as_seeds(tmp_path: Path, call: str) -> None:
    train = "\n".join(line for line in TRAIN.splitlines() if "seed(" not in line)
    train = train.replace("    torch.set_num_threads", f"{call}\n    torch.set_num_threads")
    assert "MNR401" not in codes(write_project(tmp_path / "p", {"train.py": train}))


def test_a_python_tagged_base_image_states_python(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "")
    docker = "FROM tensorflow/tensorflow:1.12.0-gpu-py3\nRUN pip install -r requirements.txt\n"
    root = write_project(tmp_path / "p", {"README.md": readme, "Dockerfile": docker})
    assert "MNR204" not in codes(root)
    argument = "ARG FROM_IMAGE_NAME=nvcr.io/nvidia/pytorch:22.08-py3\nFROM ${FROM_IMAGE_NAME}\n"
    root = write_project(tmp_path / "q", {"README.md": readme, "docker/Dockerfile": argument})
    assert "MNR204" not in codes(root)
    untagged = argument.replace("22.08-py3", "22.08")
    root = write_project(tmp_path / "r", {"README.md": readme, "docker/Dockerfile": untagged})
    assert "MNR204" in codes(root)


def test_a_copied_training_module_nothing_runs_is_not_training(tmp_path: Path) -> None:
    optimization = (
        "import torch\n\n\ndef step(model, loss):\n"
        "    opt = torch.optim.Adam(model.parameters())\n    loss.backward()\n    opt.step()\n"
    )
    serve = "import torch\nfrom server.model import Net\n\nnet = Net().cuda()\n"
    model = "import torch\n\n\nclass Net(torch.nn.Module):\n    pass\n"
    files = {
        "train.py": None, "prepare_data.py": None, "server/optimization.py": optimization,
        "server/model.py": model, "server/app.py": serve,
    }  # fmt: skip
    report = lint(write_project(tmp_path / "p", files))
    assert report.kind == "inference"
    run = {**files, "server/app.py": serve + "from server.optimization import step\n"}
    assert _kind(tmp_path / "q", run) == "training"


def test_a_framework_of_one_sub_project_is_not_asked_of_another(tmp_path: Path) -> None:
    files = {
        "README.md": UNSTATED, "requirements.txt": None,
        "detector/requirements.txt": "tensorflow==2.12.0\n",
        "detector/model.py": "import tensorflow as tf\nlayer = tf.keras.layers.Dense(3)\n",
        "optimizer/opt_torch.py": "import torch\nx = torch.zeros(3)\n" + MAIN,
    }  # fmt: skip
    found = [f.message for f in lint(write_project(tmp_path / "p", files)).findings
             if f.code == "MNR202"]  # fmt: skip
    assert not any("PyTorch" in m for m in found)


def test_a_conda_pin_with_a_build_string_is_a_pin(tmp_path: Path) -> None:
    env = "name: t\ndependencies:\n  - python=3.8\n  - pytorch=1.12.1=py3.8_cuda11.3_cudnn8.3.2_0\n"
    files = {"README.md": UNSTATED, "requirements.txt": None, "docker/environment.yml": env}
    assert "MNR202" not in codes(write_project(tmp_path / "p", files))


@pytest.mark.parametrize(
    ("path", "requirements"),
    [
        ("models/tf.py", "torch==2.1.0\n"),  # an exporter
        ("tools/data_converter/waymo.py", "torch==2.1.0\n"),  # one dataset's converter
        ("nets/logging_tf.py", "torch==2.1.0\n# tensorflow>=2.4.1  # TF exports\n"),
        ("notebooks/port-weights-tf.py", "torch==2.1.0\n"),  # weights ported from elsewhere
    ],
)
def test_an_optional_second_framework_is_not_required(
    tmp_path: Path, path: str, requirements: str
) -> None:
    files = {
        "README.md": UNSTATED, "requirements.txt": requirements,
        path: "import tensorflow as tf\nx = tf.constant(1)\n" + MAIN,
    }  # fmt: skip
    assert "MNR202" not in codes(write_project(tmp_path / "p", files))


def test_a_seed_in_a_lightning_config(tmp_path: Path) -> None:
    train = "\n".join(line for line in TRAIN.splitlines() if "seed(" not in line)
    files = {"train.py": train, "configs/pretrain.yaml": "seed_everything: 42\ntrainer:\n"}
    assert "MNR401" not in codes(write_project(tmp_path / "p", files))


def test_a_python_tagged_image_in_the_readme_states_python(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "")
    readme += "\n    docker run -it nvcr.io/nvidia/pytorch:21.11-py3\n"
    assert "MNR204" not in codes(write_project(tmp_path / "p", {"README.md": readme}))


@pytest.mark.parametrize(
    "sentence",
    [
        "Convert your dataset into the above format and place it under `data`.",
        "Prerequisites: the training dataset has been prepared (see the dataset guide).",
    ],
)
def test_data_described_as_the_users_dataset(tmp_path: Path, sentence: str) -> None:
    readme = COMPLETE_README.split("## Data")[0] + f"## Training\n\n{sentence}\n"
    root = write_project(tmp_path / "p", {"README.md": readme, "prepare_data.py": None})
    assert "MNR301" not in codes(root)
    elsewhere = COMPLETE_README.split("## Data")[0] + "## Training\n\nPut it in your data folder.\n"
    assert "MNR301" in codes(
        write_project(tmp_path / "q", {"README.md": elsewhere, "prepare_data.py": None})
    )


def test_vendored_dependencies_and_recipes_are_not_own_code(tmp_path: Path) -> None:
    files = {
        "README.md": UNSTATED, "requirements.txt": "torch==2.1.0\nnumpy==1.26.0\n",
        "src/utils/dependencies/insightface/rec.py": "import mxnet as mx\nx = mx.nd.zeros(3)\n",
        "end-to-end-use-cases/rag/run.py": "import tensorflow as tf\nx = tf.constant(1)\n",
    }  # fmt: skip
    assert "MNR202" not in codes(write_project(tmp_path / "p", files))


def test_a_version_in_a_test_environment_sentence(tmp_path: Path) -> None:
    readme = UNSTATED + "\nWe test our models under `python=3.7.3,pytorch=1.9.0,cuda=11.1`.\n"
    files = {"README.md": readme, "requirements.txt": "torch>=1.5.0\n"}
    assert "MNR202" not in codes(write_project(tmp_path / "p", files))


def test_an_api_call_behind_an_option_is_not_required(tmp_path: Path) -> None:
    guarded = "    if args.compile:\n        model = torch.compile(model)"
    train = TRAIN.replace("    optimizer = torch.optim", f"{guarded}\n    optimizer = torch.optim")
    files = {"requirements.txt": "torch>=1.10\n", "train.py": train}
    assert "MNR206" not in codes(write_project(tmp_path / "p", files))
    bare = TRAIN.replace(
        "    optimizer = torch.optim",
        "    model = torch.compile(model)\n    optimizer = torch.optim",
    )
    assert "MNR206" in codes(write_project(tmp_path / "q", {**files, "train.py": bare}))


def test_a_gradient_step_in_inference_code_is_not_training(tmp_path: Path) -> None:
    guide = (
        "import torch\n\n\ndef guide(x, potential):\n    loss = potential(x)\n"
        "    loss.backward()\n    return x.grad\n"
    )
    runner = "import argparse\nfrom pkg.inference.utils import guide\n"
    files = {
        "train.py": None, "prepare_data.py": None, "pkg/inference/utils.py": guide,
        "run_inference.py": runner,
    }  # fmt: skip
    assert _kind(tmp_path / "p", files) != "training"


def test_a_framework_only_in_a_helper_nothing_imports_is_not_required(tmp_path: Path) -> None:
    helper = "import tensorflow as tf\n\n\ndef landmarks(x):\n    return tf.constant(x)\n"
    files = {"README.md": UNSTATED, "face/util/detect_lm.py": helper}
    assert "MNR202" not in codes(write_project(tmp_path / "p", files))
    used = {**files, "train.py": "from face.util.detect_lm import landmarks\n" + TRAIN}
    assert "MNR202" in codes(write_project(tmp_path / "q", used))


def test_a_copied_sub_project_without_a_licence_is_not_the_projects(tmp_path: Path) -> None:
    copied = "src/face/models/arcface/"
    train = "import torch\nimport mxnet\n\nif __name__ == '__main__':\n    loss.backward()\n"
    files = {
        "README.md": UNSTATED, "train.py": None, "prepare_data.py": None,
        "infer.py": "import torch\nnet = torch.load('m.pt').cuda()\n",
        copied + "README.md": "# Distributed face recognition training\n",
        copied + "requirement.txt": "torch>=1.6\nmxnet\n", copied + "train.py": train,
    }  # fmt: skip
    report = lint(write_project(tmp_path / "p", files))
    assert report.kind == "inference"
    assert not [f for f in report.findings if f.code == "MNR202" and "mxnet" in f.message]
    named = {**files, "README.md": UNSTATED + "\nTrain the recogniser in arcface/.\n"}
    assert _kind(tmp_path / "q", named) == "training"


def test_a_primary_framework_only_inside_helper_scripts_is_not_required(tmp_path: Path) -> None:
    script = "def mask(x):\n    import torch\n    return torch.zeros(3)\n"
    files = {
        "README.md": UNSTATED, "train.py": None, "prepare_data.py": None,
        "requirements.txt": "numpy==1.26.0\n", "scripts/mask_images.py": script,
        "src/main.cu": "int main() { return 0; }\n",
    }  # fmt: skip
    assert "MNR202" not in codes(write_project(tmp_path / "p", files))


def test_a_data_folder_readme_with_a_download_states_the_data(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace(
        "Download MNIST with `python prepare_data.py`, which fetches", "MNIST"
    )
    readme = readme.replace("it from\nhttp://yann.lecun.com/exdb/mnist/ into data/.", "is used.")
    files = {"README.md": readme, "prepare_data.py": None}
    assert "MNR301" in codes(write_project(tmp_path / "p", files))
    steps = "# Data\n\nDownload ImageNet from https://image-net.org/ and run the script.\n"
    files["datasets/README.md"] = steps
    assert "MNR301" not in codes(write_project(tmp_path / "q", files))


def test_a_cog_file_states_python(tmp_path: Path) -> None:
    files = {"README.md": UNSTATED.replace("- Python 3.10\n", "")}
    assert "MNR204" in codes(write_project(tmp_path / "p", files))
    files["cog.yaml"] = 'build:\n  gpu: true\n  python_version: "3.11"\n'
    assert "MNR204" not in codes(write_project(tmp_path / "q", files))


def test_a_gpu_stated_in_a_page_the_readme_does_not_link(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace(
        "Trained on one NVIDIA RTX 3090 (24 GB) in about ten minutes.", ""
    )
    train = TRAIN.replace('"cuda" if torch.cuda.is_available() else "cpu"', '"cuda"')
    files = {"README.md": readme, "train.py": train}
    assert "MNR101" in codes(write_project(tmp_path / "p", files))
    files["serve/README.md"] = "# Serving\n\nDecoding runs on a single NVIDIA L20 GPU.\n"
    assert "MNR101" in codes(write_project(tmp_path / "s", files))
    speed = "# COCO configs\n\nTraining takes 12 hours on 8 NVIDIA A100 GPUs.\n"
    files["configs/coco/README.md"] = speed
    assert "MNR101" not in codes(write_project(tmp_path / "q", files))
    for n, page in enumerate(("Our experiments run on 8 NVIDIA Tesla V100 GPU.",
                              "- Hardware: Quadro RTX 8000 (48GB GPU)")):  # fmt: skip
        files["configs/coco/README.md"] = f"# An ablation\n\n{page}\n"
        assert "MNR101" not in codes(write_project(tmp_path / f"e{n}", files)), page


def test_a_training_method_nothing_calls_is_not_training(tmp_path: Path) -> None:
    model = (
        "import torch\n\n\nclass Recon(torch.nn.Module):\n"
        "    def optimize_parameters(self):\n        self.loss.backward()\n"
        "        self.optimizer.step()\n"
    )
    run = "import argparse\nfrom face.recon import Recon\n\nnet = Recon().cuda()\n"
    files = {
        "train.py": None, "prepare_data.py": None, "face/recon.py": model, "infer.py": run,
    }  # fmt: skip
    assert _kind(tmp_path / "p", files) == "inference"
    files["infer.py"] = run + "net.optimize_parameters()\n"
    assert _kind(tmp_path / "q", files) == "training"


def test_a_training_class_nothing_builds_is_not_training(tmp_path: Path) -> None:
    # a copied mixed-precision trainer whose module the sampler imports for one helper
    fp16 = (
        "import torch\n\n\ndef convert_module_to_f16(m):\n    return m.half()\n\n\n"
        "class MixedPrecisionTrainer:\n    def backward(self, loss):\n"
        "        (loss * 2.0).backward()\n"
    )
    run = ("import argparse\nimport torch\nfrom diffusion.fp16_util import convert_module_to_f16"
           "\n\nnet = convert_module_to_f16(torch.load('m.pt')).cuda()\n")  # fmt: skip
    files = {"train.py": None, "prepare_data.py": None, "diffusion/fp16_util.py": fp16,
             "sample.py": run}  # fmt: skip
    assert _kind(tmp_path / "p", files) == "inference"
    files["sample.py"] = run + "trainer = fp16_util.MixedPrecisionTrainer()\n"
    assert _kind(tmp_path / "q", files) == "training"
    # ... or built from a config's target
    files["sample.py"] = run
    files["configs/train.yaml"] = (
        "trainer:\n  _target_: diffusion.fp16_util.MixedPrecisionTrainer\n"
    )
    assert _kind(tmp_path / "r", files) == "training"


def test_a_lightning_optimiser_no_trainer_fits_is_not_training(tmp_path: Path) -> None:
    module = (
        "import torch\nimport pytorch_lightning as pl\n\n\nclass Diffusion(pl.LightningModule):\n"
        "    def configure_optimizers(self):\n"
        "        return torch.optim.AdamW(self.parameters(), lr=1e-4)\n\n\n"
        "if __name__ == '__main__':\n    Diffusion()\n"
    )
    run = "import argparse\nfrom ldm.ddpm import Diffusion\n\nnet = Diffusion().cuda()\n"
    files = {"train.py": None, "prepare_data.py": None, "ldm/ddpm.py": module, "infer.py": run}
    assert _kind(tmp_path / "p", files) == "inference"
    files["main.py"] = "import argparse\nimport pytorch_lightning as pl\n\npl.Trainer().fit(net)\n"
    assert _kind(tmp_path / "q", files) == "training"


def test_onnx_is_a_pip_package_not_a_framework_to_build(tmp_path: Path) -> None:
    runtime = "import onnxruntime\n\nsession = onnxruntime.InferenceSession('m.onnx')\n" + MAIN
    files = {"requirements.txt": "torch==2.1.0\nonnxruntime\n", "run_onnx.py": runtime}
    assert "MNR207" not in codes(write_project(tmp_path / "p", files))


@pytest.mark.parametrize(
    ("path", "text"),
    [
        ("docker/cuda102.dockerfile", "FROM nvidia/cuda:10.2\nARG PYTHON_VERSION=3.8\n"),
        ("Dockerfile", "FROM ubuntu:20.04\nRUN conda install -y python=3.8 numpy\n"),
        (
            "Dockerfile",
            "FROM nvidia/cuda:11.8.0-devel-ubuntu22.04\nRUN apt install -y python3.10\n",
        ),
        (
            "Dockerfile",
            "FROM ubuntu:16.04\nRUN apt-get update && apt-get install -y \\\n"
            "  build-essential \\\n  python3.6 \\\n  python3.6-dev \\\n  python3-pip\n",
        ),
        (
            "docker/Dockerfile",
            "FROM nvidia/cuda:12.1.0-devel-ubuntu22.04\nRUN wget "
            "https://www.python.org/ftp/python/3.10.12/Python-3.10.12.tgz\n",
        ),
        ("setup.py", "setup(classifiers=['Programming Language :: Python :: 3'])\n"),
        ("run.sh", "export PATH=$HOME/bin:$PATH\n/usr/bin/python2.7 script/train.py train DIEN\n"),
    ],
)
def test_python_stated_by_a_dockerfile_or_a_classifier(
    tmp_path: Path, path: str, text: str
) -> None:
    files = {"README.md": UNSTATED.replace("- Python 3.10\n", "")}
    assert "MNR204" in codes(write_project(tmp_path / "p", files))
    assert "MNR204" not in codes(write_project(tmp_path / "q", {**files, path: text}))


def test_a_named_example_folder_is_not_own_code(tmp_path: Path) -> None:
    example = "import tensorflow as tf\nx = tf.constant(1)\n" + MAIN
    files = {"README.md": UNSTATED, "utils/speech_commands_example/freeze.py": example}
    assert "MNR202" not in codes(write_project(tmp_path / "p", files))
    # the same folder under another name counts once the training code leads to it
    files = {"README.md": UNSTATED, "utils/speech_commands/freeze.py": example,
             "train.py": "from utils.speech_commands import freeze\n" + TRAIN}  # fmt: skip
    assert "MNR202" in codes(write_project(tmp_path / "q", files))
    files["train.py"] = TRAIN
    assert "MNR202" not in codes(write_project(tmp_path / "r", files))


def test_a_framework_only_in_a_web_demo_is_not_required(tmp_path: Path) -> None:
    demo = "import paddlehub as hub\nmodel = hub.Module(name='net')\n" + MAIN
    files = {"README.md": UNSTATED, "requirements.txt": "torch==2.1.0\npaddlepaddle\n"}
    assert "MNR202" not in codes(write_project(tmp_path / "p", {**files, "gradio/demo.py": demo}))


def test_a_lower_bound_in_package_metadata_is_no_missing_pin(tmp_path: Path) -> None:
    setup = "from setuptools import setup\nsetup(name='t', install_requires=['torch>=1.0.1'])\n"
    files = {"README.md": UNSTATED, "requirements.txt": None, "setup.py": setup}
    assert "MNR202" not in codes(write_project(tmp_path / "p", files))
    files["setup.py"] = setup.replace("torch>=1.0.1", "torch")
    assert "MNR202" in codes(write_project(tmp_path / "q", files))


def test_a_python_badge_states_python(tmp_path: Path) -> None:
    readme = UNSTATED.replace("- Python 3.10\n", "")
    assert "MNR204" in codes(write_project(tmp_path / "p", {"README.md": readme}))
    badge = "![](https://img.shields.io/static/v1?label=python&message=3.6|3.7&color=blue)\n"
    assert "MNR204" not in codes(write_project(tmp_path / "q", {"README.md": badge + readme}))


def test_a_framework_left_out_of_the_requirements_on_purpose(tmp_path: Path) -> None:
    note = "# this does not include tensorflow: the package depends on your platform\nnumpy==1.26\n"
    files = {
        "README.md": UNSTATED, "requirements.txt": note, "train.py": None,
        "model.py": "import tensorflow as tf\nx = tf.constant(1)\n" + MAIN,
    }  # fmt: skip
    assert "MNR202" not in codes(write_project(tmp_path / "p", files))


def test_a_framework_only_in_a_demo_script_is_not_required(tmp_path: Path) -> None:
    demo = "import tensorflow as tf\nx = tf.constant(1)\n" + MAIN
    files = {"README.md": UNSTATED, "demo_tensorflow.py": demo}
    assert "MNR202" not in codes(write_project(tmp_path / "p", files))


def test_pip_options_after_a_requirement_are_readable(tmp_path: Path) -> None:
    text = "torch==2.1.0\nalbumentations==0.5.1 --no-binary=imgaug,albumentations\n"
    assert "MNR205" not in codes(write_project(tmp_path / "p", {"requirements.txt": text}))
    listing = "Package    Version\n---------- -------\ntorch      2.1.0\n"
    assert "MNR205" in codes(write_project(tmp_path / "q", {"requirements.txt": listing}))


def test_a_library_helper_that_seeds_every_rng(tmp_path: Path) -> None:
    train = "\n".join(line for line in TRAIN.splitlines() if "seed(" not in line)
    helper = "from detectron2.utils.env import seed_all_rng\nseed_all_rng(1234)\n"
    assert "MNR401" in codes(write_project(tmp_path / "p", {"train.py": train}))
    assert "MNR401" not in codes(write_project(tmp_path / "q", {"train.py": helper + train}))
    # detectron2's default_setup(cfg, args) seeds Python, NumPy and torch from cfg.SEED
    setup = "from detectron2.engine import default_setup\ndefault_setup(cfg, args)\n"
    assert "MNR401" not in codes(write_project(tmp_path / "r", {"train.py": setup + train}))
    # a Sacred experiment's main function runs seeded from the run's `seed`
    sacred = ("from sacred import Experiment\nex = Experiment('net')\n\n\n@ex.automain\n"
              "def main():\n    pass\n\n\n")  # fmt: skip
    assert "MNR401" not in codes(write_project(tmp_path / "s", {"train.py": sacred + train}))
    hydra = "import hydra\n\n\n@hydra.main(config_path='conf')\ndef main(cfg):\n    pass\n\n\n"
    assert "MNR401" in codes(write_project(tmp_path / "t", {"train.py": hydra + train}))


def test_a_requirements_file_read_into_install_requires_may_use_ranges(tmp_path: Path) -> None:
    files = {"README.md": UNSTATED, "requirements.txt": "torch>=1.3\nnumpy\n"}
    assert "MNR202" in codes(write_project(tmp_path / "p", files))
    setup = (
        "from setuptools import setup\n\n\ndef reqs():\n"
        "    return open('requirements.txt').read().split()\n\n\n"
        "setup(name='t', install_requires=reqs())\n"
    )
    assert "MNR202" not in codes(write_project(tmp_path / "q", {**files, "setup.py": setup}))


def test_a_framework_only_in_a_copied_evaluate_folder_is_not_required(tmp_path: Path) -> None:
    evaluator = "import tensorflow.compat.v1 as tf\nx = tf.constant(1)\n" + MAIN
    files = {"README.md": UNSTATED, "ldm/modules/evaluate/adm_evaluator.py": evaluator}
    assert "MNR202" not in codes(write_project(tmp_path / "p", files))


def test_an_api_in_a_method_the_user_opts_into_is_not_required(tmp_path: Path) -> None:
    model = (
        "import torch\n\n\nclass Net(torch.nn.Module):\n"
        "    def compile(self, mode='reduce-overhead'):\n"
        "        self.forward = torch.compile(self.forward, mode=mode)\n"
    )
    files = {"requirements.txt": "torch>=1.9.1\n", "net.py": model + MAIN}
    assert not {"MNR203", "MNR206"} & set(codes(write_project(tmp_path / "p", files)))
    direct = {**files, "net.py": "import torch\n\nnet = torch.compile(torch.nn.Linear(2, 2))\n"}
    assert "MNR206" in codes(write_project(tmp_path / "q", direct))


def test_a_bare_python3_launcher_states_no_version(tmp_path: Path) -> None:
    files = {"README.md": UNSTATED.replace("- Python 3.10\n", ""), "run.sh": "python3 train.py\n"}
    assert "MNR204" in codes(write_project(tmp_path / "p", files))


def test_the_docs_build_requirements_are_not_the_projects(tmp_path: Path) -> None:
    files = {
        "README.md": UNSTATED, "train.py": TRAIN, "requirements.txt": "numpy==1.26.4\n",
        "docs/requirements.txt": "sphinx==7.2\nsphinx-rtd-theme\ntorch\n",
    }  # fmt: skip
    found = [f for f in lint(write_project(tmp_path / "p", files)).findings if f.code == "MNR202"]
    assert [(f.path, f.message) for f in found] == [
        ("requirements.txt", "the code uses PyTorch, but no dependency file lists it")
    ]
