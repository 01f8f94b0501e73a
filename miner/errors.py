"""The one error base: every expected failure is a MinerError with a one-line message."""

from __future__ import annotations


class MinerError(Exception):
    """An expected failure, shown to the user as one line and exit code 1."""


class ConfigError(MinerError):
    """Bad settings or command-line input (a date, a path, a value outside the codebook)."""


class StoreError(MinerError):
    """The SQLite store cannot be opened, migrated or read."""


class StoreBusy(StoreError):
    """Another live process holds the store for this stage (the message says which)."""


class GitHubError(MinerError):
    """The GitHub API refused a request in a way retrying cannot fix."""


class AuthError(GitHubError):
    """The token was rejected (HTTP 401)."""


class QueryError(GitHubError):
    """GitHub rejected the search query (HTTP 422)."""


class CloneError(MinerError):
    """A clone could not be made; carries the failure class for the store."""

    def __init__(self, message: str, error_class: str = "other") -> None:
        super().__init__(message)
        self.error_class = error_class


class SheetError(MinerError):
    """An annotation sheet or labels file does not follow the codebook."""


class ExperimentError(MinerError):
    """A manifest or an experiment run cannot be used."""


class DiskFull(MinerError):
    """The machine ran out of disk space: a smoke run's outcome would say nothing of the project."""
