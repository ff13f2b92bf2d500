"""arXiv by an identifier the person has, never by name: their arXiv author identifier
(``/a/{id}.atom2``) or, without one, their ORCID iD (``/a/{orcid}.atom2``, which lists the
papers of the arXiv account the iD is linked to). One answer, with arXiv's pause between
calls (DIRECTORY_HARVEST_PAUSES; arXiv asks for three seconds)."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from directory.formats.harvest import arxiv as parser
from directory.services.harvest.sources.http import SourceCall, source_fetch


@source_fetch(parser.SOURCE)
def fetch(person_ids: Mapping[str, str], call: SourceCall) -> None:
    author_id = person_ids.get("arxiv")
    found_by = "arxiv" if author_id else "orcid"
    author_id = author_id or person_ids.get("orcid")
    if not author_id:
        call.outcome.skipped = True
        return
    what = "the arXiv author feed"
    body = call.get(f"/a/{quote(author_id, safe='')}.atom2", what=what)
    page = call.parse(lambda b: parser.parse_feed(b, found_by), body, what) if body else None
    call.outcome.works.extend(page.works if page else [])
