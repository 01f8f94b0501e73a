"""A git repository made of the smoke copy, for code that reads its own commit.

Training scripts log the commit they ran (`git log -n 1 --pretty=%h`, `git rev-parse HEAD`,
GitPython's `Repo('.')`), and stop when the folder is not a repository. The smoke copy is the
checkout's tree without its `.git` (the clone is never touched), so such a run ends `runtime`
although the code trains. Where the run stopped for that, the copy is made a repository of one
commit of its own files (no hooks, no remote, nothing fetched) and the run starts once more.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

# The run's last words when the code asked git about the folder it runs in.
GIT_NEEDED = re.compile(
    r"(?i)not a git repository|CalledProcessError: Command '\[?'git'|InvalidGitRepositoryError"
    r"|git\.exc\.\w+Error|fatal: not a git"
)
GIT_SECONDS = 120


def make_repository(copy: Path) -> str:
    """Make `copy` a git repository of one commit; a note of what was done, or "" when it
    already is one or git failed."""
    if (copy / ".git").exists():
        return ""
    config = ["-c", "core.hooksPath=/dev/null", "-c", "user.name=miner",
              "-c", "user.email=miner@localhost", "-c", "commit.gpgsign=false"]  # fmt: skip
    steps = (["init", "-q"], ["add", "-A"], ["commit", "-q", "--no-verify", "-m", "smoke copy"])
    try:
        for step in steps:
            subprocess.run(["git", *config, *step], cwd=copy, capture_output=True,
                           timeout=GIT_SECONDS, check=True)  # fmt: skip
    except (OSError, subprocess.SubprocessError):
        return ""
    return "git: the copy made a repository of one commit (the code reads its commit)"
