"""Memory by its wording: accelerator memory is not RAM; tables by model size are GPU memory."""

from __future__ import annotations

import pytest

from miner.audit.classify.hardware import find_hardware
from miner.audit.docs import parse_markdown


def _fields(text: str) -> set[str]:
    return {h.field for h in find_hardware(parse_markdown("README.md", text))}


@pytest.mark.parametrize(
    "text",
    [
        "# X\n\n## Hardware\n\n| Method | Bits | 7B | 13B |\n|---|---|---|---|\n"
        "| Full | 16 | 60GB | 120GB |\n",
        "# X\n\n## Hardware\n\n| Model | fp16 | int8 |\n|---|---|---|\n| Base | 24GB | 12GB |\n",
        "# X\n\nTraining needs 16GB of TPU memory.\n",
        "# X\n\nEach accelerator must hold 32GB of HBM.\n",
    ],
)
def test_accelerator_memory_is_gpu_memory(text: str) -> None:
    assert _fields(text) == {"hw_gpu"}


@pytest.mark.parametrize(
    "text",
    [
        "# X\n\n## Hardware\n\n| Part | Amount |\n|---|---|\n| RAM | 64GB |\n",
        "# X\n\nThe server has 64GB of RAM.\n",
    ],
)
def test_system_memory_stays_memory(text: str) -> None:
    assert _fields(text) == {"hw_memory"}


@pytest.mark.parametrize(
    "sentence",
    [
        "The script downloads the data in parallel using 8 CPU cores.",
        "Set --workers=16 CPU cores for preprocessing.",
    ],
)
def test_cores_a_command_uses_are_a_setting(sentence: str) -> None:
    assert _fields(f"# X\n\n{sentence}\n") == set()


@pytest.mark.parametrize(
    "sentence", ["We trained on a machine with 8 CPU cores.", "Tested on a 16-core CPU."]
)
def test_cores_of_the_machine_count(sentence: str) -> None:
    assert _fields(f"# X\n\n{sentence}\n") == {"hw_cpu"}


@pytest.mark.parametrize(
    "sentence",
    [
        "The model can be trained from iPhone 12 Pro captures made with a scanning app.",
        "Use an iPhone 12 Pro or newer to record a dataset.",
    ],
)
def test_a_phone_that_records_the_data_is_no_hardware(sentence: str) -> None:
    assert _fields(f"# X\n\n{sentence}\n") == set()


def test_a_phone_that_runs_the_model_is_hardware() -> None:
    assert _fields("# X\n\nThe app runs the model on an iPhone 12 Pro at 30 FPS.\n") == {"hw_other"}


def test_a_table_of_gpus_by_cuda_architecture_is_a_build_lookup() -> None:
    table = "| GPU | CUDA arch |\n|---|---|\n| A100 | 80 |\n| V100 | 70 |\n"
    assert _fields(f"# X\n\n## Docker\n\n{table}") == set()
    tested = "| GPU | Time (s) |\n|---|---|\n| A100 | 80 |\n"
    assert _fields(f"# X\n\n## Speed\n\n{tested}") == {"hw_gpu"}


@pytest.mark.parametrize(
    ("text", "fields"),
    [
        (
            "Quantizing requires RAM amount sufficient to hold uncompressed model weights "
            "(e.g. ~130GB for Llama65B).",
            {"hw_memory"},
        ),
        ("Training requires a GPU with large memory, e.g. 24GB.", {"hw_gpu"}),
        ("It requires GPU RAM enough for the model (e.g. 24GB).", {"hw_gpu"}),
        ("It requires the checkpoint files (e.g. 2GB of weights).", set()),
        ("The weights are large, e.g. 130GB for Llama65B, so download them first.", set()),
    ],
)
def test_a_size_given_as_the_example_of_a_required_memory_is_that_memory(
    text: str, fields: set[str]
) -> None:
    assert _fields(f"# X\n\n{text}\n") == fields


@pytest.mark.parametrize(
    "text",
    [
        "DyNet runs by default with 512MB of memory, split between the forward and backward steps.",
        "One slab stays near a fixed memory budget (about 256 MB by default): bigger "
        "vocabularies get fewer rows per chunk.",
    ],
)
def test_a_size_the_program_sets_itself_by_default_is_no_requirement(text: str) -> None:
    assert _fields(f"# X\n\n{text}\n") == set()
    # the machine the default was chosen for still is one
    assert _fields("# X\n\nThe default works well when using 16GB ram.\n") == {"hw_memory"}
