from __future__ import annotations

from pathlib import Path

import pytest

from miner.config import load_settings
from miner.errors import ConfigError


def test_precedence_cli_over_env_over_toml(tmp_path: Path) -> None:
    (tmp_path / "miner.toml").write_text('[miner]\ndb_path = "toml.db"\nrepos_dir = "clones"\n')
    env = {"MINER_DB": "env.db"}
    assert load_settings(tmp_path, env=env).db == tmp_path / "env.db"
    assert load_settings(tmp_path, env=env, db_path="cli.db").db == tmp_path / "cli.db"
    assert load_settings(tmp_path, env={}).repos == tmp_path / "clones"


def test_token_comes_from_env_and_is_never_in_repr(tmp_path: Path) -> None:
    settings = load_settings(tmp_path, env={"GITHUB_TOKEN": "ghp_secret"})
    assert settings.token == "ghp_secret"
    assert "ghp_secret" not in repr(settings)


def test_bad_toml_is_a_one_line_error(tmp_path: Path) -> None:
    (tmp_path / "miner.toml").write_text("[miner\n")
    with pytest.raises(ConfigError, match="not valid TOML"):
        load_settings(tmp_path, env={})
    (tmp_path / "miner.toml").write_text('[miner]\ncolour = "red"\n')
    with pytest.raises(ConfigError, match="unknown setting"):
        load_settings(tmp_path, env={})
