"""The fake GitHub's repositories and its search language: GitHub's JSON items, and `q` parsed
and matched the way GitHub documents it (keywords and "phrases", stars:, forks:, size:, created:,
pushed:, fork:, in:, language:, archived:, topic:, user:)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta, timezone
from functools import cached_property
from typing import Any

UTC = timezone.utc
LICENSES = {
    "MIT": ("mit", "MIT License"),
    "Apache-2.0": ("apache-2.0", "Apache License 2.0"),
    "GPL-3.0": ("gpl-3.0", "GNU General Public License v3.0"),
    "BSD-3-Clause": ("bsd-3-clause", 'BSD 3-Clause "New" or "Revised" License'),
    "NOASSERTION": ("other", "Other"),
}
_WORD = re.compile(r"[a-z0-9]+")


def _words(text: str) -> str:
    """Lower-case words of `text`, space-delimited on both sides, for phrase lookups."""
    return " " + " ".join(_WORD.findall(text.lower())) + " "


def _iso(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@dataclass
class FakeRepo:
    """One repository of the fake population; mutable so tests can shape it."""

    id: int
    owner: str
    name: str
    description: str | None
    stars: int
    created_at: datetime
    forks: int = 0
    open_issues: int = 0
    language: str | None = "Python"
    topics: list[str] = field(default_factory=list)
    license: str | None = "MIT"
    default_branch: str = "main"
    size: int = 1024
    fork: bool = False
    archived: bool = False
    disabled: bool = False
    readme: str = ""
    pushed_at: datetime | None = None
    updated_at: datetime | None = None
    clone_url: str | None = None  # where clones come from (default: github.com)

    @property
    def full_name(self) -> str:
        return f"{self.owner}/{self.name}"

    @cached_property
    def texts(self) -> dict[str, str]:
        """Searchable fields as word strings (text never changes; stars do)."""
        return {
            "name": _words(self.name),
            "description": _words(self.description or ""),
            "topics": _words(" ".join(self.topics)),
            "readme": _words(self.readme),
        }

    def to_json(self, base_url: str) -> dict[str, Any]:
        """The item as GitHub's search API serves it (the fields PyGithub and miner read)."""
        pushed = self.pushed_at or self.created_at
        updated = self.updated_at or pushed
        api = f"{base_url}/repos/{self.full_name}"
        licence = None
        if self.license:
            key, name = LICENSES.get(self.license, (self.license.lower(), self.license))
            licence = {
                "key": key,
                "name": name,
                "spdx_id": self.license,
                "url": None if key == "other" else f"{base_url}/licenses/{key}",
                "node_id": f"MDc6TGljZW5zZ{key}",
            }
        return {
            "id": self.id,
            "node_id": f"R_fake{self.id}",
            "name": self.name,
            "full_name": self.full_name,
            "private": False,
            "owner": {
                "login": self.owner,
                "id": 10_000_000 + abs(hash(self.owner)) % 1_000_000,
                "type": "User",
                "url": f"{base_url}/users/{self.owner}",
                "html_url": f"https://github.com/{self.owner}",
                "site_admin": False,
            },
            "html_url": f"https://github.com/{self.full_name}",
            "description": self.description,
            "fork": self.fork,
            "url": api,
            "git_url": f"git://github.com/{self.full_name}.git",
            "ssh_url": f"git@github.com:{self.full_name}.git",
            "clone_url": self.clone_url or f"https://github.com/{self.full_name}.git",
            "svn_url": f"https://github.com/{self.full_name}",
            "homepage": None,
            "size": self.size,
            "stargazers_count": self.stars,
            "watchers_count": self.stars,  # GitHub's watchers_count mirrors stars
            "language": self.language,
            "has_issues": True,
            "has_wiki": True,
            "has_pages": False,
            "forks_count": self.forks,
            "archived": self.archived,
            "disabled": self.disabled,
            "open_issues_count": self.open_issues,
            "license": licence,
            "allow_forking": True,
            "is_template": False,
            "topics": list(self.topics),
            "visibility": "public",
            "forks": self.forks,
            "open_issues": self.open_issues,
            "watchers": self.stars,
            "default_branch": self.default_branch,
            "score": 1.0,
            "created_at": _iso(self.created_at),
            "updated_at": _iso(updated),
            "pushed_at": _iso(pushed),
        }


class QueryInvalid(Exception):
    """GitHub would answer 422 Validation Failed."""


@dataclass(frozen=True)
class Bound:
    """An inclusive-or-exclusive range over numbers or instants."""

    lo: Any = None
    hi: Any = None
    lo_open: bool = False
    hi_open: bool = False

    def __contains__(self, value: Any) -> bool:
        if self.lo is not None and (value < self.lo or (self.lo_open and value == self.lo)):
            return False
        return not (
            self.hi is not None and (value > self.hi or (self.hi_open and value == self.hi))
        )


def _number(text: str, end: bool = False) -> int:
    if not re.fullmatch(r"\d+", text):
        raise QueryInvalid(f"{text!r} is not a number")
    return int(text)


def _instant(text: str, end: bool = False) -> datetime:
    try:
        if re.fullmatch(r"\d{4}-\d{2}-\d{2}", text):
            day = datetime.strptime(text, "%Y-%m-%d").replace(tzinfo=UTC)
            return day + timedelta(days=1, seconds=-1) if end else day
        moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        raise QueryInvalid(f"{text!r} is not a date") from None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def _bound(text: str, parse: Callable[..., Any]) -> Bound:
    """GitHub's range syntax: >N, >=N, <N, <=N, a..b, a..*, *..b, N."""
    for op in (">=", "<=", ">", "<"):
        if text.startswith(op):
            value = text[len(op) :]
            if op == ">=":
                return Bound(lo=parse(value))
            if op == "<=":
                return Bound(hi=parse(value, end=True))
            if op == ">":
                return Bound(lo=parse(value, end=True), lo_open=True)
            return Bound(hi=parse(value), hi_open=True)
    if ".." in text:
        lo, hi = text.split("..", 1)
        return Bound(
            lo=None if lo == "*" else parse(lo), hi=None if hi == "*" else parse(hi, end=True)
        )
    return Bound(lo=parse(text), hi=parse(text, end=True))


@dataclass
class Query:
    """A parsed `q`."""

    phrases: list[str] = field(default_factory=list)  # each " w1 w2 " (all must match)
    numbers: dict[str, Bound] = field(default_factory=dict)  # stars, forks, size
    dates: dict[str, Bound] = field(default_factory=dict)  # created, pushed
    fork: str = "false"
    in_fields: tuple[str, ...] = ("name", "description", "topics")
    language: str | None = None
    archived: bool | None = None
    topics: list[str] = field(default_factory=list)
    owner: str | None = None

    def matches(self, repo: FakeRepo) -> bool:
        """Whether GitHub would return `repo` for this query."""
        return self.matches_static(repo) and self.matches_counts(repo)

    def static_key(self) -> tuple[Any, ...]:
        """What `matches_static` depends on: equal keys select the same repositories."""
        return (
            tuple(self.phrases),
            self.in_fields,
            self.fork,
            (self.language or "").lower(),
            self.archived,
            tuple(self.topics),
            self.owner,
        )

    def matches_static(self, repo: FakeRepo) -> bool:
        """The qualifiers over what never changes (text, fork, language...)."""
        if self.fork == "false" and repo.fork or self.fork == "only" and not repo.fork:
            return False
        if self.language and (repo.language or "").lower() != self.language.lower():
            return False
        if self.archived is not None and repo.archived != self.archived:
            return False
        if self.owner and repo.owner.lower() != self.owner.lower():
            return False
        if any(t.lower() not in [x.lower() for x in repo.topics] for t in self.topics):
            return False
        texts = repo.texts
        return all(any(p in texts[f] for f in self.in_fields) for p in self.phrases)

    def matches_counts(self, repo: FakeRepo) -> bool:
        """The qualifiers over counts and dates (stars drift)."""
        values = {"stars": repo.stars, "forks": repo.forks, "size": repo.size}
        if any(values[name] not in bound for name, bound in self.numbers.items()):
            return False
        instants = {"created": repo.created_at, "pushed": repo.pushed_at or repo.created_at}
        return all(instants[name] in bound for name, bound in self.dates.items())


_TOKEN = re.compile(r'(\w+):("[^"]*"|\S+)|"([^"]*)"|(\S+)')


def parse_q(q: str) -> Query:
    """Parse GitHub's search syntax; raises QueryInvalid where GitHub answers 422."""
    if not q.strip():
        raise QueryInvalid("missing")
    if len(q) > 256:
        raise QueryInvalid("The search is longer than 256 characters.")
    query = Query()
    for name, value, quoted, word in _TOKEN.findall(q):
        value = value.strip('"')
        name = name.lower()
        if name in ("stars", "forks", "size"):
            query.numbers[name] = _bound(value, _number)
        elif name in ("created", "pushed"):
            query.dates[name] = _bound(value, _instant)
        elif name == "fork":
            if value not in ("true", "false", "only"):
                raise QueryInvalid(f"fork:{value} must be true, false or only")
            query.fork = value
        elif name == "in":
            fields = tuple(value.lower().split(","))
            if not set(fields) <= {"name", "description", "readme", "topics"}:
                raise QueryInvalid(f"in:{value} is not a searchable field")
            query.in_fields = fields
        elif name == "language":
            query.language = value
        elif name == "archived":
            query.archived = value == "true"
        elif name == "topic":
            query.topics.append(value)
        elif name in ("user", "org"):
            query.owner = value
        else:
            text = quoted or word or f"{name} {value}"
            phrase = _words(text)
            if phrase.strip():
                query.phrases.append(phrase)
    return query


def sort_key(sort: str | None, order: str) -> Callable[[FakeRepo], Any]:
    """The order GitHub's `sort` and `order` parameters ask for."""
    sign = 1 if order == "asc" else -1
    if sort == "stars":
        return lambda r: (sign * r.stars, r.id)
    if sort == "forks":
        return lambda r: (sign * r.forks, r.id)
    if sort == "updated":
        return lambda r: (sign * (r.updated_at or r.created_at).timestamp(), r.id)
    return lambda r: r.id  # "best match"
