"""data_available: data in the tree, code and scripts that fetch it, dataset links in the docs."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.audit.classify.data_sources import data_evidence
from miner.audit.detect import AuditContext
from miner.audit.detect.sources import code_index
from miner.audit.docs import Documents
from miner.audit.files import RepoTree
from miner.codebook import Evidence

TORCH = "import torch\nimport torch.nn as nn\n"


def _evidence(tmp_path: Path, files: dict[str, str | bytes]) -> list[Evidence]:
    root = tmp_path / "repo"
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content, encoding="utf-8")
    tree = RepoTree(root)
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    return data_evidence(ctx, code_index(ctx))


@pytest.mark.parametrize(
    "readme",
    [
        "# Net\n\n## Data\n\nDownload the [ImageNet-1K](http://image-net.org/) dataset and "
        "structure the data as follows:\n",
        "# Net\n\nEveryone can download the **Kinetics-400** dataset from "
        "[this link](https://example.org/k400).\n",
        "# Net\n\n### Training\n\nUsed training and testing sets can be downloaded as follows:\n\n"
        "| Task | Training Set |\n|---|---|\n| SR | [DIV2K](https://example.org/DIV2K.tar) |\n",
        "# Net\n\nWe use DF2K for our training data. You can download from:\n\n"
        "1. DIV2K: http://example.org/DIV2K_train_HR.zip\n",
        "# Net\n\n## Datasets\n\nThe six benchmarks are on [Google Drive](https://drive.google.com/x).\n",
        "# Net\n\n##### Download the train set and place it in `./datasets/GoPro/train`:\n\n"
        "* [google drive](https://drive.google.com/file/d/1z/view)\n",
        "# Net\n\nThese models were trained on the "
        "[Pile](https://huggingface.co/datasets/EleutherAI/pile).\n",
        # a reference-style link, its target defined at the end of the document
        "# Net\n\n## Train your own model\n\n1. Download [LJ Speech Data]. Put it in `data/`\n\n"
        "2. Train\n\n[LJ Speech Data]: https://keithito.com/LJ-Speech-Dataset\n",
        "# Net\n\n### Procedures\n\n1. Dataset preparation: [FFHQ](https://example.org/ffhq)\n",
        "# Net\n\n### Kinetics\n\n* Download videos using [the crawler](https://example.org/c).\n",
        "# Net\n\nThe code provides examples for training or inference on "
        "[MPI-Sintel](http://sintel.is.tue.mpg.de/) clean and final datasets.\n",
        "# Net\n\nDownload ImageNet by following the instructions in the [requirements]"
        "(https://github.com/pytorch/examples/tree/master/imagenet#requirements) section.\n",
        "# Net\n\n## Training and inference\n\nDownload [CIFAR-10]"
        "(https://www.cs.toronto.edu/~kriz/cifar.html).\n",
        "# Net\n\nDownload the [dataset](https://example.org/d.zip) and extract it with the "
        "[script](https://gist.github.com/a/8a71d2).\n",
        # another repository's data folder, linked in a sentence about data
        "# NCF\n\nNote that I use the two sub datasets provided by Xiangnan's "
        "[repo](https://github.com/hexiangnan/neural_collaborative_filtering/tree/master/Data).\n",
    ],
)
def test_dataset_links_in_the_readme(tmp_path: Path, readme: str) -> None:
    found = _evidence(tmp_path, {"README.md": readme})
    assert [e.rule for e in found] == ["data_available.link"]


def test_media_or_an_archive_downloaded_under_a_data_heading_is_the_data(tmp_path: Path) -> None:
    media = (
        "# DenseCap\n\n## Training\n\n1. Download the raw images and region descriptions "
        "from [the Visual Genome website](https://visualgenome.org/api/v0/api_home.html)\n"
    )
    assert _evidence(tmp_path / "a", {"README.md": media, "train.py": TORCH})
    archive = (
        '# SiamFC\n\n## Data curation\n\n* Download <a href="http://x.edu/ilsvrc2015/'
        'ILSVRC2015_VID.tar.gz">ILSVRC15</a>, and unzip it\n'
    )
    assert _evidence(tmp_path / "b", {"README.md": archive, "train.py": TORCH})
    # the same words outside a data heading, or a download of weights, are no data link
    elsewhere = media.replace("## Training", "## Results")
    assert not _evidence(tmp_path / "c", {"README.md": elsewhere, "train.py": TORCH})
    weights = archive.replace("ILSVRC2015_VID.tar.gz", "model.pth").replace("ILSVRC15", "weights")
    assert not _evidence(tmp_path / "d", {"README.md": weights, "train.py": TORCH})


@pytest.mark.parametrize(
    "readme",
    [
        "# Net\n\n0. Download and extract the LJ Speech dataset, then link it here.\n",
        "# Net\n\nDownload the [model checkpoint](https://example.org/net.pth) and place it at "
        "`work_dir/`.\n",
        "# Net\n\nThe original model that was trained on 5 datasets can be found "
        "[here](https://example.org/releases/v2).\n",
        "# Net\n\n## Evaluation\n\nDownload the [test set](https://example.org/test.zip).\n",
        "# Net\n\nThe weights are released under [apache-2.0]"
        "(https://huggingface.co/datasets/choosealicense/licenses/blob/main/apache-2.0.md).\n",
        "# Net: A Pipeline for Data Efficient and Weakly Supervised Analysis of Slides\n\n"
        "[Install](INSTALL.md) • [Training Splits](#splits) • [Demo](http://example.org)\n",
        "# Net\n\nWe shorten the repeat of the dataset in the "
        "[config file](https://github.com/a/b/blob/main/configs/train.yaml#L96).\n",
        "# Net\n\nDownload the pretrained weights by following the instructions in "
        "[this repository](https://github.com/a/b).\n",
        "# Net\n\nTraining takes two days on [8 GPUs](https://example.org/cluster).\n",
        "# Net\n\n## More Examples\n\n### Zero-Shot Prediction\n\nThis example takes an image from "
        "the [CIFAR-100 dataset](https://www.cs.toronto.edu/~kriz/cifar.html).\n",
        "# Net\n\n## Inference\n\nDownload the [test images](https://example.org/test.zip).\n",
        "# Net\n\ndata prepare: ImageNet with the following folder structure, you can extract "
        "ImageNet by this [script](https://gist.github.com/a/8a71d2).\n",
        "# Net\n\n## Data\n\nUnzip the archive you were given with the "
        "[helper](https://example.org/unzip.sh).\n",
        # a translated README's news: another project's release announced, not obtained
        "# Net\n\n## 更新日志\n\n* [2025.03.01] 对齐技术 X 被接收！其[代码](https://github.com/a/x)、"
        "[数据](https://huggingface.co/datasets/a/x)均已开源。\n",
        # a list with links above the first heading (an HTML title): nothing announced it as
        # the data's
        '<div align="center"><img src="logo.png"></div>\n\nThe models of the series:\n\n'
        "- **Net 4**: built on [its paper](https://example.org/papers/4), deployable on phones.\n",
    ],
)
def test_no_dataset_link_in_the_readme(tmp_path: Path, readme: str) -> None:
    assert _evidence(tmp_path, {"README.md": readme}) == []


def test_model_cards_do_not_link_training_data(tmp_path: Path) -> None:
    card = "# Card\n\n## Training data\n\nTrained on the [same dataset](https://example.org/d).\n"
    assert _evidence(tmp_path, {"README.md": "# Net\n", "model-card.md": card}) == []


def test_a_linked_doc_is_read(tmp_path: Path) -> None:
    readme = "# Net\n\nSee [training](docs/train.md).\n"
    doc = "# Train\n\nJust download the Fill50K dataset from our [page](https://example.org/f).\n"
    found = _evidence(tmp_path, {"README.md": readme, "docs/train.md": doc})
    assert found and found[0].path == "docs/train.md"


@pytest.mark.parametrize(
    ("code", "fetches"),
    [
        ("from torchvision import datasets\nds = datasets.CIFAR10('d', download=True)\n", True),
        ("import tensorflow_datasets as tfds\nds = tfds.load('mnist', split='train')\n", True),
        ("from datasets import load_dataset\nds = load_dataset('tatsu-lab/alpaca')\n", True),
        ("from tensorflow.keras import datasets\n(x, y), _ = datasets.mnist.load_data()\n", True),
        ("from torchvision.datasets import ImageFolder\nds = ImageFolder(args.data)\n", False),
        ("from datasets import load_dataset\nds = load_dataset('json', data_files=path)\n", False),
        # an option asks for the download (`--download`): the code obtains the data when asked
        ("ds = datasets.CIFAR100(root, train=True, download=args.download)\n", True),
        ("ds = datasets.CIFAR100(root, train=True, download=False)\n", False),
        (
            "import tensorflow as tf\nmnist = tf.keras.datasets.mnist\n"
            "(x, y), _ = mnist.load_data()\n",
            True,
        ),
        ("import torchtext\ntrain, val, test = torchtext.datasets.Multi30k.splits(exts=e)\n", True),
        ("import torchtext\nfield = torchtext.data.Field(tokenize=str.split)\n", False),
        ("from torch_geometric.datasets import QM9\ndataset = QM9(path, transform=t)\n", True),
        ("from torch_geometric.data import Data\ngraph = Data(x=x, edge_index=e)\n", False),
    ],
)
def test_code_that_fetches_a_dataset(tmp_path: Path, code: str, fetches: bool) -> None:
    found = _evidence(tmp_path, {"data.py": TORCH + code})
    assert bool(found) is fetches
    if fetches:
        assert found[0].rule == "data_available.loader" and found[0].line > 2


@pytest.mark.parametrize("folder", ["eval_mm/kit/vlmeval/dataset", "evaluation", "lm_eval/tasks"])
def test_code_fetching_evaluation_sets_is_no_training_data(tmp_path: Path, folder: str) -> None:
    code = "from datasets import load_dataset\nds = load_dataset('org/bench', split='train')\n"
    assert _evidence(tmp_path / "eval", {f"{folder}/bench.py": TORCH + code}) == []
    assert _evidence(tmp_path / "train", {"data/prepare.py": TORCH + code})


@pytest.mark.parametrize(
    "script", ["eval.py", "applications/eval_classeval.py", "scripts/evaluate_lm.py",
               "run_eval.py", "benchmark.py"],
)  # fmt: skip
def test_scripts_named_for_evaluation_fetch_no_training_data(tmp_path: Path, script: str) -> None:
    code = "from datasets import load_dataset\nds = load_dataset('org/bench')\n"
    assert _evidence(tmp_path / "eval", {script: TORCH + code}) == []
    assert _evidence(tmp_path / "train", {"train_eval.py": TORCH + code})


@pytest.mark.parametrize(
    ("call", "fetches"),
    [
        ('load_dataset("wikitext", "wikitext-2-raw-v1", split="test")', False),
        ('load_dataset("org/calib", split="validation[:128]")', False),
        ("tfds.load('mnist', split='test')", False),
        ("datasets.MNIST(root, train=False, download=True)", False),
        ('load_dataset("wikitext", "wikitext-2-raw-v1", split="train")', True),
        ("datasets.MNIST(root, train=True, download=True)", True),
        ('load_dataset("imdb")', True),
    ],
)
def test_a_loader_asked_only_for_an_evaluation_split_is_no_training_data(
    tmp_path: Path, call: str, fetches: bool
) -> None:
    code = ("from datasets import load_dataset\nimport tensorflow_datasets as tfds\n"
            f"from torchvision import datasets\nds = {call}\n")  # fmt: skip
    assert bool(_evidence(tmp_path, {"data.py": TORCH + code})) is fetches


def test_download_scripts_for_data_but_not_for_weights_or_tests(tmp_path: Path) -> None:
    data = "#!/bin/sh\nkaggle competitions download -c carvana -f train_hq.zip\n"
    weights = "#!/bin/sh\nwget https://example.org/releases/model-small.pt\n"
    fixtures = "#!/bin/sh\nwget $BASE/annotations/coco/$anno.json -O $dest\n"
    assert _evidence(tmp_path / "a", {"scripts/download_data.sh": data})[0].line == 2
    assert _evidence(tmp_path / "b", {"ros/downloads.sh": weights}) == []
    assert _evidence(tmp_path / "c", {"det/prepare_for_tests.sh": fixtures}) == []
    # a data set kept as a git repository; a tool cloned the same way is no data
    clone = "#!/bin/sh\nmkdir data\ncd data\ngit clone https://github.com/deepmind/dsprites-dataset.git\n"
    tool = "#!/bin/sh\ngit clone https://github.com/NVIDIA/apex\ncd apex && pip install .\n"
    assert _evidence(tmp_path / "d", {"download_dsprites.sh": clone})[0].line == 4
    assert _evidence(tmp_path / "e", {"download_apex.sh": tool}) == []
    # weights fetched with their licence, policy page and checksum lists
    meta = (
        "#!/bin/bash\nwget ${URL/'*'/\"LICENSE\"} -O ./LICENSE\n"
        "wget ${URL/'*'/\"USE_POLICY.md\"} -O ./USE_POLICY.md\n"
        "wget ${URL/'*'/\"tokenizer_checklist.chk\"} -O ./tokenizer_checklist.chk\n"
        "wget ${URL/'*'/\"${MODEL_PATH}/consolidated.${s}.pth\"} -O ./consolidated.${s}.pth\n"
    )
    assert _evidence(tmp_path / "f", {"download.sh": meta}) == []
    corpus = meta + "wget ${URL/'*'/\"train.jsonl\"} -O ./train.jsonl\n"
    assert _evidence(tmp_path / "g", {"download.sh": corpus})[0].line == 6


def test_darknets_pretrained_convolutional_layers_are_weights(tmp_path: Path) -> None:
    readme = "# YOLOv3\n\n## Training\n\n1. wget https://pjreddie.com/media/files/{}\n"
    assert _evidence(tmp_path / "a", {"README.md": readme.format("darknet53.conv.74")}) == []
    found = _evidence(tmp_path / "b", {"README.md": readme.format("VOCtrainval_11-May-2012.tar")})
    assert found and found[0].rule == "data_available.command"


def test_a_training_script_that_downloads_its_data_before_it_trains(tmp_path: Path) -> None:
    from miner.audit.classify.data_fetch import training_fetches

    train = (
        "import subprocess, torch\n"
        "if not os.path.exists(hyp['data_location']):\n"
        "    raw_data_source = 'https://wikitext.smerity.com/wikitext-103-raw-v1.zip'\n"
        "    raw_data_cache = './data_raw/'\n"
        "    os.makedirs(raw_data_cache, exist_ok=True)\n"
        "    subprocess.run(['wget', raw_data_source, '-O', raw_data_cache + 'data.zip'])\n"
        "loss.backward()\noptimizer.step()\n"
    )
    user_path = "import requests\nimg = requests.get(input_path).content\nloss.backward()\n"
    weights = train.replace("wikitext-103-raw-v1.zip", "releases/model-small.pt")
    for name, text, found in (("a", train, 6), ("b", user_path, None), ("c", weights, None)):
        root = tmp_path / name
        root.mkdir()
        (root / "main.py").write_text(text, encoding="utf-8")
        tree = RepoTree(root)
        ctx = AuditContext(tree=tree, docs=Documents(tree))
        evidence = training_fetches(ctx, code_index(ctx), frozenset({"main.py"}))
        assert [e.line for e in evidence] == ([found] if found else []), name
    # only in a script the caller names as training code
    assert _evidence(tmp_path / "d", {"main.py": train}) == []


def test_documented_commands_that_run_a_data_script(tmp_path: Path) -> None:
    fetch = "import urllib.request\nurllib.request.urlretrieve(URL, 'train.csv')\n"
    convert = "import lmdb\nwrite(folder)\n"
    readme = "# Net\n\n```\npython {}\n```\n"
    yes = {"README.md": readme.format("download_dataset.py"), "download_dataset.py": fetch}
    no = {"README.md": readme.format("prepare_data.py"), "prepare_data.py": convert}
    assert _evidence(tmp_path / "a", yes)[0].rule == "data_available.download_script"
    assert _evidence(tmp_path / "b", no) == []
    # urllib's opener object, as Python 2 code and its ports fetch
    opener = "from urllib.request import FancyURLopener\nf = FancyURLopener()\nf.retrieve(url, n)\n"
    old = {"README.md": readme.format("download_IXI_HH.py"), "download_IXI_HH.py": opener}
    assert _evidence(tmp_path / "e", old)[0].rule == "data_available.download_script"
    make = {"README.md": "# Net\n\nDownload the datasets using: `make dataset`.\n"}
    assert _evidence(tmp_path / "c", make)[0].rule == "data_available.command"


@pytest.mark.parametrize(
    ("command", "unpacks_data"),
    [
        ("unzip dataset.zip", True),
        ("tar -xzf data/ucf_data.tar.gz -C data", True),
        ("unzip -q corpus.zip", True),
        ("unzip pretrained_models.zip", False),  # weights, not data
        ("tar -xzf checkpoints.tar.gz", False),
        ("unzip metadata.zip", False),  # "data" inside another word
    ],
)
def test_unpacking_an_archive_named_as_the_data_is_a_data_step(
    tmp_path: Path, command: str, unpacks_data: bool
) -> None:
    readme = f"# Net\n\n## Test run\nUnzip the file\n```\n{command}\n```\nand run main.py\n"
    found = _evidence(tmp_path, {"README.md": readme, "main.py": TORCH})
    assert [e.rule for e in found] == (["data_available.command"] if unpacks_data else [])


def test_data_in_the_repository(tmp_path: Path) -> None:
    blob = b"0 1 2 3\n" * 8_000
    assert _evidence(tmp_path / "a", {"data/cora/cora.cites": blob})
    assert _evidence(tmp_path / "b", {"names.txt": blob * 2})
    assert _evidence(tmp_path / "c", {"vocab.txt": blob * 2}) == []
    assert _evidence(tmp_path / "d", {"data/inpainting_examples/a.png": blob * 10}) == []
    samples = {f"samples/cupcake/{n}.png": blob for n in range(4)}
    assert _evidence(tmp_path / "e", samples) == []
    assert _evidence(tmp_path / "f", {"data/coco.yaml": "train: x\n" * 9_000}) == []


def test_an_agent_s_environment_stands_in_for_data(tmp_path: Path) -> None:
    agent = TORCH + "import gym\nenv = gym.make('CartPole-v1')\nreplay_buffer = ReplayBuffer()\n"
    found = _evidence(tmp_path, {"dqn.py": agent})
    assert found and found[0].rule == "data_available.environment"
    assert _evidence(tmp_path / "b", {"net.py": TORCH + "x = torch.zeros(3)\n"}) == []


def test_any_environment_an_agent_steps_stands_in_for_data(tmp_path: Path) -> None:
    # gymnax, brax or a game of the project's own: the step's reward and end flag say so
    jax = "import jax\nimport flax.linen as nn\nimport gymnax\nenv, params = gymnax.make(name)\n"
    step = "obsv, env_state, reward, done, info = env.step(rng, env_state, action, params)\n"
    found = _evidence(tmp_path / "a", {"ppo.py": jax + step})
    assert found and found[0].rule == "data_available.environment" and found[0].line == 5
    game = TORCH + "x_t1, r_t, terminal = game_state.frame_step(a_t)\n"
    assert _evidence(tmp_path / "b", {"dqn.py": game})[0].rule == "data_available.environment"
    # a step of an optimiser or a scheduler is no environment's
    assert _evidence(tmp_path / "c", {"t.py": TORCH + "loss, done = trainer.step(batch)\n"}) == []


def test_self_play_and_simulators_make_an_agent_s_data(tmp_path: Path) -> None:
    board = "class Board:\n    def play_against_itself(self, player):\n        return []\n"
    games = "def collect_selfplay_data(n):\n    return board.start_self_play(player)\n"
    found = _evidence(tmp_path / "a", {"train.py": TORCH + games, "board.py": board})
    assert found and found[0].rule == "data_available.environment"
    assert found[0].path == "train.py" and found[0].line == 3
    sim = TORCH + "import pybullet as pb\nreplay_buffer = ReplayBuffer()\n"
    assert _evidence(tmp_path / "b", {"agent.py": sim})[0].rule == "data_available.environment"
    # a comment about self-play, or a simulator without an agent, makes no data
    remark = TORCH + "# unlike self-play (AlphaZero), we learn from recorded games\n"
    assert _evidence(tmp_path / "c", {"train.py": remark}) == []
    quoted = TORCH + "x = 1  # as in `game.start_self_play(player)`, there is none\n"
    assert _evidence(tmp_path / "e", {"train.py": quoted}) == []
    assert _evidence(tmp_path / "d", {"render.py": TORCH + "import pybullet as pb\n"}) == []


def test_data_scripts_that_fetch_with_python_calls(tmp_path: Path) -> None:
    api = "import urllib.request\nresponse = urllib.request.urlopen(req)\n"
    tube = "import youtube_dl\nydl.download(valid_urls)\n"
    weights = "import requests\nresponse = requests.get(url, stream=True)\n"
    helper = "def download(url, dest):\n    pass\n\ndownload(PREFIX + 'val_100.json', d)\n"
    assert _evidence(tmp_path / "a", {"datasets.py": api})[0].line == 2
    assert _evidence(tmp_path / "b", {"train/download.py": tube})
    assert _evidence(tmp_path / "c", {"pkg/models/download.py": weights}) == []
    assert _evidence(tmp_path / "d", {"det/prepare_panoptic.py": helper}) == []
    cited = '"""Fetch a file.\n\nhttps://stackoverflow.com/q/1/wget-curl-large-file\n"""\n'
    assert _evidence(tmp_path / "e", {"utils/download_util.py": cited}) == []


def test_many_sample_files_are_data(tmp_path: Path) -> None:
    lines = {f"samples/Text/{n:04}.png": b"\x89PNG" + bytes(64) for n in range(25)}
    assert _evidence(tmp_path, lines)[0].rule == "data_available.in_repository"


def test_application_bundles_and_caches_are_not_data(tmp_path: Path) -> None:
    blob = b"\x00\x01" * 40_000
    bundle = {f"env/Driving.app/Contents/Resources/Data/Managed/{n}.mdb": blob for n in range(25)}
    assert _evidence(tmp_path / "a", bundle) == []
    assert _evidence(tmp_path / "b", {"SDK/Library/PlayerDataCache/Data/x.dat": blob}) == []
    assert _evidence(tmp_path / "c", {"data/weights/net.pth": blob * 2}) == []
    assert _evidence(tmp_path / "d", {"data/DejaVuSans.ttf": blob * 5}) == []
    assert _evidence(tmp_path / "e", {"data/example.jpg": blob * 2}) == []
    lists = {"data/train_list.txt": blob * 2, "data/val_hr_indices.p": blob}
    assert _evidence(tmp_path / "f", lists) == []
    splits = {f"data/ILSVRC2015/ImageSets/VID_{n}.txt": blob * 2 for n in range(3)}
    assert _evidence(tmp_path / "g", splits) == []


def test_a_keras_data_set_imported_by_name_is_fetched(tmp_path: Path) -> None:
    load = "from keras.datasets import mnist, cifar10 as c10\n\n(x, y), _ = c10.load_data()\n"
    assert _evidence(tmp_path / "a", {"train.py": load})
    own = "import mnist\n\n(x, y), _ = mnist.load_data('data/mnist.pkl.gz')\n"
    assert not _evidence(tmp_path / "b", {"train.py": own})


def test_a_tfds_data_source_fetches_its_data(tmp_path: Path) -> None:
    grain = "import tensorflow_datasets as tfds\n\nsource = tfds.data_source('lm1b', split=split)\n"
    assert _evidence(tmp_path / "a", {"nanodo/data.py": grain})


def test_torchtext_data_sets_imported_by_name_are_fetched(tmp_path: Path) -> None:
    splits = ("from torchtext import data\nfrom torchtext import datasets\n\n"
              "train, test = datasets.IMDB.splits(TEXT, LABEL)\n")  # fmt: skip
    assert _evidence(tmp_path / "a", {"load_data.py": splits})
    named = "from torchtext.datasets import AG_NEWS\n\ntrain_iter = AG_NEWS(split='train')\n"
    assert _evidence(tmp_path / "b", {"train.py": named})
    own = "from torchtext import data\n\nfields = data.Field(lower=True)\n"
    assert not _evidence(tmp_path / "c", {"train.py": own})


def test_the_data_set_loaders_of_chainer_mxnet_and_paddle_download(tmp_path: Path) -> None:
    chainer = (
        "import chainer\n\n\nclass Cifar(object):\n    def __init__(self):\n"
        "        self.train, _ = chainer.datasets.get_cifar10(ndim=3, withlabel=False)\n"
    )
    assert _evidence(tmp_path / "a", {"common/dataset.py": chainer})
    by_name = "from chainer.datasets import get_mnist as mnist\n\ntrain, test = mnist()\n"
    assert _evidence(tmp_path / "b", {"train.py": by_name})
    mxnet = "import mxnet as mx\n\nmnist = mx.test_utils.get_mnist()\n"
    assert _evidence(tmp_path / "c", {"train.py": mxnet})
    gluon = (
        "from mxnet.gluon.data.vision import datasets\n\nds = datasets.FashionMNIST(train=True)\n"
    )
    assert _evidence(tmp_path / "d", {"train.py": gluon})
    paddle = "import paddle\n\nds = paddle.vision.datasets.Cifar10(mode='train')\n"
    assert _evidence(tmp_path / "e", {"train.py": paddle})
    # the user's own files: a folder reader, a split helper, torchvision without download=True
    local = (
        "from mxnet.gluon.data.vision import ImageFolderDataset\n"
        "from chainer.datasets import split_dataset_random, get_cross_validation_datasets\n"
        "import torchvision\n\nds = ImageFolderDataset('data/train')\n"
        "a, b = split_dataset_random(ds, 100)\n"
        "m = torchvision.datasets.MNIST('data', train=True)\n"
    )
    assert not _evidence(tmp_path / "f", {"train.py": local})


def test_a_link_whose_own_text_names_the_data_set(tmp_path: Path) -> None:
    readme = (
        "# Net\n\n## Prepare a dataset\n\nAll models in this\nrepository were trained using the "
        "images from the\n[{text}](http://mscoco.org/).\n"
    )
    assert _evidence(tmp_path / "a", {"README.md": readme.format(text="COCO dataset")})
    assert not _evidence(tmp_path / "b", {"README.md": readme.format(text="our model")})


def test_a_code_example_that_reads_a_data_table_from_the_network(tmp_path: Path) -> None:
    example = (
        "# TS\n\nAs a first step, we need some data.\n\n```python\n"
        'url = "https://raw.githubusercontent.com/org/bench/master/data/volume.csv"\n'
        "df = pd.read_csv(url, header=0, index_col=0)\n```\n"
    )
    found = _evidence(tmp_path / "a", {"README.md": example, "train.py": TORCH})
    assert found and found[0].line == 6 and found[0].rule == "data_available.command"
    # a table named but not read, or a model file read, is no data
    named = example.replace("df = pd.read_csv(url, header=0, index_col=0)", "print(url)")
    assert _evidence(tmp_path / "b", {"README.md": named, "train.py": TORCH}) == []
    weights = example.replace("volume.csv", "model.pth")
    assert _evidence(tmp_path / "c", {"README.md": weights, "train.py": TORCH}) == []


def test_another_repository_s_code_is_no_data_folder(tmp_path: Path) -> None:
    readme = ("# Net\n\nOur data loader follows [this repo]"
              "(https://github.com/org/tool/tree/master/src/loader.py).\n")  # fmt: skip
    assert _evidence(tmp_path, {"README.md": readme, "train.py": TORCH}) == []
