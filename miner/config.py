"""Settings resolved once: command line > env (GITHUB_TOKEN, MINER_*) > miner.toml > defaults."""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass, field, fields, replace
from pathlib import Path
from typing import Any

import tomllib

from miner.errors import ConfigError

DEFAULT_API_URL = "https://api.github.com"
CONFIG_FILE = "miner.toml"


@dataclass(frozen=True)
class Settings:
    """Where a study lives and how miner reaches GitHub; the token is never stored or printed."""

    study_dir: Path = Path(".")
    db_path: Path = Path("data/miner.db")
    repos_dir: Path = Path("data/repos")
    annotations_dir: Path = Path("annotations")
    reports_dir: Path = Path("reports")
    runs_dir: Path = Path("data/runs")
    api_url: str = DEFAULT_API_URL
    token: str | None = field(default=None, repr=False)

    def resolved(self, path: Path) -> Path:
        """Return `path` anchored at the study directory unless it is absolute."""
        return path if path.is_absolute() else self.study_dir / path

    @property
    def db(self) -> Path:
        """The store's file."""
        return self.resolved(self.db_path)

    @property
    def repos(self) -> Path:
        """The clone root."""
        return self.resolved(self.repos_dir)

    @property
    def annotations(self) -> Path:
        """The annotation folder of the study."""
        return self.resolved(self.annotations_dir)

    @property
    def reports(self) -> Path:
        """The report output folder."""
        return self.resolved(self.reports_dir)

    @property
    def runs(self) -> Path:
        """The experiment runs folder."""
        return self.resolved(self.runs_dir)


_ENV = {
    "db_path": "MINER_DB",
    "repos_dir": "MINER_REPOS",
    "annotations_dir": "MINER_ANNOTATIONS",
    "reports_dir": "MINER_REPORTS",
    "runs_dir": "MINER_RUNS",
    "api_url": "MINER_API_URL",
    "token": "GITHUB_TOKEN",
}
_PATHS = {f.name for f in fields(Settings) if f.type in ("Path", Path)}


def _from_toml(study_dir: Path) -> dict[str, Any]:
    path = study_dir / CONFIG_FILE
    if not path.is_file():
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"{path}: not valid TOML ({exc})") from None
    section = data.get("miner", data)
    known = {f.name for f in fields(Settings)} - {"token", "study_dir"}
    unknown = set(section) - known
    if unknown:
        raise ConfigError(f"{path}: unknown setting(s) {', '.join(sorted(unknown))}")
    return dict(section)


def load_settings(
    study_dir: Path | None = None,
    env: Mapping[str, str] | None = None,
    **overrides: Any,
) -> Settings:
    """Resolve the settings: explicit overrides win over env, which wins over miner.toml."""
    env = os.environ if env is None else env
    base = Path(study_dir or env.get("MINER_STUDY_DIR") or ".")
    values: dict[str, Any] = {"study_dir": base}
    values.update(_from_toml(base))
    for name, var in _ENV.items():
        if env.get(var):
            values[name] = env[var]
    values.update({k: v for k, v in overrides.items() if v is not None})
    for name in _PATHS:
        if name in values:
            values[name] = Path(values[name])
    return replace(Settings(), **values)
