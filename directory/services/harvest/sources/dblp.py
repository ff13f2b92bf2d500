"""DBLP person records by the person's DBLP pid (``/pid/{pid}.xml``, one answer, no paging),
with DBLP's pause between calls (DIRECTORY_HARVEST_PAUSES)."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from directory.formats.harvest import dblp as parser
from directory.services.harvest.sources.http import SourceCall, source_fetch


@source_fetch(parser.SOURCE)
def fetch(person_ids: Mapping[str, str], call: SourceCall) -> None:
    pid = (person_ids.get("dblp") or "").strip().strip("/")
    if not pid:
        call.outcome.skipped = True
        return
    what = "the DBLP person record"
    body = call.get(f"/pid/{quote(pid, safe='/')}.xml", what=what)
    works = call.parse(parser.parse_person, body, what) if body else None
    call.outcome.works.extend(works or [])
