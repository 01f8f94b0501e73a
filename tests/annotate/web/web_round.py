"""Helpers of the web tests: a prepared round of two annotators and the app serving it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from annotate_study import Study

from miner.annotate.prepare import prepare_sheets
from miner.annotate.web import WebConfig, create_app

FIELDS = ["is_dl", "frameworks", "hw_gpu"]  # a short round keeps the browser tests quick


@dataclass(frozen=True)
class Round:
    """A prepared round of two annotators and the app serving it."""

    study: Study
    app: Any

    def url(self, who: str) -> str:
        """The path of an annotator's queue, or of the adjudicator's view."""
        access = self.app.state.web.access
        if who == "adjudicator":
            return f"/j/{access.adjudicator}/"
        return f"/a/{access.annotators[who]}/"


def prepared(study: Study, fields: list[str] | None = None, prefill: bool = False) -> Round:
    """Sheets for ann and bob in round main, and the app."""
    with study.store() as store:
        prepare_sheets(store, study.annotations, ["ann", "bob"], "main", prefill=prefill,
                       fields=fields)  # fmt: skip
    config = WebConfig(study.annotations, "main", study.store_path, "cara")
    return Round(study, create_app(config))
