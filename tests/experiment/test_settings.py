"""Noise settings: names, the seed-mode aliases, narrowing, and the seeds each run gets."""

from __future__ import annotations

import pytest

from miner.errors import ExperimentError
from miner.experiment.settings import (
    check_narrowing,
    draw_seeds,
    parse_seed_modes,
    parse_setting,
    parse_settings,
)


def test_the_four_settings_and_their_kernels():
    names = [(s.name, s.deterministic) for s in parse_settings("control,algo,impl,algo+impl")]
    assert names == [("control", True), ("algo", True), ("impl", False), ("algo+impl", False)]
    assert parse_setting("init+data+dropout").name == "algo"  # every ALGO source is `algo`
    assert parse_setting("impl+dropout+init").name == "init+dropout+impl"
    assert parse_setting("data").narrowed and not parse_setting("algo").narrowed


def test_seed_modes_are_aliases():
    by_mode = parse_seed_modes("random,fixed,fixed+deterministic")
    assert [s.name for s in by_mode] == ["algo+impl", "impl", "control"]
    assert [s.seed_mode for s in by_mode] == ["random", "fixed", "fixed+deterministic"]
    assert parse_seed_modes("default") == parse_seed_modes("random")
    assert parse_setting("algo").seed_mode == ""  # fresh seeds with deterministic kernels


@pytest.mark.parametrize("text", ["", "algo+gpu", "control+impl", "threads"])
def test_bad_settings(text):
    with pytest.raises(ExperimentError, match="--setting"):
        parse_settings(text)


def test_bad_seed_mode():
    with pytest.raises(ExperimentError, match="--seed-mode"):
        parse_seed_modes("sometimes")


def test_seeds_fixed_or_fresh_per_source():
    control = draw_seeds(parse_setting("control"), 5)
    assert control.as_dict() == {"seed": 5, "init": 5, "data": 5, "dropout": 5}
    assert control.hash_seed == "5"
    algo = draw_seeds(parse_setting("algo"), 5)
    assert 5 not in algo.as_dict().values() and algo.hash_seed != "5"
    narrowed = draw_seeds(parse_setting("data+impl"), 5)
    assert (narrowed.seed, narrowed.sources["init"], narrowed.sources["dropout"]) == (5, 5, 5)
    assert narrowed.sources["data"] != 5 and narrowed.hash_seed == "5"


def test_narrowing_needs_separate_seeds():
    check_narrowing(parse_setting("algo"), (), "m")  # all of ALGO: one seed is enough
    check_narrowing(parse_setting("init"), ("init",), "m")
    with pytest.raises(ExperimentError, match="needs a separate seed for data"):
        check_narrowing(parse_setting("init+data"), ("init",), "m")
