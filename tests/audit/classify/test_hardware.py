"""Hardware requirements: the codebook's positive and negative sentences, context and the spec."""

from __future__ import annotations

from pathlib import Path

import pytest

from miner.audit.classify.gazetteer import labels_to_match
from miner.audit.classify.hardware import _pipeline, classify_hardware, find_hardware
from miner.audit.detect import AuditContext
from miner.audit.docs import Block, Documents, parse_markdown
from miner.audit.files import RepoTree
from miner.models import Label

FIELDS = ("hw_gpu", "hw_cpu", "hw_memory", "hw_other")


def _fields(text: str) -> set[str]:
    """The hardware fields a README made of `text` sets."""
    return {h.field for h in find_hardware(parse_markdown("README.md", text))}


def _specs(text: str) -> list[dict[str, object]]:
    return [h.spec for h in find_hardware(parse_markdown("README.md", text))]


def _classify(root: Path, files: dict[str, str]) -> tuple[dict[str, Label], AuditContext]:
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(content, encoding="utf-8")
    tree = RepoTree(root)
    ctx = AuditContext(tree=tree, docs=Documents(tree))
    return {label.field: label for label in classify_hardware(ctx, {})}, ctx


POSITIVE = {
    # GPU models, however they are spelled, and GPU memory.
    "GTX 1080 Ti": ("We tested on a GTX 1080 Ti.", {"hw_gpu"}),
    "GTX1080Ti glued": ("Right: GPU model run on a GTX1080Ti.", {"hw_gpu"}),
    "Tesla V100": ("Training used a Tesla V100.", {"hw_gpu"}),
    "RTX 4090 beside a build step": (
        "We trained on an RTX 4090. Build the extension with `TCNN_CUDA_ARCHITECTURES=89`.",
        {"hw_gpu"},
    ),
    "TITAN X": ("It fits on one TITAN X.", {"hw_gpu"}),
    "used, beside the build's compute capability": (
        "- NVIDIA GPU (We use Titan X (Pascal) with compute = 6.1, should you have devices with "
        "higher compute capability, please revise setup.py)",
        {"hw_gpu"},
    ),
    "RTX 3090": ("Benchmarks were run on an RTX 3090.", {"hw_gpu"}),
    "A100 80GB": ("We train on an A100 80GB.", {"hw_gpu"}),
    "Quadro": ("Inference on a Quadro P6000 takes 20 ms.", {"hw_gpu"}),
    "count with model": ("We trained with 8 V100 GPUs.", {"hw_gpu"}),
    "devices listed with slashes": (
        "The code is tested on Ubuntu 16.04 (Python3.6, CUDA8.0) with Titan X/1080Ti/Xp GPUs.",
        {"hw_gpu"},
    ),
    "needed to reproduce the paper's results": (
        "To reproduce the results reported in the paper, you would need an NVIDIA DGX1 machine "
        "with 8 V100 GPUs.",
        {"hw_gpu"},
    ),
    "vendor and number": ("We train on a GPU Nvidia 780 Titan.", {"hw_gpu"}),
    "misspelt Titan": ("Training takes 5 hours on a GTX Titian Black GPU.", {"hw_gpu"}),
    "acknowledgement": (
        "We gratefully acknowledge the support of NVIDIA Corporation with the donation of the "
        "Titan Xp GPU used for this research.",
        {"hw_gpu"},
    ),
    "training time": ("It took 3 days to train 25 epochs on a single GTX 1060.", {"hw_gpu"}),
    "results table header": (
        "| Method | mAP | FPS (Titan X) |\n|---|---|---|\n| Ours | 80 | 40 |\n", {"hw_gpu"}
    ),
    "table row": (
        "| Property | Value |\n|---|---|\n| GPU trained on | Nvidia GEFORCE 920M |\n", {"hw_gpu"}
    ),
    "html caption": ('<p align="center">Left: CPU. Right: run on a GTX1080Ti.</p>\n', {"hw_gpu"}),
    "chinese text": ("单模型仅 956 KB，GTX1080上运行为6ms左右。", {"hw_gpu"}),
    "code comment": ("```bash\n# tested on a Tesla K80\npython train.py\n```\n", {"hw_gpu"}),
    "comment after a command": ("```bash\nbash main_grpo.sh  # 4\u00d7A100 80G\n```\n", {"hw_gpu"}),
    "gpu memory": ("Needs 12 GB of GPU memory.", {"hw_gpu"}),
    "card size": ("The model fits on a 24GB card.", {"hw_gpu"}),
    "vram": ("I use a batch of 15 with 8GB VRAM.", {"hw_gpu"}),
    "gpu with memory": ("A NVIDIA GPU with at least 6 GB of memory is required.", {"hw_gpu"}),
    "gpu ram": ("BERT-Base should run on a GPU that has at least 12GB of RAM.", {"hw_gpu"}),
    "gpu dram": ("One or more high-end NVIDIA GPUs with at least 11GB of DRAM.", {"hw_gpu"}),
    # CPUs, SoCs and core counts of the machine.
    "Xeon": ("We used an Intel Xeon E5-2620 v4.", {"hw_cpu"}),
    "i7-8700K": ("It runs in real time on an i7-8700K.", {"hw_cpu"}),
    "Core(TM) i7": ("CPU: Intel(R) Core(TM) i7-4790K CPU @ 4.00GHZ", {"hw_cpu"}),
    "Ryzen": ("Benchmarked on a Ryzen 7 3700X.", {"hw_cpu"}),
    "Apple M1": ("Tested on an Apple M1.", {"hw_cpu"}),
    "machine cores": ("Preprocessing takes an hour on a 32-core machine.", {"hw_cpu"}),
    "cpu cores": ("The server has 16 CPU cores.", {"hw_cpu"}),
    "machine beside a setting": ("We ran 16 workers on a 16-core machine.", {"hw_cpu"}),
    "own result beside a comparison": (
        "Our model runs at 30 FPS on a Titan X, compared to 10 FPS for Faster R-CNN.",
        {"hw_gpu"},
    ),
    # System memory.
    "ram": ("A machine with 16GB RAM is enough.", {"hw_memory"}),
    "memory amount": ("It needs 64 GB of memory.", {"hw_memory"}),
    "memory list item": ("**Hardware**\n* Memory: 8GB\n", {"hw_memory"}),
    "memory under hardware heading": ("## Hardware\n- 16 GB\n", {"hw_memory"}),
    "gpu table": ("| GPU | Memory |\n|---|---|\n| Titan X | 12 GB |\n", {"hw_gpu"}),
    "ddr": ("Two Xeon Gold 6148 CPUs and 384 GB DDR4 RAM.", {"hw_cpu", "hw_memory"}),
    "gpu and cpu memory lines": (
        "GPU: Nvidia Tesla v100, memory 32G\n\nCPU: memory 8G to run jupyter\n",
        {"hw_gpu", "hw_memory"},
    ),
    # Other accelerators and boards.
    "TPU v3-8": ("Trained on a TPU v3-8.", {"hw_other"}),
    "Edge TPU": ("It runs at 30 FPS on the Edge TPU.", {"hw_other"}),
    "Jetson": ("We deployed it on a Jetson TX2.", {"hw_other"}),
    "Raspberry Pi": ("Tested on a Raspberry Pi 3.", {"hw_other"}),
    # Approximate sizes, memory said to be the GPU's, today's devices.
    "approximate vram": ("Inference usually requires ~13GB VRAM.", {"hw_gpu"}),
    "approximate gpu memory": ("It requires ~24G GPU memory.", {"hw_gpu"}),
    "ram on the gpu": ("You will need at least 3GB of RAM on your GPU.", {"hw_gpu"}),
    "host ram": ("GenCast needs ~250GB of Host RAM (System Memory).", {"hw_memory"}),
    "mac with chip": ("Inference runs on a Mac M2 with 16GB RAM.", {"hw_cpu", "hw_memory"}),
    "geforce number in brackets": ("With 4 GPUs (3090): bash train.sh", {"hw_gpu"}),
    "geforce number before gpus": ("We use Nvidia 3090 GPUs with CUDA 11.", {"hw_gpu"}),
    "geforce number as one card": (
        "We are now working over 12x faster than real-time on a consumer 4090!",
        {"hw_gpu"},
    ),
    "geforce number on a single card": ("Reproducible in 2 hours on a single 3090!", {"hw_gpu"}),
    "ascend and hygon": ("It also supports inference on Ascend 910 and Hygon DCU.", {"hw_other"}),
    "phone model": ("Latency of all models measured on iPhone 12 Pro.", {"hw_other"}),
    "memory before the gpu model": (
        "It runs on a single node with 8x80GB H100 using the scripts in this folder.",
        {"hw_gpu"},
    ),
    "trained by us": ("The model was trained by us on a TPU v3-8.", {"hw_other"}),
    "plural and glued gpu word": ("We trained on 8 V100s and tested on 2 A100GPUs.", {"hw_gpu"}),
    # Today's spellings and devices.
    "count glued to a card with memory": ("Our model was trained on 8×A100-80G.", {"hw_gpu"}),
    "card with memory suffix": ("Training uses V100-32GB GPUs.", {"hw_gpu"}),
    "rtx 4090": ("It runs within hours on a single RTX 4090.", {"hw_gpu"}),
    "h100 sxm": ("Benchmarks on H100 SXM.", {"hw_gpu"}),
    "tpu slice": ("Pretrained on a TPU v4-32 pod slice.", {"hw_other"}),
    "bare data-centre models": ("We used 8 A6000 cards, an L40S and an H200.", {"hw_gpu"}),
    "amd instinct": ("Trained on AMD MI250X GPUs.", {"hw_gpu"}),
    "superchip": ("Trained on 16 NVIDIA GH200 superchips.", {"hw_gpu"}),
    "snapdragon generation": ("Runs at 20 FPS on a Snapdragon 8 Gen 2.", {"hw_cpu"}),
    "core ultra": ("Tested on Intel Core Ultra 7 155H.", {"hw_cpu"}),
    "ram with plus": ("Preprocessing needs 96GB+ of RAM.", {"hw_memory"}),
    "allocator figures": ("Allocated memory: 2.5 GB\n\nReserved memory: 26.3 GB\n", {"hw_gpu"}),
    "used beside unsupported": (
        "Mixed precision does not work on a GTX 1080, so we trained on a V100 in fp32.",
        {"hw_gpu"},
    ),
    "geforce number under a gpu column": (
        "| Setting | Hardware | Time |\n|---|---|---|\n| Training | 8x 4090 | 2d |\n",
        {"hw_gpu"},
    ),
    "macbook model with chip": ("It takes 5 s on a MacBook Pro M1.", {"hw_cpu"}),
    "faq answer about gpu memory": (
        "## FAQ\n**Q: How much GPU memory do I need?**\n\nA: At least 16GB.\n",
        {"hw_gpu"},
    ),
    "memory after a gpu sentence": (
        "Training on a V100 takes 2 days. It needs 20 GB of memory.",
        {"hw_gpu"},
    ),
    "memory after a server sentence": (
        "We preprocess on a 32-core server. The script needs 200 GB of memory.",
        {"hw_cpu", "hw_memory"},
    ),
    "per gpu": ("Training needs roughly 60 GB per GPU.", {"hw_gpu"}),
    "on the gpu after": ("The model needs 14 GB in fp16 on the GPU.", {"hw_gpu"}),
    "unified memory": ("At least 32GB of unified memory on a Mac.", {"hw_memory"}),
    "bracketed owners": ("Memory requirement: 12GB (GPU), 32GB (CPU)", {"hw_gpu", "hw_memory"}),
    "gpu ram label": ("CPU RAM: 64GB; GPU RAM: 24GB", {"hw_gpu", "hw_memory"}),
    "per node": ("The cluster has 512 GB per node.", {"hw_memory"}),
    "trainium": ("Trained using AWS Trainium (trn1.32xlarge).", {"hw_other"}),
    "tpu generation kind": ("Trained on TPU v5p-512 and served on TPUv5e.", {"hw_other"}),
    "fpga board": ("We deploy it on an Ultra96 board.", {"hw_other"}),
    "graviton": ("Benchmarked on AWS Graviton3.", {"hw_cpu"}),
    "microcontrollers": ("Deployed on an ESP32 and an STM32F746 board.", {"hw_other"}),
    "arduino": ("Runs on the Arduino Nano 33 BLE Sense.", {"hw_other"}),
    "compute stick": ("Tested with an Intel NCS2.", {"hw_other"}),
    # Memory sizes read by their table column, their paragraph and their section.
    "size far from a download": (
        "On 2 nodes with 8 GPUs with 32GB each for 300 epochs (make sure the teacher weights "
        "have been downloaded before to the correct location).",
        {"hw_gpu"},
    ),
    "testing memory column": (
        "| Method | #FLOPs | Testing memory |\n|---|---|---|\n| Ours | 788.6G | 9.8G |\n",
        {"hw_gpu"},
    ),
    "ram column": ("| Device | RAM |\n|---|---|\n| Laptop | 16 GB |\n", {"hw_memory"}),
    "ram meaning gpu memory later": (
        "You will need at least 3GB of RAM on your GPU. However, about 7GB of RAM will be "
        "required with the default arguments; users with smaller RAM such as 2GB can lower it.",
        {"hw_gpu"},
    ),
    "host ram after gpu ram": (
        "Training needs 24GB of RAM on the GPU. Preprocessing on the host needs 64GB of RAM.",
        {"hw_gpu", "hw_memory"},
    ),
    "section about gpu memory": (
        "## Addressing OOM\nFine-tuning needs about 112 GB of VRAM.\n\n"
        "- LoRA reduces the total memory footprint from 112GB to about 28GB.\n",
        {"hw_gpu"},
    ),
    "profiling table": (
        "## Profiling of memory\nWe profile the GPU memory of fine-tuning.\n\n"
        "<table><tr><th>#GPUs per node</th><th>256</th></tr>"
        "<tr><td>1</td><td>6.7G / 1.0s/it</td></tr></table>\n",
        {"hw_gpu"},
    ),
    "srun with shell defaults": (
        "```bash\nCPUS_PER_TASK=${CPUS_PER_TASK:-8}\nsrun -p $PARTITION \\\n"
        "    --cpus-per-task=${CPUS_PER_TASK} \\\n    python train.py\n```\n",
        {"hw_cpu"},
    ),
    # A job script in the docs requesting resources for this repository's run.
    "scheduler memory": (
        "```\n#!/bin/bash\n#$ -l tmem=10G   # virtual mem used\n```\n", {"hw_memory"}
    ),
    "slurm gpu": (
        "```\n#SBATCH --gres=gpu:v100:2\n#SBATCH --mem=32G\n```\n", {"hw_gpu", "hw_memory"}
    ),
}  # fmt: skip

NEGATIVE = {
    "gpu required": "A GPU is required.",
    "a resolution": "It renders a 1080p video, or a 1080 x 720 frame, in real time.",
    "build architecture": "Where XX is the architecture version. Ie. for a 4090 GPU use "
    "`TCNN_CUDA_ARCHITECTURES=89`.",
    "arch list": "Set TORCH_CUDA_ARCH_LIST=8.6 when building for an RTX 3090.",
    "compute capability": "The RTX 2080 Ti has compute capability 7.5.",
    "cuda capable": "You need a CUDA-capable GPU.",
    "cuda enabled": "CUDA-enabled GPUs are required.",
    "vendor only": "## Requirements\n- NVIDIA GPU\n- Linux\n",
    "multi gpu": "We support multi-GPU training.",
    "gpu count": "We trained on 8 GPUs.",
    "cpu only": "The code can also run on CPU.",
    "cuda versions": "Tested with CUDA 10.1 and cuDNN 7.6.",
    "disk space": "The dataset needs 50GB of disk space.",
    "dataset size": "FlyingChairs dataset (31GB) and train-validation split.",
    "disk space in brackets": "Make sure you have enough disk space on your server (120GB).",
    "download size": "Download the 2 GB checkpoint first.",
    "cloud instance": "Training runs on an AWS p2.xlarge instance.",
    "cloud gpu instance": "I suggest a g2.2xlarge instance that has a GPU.",
    "apple silicon": "It also runs on Apple Silicon.",
    "bare tpu": "You can train it on a TPU.",
    "fpga family": "An FPGA version is planned.",
    "gpu index": "Here the training is launched using the GPU of index 0.",
    "driver": "Install the NVIDIA 418 driver.",
    "data loader workers": "Set num_workers to 8 cores for data loading.",
    "program threads": "The data loader uses 16 threads.",
    "framework's claim": "Caffe can process over 40M images per day with a single NVIDIA K40 GPU.",
    "tool news": "[2020/05] TensorRT 7 now supports the Jetson Nano.",
    "reported result": "We compare with YOLOv3 at 30 FPS on Titan X reported in the paper.",
    "the authors' hardware": "The authors trained on 8 V100 GPUs, as reported in the paper.",
    "a url with device words": "Weights are at https://example.com/models/a100/v100/ckpt.",
    "setting on a machine": "Use 8 cores for data loading on the server.",
    "original implementation": "The original implementation was trained on 8 V100s.",
    "another party's run": (
        "Originally in 2019, GPT-2 was trained by OpenAI on 32 TPU v3 chips for 168 hours."
    ),
    "related work section": "## Related projects\nX runs at 200 FPS on a Titan X.\n",
    "example deployment targets": (
        "Since we used MobileNetV2 it is easier to deploy the model to embedded systems "
        "(Raspberry Pi, Google Coral, etc.)."
    ),
    "software gpu package": "pip install tensorflow-gpu==1.4",
    "article a": "Launch a 4 GPU job.",
    "bandwidth": "It streams at 1 GB/s.",
    "size under another heading": "## Data\n- 16 GB\n",
    "brackets after gpus": "We use 8 GPUs (1080 images per batch).",
    "pixel in a name": "This code borrows heavily from pixel2style2pixel.",
    "phone glued into a dataset name": "iphone2dslr_flower: images were downloaded from Flickr.",
    "gpu glued into a file name": "Training on our machine reads configs/rtx3090_fast.yaml.",
    "phone family": "A demo app runs on iPhone and Android.",
    "unsupported devices": (
        "WARNING: We have found that faiss did not well support Nvidia AMPERE GPUs (3090 and A100)."
    ),
    "gpu count column": "| Setting | GPUs |\n|---|---|\n| Training | 8 |\n",
    "year column": "| Model | Year |\n|---|---|\n| Ours | 2080 |\n",
    "gpu column of related work": (
        "## Related projects\n| Setting | GPU |\n|---|---|\n| X | 3090 |\n"
    ),
    "download beside a gpu": "The download is 14 GB, so make sure the GPU has room.",
    "serving engine news": "[2024/05] vLLM now supports the model on H100 GPUs.",
    "vendor tool news": "🔥 NVIDIA TensorRT-LLM now supports the model on H100 GPUs.",
    "kernel library claim": "TE provides very efficient kernels for both A100 and H100 GPUs.",
    "spaced board name": "The Ultra 96 times faster claim is wrong.",
    "letters of other words": "The ESP loss and the STM module.",
    "flops in prose": "The model has 1.8G FLOPs.",
    "model size": "Model size: 2.3GB",
    "out of memory advice": "If you run out of memory, reduce the batch size to 8.",
    "cuda error message": (
        "RuntimeError: CUDA out of memory. Tried to allocate 150.00 MiB (GPU 0; 23.70 GiB total "
        "capacity; 21.31 GiB already allocated)"
    ),
    "section number": "See Section A10 of the paper.",
    "flops beside a memory column": (
        "| Model | FLOPs | Memory |\n|---|---|---|\n| Ours | 1.8G | - |\n"
    ),
    "community section": (
        "## Community Support\n- Our model on NVIDIA Jetson Orin: https://github.com/x/jetson\n"
    ),
    "notable forks section": (
        "## notable forks\n\n- Habana Gaudi2\n  - llm.tpc by @someone: a Habana Gaudi2 port "
        "of this project\n"
    ),
    "ports section": "## Ports\n\n- A port of this model to an Edge TPU board.\n",
    "cpus option outside a job script": "```\npython train.py --cpus-per-task=8\n```\n",
    "code not comment": "```\npython train.py --gpu 0  # 16 GB\nnvidia-smi\n```\n",
}


# Chinese READMEs run words together; the GPU and its memory are stated all the same.
CJK = {
    "cards multiplied out": ("以下示例是基于4*3090进行训练。", {"hw_gpu"}),
    "cards counted": ("我们使用4张3090训练。", {"hw_gpu"}),
    "GPU memory": ("训练需要12G显存。", {"hw_gpu"}),
    "GPU memory named first, then the machine's": ("显存：12G，内存64G。", {"hw_gpu", "hw_memory"}),
    "GPU memory after 的": ("v3-8 TPU有128G的显存。", {"hw_gpu", "hw_other"}),
    "a resolution and a port are no cards": ("分辨率1920x1080的视频，端口3090。", set()),
}


@pytest.mark.parametrize("case", CJK, ids=list(CJK))
def test_hardware_in_chinese_text(case: str) -> None:
    text, fields = CJK[case]
    assert _fields(text) == fields


def test_own_experience_is_no_report_and_a_remark_after_a_command_counts() -> None:
    # "according to the paper" reports others' hardware; "according to our experience" is ours
    assert _fields(
        "According to our experience, `--height=720` and `--width=1280` work well\n"
        "on a Gefore GTX 1050 TI with 4GB memory.\n"
    ) == {"hw_gpu"}
    assert _fields("Figures for a GTX 1080 Ti are according to the paper.\n") == set()
    assert _fields("Figures for a GTX 1080 Ti are according to our experience.\n") == {"hw_gpu"}
    note = "```\npip install -r requirements_3090.txt   (GPU 3090, CUDA 11.4)\n```\n"
    assert _fields(note) == {"hw_gpu"}
    assert _fields("```\npip install -r requirements.txt   (CUDA 11.4)\n```\n") == set()
    # a code block that sets out the machine, a part per line
    assert _fields("### Experiments\n```\nGPU：NVIDIA Tesla P40\n```\n") == {"hw_gpu"}
    assert _fields("```\npython train.py --gpu 0\nnvidia-smi\n```\n") == set()


@pytest.mark.parametrize("case", POSITIVE, ids=list(POSITIVE))
def test_hardware_named_by_the_codebook_counts(case: str) -> None:
    text, fields = POSITIVE[case]
    assert _fields(text) == fields


@pytest.mark.parametrize("case", NEGATIVE, ids=list(NEGATIVE))
def test_vague_or_foreign_hardware_does_not_count(case: str) -> None:
    assert _fields(NEGATIVE[case]) == set()


SPECS = {
    "count and memory": (
        "This code has been tested on a single NVIDIA Titan X (12GB).",
        {"kind": "gpu", "device": "NVIDIA Titan X", "count": 1, "memory_gb": 12.0},
    ),
    "glued spelling kept, code upper-cased": (
        "We used 4x v100 (32 GB) GPUs.",
        {"kind": "gpu", "device": "V100", "count": 4, "memory_gb": 32.0},
    ),
    "count before vendor": (
        "Training uses 2 NVIDIA P40 GPUs.",
        {"kind": "gpu", "device": "NVIDIA P40", "count": 2, "memory_gb": None},
    ),
    "cpu model": (
        "Benchmarked on two Intel Xeon Gold 6148.",
        {"kind": "cpu", "device": "Xeon Gold 6148", "count": 2, "memory_gb": None},
    ),
    "system memory": (
        "A workstation with 32 GB RAM.",
        {"kind": "memory", "device": None, "count": None, "memory_gb": 32.0},
    ),
    "memory in megabytes": (
        "It needs 512 MB of RAM.",
        {"kind": "memory", "device": None, "count": None, "memory_gb": 0.5},
    ),
    "cores": (
        "The machine has 8 CPU cores.",
        {"kind": "cpu", "device": None, "count": 8, "memory_gb": None},
    ),
    "geforce number alone": (
        "It runs faster than real-time on a consumer 4090!",
        {"kind": "gpu", "device": "4090", "count": 1, "memory_gb": None},
    ),
    "data-centre card written with a hyphen": (
        "Finetuning takes 10 minutes to run on a single NVidia K-80.",
        {"kind": "gpu", "device": "NVidia K80", "count": 1, "memory_gb": None},
    ),
    "an A100, not an article": (
        "It trains in 2 hours on 8 x A100.",
        {"kind": "gpu", "device": "A100", "count": 8, "memory_gb": None},
    ),
    "a count of data-centre cards multiplied out": (
        "We trained with image batch size 16 using 8*P40.",
        {"kind": "gpu", "device": "P40", "count": 8, "memory_gb": None},
    ),
    "board": (
        "It runs on a Jetson Nano.",
        {"kind": "other", "device": "Jetson Nano", "count": 1, "memory_gb": None},
    ),
}


@pytest.mark.parametrize("case", SPECS, ids=list(SPECS))
def test_structured_spec(case: str) -> None:
    text, expected = SPECS[case]
    specs = _specs(text)
    assert len(specs) == 1
    assert {k: specs[0][k] for k in expected} == expected
    assert specs[0]["source"] == "README.md:1"


def test_a_gpu_memory_after_the_model_is_not_counted_twice() -> None:
    specs = _specs("Tested on a Tesla V100 (32GB) and with 64 GB RAM.")
    assert [(s["kind"], s["device"], s["memory_gb"]) for s in specs] == [
        ("gpu", "Tesla V100", 32.0),
        ("memory", None, 64.0),
    ]


def test_labels_evidence_and_details(tmp_path: Path) -> None:
    readme = "# Net\n\nIntro.\n\nTraining takes 2 days on a GTX 1080 and 16GB RAM.\n"
    labels, ctx = _classify(tmp_path, {"README.md": readme})
    assert {f: labels[f].value for f in (*FIELDS, "hardware_req")} == {
        "hw_gpu": True,
        "hw_cpu": False,
        "hw_memory": True,
        "hw_other": False,
        "hardware_req": True,
    }
    gpu = labels["hw_gpu"].evidence[0]
    assert (gpu.path, gpu.line, gpu.rule) == ("README.md", 5, "hardware.gpu_model")
    assert gpu.text == "Training takes 2 days on a GTX 1080 and 16GB RAM."
    assert {e.rule for e in labels["hardware_req"].evidence} == {
        "hardware.gpu_model",
        "hardware.system_memory",
    }
    assert [s["kind"] for s in ctx.details["hardware"]] == ["gpu", "memory"]


def test_every_field_is_emitted_when_nothing_is_found(tmp_path: Path) -> None:
    labels, ctx = _classify(tmp_path, {"README.md": "# Net\nA GPU is required.\n"})
    assert {f: labels[f].value for f in labels} == dict.fromkeys((*FIELDS, "hardware_req"), False)
    assert all(not label.evidence for label in labels.values())
    assert ctx.details["hardware"] == []


def test_only_the_docs_the_codebook_reads(tmp_path: Path) -> None:
    files = {
        "README.md": "# Net\nSee [notes](notes/gpu.md).\n",
        "notes/gpu.md": "Tested on a GTX 1080.\n",  # linked: read
        "tools/README.md": "Runs on a Tesla K80.\n",  # an unlinked sub-folder README: not read
        "src/model.py": "# trained on a Titan X\n",  # code is not documentation
    }
    labels, _ = _classify(tmp_path, files)
    assert [e.path for e in labels["hw_gpu"].evidence] == ["notes/gpu.md"]


def test_a_folder_link_reads_that_folders_readme(tmp_path: Path) -> None:
    files = {
        "README.md": "# Net\nSee [examples/NLU/](examples/NLU) and "
        "[ROS](https://github.com/someone/net/tree/master/ros).\n",
        "examples/NLU/README.md": "We ran it on 4 NVIDIA Tesla V100 GPUs.\n",
        "ros/README.md": "It runs on a Jetson Nano.\n",
        "tools/README.md": "Runs on a Tesla K80.\n",  # not linked: not read
    }
    labels, _ = _classify(tmp_path / "net", files)
    assert [e.path for e in labels["hw_gpu"].evidence] == ["examples/NLU/README.md"]
    assert [e.path for e in labels["hw_other"].evidence] == ["ros/README.md"]


def test_a_bundled_frameworks_docs_are_not_this_projects_hardware(tmp_path: Path) -> None:
    files = {
        "README.md": "# Fork\nOur detector.\n",
        "include/caffe/caffe.hpp": "// caffe\n",
        "docs/performance.md": "# Caffe performance\nCaffe on a K40: Caffe is fast.\n"
        "## NVIDIA K40\nTraining is 26 secs.\n",
    }
    labels, _ = _classify(tmp_path / "fork", files)
    assert labels["hardware_req"].value is False
    files["README.md"] = "# Fork\nTraining takes 5 hours on a GTX 1080.\n"
    labels, _ = _classify(tmp_path / "fork2", files)
    assert [e.path for e in labels["hw_gpu"].evidence] == ["README.md"]


def test_a_page_of_others_uses_is_not_this_projects_hardware(tmp_path: Path) -> None:
    files = {
        "README.md": "# Net\nSee [who uses it](usage.md).\n",
        "usage.md": "# Net adoption\n## Hardware\n- [AWS Trainium 2](https://aws.example)\n",
    }
    labels, _ = _classify(tmp_path / "adoption", files)
    assert labels["hardware_req"].value is False
    files["usage.md"] = "# Usage\n## Hardware\n- Tested on AWS Trainium 2\n"
    labels, _ = _classify(tmp_path / "usage", files)
    assert [e.path for e in labels["hw_other"].evidence] == ["usage.md"]


def test_a_docs_page_presenting_another_project_is_not_this_projects_hardware(
    tmp_path: Path,
) -> None:
    page = (
        "# Instruct-NeRF2NeRF\n\n[Code](https://github.com/someone/instruct-nerf2nerf)\n\n"
        "## Installation\n\n```bash\npip install git+https://github.com/someone/instruct-nerf2nerf\n```\n\n"
        "| Method | Memory |\n| --- | --- |\n| `in2n` | ~15GB |\n\nIt was trained on an RTX 3090.\n"
    )
    files = {"README.md": "# Splatter\nOur framework.\n", "docs/methods/in2n.md": page}
    labels, _ = _classify(tmp_path / "splatter", files)
    assert labels["hardware_req"].value is False
    # The project's own page about the same method is read.
    files["docs/methods/in2n.md"] = page.replace("# Instruct-NeRF2NeRF", "# Editing scenes")
    labels, _ = _classify(tmp_path / "own", files)
    assert [e.path for e in labels["hw_gpu"].evidence][:1] == ["docs/methods/in2n.md"]
    # A repository's own docs titled with its own name are its own.
    files["docs/methods/in2n.md"] = page
    labels, _ = _classify(tmp_path / "instruct-nerf2nerf", files)
    assert labels["hw_gpu"].value is True
    # A port's page titled with the original it reimplements is the port's own.
    labels, _ = _classify(tmp_path / "instruct-nerf2nerf-pytorch", files)
    assert labels["hw_gpu"].value is True


def test_a_copied_toolboxs_docs_folder_is_not_this_projects_hardware(tmp_path: Path) -> None:
    files = {
        "README.md": "# Seg\nOur segmenter.\n",
        "mmseg/version.py": "__version__ = '0.11.0'\n",
        "docs/get_started.md": "Install mmsegmentation; mmsegmentation needs mmcv.\n",
        "docs/train.md": "Train with mmsegmentation tools; see mmsegmentation configs.\n",
        "docs/inference.md": "It used 2.25GB CPU memory with efficient_test=True.\n",
    }
    labels, _ = _classify(tmp_path / "copy", files)
    assert labels["hardware_req"].value is False
    del files["mmseg/version.py"]
    labels, _ = _classify(tmp_path / "own", files)
    assert [e.path for e in labels["hw_memory"].evidence] == ["docs/inference.md"]


def test_a_copied_toolboxs_model_zoo_is_not_this_projects_hardware(tmp_path: Path) -> None:
    files = {
        "README.md": "# Seg\nOur segmenter.\n",
        "mmseg/version.py": "__version__ = '0.11.0'\n",
        "docs/model_zoo.md": "# Model zoo\nSee mmsegmentation configs; mmsegmentation is fast.\n"
        "### Hardware\n* 8 NVIDIA Tesla V100 (32G) GPUs\n",
    }
    labels, _ = _classify(tmp_path / "copy", files)
    assert labels["hardware_req"].value is False
    del files["mmseg/version.py"]
    labels, _ = _classify(tmp_path / "own", files)
    assert [e.path for e in labels["hw_gpu"].evidence] == ["docs/model_zoo.md"]


def test_spacy_pipeline_is_built_once_and_needs_no_model() -> None:
    nlp, matchers = _pipeline()
    assert _pipeline() is _pipeline()
    assert nlp.pipe_names == ["sentencizer"]
    assert [t.text for t in nlp("GTX1080Ti")] == ["GTX", "1080", "Ti"]
    assert set(matchers) == {"GPU", "CPU", "ACCELERATOR", "MEMORY", "CORES"}
    assert all(len(m) > 0 for m in matchers.values())


def test_only_the_labels_a_text_may_hold_are_matched() -> None:
    assert labels_to_match("We describe the method in detail.") == frozenset()
    assert labels_to_match("Trained on 8xA100 with 80GB") == {"GPU", "MEMORY"}
    assert labels_to_match("An i7-8700K with 16 cores") == {"CPU", "CORES"}
    assert labels_to_match("Runs on a Jetson Nano") == {"ACCELERATOR"}


def test_hostile_text_never_raises() -> None:
    blocks = [
        Block("README.md", 1, "paragraph", "GTX " * 5000),
        Block("README.md", 2, "table_row", "\x00\ufffd | 9" * 100, header="GPU"),
        Block("README.md", 3, "code", "#SBATCH --mem=abcG\n#SBATCH --gres=gpu:\n"),
        Block("README.md", 4, "html", "12345678901234567890 GB of memory"),
    ]
    assert isinstance(find_hardware(blocks), list)
