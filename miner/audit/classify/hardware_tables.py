"""Hardware read from table cells by their column: results tables rarely repeat the unit or device.

A "GPU" column whose cells are bare GeForce numbers ("| Training | 3090 |"), and a memory column
whose cells are bare numbers under a unit in the header ("Mem (GB) | 12.3") or sizes in megabytes
("Testing memory | 593.1M"). A memory column is GPU memory unless its header says RAM, CPU or
host, the row runs on the CPU, or the table sets it beside the model's size on disk: results
tables measure the model on the GPU. spaCy is not needed for any of this.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

from miner.audit.classify.gazetteer import GEFORCE_CELL, GPU_COLUMN

# Table columns whose sizes are not memory at all, and memory columns said to be system RAM.
NOT_MEMORY_COLUMN = re.compile(
    r"flop|\bmacs?\b|mult-?adds|param|size|disk|storage|download|checkpoint|weights|\bfile|"
    r"token|data|\bvocab",
    re.IGNORECASE,
)
MEMORY_COLUMN = re.compile(r"mem|\bram\b|vram", re.IGNORECASE)
SYSTEM_COLUMN = re.compile(r"\b(?:cpu|host|system|main)\b|(?<!v)\bram\b", re.IGNORECASE)
# A row that says where it runs ("Device | CPU"), and a footprint table of a model's files on
# disk beside its memory once loaded ("Model | Disk | Mem"): the memory is the machine's.
DEVICE_COLUMN = re.compile(r"\b(?:device|hardware|backend|platform|processor)\b", re.I)
CPU_CELL = re.compile(r"^\W*cpu\W*$", re.I)
DISK_COLUMN = re.compile(r"\b(?:disk|storage)\b", re.I)
GPU_COLUMN_WORDS = re.compile(r"gpu|vram|cuda|graphics|video", re.I)


def system_memory_column(header: str, row: str, column: str) -> bool:
    """True when a table's memory column holds system RAM: its header says so (RAM, CPU,
    host), the row's device cell is the CPU, or the table gives a model's size on disk beside
    its memory and names no GPU there."""
    if SYSTEM_COLUMN.search(column):
        return True
    columns, cells = header.split(" | "), row.split(" | ")
    if any(
        DEVICE_COLUMN.search(name) and CPU_CELL.match(cell)
        for name, cell in zip(columns, cells, strict=False)
    ):
        return True
    return any(DISK_COLUMN.search(c) for c in columns) and not GPU_COLUMN_WORDS.search(header)


HEADER_UNIT = re.compile(r"[(\[]\s*(gb|gib|g|mb|mib|m)\s*[)\]]", re.IGNORECASE)
BARE_NUMBER = re.compile(r"^\s*~?\s*(\d{1,4}(?:\.\d+)?)\s*$")
MEGABYTES = re.compile(r"^\s*~?\s*(\d{3,6}(?:\.\d+)?)\s*(?:m|mb|mib)\s*$", re.IGNORECASE)
UNIT_GB = {"gb": 1.0, "gib": 1.0, "g": 1.0, "mb": 1 / 1024, "mib": 1 / 1024, "m": 1 / 1024}


def _memory_gb(column: str, cell: str) -> float | None:
    """GB in a memory column's cell, when the unit is in the header or the cell is in MB."""
    if m := MEGABYTES.match(cell):
        return float(m.group(1)) / 1024
    unit = HEADER_UNIT.search(column)
    if unit and (m := BARE_NUMBER.match(cell)):
        return float(m.group(1)) * UNIT_GB[unit.group(1).lower()]
    return None


def table_cells(header: str, row: str) -> Iterator[tuple[str, str, dict[str, Any]]]:
    """(field, rule, spec) for each GPU model or memory size a table row gives by its column."""
    for column, cell in zip(header.split(" | "), row.split(" | "), strict=False):
        if GPU_COLUMN.search(column) and (m := GEFORCE_CELL.match(cell)):
            count = int(m.group(1)) if m.group(1) else None
            spec = {"kind": "gpu", "device": m.group(2), "count": count, "memory_gb": None}
            yield "hw_gpu", "hardware.gpu_model", spec
        elif MEMORY_COLUMN.search(column) and not NOT_MEMORY_COLUMN.search(column):
            gb = _memory_gb(column, cell)
            if gb is None or not 0.25 <= gb <= 4096:
                continue
            if system_memory_column(header, row, column):
                spec = {"kind": "memory", "device": None, "count": None, "memory_gb": round(gb, 2)}
                yield "hw_memory", "hardware.system_memory", spec
            else:
                spec = {"kind": "gpu", "device": None, "count": None, "memory_gb": round(gb, 2)}
                yield "hw_gpu", "hardware.gpu_memory", spec
