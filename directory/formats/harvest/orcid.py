"""ORCID public API v3.0: a person's works, read in two steps as ORCID documents them.

``GET /v3.0/{orcid}/works`` answers the works *summary*: ``{"group": [{"work-summary":
[...]}]}``, one group per work as told by one or more sources, each summary with its
``put-code``. :func:`parse_works_summary` picks the preferred summary of each group (ORCID's
display order) and returns its put code with the work as the summary tells it.

``GET /v3.0/{orcid}/works/{put-code},{put-code},…`` (at most :data:`MAX_PUT_CODES` a call)
answers the full works in bulk: ``{"bulk": [{"work": {...}} | {"error": {...}}]}``; only the
full work carries its ``contributors``. :func:`parse_works_bulk` reads it.

The field readers (boxed values, dates, external ids, work types) are those of the record
import, :mod:`directory.formats.orcid`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from directory.formats.harvest.common import (
    HarvestParseError,
    as_dict,
    as_list,
    clean,
    load_json_object,
)
from directory.formats.harvest.works import HarvestedAuthor, HarvestedWork
from directory.formats.orcid import _int, _value, normalise_orcid_id, work_basics

SOURCE = "orcid"
#: ORCID's limit on put codes in one bulk works call.
MAX_PUT_CODES = 100
#: Contributor roles that are not authorship (an edited book's editors, a translator).
_NOT_AUTHORS = frozenset({"editor", "chair-or-translator", "translator"})


@dataclass(frozen=True)
class WorkSummary:
    """One work of the summary: its put code and the work as far as the summary tells it."""

    put_code: str
    work: HarvestedWork


def _contributors(work: dict[str, Any]) -> tuple[HarvestedAuthor, ...]:
    authors = []
    for item in as_list(as_dict(work.get("contributors")).get("contributor")):
        if not isinstance(item, dict):
            continue
        role = str(_value(item, "contributor-attributes", "contributor-role") or "author")
        if role.lower() in _NOT_AUTHORS:
            continue
        name = clean(_value(item, "credit-name"))
        if not name:
            continue
        orcid = _value(item, "contributor-orcid", "path")
        authors.append(
            HarvestedAuthor(name=name, orcid=normalise_orcid_id(str(orcid)) if orcid else None)
        )
    return tuple(authors)


def work_from_orcid(work: dict[str, Any]) -> HarvestedWork | None:
    """A summary or full work as a :class:`HarvestedWork` (``None`` without a put code)."""
    put_code = work.get("put-code")
    if put_code is None:
        return None
    basics = work_basics(work)
    return HarvestedWork(
        source=SOURCE,
        source_key=str(put_code),
        title=clean(basics.title) or "",
        year=basics.year,
        month=basics.month,
        venue=clean(_value(work, "journal-title")),
        type=basics.type,
        authors=_contributors(work),
        doi=basics.doi,
        arxiv_id=basics.arxiv_id,
        abstract=clean(_value(work, "short-description")),
        url=clean(_value(work, "url")),
        found_by="orcid",
    )


def parse_works_summary(body: bytes | str) -> list[WorkSummary]:
    """The works of a ``/works`` summary, one per group, in the record's order."""
    data = load_json_object(body, "the ORCID works summary")
    groups = data.get("group")
    if not isinstance(groups, list):
        raise HarvestParseError("the ORCID works summary has no list of groups")
    result = []
    for group in groups:
        summaries = [s for s in as_list(as_dict(group).get("work-summary")) if isinstance(s, dict)]
        if not summaries:
            continue
        summaries.sort(key=lambda s: -(_int(s.get("display-index")) or 0))
        work = work_from_orcid(summaries[0])
        if work is not None:
            result.append(WorkSummary(work.source_key, work))
    return result


def parse_works_bulk(body: bytes | str) -> tuple[dict[str, HarvestedWork], list[str]]:
    """The full works of a bulk ``/works/{put-codes}`` answer by put code, and ORCID's errors
    for the put codes it could not give (in words)."""
    data = load_json_object(body, "the ORCID bulk works answer")
    items = data.get("bulk")
    if not isinstance(items, list):
        raise HarvestParseError("the ORCID bulk works answer has no bulk list")
    works: dict[str, HarvestedWork] = {}
    errors = []
    for item in items:
        item = as_dict(item)
        if isinstance(item.get("work"), dict):
            work = work_from_orcid(item["work"])
            if work is not None:
                works[work.source_key] = work
        elif isinstance(item.get("error"), dict):
            error = item["error"]
            message = error.get("developer-message") or error.get("user-message") or "no reason"
            errors.append(f"ORCID could not give a work: {clean(message)}")
    return works, errors


def put_code_batches(put_codes: list[str]) -> list[list[str]]:
    """The put codes in calls of at most :data:`MAX_PUT_CODES`."""
    return [put_codes[i : i + MAX_PUT_CODES] for i in range(0, len(put_codes), MAX_PUT_CODES)]
