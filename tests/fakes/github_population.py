"""Generated populations for the fake GitHub: heavy-tailed stars, realistic fields, distractors."""

from __future__ import annotations

import random
import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from github_query import UTC, FakeRepo

_OWNERS = ["ai-lab", "deepmind-fan", "ml-group", "visionlab", "nlp-team", "robotics", "stats"]
_OTHER = ["web framework", "game engine", "static site generator", "database driver", "shell"]
_LANGUAGES = ["Python"] * 12 + ["Jupyter Notebook"] * 3 + ["C++"] * 2 + ["Lua", "JavaScript", None]
_LICENSE_POOL = [
    "MIT",
    "MIT",
    "Apache-2.0",
    "Apache-2.0",
    "GPL-3.0",
    "BSD-3-Clause",
    "NOASSERTION",
    None,
]


def make_population(
    matches: int,
    *,
    keywords: Sequence[str] = ("deep learning",),
    min_stars: int = 200,
    seed: int = 0,
    overlap: float = 0.15,
    noise: bool = True,
    created_from: str = "2012-01-01",
    created_to: str = "2021-01-19",
) -> list[FakeRepo]:
    """`matches` repositories matching one of `keywords` (some all of them, by `overlap`) with
    >= `min_stars` stars (a heavy-tailed spread), plus distractors a correct search must skip:
    too few stars, forks, unrelated text, and the keyword only in a README."""
    rng = random.Random(seed)
    lo = datetime.fromisoformat(created_from).replace(tzinfo=UTC)
    span = int((datetime.fromisoformat(created_to).replace(tzinfo=UTC) - lo).total_seconds())
    repos: list[FakeRepo] = []

    def add(text: str, stars: int, *, where: str = "any", fork: bool = False) -> None:
        n = len(repos)
        created = lo + timedelta(seconds=rng.randrange(span))
        pushed = created + timedelta(days=rng.randrange(1, 900))
        slug = re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")
        place = where if where != "any" else rng.choice(["description"] * 6 + ["name", "topics"])
        repo = FakeRepo(
            id=100_000 + n * 7 + rng.randrange(7),
            owner=f"{rng.choice(_OWNERS)}{n % 97}",
            name=f"{slug}-{n}" if place == "name" else f"project-{n}",
            description=f"A {text} toolkit" if place == "description" else "Research code",
            stars=stars,
            created_at=created,
            forks=stars // rng.randint(3, 12),
            open_issues=rng.randrange(60),
            language=rng.choice(_LANGUAGES),
            topics=[slug, "research"] if place == "topics" else ["research"],
            license=rng.choice(_LICENSE_POOL),
            size=rng.randrange(50, 500_000),
            fork=fork,
            archived=rng.random() < 0.05,
            readme=f"# Project\n\nThis repository is about {text}.",
            pushed_at=pushed,
            updated_at=pushed + timedelta(days=rng.randrange(30)),
        )
        repos.append(repo)

    def heavy_tail() -> int:
        return min(300_000, int(min_stars * (1.0 - rng.random()) ** (-1 / 1.1)))

    for i in range(matches):
        both = len(keywords) > 1 and rng.random() < overlap
        text = " and ".join(keywords) if both else keywords[i % len(keywords)]
        add(text, max(min_stars, heavy_tail()))
    if noise:
        for i in range(matches // 3):
            add(keywords[i % len(keywords)], rng.randrange(min_stars) if min_stars else 0)
        for i in range(matches // 20):
            add(keywords[i % len(keywords)], heavy_tail(), fork=True)
            add(rng.choice(_OTHER), heavy_tail(), where="description")
            add(keywords[i % len(keywords)], heavy_tail(), where="readme-only")
    return repos
