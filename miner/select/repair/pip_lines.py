"""Requirement lines pip reads and uv does not, written the way uv reads them.

- `--no-binary=imgaug,albumentations` (pip takes a comma list; uv one name an option): one
  option per name.
- `-e git+https://host/org/repo@ref#egg=pkg&subdirectory=det` (pip clones it to edit; uv has no
  editable git source): the folder itself where the checkout has it (a project that lists its
  own sub-packages by their repository's URL), else the same source, not editable.
"""

from __future__ import annotations

import re
from pathlib import Path

from miner.select.repair.records import Repair
from miner.select.repair.requirements import line_repair

BINARY_LIST = re.compile(r"^(--(?:no|only)-binary)(?:=|\s+)(\S+,\S+)$")
EDITABLE_VCS = re.compile(r"^(?:-e|--editable)(?:=|\s+)((?:git|hg|svn|bzr)\+\S+)$")
SUBDIRECTORY = re.compile(r"[#&]subdirectory=([^&\s]+)")
BUILD_FILES = ("setup.py", "pyproject.toml", "setup.cfg")


def uv_lines(lines: list[str], root: Path) -> tuple[list[str], list[Repair]]:
    """`lines` with the pip-only forms above rewritten, each rewrite recorded."""
    out: list[str] = []
    repairs: list[Repair] = []
    for line in lines:
        stripped = line.strip()
        listed = BINARY_LIST.match(stripped)
        editable = EDITABLE_VCS.match(stripped)
        if listed:
            option, names = listed.groups()
            split = [f"{option} {name}" for name in names.split(",") if name]
            out += split
            why = f"uv reads one project a {option} option; pip's comma list split"
            repairs.append(line_repair("unreadable", stripped, "; ".join(split), why,
                                       "repair.pip.binary_list"))  # fmt: skip
        elif editable:
            url = editable.group(1)
            folder = _local_folder(url, root)
            if folder is not None:
                fixed = f"-e ./{folder}"
                why = (f"uv has no editable git source; ./{folder} is that package in the "
                       "checkout itself")  # fmt: skip
            else:
                fixed = url
                why = "uv has no editable git source; the same source, not editable"
            out.append(fixed)
            repairs.append(line_repair("unreadable", stripped, fixed, why,
                                       "repair.pip.editable_vcs"))  # fmt: skip
        else:
            out.append(line)
    return out, repairs


def _local_folder(url: str, root: Path) -> str | None:
    """The sub-folder the URL names (`#subdirectory=det`) when the checkout has it as a package
    of its own (a build file in it)."""
    found = SUBDIRECTORY.search(url)
    if found is None:
        return None
    folder = found.group(1).strip("/")
    path = root / folder
    if ".." in Path(folder).parts or not path.is_dir():
        return None
    return folder if any((path / name).is_file() for name in BUILD_FILES) else None
