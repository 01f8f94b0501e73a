"""`miner annotate serve`: the annotation round in the browser. Annotators label beside the
documents, the adjudicator settles conflicts, a status page shows agreement so far; every write
goes through the annotate library into the files the CLI reads."""

from __future__ import annotations

from miner.annotate.web.access import Access, round_access
from miner.annotate.web.app import WebConfig, create_app, links

__all__ = ["Access", "WebConfig", "create_app", "links", "round_access"]
