"""Repository structures and wordings that lint once misread: each fires only where it should."""

from __future__ import annotations

import json
from pathlib import Path

from lint_projects import COMPLETE_README, TRAIN, write_project

from miner.lint import LintOptions, lint

MAIN = "if __name__ == '__main__':\n    pass\n"
UNSTATED = COMPLETE_README.replace("- torch==2.1.0, see requirements.txt\n", "- numpy\n")
COMPILED = TRAIN.replace(
    "    optimizer = torch.optim", "    model = torch.compile(model)\n    optimizer = torch.optim"
)


def codes(root: Path) -> list[str]:
    """Every code's findings, opt-in codes too."""
    return [f.code for f in lint(root, LintOptions(select=("MNR",))).findings]


def test_an_api_named_in_a_docstring_is_no_call(tmp_path: Path) -> None:
    config = (
        "import torch\n\n\nclass CompileConfig:\n"
        '    """Settings for compiling the model with ``torch.compile()``.\n\n'
        "    torch.compile(model) is tried only when asked for.\n"
        '    """\n\n    mode = "default"\n'
    )
    train = "from config import CompileConfig\n" + TRAIN
    files = {"requirements.txt": "torch>=1.10\n", "config.py": config, "train.py": train}
    assert "MNR206" not in codes(write_project(tmp_path / "p", files))
    assert "MNR206" in codes(write_project(tmp_path / "q", {**files, "train.py": COMPILED}))


def test_a_copied_packages_range_governs_none_of_the_projects_code(tmp_path: Path) -> None:
    copied = "inference/deps/autogptq/"
    files = {
        "train.py": COMPILED,
        copied + "LICENSE": "MIT License\n",
        copied + "setup.py": "from setuptools import setup\n\nsetup(name='auto_gptq', "
        "install_requires=['torch>=1.13.0'])\n",
    }
    assert "MNR206" not in codes(write_project(tmp_path / "olmo", files))
    own = {"train.py": COMPILED, "requirements.txt": "torch>=1.13.0\n"}
    assert "MNR206" in codes(write_project(tmp_path / "olmo2", own))


def test_an_api_call_tried_with_a_fallback_behind_an_option(tmp_path: Path) -> None:
    tried = (
        "    if args.torchcompile:\n"
        "        print('Compiling model...')\n"
        "        os.environ['TORCHINDUCTOR_COMPILE_THREADS'] = '1'\n"
        "        try:\n"
        "            model = torch.compile(model)\n"
        "        except Exception:\n"
        "            print('please use PyTorch 2.0')\n"
    )
    train = "import os\n" + TRAIN.replace(
        "    optimizer = torch.optim", tried + "    optimizer = torch.optim"
    )
    files = {"requirements.txt": "torch>=1.9\n", "train.py": train}
    assert "MNR206" not in codes(write_project(tmp_path / "p", files))


def test_a_pin_in_a_constraints_file(tmp_path: Path) -> None:
    files = {"README.md": UNSTATED, "requirements.txt": "torch>=2.0\nnumpy\n"}
    assert "MNR202" in codes(write_project(tmp_path / "p", files))
    constrained = {**files, "constraints_gpu.txt": "numpy==1.26.4\ntorch==2.1.0\n"}
    assert "MNR202" not in codes(write_project(tmp_path / "q", constrained))


def test_a_framework_only_in_a_checkpoint_converter_is_not_required(tmp_path: Path) -> None:
    converter = "import tensorflow as tf\nfrom train import Net\n\n" + MAIN
    files = {"README.md": UNSTATED, "llama_or_mistral_ckpt.py": converter}
    assert "MNR202" not in codes(write_project(tmp_path / "p", files))
    to_hf = {"README.md": UNSTATED, "weights_to_hf.py": converter}
    assert "MNR202" not in codes(write_project(tmp_path / "q", to_hf))
    notebook = json.dumps(
        {"cells": [{"cell_type": "code", "source": ["import tensorflow as tf\n"]}]}
    )
    both = {**files, "scratch_code/golden_llama-7b_export.ipynb": notebook}
    assert "MNR202" not in codes(write_project(tmp_path / "n", both))
    runner = {"README.md": UNSTATED, "run_experiment.py": converter}
    assert "MNR202" in codes(write_project(tmp_path / "r", runner))


BACKEND_README = """# aim

Pre-trained vision models, with PyTorch, JAX and MLX backends.

    pip install aim
    python -c "from aim.torch.models import load; load('aim-600M')"

Python 3.10. Requires torch 2.1 (or JAX, or MLX).
"""


def test_one_backend_of_several_is_the_users_choice(tmp_path: Path) -> None:
    torch_models = (
        "import torch\n\n\ndef load(name):\n    return torch.hub.load('apple/aim', name)\n"
    )
    jax_models = "import jax\nimport flax.linen as nn\n\n\nclass Block(nn.Module):\n    pass\n"
    mlx_models = "import mlx.core as mx\n\n\ndef load(name):\n    return mx.zeros(1)\n"
    files: dict[str, str | None] = {
        "README.md": BACKEND_README, "train.py": None, "prepare_data.py": None,
        "requirements.txt": None,
        "pyproject.toml": '[project]\nname = "aim"\ndependencies = ["torch==2.1.0"]\n',
        "aim/__init__.py": "", "aim/torch/__init__.py": "", "aim/torch/models.py": torch_models,
        "aim/jax/__init__.py": "", "aim/jax/models.py": jax_models,
        "aim/mlx/__init__.py": "", "aim/mlx/models.py": mlx_models,
        "hubconf.py": "from aim.torch.models import load\n",
        "predict.py": "from aim.jax.models import Block\n" + MAIN,
    }  # fmt: skip
    assert not [
        f for f in lint(write_project(tmp_path / "p", files)).findings if "JAX" in f.message
    ]
    shared = {
        **files,
        "aim/layers.py": jax_models,
        "predict.py": "from aim.layers import Block\n" + MAIN,
    }
    assert [f for f in lint(write_project(tmp_path / "q", shared)).findings if "JAX" in f.message]


CAFFE_SOLVE = (
    "import caffe\n\ncaffe.set_mode_gpu()\n"
    "solver = caffe.SGDSolver('solver.prototxt')\nsolver.step(100)\n"
)
CAFFE_README = """# fcn

Fully convolutional networks for semantic segmentation, trained on one Titan X (12 GB).
Python 2.7. Data: http://host.robots.ox.ac.uk/pascal/VOC/voc2012/ (download and unpack).

{caffe}
"""


def test_caffe_named_with_a_commit_states_its_version(tmp_path: Path) -> None:
    stated = (
        "These models are compatible with `BVLC/caffe:master`.\n"
        "Compatibility has held since `master@8c66fa5` with the merge of PRs #3613 and #3570."
    )
    files: dict[str, str | None] = {
        "README.md": CAFFE_README.format(caffe=stated), "train.py": None,
        "prepare_data.py": None, "requirements.txt": None, "voc/solve.py": CAFFE_SOLVE,
        "voc/solver.prototxt": "base_lr: 1e-10\nrandom_seed: 1\nsolver_mode: GPU\n",
    }  # fmt: skip
    found = codes(write_project(tmp_path / "p", files))
    assert "MNR207" not in found and "MNR201" not in found
    fork = (
        "Download our modified caffe: [caffe_train](https://github.com/x/caffe_train). "
        "Compile pycaffe."
    )
    named = lint(
        write_project(tmp_path / "q", {**files, "README.md": CAFFE_README.format(caffe=fork)})
    )
    (finding,) = [f for f in named.findings if f.code == "MNR207"]
    assert "named without a version" in finding.message and finding.line > 1
    assert "MNR201" not in [f.code for f in named.findings]
    silent = lint(
        write_project(tmp_path / "r", {**files, "README.md": CAFFE_README.format(caffe="")})
    )
    assert "no dependency file or document names it" in " ".join(f.message for f in silent.findings)
    implemented = "Implemented by [Caffe](https://github.com/BVLC/caffe)."
    readme = CAFFE_README.format(caffe=implemented)
    found = lint(write_project(tmp_path / "s", {**files, "README.md": readme})).findings
    (finding,) = [f for f in found if f.code == "MNR207"]
    assert "named without a version" in finding.message and finding.line == 6
    assert "MNR201" in [f.code for f in found]  # naming the implementation lists no package


MXNET_SCORE = "import mxnet as mx\n\nnet = mx.mod.Module(symbol=None, context=[mx.gpu(0)])\n"


def test_a_framework_named_with_its_commit_is_a_stated_requirement(tmp_path: Path) -> None:
    readme = "# DPNs\n\nPython 3.6.\n\n## Implementation\n\nDPNs are implemented by {mx}.\n"
    files: dict[str, str | None] = {
        "train.py": None, "prepare_data.py": None, "requirements.txt": None,
        "score.py": MXNET_SCORE,
    }  # fmt: skip
    plain = {**files, "README.md": readme.format(mx="[MXNet](https://github.com/apache/mxnet)")}
    assert "MNR201" in codes(write_project(tmp_path / "p", plain))
    linked = "[MXNet \\@92053bd](https://github.com/cypw/mxnet/tree/92053bd3e71f)"
    pinned = {**files, "README.md": readme.format(mx=linked)}
    assert "MNR201" not in codes(write_project(tmp_path / "q", pinned))
    versioned = {**files, "README.md": readme.format(mx="MXNet 1.2")}
    assert "MNR201" not in codes(write_project(tmp_path / "r", versioned))


def test_requirements_stated_in_each_experiment_folders_readme_are_stated(tmp_path: Path) -> None:
    readme = "# BCQ\n\nTwo versions of BCQ, one per folder.\n"
    files: dict[str, str | None] = {
        "README.md": readme, "requirements.txt": None,
        "continuous/main.py": "import torch\nimport gym\n", "continuous/README.md":
        "# Continuous BCQ\n\nNetworks are trained using PyTorch 1.4 and Python 3.6.\n",
    }  # fmt: skip
    assert "MNR201" not in codes(write_project(tmp_path / "p", files))
    listed = "# T-GCN\n\n## Requirements:\n\n* tensorflow\n* scipy\n* numpy\n"
    files["continuous/README.md"] = listed  # named without versions: MNR202's to say
    assert "MNR201" not in codes(write_project(tmp_path / "q", files))
    files["continuous/README.md"] = "# Continuous BCQ\n\nRun `python main.py`.\n"
    assert "MNR201" in codes(write_project(tmp_path / "r", files))


def test_python_stated_in_the_readme_beside_the_training_code(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "")
    files: dict[str, str | None] = {"README.md": readme, "train.py": None}
    files["carracing/train.py"] = TRAIN
    assert "MNR204" in codes(write_project(tmp_path / "p", files))
    notes = "# CarRacing\n\n# Notes\n\n-TensorFlow 1.8.0\n\n-Python 3, although 2 might work.\n"
    assert "MNR204" not in codes(
        write_project(tmp_path / "q", {**files, "carracing/README.md": notes})
    )
    log = "# Benchmark\n\n```\nPython version: 3.10.12 (main, Nov 20 2023) [GCC 11.4.0]\n```\n"
    assert "MNR204" in codes(write_project(tmp_path / "r", {**files, "carracing/README.md": log}))


def test_a_local_project_folder_is_a_requirement_pip_reads(tmp_path: Path) -> None:
    files = {"inference/requirements.txt": "compression/dependencies/AutoGPTQ\nnumpy==1.26\n"}
    assert "MNR205" not in codes(write_project(tmp_path / "p", files))
    broken = {"inference/requirements.txt": "AutoGPTQ from source\nnumpy==1.26\n"}
    assert "MNR205" in codes(write_project(tmp_path / "q", broken))


def test_a_copied_librarys_example_requirements_are_not_the_projects(tmp_path: Path) -> None:
    copy = "promptist/diffusers"  # a whole library copied in, with its licence and packaging
    files = {
        f"{copy}/setup.py": "from setuptools import setup\nsetup(name='diffusers')\n",
        f"{copy}/LICENSE": "Apache License\n",
        f"{copy}/pyproject.toml": "[tool.black]\nline-length = 119\n",  # tools' settings only
        f"{copy}/examples/dreambooth/requirements.txt": "diffusers>==0.5.0\ntorch==2.0.1\n",
    }
    assert "MNR205" not in codes(write_project(tmp_path / "p", files))
    own = {"promptist/requirements.txt": "diffusers>==0.5.0\ntorch==2.0.1\n"}
    assert "MNR205" in codes(write_project(tmp_path / "q", own))


def test_a_keras_data_set_imported_by_name_downloads_its_data(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace(
        "Download MNIST with `python prepare_data.py`, which fetches it from\n"
        "http://yann.lecun.com/exdb/mnist/ into data/.\n",
        "Train a CapsNet on MNIST.\n",
    )
    load = "from keras.datasets import mnist\n\n(x_train, y_train), _ = mnist.load_data()\n"
    files = {"README.md": readme, "prepare_data.py": None, "train.py": TRAIN + "\n"}
    assert "MNR301" in codes(write_project(tmp_path / "p", files))
    assert "MNR301" not in codes(write_project(tmp_path / "q", {**files, "train.py": load + TRAIN}))


def test_a_link_whose_text_names_the_data_set(tmp_path: Path) -> None:
    before = (
        "Download MNIST with `python prepare_data.py`, which fetches it from\n"
        "http://yann.lecun.com/exdb/mnist/ into data/.\n"
    )
    linked = (
        "All models in this\nrepository were trained using the images from the\n"
        "[COCO dataset](http://mscoco.org/).\n"
    )
    files = {"prepare_data.py": None}
    bare = COMPLETE_README.replace(before, "All models in this repository were trained on COCO.\n")
    assert "MNR301" in codes(write_project(tmp_path / "p", {**files, "README.md": bare}))
    readme = COMPLETE_README.replace(before, linked)
    assert "MNR301" not in codes(write_project(tmp_path / "q", {**files, "README.md": readme}))


def test_a_keras_generator_built_with_a_seed(tmp_path: Path) -> None:
    train = (
        "from keras.preprocessing.image import ImageDataGenerator\n"
        "from keras.models import Sequential\n\n\n"
        "def generator(path, seed=1):\n    datagen = ImageDataGenerator(rotation_range=0.2)\n"
        "    return datagen.flow_from_directory(\n        path,\n        batch_size=2,\n"
        "        seed = {seed})\n\n\n"
        "if __name__ == '__main__':\n    model = Sequential()\n"
        "    model.compile(optimizer='adam', loss='binary_crossentropy')\n"
        "    model.fit_generator(generator('data/train'), steps_per_epoch=300, epochs=1)\n"
    )
    files = {"requirements.txt": "keras==2.2.4\n"}
    seeded = {**files, "train.py": train.format(seed="seed")}
    assert "MNR401" not in codes(write_project(tmp_path / "p", seeded))
    unseeded = {**files, "train.py": train.format(seed="None")}
    assert "MNR401" in codes(write_project(tmp_path / "q", unseeded))


def test_code_that_hides_every_gpu_trains_on_cpus(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace(
        "Trained on one NVIDIA RTX 3090 (24 GB) in about ten minutes.", ""
    )
    cpu = TRAIN.replace('"cuda" if torch.cuda.is_available() else "cpu"', '"cpu"')
    hidden = cpu.replace(
        "    args = parser.parse_args()\n",
        "    args = parser.parse_args()\n    os.environ['CUDA_VISIBLE_DEVICES'] = \"\"\n",
    ).replace("import random\n", "import os\nimport random\n")
    files = {"README.md": readme, "train.py": hidden}
    assert "MNR101" not in codes(write_project(tmp_path / "p", files))
    chosen = hidden.replace('= ""\n', "= str(args.threads)\n")
    assert "MNR101" in codes(write_project(tmp_path / "q", {**files, "train.py": chosen}))


def test_a_lower_bound_in_nbdev_settings_is_package_metadata(tmp_path: Path) -> None:
    setup = (
        "from configparser import ConfigParser\nimport setuptools\n\n"
        "config = ConfigParser(delimiters=['='])\nconfig.read('settings.ini')\n"
        "cfg = config['DEFAULT']\nrequirements = cfg.get('requirements', '').split()\n"
        "setuptools.setup(name='tinynet', install_requires=requirements)\n"
    )
    settings = "[DEFAULT]\nlib_name = tinynet\nrequirements = torch>=2 \\\n  numpy\n"
    readme = COMPLETE_README.replace("- torch==2.1.0, see requirements.txt\n", "")
    files = {
        "README.md": readme, "requirements.txt": None, "setup.py": setup,
        "settings.ini": settings,
    }  # fmt: skip
    found = codes(write_project(tmp_path / "p", files))
    assert "MNR201" not in found and "MNR202" not in found


def test_the_data_link_the_docs_say_is_in_the_code(tmp_path: Path) -> None:
    before = (
        "Download MNIST with `python prepare_data.py`, which fetches it from\n"
        "http://yann.lecun.com/exdb/mnist/ into data/.\n"
    )
    pointer = "Each model's dataset is publicly available; the download URL is in the file.\n"
    comment = "# Download 64x64 ImageNet at http://image-net.org/small/download.php and\n"
    files = {"prepare_data.py": None, "README.md": COMPLETE_README.replace(before, pointer)}
    assert "MNR301" in codes(write_project(tmp_path / "p", files))
    commented = {**files, "train.py": comment + TRAIN}
    assert "MNR301" not in codes(write_project(tmp_path / "q", commented))
    silent = COMPLETE_README.replace(before, "Edit DATA_DIR in train.py.\n")
    unpointed = {**commented, "README.md": silent}
    assert "MNR301" in codes(write_project(tmp_path / "r", unpointed))


JAX_TRAIN = (
    "import jax\nimport optax\n\n\ndef main():\n    opt = optax.adam(1e-3)\n"
    "    key = jax.random.PRNGKey(0)\n    state = opt.init({})\n"
    "    grads = jax.grad(lambda p: 0.0)({})\n    opt.update(grads, state)\n\n\n"
    "if __name__ == '__main__':\n    main()\n"
)


def test_jax_built_for_cuda_trains_on_a_gpu(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace(
        "Trained on one NVIDIA RTX 3090 (24 GB) in about ten minutes.", "Trains on TPU or GPU."
    )
    converter = "import os\n\nos.environ['CUDA_VISIBLE_DEVICES'] = ''\nimport torch\n"
    files = {
        "README.md": readme, "train.py": JAX_TRAIN, "convert_to_hf.py": converter,
        "requirements.txt": "jax==0.4.28\noptax==0.2.2\n",
    }  # fmt: skip
    assert "MNR101" not in codes(write_project(tmp_path / "p", files))
    env = "name: lm\ndependencies:\n  - python=3.10\n  - pip:\n    - jax[cuda12]==0.4.28\n"
    built = {**files, "scripts/gpu_environment.yml": env}
    assert "MNR101" in codes(write_project(tmp_path / "q", built))
    # training code that counts its TPUs: the CUDA build is another platform's image
    on_tpus = JAX_TRAIN + "print(f'Local TPUs: {jax.local_device_count()}')\n"
    tpu = {**built, "train.py": on_tpus}
    assert "MNR101" not in codes(write_project(tmp_path / "r", tpu))
    commented = JAX_TRAIN + "# the TPU path is not ready yet\n"
    assert "MNR101" in codes(write_project(tmp_path / "s", {**built, "train.py": commented}))


def test_a_nested_extensions_setup_speaks_after_the_projects_file(tmp_path: Path) -> None:
    extension = (
        "from setuptools import setup\nfrom torch.utils.cpp_extension import CUDAExtension\n"
        "setup(name='ops', install_requires=['torch'], ext_modules=[CUDAExtension('ops', [])])\n"
    )
    files = {"README.md": UNSTATED, "requirements.txt": "torch>=2.6.0\nnumpy\n",
             "ops/cpp/setup.py": extension}  # fmt: skip
    found = [f for f in lint(write_project(tmp_path / "p", files)).findings if f.code == "MNR202"]
    assert [(f.path, f.line) for f in found] == [("requirements.txt", 1)]
    assert "sets only a lower bound" in found[0].message
    # A nested project's own requirements still speak for it (the file listed first).
    nested = {"README.md": UNSTATED, "requirements.txt": "torch>=2.0\n",
              "metric/requirements.txt": "torch\n"}  # fmt: skip
    first = [f for f in lint(write_project(tmp_path / "q", nested)).findings if f.code == "MNR202"]
    assert len(first) == 1


def test_a_vendored_package_s_requirements_are_not_the_project_s(tmp_path: Path) -> None:
    old_pin = "opencv-python>=3.\nnumpy==1.26\n"
    setup = "from setuptools import setup\n\nsetup(name='simenv', install_requires=['numpy'])\n"
    for n, folder in enumerate(("third_party/simenv-0.2.1", "external/simenv")):
        files = {f"{folder}/requirements.txt": old_pin, f"{folder}/setup.py": setup}
        assert "MNR205" not in codes(write_project(tmp_path / f"p{n}", files))
    assert "MNR205" in codes(write_project(tmp_path / "q", {"env/requirements.txt": old_pin}))
    # the project's own pinned environment kept in a folder named `dependencies/` is still read
    frozen = "numpy==1.26\ncertifi @ file:///croot/certifi_1671487769961/work/certifi\n"
    own = {"bench/dependencies/previous/requirements.txt": frozen}
    assert "MNR205" in codes(write_project(tmp_path / "r", own))


DATA_SECTION = (
    "## Data\n\nDownload MNIST with `python prepare_data.py`, which fetches it from\n"
    "http://yann.lecun.com/exdb/mnist/ into data/.\n"
)


def test_data_the_training_code_names_and_ships_is_a_way_to_obtain_it(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace(DATA_SECTION, "")
    reads = TRAIN.replace("def main():", "def main():\n    rows = open('rt-polarity.pos').read()")
    files = {"README.md": readme, "prepare_data.py": None, "train.py": reads}
    assert "MNR301" in codes(write_project(tmp_path / "p", files))  # named, but not shipped
    shipped = {**files, "rt-polarity.pos": "a fine film .\n" * 2000}
    assert "MNR301" not in codes(write_project(tmp_path / "q", shipped))
    # A demo's example input is no training data.
    demo = {"README.md": readme, "prepare_data.py": None, "train.py": TRAIN,
            "demo.py": "img = open('examples/cat.jpg', 'rb').read()\n",
            "examples/cat.jpg": "x" * 20_000}  # fmt: skip
    assert "MNR301" in codes(write_project(tmp_path / "r", demo))


def test_a_chinese_download_sentence_in_a_linked_readme(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace(DATA_SECTION, "See [P-Tuning](./ptuning).\n")
    linked = ("# P-Tuning\n\n### 下载数据集\n\n从 [Google Drive](https://drive.google.com/file/d/x)"
              " 下载处理好的 ADGEN 数据集。\n")  # fmt: skip
    files = {"README.md": readme, "prepare_data.py": None}
    assert "MNR301" in codes(write_project(tmp_path / "p", files))
    assert "MNR301" not in codes(
        write_project(tmp_path / "q", {**files, "ptuning/README.md": linked})
    )


def test_gpu_memory_in_a_linked_quarto_page(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace(
        "Trained on one NVIDIA RTX 3090 (24 GB) in about ten minutes.\n",
        "Trained on GPUs, see [these docs](docs/fsdp.qmd).\n",
    ).replace('device = "cuda" if', "device = 'cuda' if")
    train = TRAIN.replace("model = Net().to(device)", "model = Net().cuda()")
    files = {"README.md": readme, "train.py": train}
    assert "MNR101" in codes(write_project(tmp_path / "p", files))
    page = {**files, "docs/fsdp.qmd": "Train a 70b model on two 24GB GPUs.\n"}
    assert "MNR101" not in codes(write_project(tmp_path / "q", page))


def test_training_through_the_hub_trainer_is_seeded(tmp_path: Path) -> None:
    unseeded = "\n".join(ln for ln in TRAIN.splitlines() if "seed(" not in ln) + "\n"
    assert "MNR401" in codes(write_project(tmp_path / "p", {"train.py": unseeded}))
    hub = unseeded.replace("import argparse\n", "import argparse\nfrom transformers import "
                           "Trainer, TrainerCallback\n").replace(
        "    for x, y in []:", "    Trainer(model=model).train()\n    for x, y in []:")  # fmt: skip
    assert "MNR401" not in codes(write_project(tmp_path / "q", {"train.py": hub}))
    # Lightning's `Trainer` seeds nothing.
    lightning = hub.replace("from transformers import", "from lightning import")
    assert "MNR401" in codes(write_project(tmp_path / "r", {"train.py": lightning}))


def test_a_framework_a_lock_file_fixes_is_pinned(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- torch==2.1.0, see requirements.txt\n", "")
    project = "[project]\nname = 'tinynet'\ndependencies = ['numpy>=1.24']\n"
    files = {"requirements.txt": None, "README.md": readme, "pyproject.toml": project}
    assert "MNR202" in codes(write_project(tmp_path / "p", files))
    lock = '[[package]]\nname = "torch"\nversion = "2.9.1"\nsource = { registry = "x" }\n'
    assert "MNR202" not in codes(write_project(tmp_path / "q", {**files, "uv.lock": lock}))


def test_the_pythons_travis_tests_on_are_stated(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "")
    assert "MNR204" in codes(write_project(tmp_path / "p", {"README.md": readme}))
    travis = "language: python\npython:\n - 2.7\n - 3.6\n"
    stated = {"README.md": readme, ".travis.yml": travis}
    assert "MNR204" not in codes(write_project(tmp_path / "q", stated))
    listed = readme.replace("## Requirements\n\n", "## Requirements\n\n    Python: 2 or 3\n\n")
    assert "MNR204" not in codes(write_project(tmp_path / "r", {"README.md": listed}))


def test_the_pythons_a_workflow_matrix_tests_on_are_stated(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "")
    workflow = (
        "name: CI\non: [push]\njobs:\n  build:\n    strategy:\n      matrix:\n"
        "        python: [2.7, 3.6, 3.7]\n    steps:\n      - uses: actions/setup-python@v2\n"
        "        with:\n          python-version: ${{ matrix.python }}\n"
        "      - run: python train.py --epochs 1\n"
    )
    stated = {"README.md": readme, ".github/workflows/build.yml": workflow}
    assert "MNR204" not in codes(write_project(tmp_path / "q", stated))
    # one Python for a formatter's job says nothing of the project's
    lint_job = workflow.replace("python: [2.7, 3.6, 3.7]", "os: [ubuntu-latest]").replace(
        "${{ matrix.python }}", "'3.11'"
    )
    alone = {"README.md": readme, ".github/workflows/build.yml": lint_job}
    assert "MNR204" in codes(write_project(tmp_path / "r", alone))


def test_the_python_image_circleci_runs_the_jobs_in_is_stated(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "")
    config = "version: 2\njobs:\n  check:\n    docker:\n      - image: circleci/python:3.9\n"
    stated = {"README.md": readme, ".circleci/config.yml": config}
    assert "MNR204" not in codes(write_project(tmp_path / "q", stated))
    node = {"README.md": readme, ".circleci/config.yml": config.replace("python:3.9", "node:18")}
    assert "MNR204" in codes(write_project(tmp_path / "r", node))


def test_a_conda_package_list_under_any_name_states_its_python(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "")
    explicit = (
        "# platform: linux-64\n@EXPLICIT\n"
        "https://repo.continuum.io/pkgs/main/linux-64/python-dateutil-2.7.2-py36_0.tar.bz2\n"
        "https://repo.continuum.io/pkgs/main/linux-64/python-3.6.5-hc3d631a_2.tar.bz2\n"
    )
    exported = "# platform: linux-64\nnumpy=1.14.3=py36h28100ab_1\npython=3.6.5=hc3d631a_2\n"
    for name, text in (("conda_packagelist.txt", explicit), ("env/packages.txt", exported)):
        stated = {"README.md": readme, name: text}
        assert "MNR204" not in codes(write_project(tmp_path / name.replace("/", "-"), stated))
    # the list's other packages built for a Python say nothing of which one the project runs
    dateutil_only = {"README.md": readme, "conda_packagelist.txt": explicit.rsplit("\n", 2)[0]}
    assert "MNR204" in codes(write_project(tmp_path / "none", dateutil_only))


def test_pipenvs_required_python_is_stated(tmp_path: Path) -> None:
    readme = COMPLETE_README.replace("- Python 3.10\n", "")
    pipfile = '[packages]\ntorch = "==1.1.0"\n\n[requires]\npython_version = "3.7"\n'
    stated = {"README.md": readme, "Pipfile": pipfile}
    assert "MNR204" not in codes(write_project(tmp_path / "q", stated))
    unstated = {"README.md": readme, "Pipfile": pipfile.split("[requires]")[0]}
    assert "MNR204" in codes(write_project(tmp_path / "r", unstated))
