"""Sizes and dates as researchers type them."""

from __future__ import annotations

from datetime import datetime, timedelta, timezone
from pathlib import Path

import pytest

from miner.clone import CloneOptions, human_bytes, parse_as_of, parse_size
from miner.errors import ConfigError


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1M", 1024**2),
        ("500k", 500 * 1024),
        ("2G", 2 * 1024**3),
        ("1.5MiB", int(1.5 * 1024**2)),
        ("1048576", 1048576),
        ("64 KB", 64 * 1024),
        ("0", 0),
    ],
)
def test_sizes_use_binary_units_like_git(text: str, expected: int) -> None:
    assert parse_size(text) == expected


@pytest.mark.parametrize("text", ["", "M", "1X", "-1M", "1..5M", "one meg"])
def test_a_bad_size_is_a_config_error(text: str) -> None:
    with pytest.raises(ConfigError, match="is not a size"):
        parse_size(text)


def test_dates_are_utc_unless_they_say_otherwise() -> None:
    assert parse_as_of("2021-01-01") == datetime(2021, 1, 1, tzinfo=timezone.utc)
    assert parse_as_of("2021-01-01T12:30:00Z") == datetime(2021, 1, 1, 12, 30, tzinfo=timezone.utc)
    local = parse_as_of("2021-01-01T02:00:00+02:00")
    assert local.utcoffset() == timedelta(hours=2)
    assert CloneOptions(root=Path("r"), as_of=local).as_of_text == "2021-01-01T00:00:00+00:00"


@pytest.mark.parametrize("text", ["2021-13-01", "01/02/2021", "soon", "2021-02-30"])
def test_a_bad_date_is_a_config_error(text: str) -> None:
    with pytest.raises(ConfigError, match="is not a date"):
        parse_as_of(text)


def test_options_make_the_root_absolute_and_check_their_numbers() -> None:
    assert CloneOptions(root=Path("data/repos")).root.is_absolute()
    with pytest.raises(ConfigError, match="--workers"):
        CloneOptions(root=Path("r"), workers=0)
    with pytest.raises(ConfigError, match="--timeout"):
        CloneOptions(root=Path("r"), timeout=0)
    assert "token" not in repr(CloneOptions(root=Path("r"), token="ghp_x")).split("root")[0]
    assert "ghp_x" not in repr(CloneOptions(root=Path("r"), token="ghp_x"))


def test_human_bytes() -> None:
    assert [human_bytes(n) for n in (812, 3 * 1024, 5 * 1024**3)] == ["812 B", "3.0 KiB", "5.0 GiB"]
