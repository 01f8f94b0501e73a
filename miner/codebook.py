"""The codebook's vocabulary: field names, value sets and derived rules.

Every classifier output, annotation sheet column and report row uses these names exactly. What
each label means and which rule sets it is written in the codebook text shipped beside this
module (`codebook.md`, also `docs/codebook.md`), which `codebook_text` returns.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from importlib import resources
from typing import Any, Literal

from miner.errors import ConfigError

CODEBOOK_VERSION = "2021.1"

FieldKind = Literal["bool", "set", "one"]

FRAMEWORKS = (
    "tensorflow", "keras", "pytorch", "caffe", "caffe2", "theano", "mxnet", "cntk", "jax",
    "chainer", "paddlepaddle", "torch7", "darknet", "dynet", "tensorflowjs", "onnx",
)  # fmt: skip
PAPER_FRAMEWORKS = ("TensorFlow", "PyTorch", "Keras (TensorFlow)", "Caffe", "Theano", "Others")
NETWORK_TYPES = ("cnn", "rnn", "mlp", "gnn", "transformer", "gan", "drl", "other")
PAPER_NETWORKS = ("CNN", "RNN", "CNN/RNN", "GAN", "Others")
LANGUAGES = (
    "python", "lua", "cpp", "c", "javascript", "typescript", "matlab", "java", "julia", "go",
    "r", "csharp", "other",
)  # fmt: skip
DOMAINS = ("vision", "nlp", "speech", "medical", "graph", "generative", "rl", "recsys", "other")
EXCLUSIONS = ("educational", "library", "deprecated", "archived", "pretrained_only", "not_dl")
SOFTWARE_SOURCES = (
    "requirements_file", "conda_env", "setup", "pipfile", "poetry", "dockerfile", "readme",
    "other_manifest",
)  # fmt: skip


@dataclass(frozen=True)
class Field:
    """One codebook field: its name, kind and allowed values (empty for booleans)."""

    name: str
    kind: FieldKind
    values: tuple[str, ...] = ()
    open_prefix: str | None = None  # e.g. "other:" admits `other:<name>` values

    def allows(self, value: str) -> bool:
        """True when `value` is one of this field's codebook values."""
        if self.kind == "bool":
            return value in ("yes", "no")
        if value in self.values:
            return True
        prefix = self.open_prefix
        return bool(prefix and value.startswith(prefix) and value[len(prefix) :])


FIELDS: tuple[Field, ...] = (
    Field("is_dl", "bool"),
    Field("exclude", "set", EXCLUSIONS),
    Field("frameworks", "set", FRAMEWORKS, open_prefix="other:"),
    Field("primary_framework", "one", (*FRAMEWORKS, "none"), open_prefix="other:"),
    Field("paper_framework", "one", PAPER_FRAMEWORKS),
    Field("network_types", "set", NETWORK_TYPES),
    Field("paper_network", "one", PAPER_NETWORKS),
    Field("language", "one", LANGUAGES),
    Field("domain", "one", DOMAINS),
    Field("software_req", "bool"),
    Field("dependency_file", "bool"),
    Field("software_req_sources", "set", SOFTWARE_SOURCES),
    Field("versions_pinned", "bool"),
    Field("hardware_req", "bool"),
    Field("hw_gpu", "bool"),
    Field("hw_cpu", "bool"),
    Field("hw_memory", "bool"),
    Field("hw_other", "bool"),
    Field("training_code", "bool"),
    Field("data_available", "bool"),
)
FIELD_BY_NAME: dict[str, Field] = {f.name: f for f in FIELDS}
FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in FIELDS)
BOOL_FIELDS = tuple(f.name for f in FIELDS if f.kind == "bool")
SET_FIELDS = tuple(f.name for f in FIELDS if f.kind == "set")
ONE_FIELDS = tuple(f.name for f in FIELDS if f.kind == "one")
DERIVED_FIELDS = ("paper_framework", "paper_network", "hardware_req")

LabelValue = bool | str | frozenset[str]


@dataclass(frozen=True)
class Evidence:
    """Where a label comes from: a file, a 1-based line (0 = whole file), the text, the rule."""

    path: str
    line: int
    text: str
    rule: str

    def as_dict(self) -> dict[str, Any]:
        """A JSON-ready mapping with the codebook's evidence keys."""
        return {"path": self.path, "line": self.line, "text": self.text, "rule": self.rule}


def paper_framework(primary: str, keras_backend: str | None = "tensorflow") -> str:
    """Map a primary framework to the 2021 study's framework column (codebook rule)."""
    if primary == "keras":
        return "Keras (TensorFlow)" if keras_backend in (None, "tensorflow") else "Others"
    return {
        "tensorflow": "TensorFlow",
        "pytorch": "PyTorch",
        "caffe": "Caffe",
        "theano": "Theano",
    }.get(primary, "Others")


def paper_network(types: Iterable[str]) -> str:
    """Map a set of network types to the 2021 study's network column (codebook rule)."""
    kinds = set(types)
    if "gan" in kinds:
        return "GAN"
    if kinds == {"cnn", "rnn"}:
        return "CNN/RNN"
    if kinds == {"cnn"}:
        return "CNN"
    if kinds == {"rnn"}:
        return "RNN"
    return "Others"


def hardware_req(labels: Mapping[str, Any]) -> bool:
    """hardware_req = hw_gpu or hw_cpu or hw_memory or hw_other."""
    return any(bool(labels.get(k)) for k in ("hw_gpu", "hw_cpu", "hw_memory", "hw_other"))


def format_value(value: LabelValue | None) -> str:
    """Render a label as a sheet cell: yes/no, a ;-separated sorted set, or the value itself."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, frozenset | set | list | tuple):
        return ";".join(sorted(value))
    return str(value)


def parse_value(name: str, cell: str) -> LabelValue:
    """Parse a sheet cell for field `name`; raises ValueError naming the bad value."""
    spec = FIELD_BY_NAME[name]
    text = cell.strip()
    if spec.kind == "bool":
        low = text.lower()
        if low in ("yes", "true", "1", "y"):
            return True
        if low in ("no", "false", "0", "n"):
            return False
        raise ValueError(f"{name}: {cell!r} is not yes/no")
    if spec.kind == "set":
        items = frozenset(p.strip() for p in text.split(";") if p.strip())
        bad = sorted(v for v in items if not spec.allows(v))
        if bad:
            raise ValueError(f"{name}: unknown value(s) {', '.join(bad)}")
        return items
    if not spec.allows(text):
        raise ValueError(f"{name}: {cell!r} is not a codebook value")
    return text


SECTION_HEADING = re.compile(r"^#{1,3} ", re.M)


def codebook_text(field: str | None = None) -> str:
    """The codebook's Markdown text, or the section of one field; ConfigError for an unknown one."""
    text = resources.files("miner").joinpath("codebook.md").read_text(encoding="utf-8")
    if field is None:
        return text
    if field not in FIELD_BY_NAME:
        raise ConfigError(f"no codebook field {field!r}; the fields: {', '.join(FIELD_NAMES)}")
    heading = re.search(rf"^### `{re.escape(field)}`\n", text, re.M)
    if heading is None:  # the text and the vocabulary disagree: a test guards against it
        raise ConfigError(f"the codebook text has no section for {field!r}")
    end = SECTION_HEADING.search(text, heading.end())
    return text[heading.start() : end.start() if end else len(text)].rstrip() + "\n"
