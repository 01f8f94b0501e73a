"""What kind of project lint is looking at, from the audit's labels, and which code is its own.

Requirement advice fits a project that trains a model it presents as its own: a framework, a
toolkit, an inference tool or a tutorial has other duties, and a training loop in its examples
or in a copied-in library is not its model. The kind decides which codes apply (each rule names
its kinds); `own_code` decides which files the code facts are read from.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

from miner.audit.detect.enclosing import (
    builds_by_name,
    class_named,
    decorated,
    enclosing_class,
)
from miner.audit.detect.sources import role_of
from miner.audit.files import RepoTree, is_vendored
from miner.audit.ownership import copied_trees
from miner.codebook import Evidence
from miner.models import AuditResult

# Kinds, most specific first: an exclusion the audit found decides before training code does.
TRAINING = "training"  # trains a model it presents as its own
INFERENCE = "inference"  # runs models (its own pre-trained ones, or the user's) but trains none
LIBRARY = "library"  # a framework or toolkit installed and imported by others
EDUCATIONAL = "educational"  # tutorials, courses, collections of examples
INACTIVE = "inactive"  # deprecated, or no deep learning at all: nothing to advise
KINDS = (TRAINING, INFERENCE, LIBRARY, EDUCATIONAL, INACTIVE)
NOT_OWN_ROLES = frozenset({"example", "test", "doc", "vendored"})
BUNDLED = re.compile(
    r"(^|/)(?:site-packages|node_modules|\.eggs|dependencies|third[-_]part(?:y|ies)|"
    r"3p[-_][\w-]+|submodules?)/",
    re.I,
)
# Folders of recipes, use cases and named examples (`speech_commands_example/`, often a copy of
# a framework's example): a cookbook's examples, not the project's model.
EXAMPLE_FOLDERS = re.compile(
    r"(^|/)(?:recipes?|use[-_]cases|[\w-]*-use-cases|getting[-_]started|cookbooks?"
    r"|[\w-]+[-_]examples?)/",
    re.I,
)


def bundled_folders(tree: RepoTree) -> tuple[str, ...]:
    """Sub-folders that are copies of other projects (a detector, a framework, a text front
    end), as the audit's model of ownership knows them."""
    return copied_trees(tree)


def is_own(path: str, bundled: tuple[str, ...] = ()) -> bool:
    """True when `path` is the project's own code: not vendored, bundled, an example or a test."""
    if is_vendored(path) or BUNDLED.search(path) or EXAMPLE_FOLDERS.search(path):
        return False
    if path.startswith(bundled):
        return False
    return role_of(path)[0] not in NOT_OWN_ROLES


# A script the user runs: a main guard, a command-line parser, an app runner.
ENTRY = re.compile(
    r"__name__\s*==\s*['\"]__main__['\"]|\bargparse\b|\btf\.app\.run\(|\bapp\.run\(main|"
    r"\bfire\.Fire\(|@hydra\.main|@click\.command|\bflags\.DEFINE_"
)
# A gradient step in inference code optimises an input or a guiding potential, not the model.
INFERENCE_CODE = re.compile(
    r"(^|/)(?:inference|infer|predict\w*|sampl\w*|demo\w*)(?:/|\.py$)", re.I
)
# Module names of scripts a user runs, even when other modules import them.
SCRIPT_NAME = re.compile(r"train|main|run|fit|finetune|launch", re.I)
IMPORT_LINE = re.compile(r"^\s*(?:from\s+\S+\s+)?import\s")
DEF_LINE = re.compile(r"^(\s*)(?:async\s+)?def\s+(\w+)")
# A Lightning module's optimiser and steps run only when a trainer fits it.
FRAMEWORK_HOOKS = frozenset({"configure_optimizers", "training_step", "optimizer_step"})
FIT = re.compile(r"\.fit\(|\bLightningCLI\b|\bcli_main\(")
# Methods a framework calls itself (Lightning, Keras, a Trainer): no call in the project's code.
HOOKS = frozenset({
    "training_step", "train_step", "compute_loss", "optimizer_step", "forward", "call",
    "__call__", "step", "run", "main", "fit", "train", "train_epoch", "train_one_epoch",
})  # fmt: skip


@dataclass(frozen=True)
class OwnCode:
    """The project's own code as lint reads it: its lines, bundled folders and README text."""

    lines: dict[str, list[str]]
    bundled: tuple[str, ...] = ()
    readme: str = ""
    configs: str = ""  # the own scripts and configs (a Hydra `_target_` names a class there)

    def imported_names(self) -> frozenset[str]:
        """Every name that appears in an import line of the own code."""
        names: set[str] = set()
        for lines in self.lines.values():
            for line in lines:
                if IMPORT_LINE.match(line):
                    names.update(re.findall(r"\w+", line))
        return frozenset(names)

    def reachable(self, path: str, line: int, imported: frozenset[str]) -> bool:
        """True when the file is run (a script, a notebook, a file the README names, training
        at module level) or imported by the project's code; a copied-in module nothing uses
        is not."""
        lines = self.lines.get(path, [])
        if path.endswith(".py") and 0 < line <= len(lines) and lines[line - 1][:1] not in " \t":
            return True  # the training step runs at module level: the file is a script
        if not self.used(path, imported):
            return False
        if in_main_guard(lines, line) and self.imported_helper(path, imported):
            return False  # a helper module's self-test: training imports it, never runs it
        owner = enclosing_class(lines, line)
        if owner is not None and not self.referenced(owner) and not decorated(lines, owner):
            return False  # a copied class nothing builds (a mixed-precision trainer, a scaler)
        name = enclosing_function(lines, line)
        if name in FRAMEWORK_HOOKS and not self.called(name) and not any(
            FIT.search(text) for lines_of in self.lines.values() for text in lines_of
        ):  # fmt: skip
            return False  # a Lightning module's optimiser that no trainer ever fits
        if any(ENTRY.search(text) for text in lines):
            return True
        return name is None or name in HOOKS or self.called(name)

    def referenced(self, name: str) -> bool:
        """True when the own code or configs name the class `name` outside its `class` line
        (built, subclassed, passed, or a config's target)."""
        texts = (text for lines in self.lines.values() for text in lines)
        return self.finds_classes_by_name or class_named(name, texts, self.configs)

    @functools.cached_property
    def finds_classes_by_name(self) -> bool:
        """True when the own code finds classes by name at run time (`import_module` of a
        computed name, then its `__dict__`): a class no line names may still be built."""
        return builds_by_name(text for lines in self.lines.values() for text in lines)

    def called(self, name: str) -> bool:
        """True when the own code calls or passes the function `name` (outside its `def`):
        a copied model's `optimize_parameters` that no script calls is never run."""
        use = re.compile(
            rf"(?:\.|\b){re.escape(name)}\s*\(|\.{re.escape(name)}\b|[=(,]\s*{re.escape(name)}\s*[,)]"
        )
        return any(
            use.search(text) and not DEF_LINE.match(text)
            for lines in self.lines.values() for text in lines if name in text
        )  # fmt: skip

    def imported_helper(self, path: str, imported: frozenset[str]) -> bool:
        """True for a module the own code imports that the README never names and whose name
        is no script's (`utils/lr_helper.py`, not `train.py`)."""
        stem = PurePosixPath(path).stem
        name = PurePosixPath(path).name
        return stem in imported and name not in self.readme and not SCRIPT_NAME.search(stem)

    def used(self, path: str, imported: frozenset[str]) -> bool:
        """True when the file is a script, a notebook, imported by the project's code or named
        in the README; a helper module nothing imports (a copied landmark detector) is not."""
        if not path.endswith(".py") or path not in self.lines:
            return True
        if any(ENTRY.search(text) for text in self.lines[path]):
            return True
        parts = PurePosixPath(path).parts
        stem = (
            parts[-2] if parts[-1] == "__init__.py" and len(parts) > 1 else PurePosixPath(path).stem
        )
        return stem in imported or PurePosixPath(path).name in self.readme


MAIN_GUARD = re.compile(r"^if\s+__name__\s*==\s*['\"]__main__['\"]\s*:")


def in_main_guard(lines: list[str], line: int) -> bool:
    """True when `lines[line - 1]` lies in the module's `if __name__ == '__main__':` block."""
    for text in reversed(lines[: line - 1] if 0 < line <= len(lines) else []):
        if text.strip() and text[:1] not in " \t#":
            return bool(MAIN_GUARD.match(text))
    return False


def enclosing_function(lines: list[str], line: int) -> str | None:
    """The name of the innermost `def` around `lines[line - 1]`, if any."""
    if not 0 < line <= len(lines):
        return None
    indent = len(lines[line - 1]) - len(lines[line - 1].lstrip())
    for text in reversed(lines[: line - 1]):
        match = DEF_LINE.match(text)
        if match and len(match.group(1)) < indent:
            return match.group(2)
        if text.strip() and len(text) - len(text.lstrip()) == 0 and not text.startswith(("@", "#")):
            return None  # reached module level (a class body or a statement) without a def
    return None


def training_entry(audit: AuditResult, code: OwnCode | None = None) -> tuple[Evidence, ...]:
    """The audit's training evidence that lies in the project's own code, run or imported."""
    label = audit.labels.get("training_code")
    if label is None or label.value is not True:
        return ()
    code = code or OwnCode({})
    own = [
        e for e in label.evidence
        if is_own(e.path, code.bundled) and not INFERENCE_CODE.search(e.path)
    ]  # fmt: skip
    if not own:
        return ()
    imported = code.imported_names()
    return tuple(e for e in own if code.reachable(e.path, e.line, imported))


def project_kind(audit: AuditResult, code: OwnCode | None = None) -> str:
    """The kind of project, from the audit's `is_dl`, `exclude` and training evidence."""
    value = audit.value("exclude")
    exclude = value if isinstance(value, frozenset) else frozenset()
    if not audit.value("is_dl") or "not_dl" in exclude or "deprecated" in exclude:
        return INACTIVE
    if "educational" in exclude:
        return EDUCATIONAL
    if "library" in exclude:
        return LIBRARY
    if training_entry(audit, code):
        return TRAINING
    return INFERENCE
