"""The two functions an interactive walk needs, injected so tests can script them."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any


class Quit(Exception):
    """The person asked to stop; everything answered so far is already saved."""


@dataclass(frozen=True)
class Dialog:
    """`ask(prompt) -> answer` and `say(renderable)`: a terminal in use, a script in tests."""

    ask: Callable[[str], str]
    say: Callable[[Any], None]
