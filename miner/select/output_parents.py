"""The folder a run writes into, made where the checkout has none.

Git keeps no empty folders, and projects ignore what their runs write (`weights/`, `results/`,
`checkpoints/`), so a fresh copy lacks the folder a script saves into, and the run stops at
`os.mkdir('weights/RefineDet320/')` or `open('results/log.txt', 'w')` with FileNotFoundError.
That is no want of data: a user makes the folder and runs again, and so does a smoke run, once
per folder, inside its throw-away copy only.
"""

from __future__ import annotations

from pathlib import Path, PurePosixPath

from miner.select.standins.benchmark_files import missing_path

OUTPUT_FOLDER_RULE = "smoke.runtime.output_folder"
MAX_FOLDERS = 3  # folders made for one run, each followed by one more run


def make_output_parent(rule: str, text: str, copy: Path, made: set[str]) -> str:
    """Make the parent folder of the path a run stopped writing (`text`, its error line, where
    `rule` says the failing code line writes), relative to the copy the run works in; a note of
    what was made, or "" where the rule is another, the folder lies outside the copy, or it was
    made before (the run stopped there again for another reason)."""
    if rule != OUTPUT_FOLDER_RULE or len(made) >= MAX_FOLDERS:
        return ""
    path = missing_path(text)
    if path is None:
        return ""
    parent = PurePosixPath(path.rstrip("/")).parent
    if str(parent) in ("", ".", "/"):
        return ""
    folder = Path(parent) if parent.is_absolute() else copy / parent
    try:
        resolved = folder.resolve()
    except OSError:
        return ""
    if not resolved.is_relative_to(copy.resolve()) or str(resolved) in made:
        return ""
    try:
        resolved.mkdir(parents=True, exist_ok=True)
    except OSError:
        return ""
    made.add(str(resolved))
    return (f"output folder: made {resolved.relative_to(copy.resolve())}/, which the run writes "
            f"into and the checkout lacks ('{text.strip()[:160]}')")  # fmt: skip
