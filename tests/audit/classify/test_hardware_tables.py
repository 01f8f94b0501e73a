"""Table cells read by their column: GeForce numbers under "GPU", sizes under memory columns."""

from __future__ import annotations

import pytest

from miner.audit.classify.hardware_tables import table_cells

READ = {
    "geforce under gpu": ("Setting | GPU", "Training | 3090", ("hw_gpu", "3090", None)),
    "count and number": ("Setting | Hardware | Time", "Training | 8x 4090 | 2d",
                         ("hw_gpu", "4090", None)),
    "unit in header": ("Model | Train Mem (GB) | Speed", "A | 12.3 | 30", ("hw_gpu", None, 12.3)),
    "megabytes": ("Method | Testing memory", "Ours | 593.1M", ("hw_gpu", None, 0.58)),
    "ram column": ("Model | RAM (GB)", "A | 16", ("hw_memory", None, 16.0)),
    "row on the cpu": ("Model | Device | Memory (GB)", "A | CPU | 2", ("hw_memory", None, 2.0)),
    "row on the gpu": ("Model | Device | Memory (GB)", "A | GPU | 4", ("hw_gpu", None, 4.0)),
    "disk and memory": ("Model | Disk | Mem", "large | 2.9 GiB | ~3900 MB",
                        ("hw_memory", None, 3.81)),
    "disk and gpu memory": ("Model | Disk | GPU Mem", "large | 2.9 GiB | ~3900 MB",
                            ("hw_gpu", None, 3.81)),
}  # fmt: skip

IGNORED = {
    "gpu count": ("Setting | GPUs", "Training | 8"),
    "year": ("Model | Year", "Ours | 2080"),
    "model size": ("Model | Size (MB) | Params", "A | 500 | 12"),
    "flops": ("Model | FLOPs (G) | Top-1", "A | 4.1 | 81.2"),
    "tiny memory": ("Model | Memory (MB)", "A | 12"),
    "cell with words": ("Model | Memory (GB)", "A | about 12 on V100"),
}


@pytest.mark.parametrize("case", READ, ids=list(READ))
def test_a_column_names_what_its_cells_are(case: str) -> None:
    header, row, (field, device, gb) = READ[case]
    found = list(table_cells(header, row))
    assert len(found) == 1
    got_field, _, spec = found[0]
    assert (got_field, spec["device"], spec["memory_gb"]) == (field, device, gb)


@pytest.mark.parametrize("case", IGNORED, ids=list(IGNORED))
def test_other_columns_give_nothing(case: str) -> None:
    header, row = IGNORED[case]
    assert list(table_cells(header, row)) == []


def test_a_footprint_table_s_memory_is_the_machine_s_in_prose_cells_too() -> None:
    from miner.audit.classify.hardware import find_hardware
    from miner.audit.docs import parse_markdown

    table = "| Model | Disk | Mem |\n| --- | --- | --- |\n| large | 2.9 GiB | ~3.9 GB |\n"
    found = {h.field for h in find_hardware(parse_markdown("README.md", f"# T\n\n{table}"))}
    assert found == {"hw_memory"}
    results = "| Method | Training Mem | Speed |\n| --- | --- | --- |\n| Ours | 12.3 GB | 5 |\n"
    found = {h.field for h in find_hardware(parse_markdown("README.md", f"# T\n\n{results}"))}
    assert found == {"hw_gpu"}
