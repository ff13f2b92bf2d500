"""Crossref works by the person's ORCID iD only (``filter=orcid:…``; never by name), cursor
paging at :data:`ROWS` a page, the contact address as ``mailto``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from directory.formats.harvest import crossref as parser
from directory.services.harvest.sources.http import SourceCall, source_fetch

ROWS = 100


@source_fetch(parser.SOURCE)
def fetch(person_ids: Mapping[str, str], call: SourceCall) -> None:
    orcid = person_ids.get("orcid")
    if not orcid:
        call.outcome.skipped = True
        return
    fixed: dict[str, Any] = {"filter": f"orcid:{orcid}", "rows": ROWS}
    if call.settings.contact:
        fixed["mailto"] = call.settings.contact

    def params(cursor: str | int | None) -> dict[str, Any]:
        return {**fixed, "cursor": cursor}

    for page in call.pages("/works", params, parser.parse_works_page, "the Crossref works", "*"):
        call.outcome.works.extend(page.works)
