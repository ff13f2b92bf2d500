"""Semantic Scholar papers by the person's Semantic Scholar author id
(``/author/{id}/papers``), offset paging at :data:`LIMIT` a page, the API key (if set) as
``x-api-key``."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from urllib.parse import quote

from directory.formats.harvest import semantic_scholar as parser
from directory.services.harvest.sources.http import SourceCall, source_fetch

LIMIT = 100


@source_fetch(parser.SOURCE)
def fetch(person_ids: Mapping[str, str], call: SourceCall) -> None:
    author_id = (person_ids.get("semantic_scholar") or "").strip()
    if not author_id:
        call.outcome.skipped = True
        return
    key = call.settings.api_keys.get(parser.SOURCE)
    headers = {"x-api-key": key} if key else {}

    def params(offset: str | int | None) -> dict[str, Any]:
        return {"fields": parser.FIELDS, "offset": offset or 0, "limit": LIMIT}

    path = f"/author/{quote(author_id, safe='')}/papers"
    what = "the Semantic Scholar papers"
    for page in call.pages(path, params, parser.parse_papers_page, what, start=0, headers=headers):
        call.outcome.works.extend(page.works)
