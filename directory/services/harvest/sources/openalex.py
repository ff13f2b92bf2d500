"""OpenAlex works by the person's OpenAlex author id (``filter=author.id:A…``), else by their
ORCID iD (``filter=author.orcid:…``); cursor paging at :data:`PER_PAGE` a page (a prolific
author's 200-per-page answer is refused), with the API key and the contact address."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from directory.formats.harvest import openalex as parser
from directory.services.harvest.sources.http import SourceCall, source_fetch

PER_PAGE = 50


@source_fetch(parser.SOURCE)
def fetch(person_ids: Mapping[str, str], call: SourceCall) -> None:
    author_id = parser.short_id(person_ids.get("openalex"))
    orcid = person_ids.get("orcid")
    if author_id:
        query, found_by = f"author.id:{author_id}", "openalex"
    elif orcid:
        query, found_by = f"author.orcid:{orcid}", "orcid"
    else:
        call.outcome.skipped = True
        return
    fixed: dict[str, Any] = {"filter": query, "per-page": PER_PAGE}
    if key := call.settings.api_keys.get(parser.SOURCE):
        fixed["api_key"] = key
    if call.settings.contact:
        fixed["mailto"] = call.settings.contact

    def params(cursor: str | int | None) -> dict[str, Any]:
        return {**fixed, "cursor": cursor}

    def parse(body: bytes) -> parser.HarvestPage:
        return parser.parse_works_page(body, found_by)

    for page in call.pages("/works", params, parse, "the OpenAlex works", start="*"):
        call.outcome.works.extend(page.works)
