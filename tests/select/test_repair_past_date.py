"""The dependencies of a release let past the commit's date go past it too when an import stops
at a name they do not have yet (torch 1.10.2 and typing_extensions 3.6.2.1)."""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path

from miner.select.repair.envs import Builder
from miner.select.repair.past_date import companions_past_date, required_by
from miner.select.repair.records import Repair


def _builder(tmp_path: Path, **changes: object) -> Builder:
    venv = tmp_path / "venv"
    (venv / "bin").mkdir(parents=True, exist_ok=True)
    if not (venv / "bin" / "python").exists():
        (venv / "bin" / "python").symlink_to(sys.executable)
    fields = {"venv": venv, "work": tmp_path, "log": tmp_path / "install.log", "env": {},
              "timeout": 60.0, **changes}  # fmt: skip
    return Builder(**fields)  # type: ignore[arg-type]


def test_what_an_installed_distribution_requires_is_read_in_its_environment(
    tmp_path: Path,
) -> None:
    found = required_by(_builder(tmp_path), ("pytest",))
    assert {"iniconfig", "packaging", "pluggy"} <= set(found)
    assert required_by(_builder(tmp_path), ("no-such-distribution",)) == []


@dataclass
class _Attempt:
    """What the repair uses of an install attempt, its installs recorded instead of made."""

    builder: Builder
    install_fails: bool = False
    as_of: str = "2018-02-01T16:42:42Z"
    lines: list[str] = field(default_factory=lambda: ["torch>=0.2"])
    repairs: list[Repair] = field(default_factory=list)
    uninstalled: list[str] = field(default_factory=list)
    rolled_back: bool = False

    @property
    def closure(self):  # type: ignore[no-untyped-def]
        return type("Closure", (), {"names": ("torch",)})()

    def checkpoint(self) -> tuple[str, ...]:
        return tuple(self.lines)

    def rollback(self, state: tuple[str, ...]) -> None:
        self.lines, self.rolled_back = list(state), True

    def install_repaired(self, good: list[str]) -> tuple[object, list[str]]:
        return ("failed", good) if self.install_fails else (None, [*good, "typing-extensions==4"])


class _Recording(Builder):
    def uninstall(self, names):  # type: ignore[no-untyped-def]
        self.log.write_text(f"uninstalled {' '.join(names)}\n")

    def probe(self, names, mode="find"):  # type: ignore[no-untyped-def]
        return {}

    def restore(self, good):  # type: ignore[no-untyped-def]
        return True


def _recording(tmp_path: Path, past: tuple[str, ...]) -> _Recording:
    plain = _builder(tmp_path, past_date=past)
    return _Recording(**{f: getattr(plain, f) for f in plain.__dataclass_fields__})


STALE = {"torch": "ImportError: cannot import name 'Final'"}


def test_a_stale_name_lets_the_requirements_of_a_past_date_release_past_it(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(
        "miner.select.repair.past_date.required_by", lambda builder, names: ["typing-extensions"]
    )
    attempt = _Attempt(_recording(tmp_path, ("torch",)))
    good, broken = companions_past_date(attempt, dict(STALE), ["torch==1.10.2"])  # type: ignore[arg-type]
    assert broken == {} and good[-1] == "typing-extensions==4"
    assert attempt.builder.past_date == ("torch", "typing-extensions")
    assert attempt.lines == ["torch>=0.2", "typing-extensions"]
    assert (tmp_path / "install.log").read_text() == "uninstalled typing-extensions\n"
    (repair,) = attempt.repairs
    assert (repair.kind, repair.before, repair.after) == (
        "date",
        "typing-extensions",
        "typing-extensions past 2018-02-01",
    )


def test_nothing_is_tried_without_a_past_date_release_or_a_stale_name(
    tmp_path: Path, monkeypatch
) -> None:
    monkeypatch.setattr(
        "miner.select.repair.past_date.required_by", lambda builder, names: ["typing-extensions"]
    )
    plain = _Attempt(_recording(tmp_path, ()))
    assert companions_past_date(plain, dict(STALE), ["a==1"]) == (["a==1"], STALE)  # type: ignore[arg-type]
    missing = {"torch": "ModuleNotFoundError: No module named 'yaml'"}
    dated = _Attempt(_recording(tmp_path, ("torch",)))
    assert companions_past_date(dated, missing, ["a==1"]) == (["a==1"], missing)  # type: ignore[arg-type]
    failing = _Attempt(_recording(tmp_path, ("torch",)), install_fails=True)
    assert companions_past_date(failing, dict(STALE), ["a==1"]) == (["a==1"], STALE)  # type: ignore[arg-type]
    assert failing.rolled_back and failing.builder.past_date == ("torch",) and not failing.repairs
