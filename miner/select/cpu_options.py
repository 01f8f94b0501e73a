"""The entry script's own way to run on the CPU.

Many training scripts declare an option that keeps them off the GPU: `--no_cuda` or `--cpu`
(argparse `store_true`), `--device` whose default is `cuda`, `--cuda` or `--use_gpu` typed as a
boolean and on by default, an absl flag `use_gpu` defined as true, or a GPU id where the help
says -1 means the CPU. A README command rarely passes them, since its authors trained on GPUs,
and the run then stops at its first `.cuda()` on a machine without one (`needs_gpu`). The
project's own CPU path is tried before the CPU shim, which only PyTorch code can use: the
option is read from the script with `ast` (never run), the command is given it (or its GPU
value is replaced), and each change is a note of the run.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from pathlib import Path

from miner.select.declared_options import DeclaredOption, constant, declared_options, option_name

# Names with `-` read as `_` and without their dashes.
ASKS_FOR_CPU = re.compile(
    r"^(?:no_?(?:cuda|gpus?)|(?:use_|force_|only_)?cpu|cpu_only|disable_cuda)$"
)
ASKS_FOR_GPU = re.compile(r"^(?:use_?)?(?:cuda|gpus?)$")
DEVICE = re.compile(r"^device$")
GPU_ID = re.compile(r"^(?:gpus?|gpu_?ids?|gpu_?id|gpu_?num)$")
# Help that says -1 runs on the CPU ("-1 for CPU", "use -1 for CPU mode", "cpu: -1").
MINUS_ONE_IS_CPU = re.compile(r"(?i)-1\W+(?:\w+\W+){0,3}cpu|cpu\W+(?:\w+\W+){0,3}-1")
GPU_VALUE = re.compile(r"(?i)^(?:cuda|gpu)(?::\d+)?$")
BOOL_TYPE = re.compile(r"(?i)bool")  # `str2bool`, `strtobool`, `boolean_string`


@dataclass(frozen=True)
class CpuOption:
    """An option of the entry script that runs it on the CPU, and where it is declared."""

    spellings: tuple[str, ...]
    words: tuple[str, ...]  # what to pass: `--no_cuda`, `--device cpu`, `--use_gpu=false`
    line: int
    takes_value: bool  # whether the option is followed by a value on the command line


def _type_name(node: ast.expr | None) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    if isinstance(node, ast.Lambda):
        return ast.unparse(node.body)
    return ""


def _argparse_option(option: DeclaredOption) -> CpuOption | None:
    spellings, longest, line = option.spellings, option.longest, option.line
    names = option.names()
    action, default = option.action, constant(option.default)
    kind = _type_name(option.kind)
    if action == "store_true" and any(ASKS_FOR_CPU.match(n) for n in names):
        return CpuOption(spellings, (longest,), line, takes_value=False)
    if action == "store_true" and any(ASKS_FOR_GPU.match(n) for n in names):
        return CpuOption(spellings, (), line, takes_value=False)  # off unless the command asks
    if any(ASKS_FOR_GPU.match(n) for n in names) and action is None and default is True:
        if kind == "bool":  # `bool("False")` is True; only the empty string is false
            return CpuOption(spellings, (longest, ""), line, takes_value=True)
        if BOOL_TYPE.search(kind):
            return CpuOption(spellings, (longest, "False"), line, takes_value=True)
    if any(DEVICE.match(n) for n in names) and kind in ("", "str"):
        if isinstance(default, str) and GPU_VALUE.match(default):
            return CpuOption(spellings, (longest, "cpu"), line, takes_value=True)
        if "cpu" in option.help.lower():
            return CpuOption(spellings, (longest, "cpu"), line, takes_value=True)
    if any(GPU_ID.match(n) for n in names) and MINUS_ONE_IS_CPU.search(option.help):
        if default not in (-1, "-1"):
            return CpuOption(spellings, (longest, "-1"), line, takes_value=True)
    return None


def _absl_option(option: DeclaredOption) -> CpuOption | None:
    if option.define not in ("DEFINE_bool", "DEFINE_boolean"):
        return None
    spelling, default = option.longest, constant(option.default)
    name = option_name(spelling)
    if ASKS_FOR_GPU.match(name) and default is True:
        return CpuOption((spelling,), (f"{spelling}=false",), option.line, takes_value=False)
    if ASKS_FOR_CPU.match(name) and default is False:
        return CpuOption((spelling,), (f"{spelling}=true",), option.line, takes_value=False)
    return None


def declared_cpu_option(source: str) -> CpuOption | None:
    """The first option a script's argparse, click or absl parser declares that runs it on the
    CPU, or None."""
    for option in declared_options(source):
        found = _absl_option(option) if option.absl else _argparse_option(option)
        if found is not None:
            return found
    return None


def _without(command: tuple[str, ...], option: CpuOption) -> tuple[str, ...]:
    """`command` without the option (and its value) where the command already passes it."""
    words: list[str] = []
    skip = False
    for word in command:
        if skip:
            skip = False
            continue
        head = word.split("=", 1)[0]
        if head in option.spellings:
            skip = option.takes_value and "=" not in word
            continue
        words.append(word)
    return tuple(words)


def on_the_cpu(command: tuple[str, ...], script: Path | None) -> tuple[tuple[str, ...], str]:
    """The command asking the entry script to run on the CPU, and a note of the change; the
    command unchanged and no note where the script declares no such option or the command
    already asks for it."""
    if script is None or script.suffix != ".py" or not script.is_file():
        return command, ""
    option = declared_cpu_option(script.read_text(encoding="utf-8", errors="replace"))
    if option is None:
        return command, ""
    changed = (*_without(command, option), *option.words)
    if changed == command:
        return command, ""
    shown = " ".join(w if w else "''" for w in option.words) or f"without {option.spellings[-1]}"
    return changed, f"cpu option: {shown} (declared at {script.name}:{option.line})"


# A run that asks a GPU's number formats of a CPU: Hugging Face's "Your setup doesn't support
# bf16/gpu", "--fp16 ... can only be used on CUDA", "--tf32 requires Ampere", Lightning's
# 16-bit precision without a GPU.
MIXED_PRECISION_ON_CPU = re.compile(
    r"(?i)doesn't support bf16|\b(?:fp16|bf16|tf32|half precision|mixed precision|amp)\b"
    r"[^\n]{0,80}\b(?:cuda|gpus?|ampere|use_cpu|requires? a)\b"
)
# The command's words that ask for it: a switch, or an option and its value.
PRECISION_SWITCH = re.compile(r"^--(?:bf16|fp16|tf32|amp|use_amp|half|apex)(?:=(\w+))?$")
PRECISION_OPTION = re.compile(r"^--(?:mixed_precision|mixed-precision|precision)(?:=(\S+))?$")
# The values a boolean switch may be given (`--bf16 True`, `--fp16 0`).
SWITCH_VALUES = ("true", "1", "yes", "false", "0")


def without_mixed_precision(command: tuple[str, ...]) -> tuple[tuple[str, ...], str]:
    """The command without its half-precision switches (`--bf16 True`, `--fp16`), and with
    `--precision 32` or `--mixed_precision no` for an option that asked for 16 bits; a note of
    what changed, or "" where nothing did."""
    words: list[str] = []
    dropped: list[str] = []
    index = 0
    while index < len(command):
        word = command[index]
        following = command[index + 1] if index + 1 < len(command) else ""
        switch = PRECISION_SWITCH.match(word)
        option = PRECISION_OPTION.match(word)
        if switch:
            takes = switch.group(1) is None and following.lower() in SWITCH_VALUES
            dropped.append(f"{word} {following}" if takes else word)
            index += 2 if takes else 1
            continue
        if option:
            value = option.group(1) if option.group(1) is not None else following
            full = "no" if "mixed" in word else "32"
            if value and value not in ("no", "32", "fp32", "32-true"):
                dropped.append(f"{word} {value} -> {full}")
                words += [f"{word.split('=')[0]}={full}"] if option.group(1) else [word, full]
                index += 1 if option.group(1) is not None else 2
                continue
        words.append(word)
        index += 1
    if not dropped:
        return command, ""
    return tuple(words), "cpu precision: full precision on the CPU (" + "; ".join(dropped) + ")"


def cpu_rerun(
    outcome: str, evidence: str, command: tuple[str, ...], script: Path | None, tried: set[str]
) -> tuple[tuple[str, ...], str] | None:
    """The command to run again on the CPU, and its note, after a run that ended for want of a
    GPU (the script's own CPU option) or of a GPU's number formats (full precision); each kind
    once (`tried` keeps count), None where neither applies or nothing would change."""
    if outcome == "needs_gpu" and "option" not in tried:
        tried.add("option")
        changed, note = on_the_cpu(command, script)
    elif (outcome == "runtime" and "precision" not in tried
          and MIXED_PRECISION_ON_CPU.search(evidence)):  # fmt: skip
        tried.add("precision")
        changed, note = without_mixed_precision(command)
        if not note and script is not None and script.suffix == ".sh":
            note = _script_in_full_precision(script)
    else:
        return None
    return (changed, note) if note else None


# The same switches inside a shell script the command runs (`bash scripts/run_sft.sh`, whose
# `torchrun ... --bf16 True` line asks for them): written out of the smoke copy's script.
SCRIPT_SWITCH = re.compile(
    r"[ \t]--(?:bf16|fp16|tf32|amp|use_amp|half)(?:[ \t=](?:True|true|1|False|false))?(?=[ \t]|$)",
    re.M,
)
SCRIPT_OPTION = re.compile(
    r"([ \t]--(?:mixed_precision|mixed-precision)[ \t=])(?:fp16|bf16)(?=[ \t]|$)", re.M
)


def _script_in_full_precision(script: Path) -> str:
    """Drop the half-precision switches from the copy's shell script; a note, or ""."""
    try:
        text = script.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return ""
    found = [m.group(0).strip() for m in SCRIPT_SWITCH.finditer(text)]
    changed = SCRIPT_OPTION.sub(r"\1no", SCRIPT_SWITCH.sub("", text))
    if changed == text:
        return ""
    script.write_text(changed, encoding="utf-8")
    dropped = "; ".join(found) or "--mixed_precision no"
    return f"cpu precision: full precision on the CPU ({dropped}, in {script.name})"
