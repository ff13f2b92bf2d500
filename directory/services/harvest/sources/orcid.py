"""ORCID public API v3.0, by the person's ORCID iD: the works summary, then the full works
(with their contributors) in bulk calls of at most 100 put codes. A work whose details could
not be had is kept as its summary tells it."""

from __future__ import annotations

from collections.abc import Mapping
from urllib.parse import quote

from directory.formats.harvest import orcid as parser
from directory.services.harvest.sources.http import SourceCall, source_fetch

ACCEPT = {"Accept": "application/vnd.orcid+json"}


@source_fetch(parser.SOURCE)
def fetch(person_ids: Mapping[str, str], call: SourceCall) -> None:
    orcid = quote((person_ids.get("orcid") or "").strip(), safe="")
    if not orcid:
        call.outcome.skipped = True
        return
    body = call.get(f"/{orcid}/works", what="the ORCID works summary", headers=ACCEPT)
    what = "the ORCID works summary"
    summaries = call.parse(parser.parse_works_summary, body, what) if body else None
    if not summaries:
        return
    by_code = {summary.put_code: summary.work for summary in summaries}
    for batch in parser.put_code_batches(list(by_code)):
        what = f"the ORCID works {batch[0]}…{batch[-1]}"
        body = call.get(f"/{orcid}/works/{','.join(batch)}", what=what, headers=ACCEPT)
        found = call.parse(parser.parse_works_bulk, body, what) if body else None
        details, errors = found or ({}, [])
        call.outcome.errors.extend(errors)
        call.outcome.works.extend(details.get(code) or by_code[code] for code in batch)
