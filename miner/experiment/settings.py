"""Noise settings: which sources of run-to-run variance a configuration lets vary.

A setting is a set of noise sources. The algorithmic ones (ALGO) are the weight initialisation
(`init`), the order of the training data (`data`) and dropout masks (`dropout`); the
implementation one (IMPL) is nondeterministic kernels and scheduling. The four settings of the
tooling-randomness study are `control` (nothing varies: fixed seeds, deterministic kernels),
`algo`, `impl` and `algo+impl`; ALGO narrows to `init`, `data`, `dropout` (or `init+data`, ...)
when the project takes a separate seed for each. Pham et al.'s seed modes are aliases:

    random               -> algo+impl  (fresh seed per run, the framework's default kernels)
    fixed                -> impl       (one fixed seed, default kernels)
    fixed+deterministic  -> control    (one fixed seed, deterministic kernels)

(`default`, the name earlier miner versions used for random, is kept as well.)
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass

from miner.errors import ExperimentError

ALGO_SOURCES = ("init", "data", "dropout")
IMPL = "impl"
SEED_MODE_ALIASES = {
    "random": "algo+impl",
    "default": "algo+impl",
    "fixed": "impl",
    "fixed+deterministic": "control",
}
_PHAM_NAMES = {"algo+impl": "random", "impl": "fixed", "control": "fixed+deterministic"}


@dataclass(frozen=True)
class NoiseSetting:
    """The noise sources one configuration lets vary (the rest are held fixed)."""

    varied: frozenset[str]

    @property
    def name(self) -> str:
        """Canonical name: control, algo, impl, algo+impl, or e.g. init+impl when narrowed."""
        algo = [s for s in ALGO_SOURCES if s in self.varied]
        parts = ["algo"] if len(algo) == len(ALGO_SOURCES) else algo
        if IMPL in self.varied:
            parts.append(IMPL)
        return "+".join(parts) or "control"

    @property
    def deterministic(self) -> bool:
        """Deterministic kernels are requested when implementation noise is held fixed."""
        return IMPL not in self.varied

    @property
    def algo_varied(self) -> tuple[str, ...]:
        """The algorithmic sources that get a fresh seed per run, in canonical order."""
        return tuple(s for s in ALGO_SOURCES if s in self.varied)

    @property
    def narrowed(self) -> bool:
        """True when some but not all algorithmic sources vary (needs per-source seeds)."""
        return 0 < len(self.algo_varied) < len(ALGO_SOURCES)

    @property
    def seed_mode(self) -> str:
        """Pham et al.'s name for this setting, or '' when the setting has none."""
        return _PHAM_NAMES.get(self.name, "")


def parse_setting(token: str) -> NoiseSetting:
    """'algo+impl', 'init', 'control', or a seed-mode alias such as 'fixed' -> a setting."""
    text = SEED_MODE_ALIASES.get(token.strip().lower(), token.strip().lower())
    if text == "control":
        return NoiseSetting(frozenset())
    varied: set[str] = set()
    for part in text.split("+"):
        if part == "algo":
            varied.update(ALGO_SOURCES)
        elif part in (*ALGO_SOURCES, IMPL):
            varied.add(part)
        else:
            raise ExperimentError(
                f"--setting: {token!r} is not control, algo, impl, algo+impl or a '+' of "
                f"{', '.join((*ALGO_SOURCES, IMPL))}"
            )
    return NoiseSetting(frozenset(varied))


def parse_settings(text: str) -> tuple[NoiseSetting, ...]:
    """'control,algo,impl,algo+impl' -> the settings, in order, without repeats."""
    found = [parse_setting(p) for p in text.split(",") if p.strip()]
    if not found:
        raise ExperimentError("--setting: give at least one, e.g. control,algo,impl,algo+impl")
    return tuple(dict.fromkeys(found))


def parse_seed_modes(text: str) -> tuple[NoiseSetting, ...]:
    """Pham et al.'s `random,fixed,fixed+deterministic` (and `default`) -> settings."""
    modes = [p.strip().lower() for p in text.split(",") if p.strip()]
    bad = [m for m in modes if m not in SEED_MODE_ALIASES]
    if bad or not modes:
        raise ExperimentError(
            f"--seed-mode: {', '.join(bad) or repr(text)} is not {', '.join(SEED_MODE_ALIASES)}"
        )
    return tuple(dict.fromkeys(parse_setting(m) for m in modes))


@dataclass(frozen=True)
class RunSeeds:
    """The seeds one run gets: the project-wide one and one per algorithmic source."""

    seed: int
    sources: dict[str, int]
    hash_seed: str

    def as_dict(self) -> dict[str, int]:
        """{'seed': .., 'init': .., 'data': .., 'dropout': ..} for the record."""
        return {"seed": self.seed, **self.sources}


def _fresh() -> int:
    return secrets.randbelow(2**31 - 1) + 1


def draw_seeds(setting: NoiseSetting, fixed: int) -> RunSeeds:
    """Seeds for one run: `fixed` for every held source, a fresh recorded one for each varied.

    The project-wide seed (seed_args, MINER_SEED, PYTHONHASHSEED) varies only when every
    algorithmic source does; a narrowed setting varies just its sources' own seeds.
    """
    sources = {s: (_fresh() if s in setting.varied else fixed) for s in ALGO_SOURCES}
    everything = len(setting.algo_varied) == len(ALGO_SOURCES)
    seed = _fresh() if everything else fixed
    return RunSeeds(seed, sources, str(_fresh() if everything else fixed % 4294967296))


def check_narrowing(setting: NoiseSetting, separate: tuple[str, ...], name: str) -> None:
    """A narrowed ALGO setting needs the project to take a separate seed for each source."""
    if not setting.narrowed:
        return
    missing = [s for s in setting.algo_varied if s not in separate]
    if missing:
        raise ExperimentError(
            f"{name}: setting {setting.name!r} needs a separate seed for {', '.join(missing)} "
            f"(run.seed_sources has {', '.join(separate) or 'none'})"
        )


def setting_rank(name: str) -> tuple[int, int, tuple[int, ...]]:
    """Sort key for tables: control, narrowed ALGO, algo, then the same with impl."""
    setting = parse_setting(name)
    algo = setting.algo_varied
    return (int(not setting.deterministic), len(algo), tuple(ALGO_SOURCES.index(s) for s in algo))
