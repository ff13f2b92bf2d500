"""ORCID public records (API 3.0 JSON) as publications and profile entries.

:func:`parse_orcid_record` reads the ``/record`` document a researcher downloads or the public
API returns: ``activities-summary`` → ``works`` (publications), ``educations``,
``employments``, ``distinctions``, ``services`` and ``fundings``. Works become
:class:`~directory.formats.bibtex.results.ParsedEntry` objects in the interchange shape, so they
go through the same preview and duplicate rules as BibTeX; the rest become :class:`RecordEntry`
objects for the profile's entry tables, and the ``person`` part (biography, keywords,
researcher URLs; also read from a ``/person`` document alone) a :class:`PersonData` the preview
proposes for the profile's own fields (:mod:`directory.services.pubimport`).

The record's work summaries carry no co-authors, so an ORCID work lists the record holder as
its only author (the preview says so); a later BibTeX import of the same paper (same DOI)
links to the record instead of adding another.

Downloading a record is a service's (:mod:`directory.services.orcid_records`); this module only
reads the text.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from directory.formats.bibtex.results import BibtexProblem, BibtexTooLarge, ParsedEntry
from directory.formats.identifiers import (
    arxiv_problem,
    doi_problem,
    normalise_arxiv,
    normalise_doi,
)

ORCID_ID_RE = re.compile(r"^(?:https?://orcid\.org/)?(\d{4}-\d{4}-\d{4}-\d{3}[\dX])$")

#: ORCID work types → publication types.
WORK_TYPES = {
    "conference-paper": "conference",
    "conference-abstract": "conference",
    "conference-poster": "conference",
    "journal-article": "journal",
    "review": "journal",
    "preprint": "preprint",
    "working-paper": "preprint",
    "book": "book",
    "edited-book": "book",
    "book-chapter": "chapter",
    "dissertation-thesis": "thesis",
    "dissertation": "thesis",
    "report": "report",
    "lecture-speech": "talk",
}
#: ORCID service role words → service kinds.
SERVICE_KINDS = (
    (re.compile(r"artifact", re.I), "artifact_evaluation"),
    (re.compile(r"program|pc member|tpc", re.I), "program_committee"),
    (re.compile(r"review", re.I), "reviewer"),
    (re.compile(r"editor", re.I), "editorial"),
    (re.compile(r"chair|organi[sz]", re.I), "organizer"),
)
INTERNSHIP_RE = re.compile(r"\bintern(ship)?\b", re.I)
VISITING_RE = re.compile(r"\bvisiting\b", re.I)


@dataclass
class RecordEntry:
    """A profile entry from the record: ``kind`` is an ``ENTRY_MODELS`` key, ``data`` its
    column values, ``summary`` one line for the preview."""

    kind: str
    data: dict[str, Any]
    summary: str
    warnings: list[str] = field(default_factory=list)


@dataclass
class ResearcherUrl:
    """A link the record holder lists (``researcher-urls``), as given: the import checks it."""

    name: str | None
    url: str


@dataclass
class PersonData:
    """What the record says about the person: the biography, keywords and researcher URLs
    (the import proposes them for the profile's biography, interests or areas, and links)."""

    biography: str | None = None
    keywords: list[str] = field(default_factory=list)
    urls: list[ResearcherUrl] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.biography or self.keywords or self.urls)


@dataclass
class OrcidRecord:
    orcid_id: str | None
    name: str | None
    entries: list[ParsedEntry]
    records: list[RecordEntry]
    problems: list[BibtexProblem]
    #: The biography, keywords and researcher URLs.
    person: PersonData = field(default_factory=PersonData)


def _value(obj: Any, *path: str) -> Any:
    """``obj[path[0]][path[1]]...``, ``None`` as soon as a step is missing; unwraps
    ORCID's ``{"value": ...}`` boxes at the end."""
    for step in path:
        if not isinstance(obj, dict):
            return None
        obj = obj.get(step)
    if isinstance(obj, dict) and set(obj) <= {"value"}:
        obj = obj.get("value")
    if isinstance(obj, str):
        obj = obj.strip() or None
    return obj


def _int(text: Any) -> int | None:
    try:
        return int(str(text))
    except (TypeError, ValueError):
        return None


def _date(obj: Any, name: str) -> tuple[int | None, int | None]:
    date = obj.get(name) if isinstance(obj, dict) else None
    if not isinstance(date, dict):
        return None, None
    month = _int(_value(date, "month"))
    return _int(_value(date, "year")), month if month and 1 <= month <= 12 else None


def _external_ids(obj: dict[str, Any]) -> dict[str, str]:
    """The work's own identifiers by type: those whose relationship is ``self`` win over a
    ``version-of`` or ``part-of`` one (a preprint's DOI, the book's ISBN), which are used only
    when the work has none of its own of that type."""
    ids: dict[str, str] = {}
    related: dict[str, str] = {}
    for item in _value(obj, "external-ids", "external-id") or []:
        if not isinstance(item, dict):
            continue
        kind = str(item.get("external-id-type") or "").lower()
        value = _value(item, "external-id-value")
        relationship = str(item.get("external-id-relationship") or "self").lower()
        target = ids if relationship == "self" else related
        if kind and value and kind not in target:
            target[kind] = str(value)
    # A DOI of another version is another paper's: never this one's.
    related.pop("doi", None)
    related.pop("arxiv", None)
    return {**related, **ids}


def _organisation(summary: dict[str, Any]) -> tuple[str | None, str | None]:
    name = _value(summary, "organization", "name")
    address = _value(summary, "organization", "address") or {}
    place = ", ".join(
        str(part) for part in (address.get("city"), address.get("country")) if part
    ) if isinstance(address, dict) else None  # fmt: skip
    return name, place or None


def _affiliations(section: Any, summary_key: str) -> list[dict[str, Any]]:
    """The summaries of an affiliation section (grouped in 3.0, flat in older records)."""
    result = []
    if not isinstance(section, dict):
        return result
    for group in section.get("affiliation-group") or []:
        for item in (group or {}).get("summaries") or []:
            summary = (item or {}).get(summary_key)
            if isinstance(summary, dict):
                result.append(summary)
    for summary in section.get(summary_key) or []:
        if isinstance(summary, dict):
            result.append(summary)
    return result


def _dates(summary: dict[str, Any]) -> dict[str, Any]:
    start_year, start_month = _date(summary, "start-date")
    end_year, end_month = _date(summary, "end-date")
    return {
        "start_year": start_year,
        "start_month": start_month,
        "end_year": end_year,
        "end_month": end_month,
        "is_current": bool(start_year and not end_year),
    }


def _span(data: dict[str, Any]) -> str:
    start = data.get("start_year")
    end = "present" if data.get("is_current") else data.get("end_year")
    if start and end and start != end:
        return f"{start}–{end}"
    return str(start or end or "")


@dataclass(frozen=True)
class WorkBasics:
    """What a work summary (or full work) says of itself: the record import and the harvest
    (directory.formats.harvest.orcid) read it alike."""

    title: str
    doi: str | None
    arxiv_id: str | None
    year: int | None
    month: int | None
    type: str
    #: Identifiers the work gives that are not one (each said in words); none is stored.
    problems: tuple[str, ...] = ()


def work_basics(summary: dict[str, Any]) -> WorkBasics:
    """The title (with its subtitle), own DOI and arXiv id, date and publication type."""
    title = _value(summary, "title", "title") or ""
    subtitle = _value(summary, "title", "subtitle")
    if title and subtitle:
        title = f"{title}: {subtitle}"
    ids = _external_ids(summary)
    doi = normalise_doi(ids.get("doi"))
    arxiv_id = normalise_arxiv(ids.get("arxiv"))
    problems = []
    for name, value, found, problem in (
        ("doi", ids.get("doi"), doi, doi_problem),
        ("arxiv", ids.get("arxiv"), arxiv_id, arxiv_problem),
    ):
        if value and not found:
            problems.append(f"external id {name}: {problem(value)}; not stored")
    year, month = _date(summary, "publication-date")
    work_type = str(summary.get("type") or "other").lower().replace("_", "-")
    pub_type = WORK_TYPES.get(work_type, "other")
    if arxiv_id and not doi and pub_type in ("other", "journal"):
        pub_type = "preprint"
    return WorkBasics(str(title), doi, arxiv_id, year, month, pub_type, tuple(problems))


def _work(summary: dict[str, Any], owner_name: str) -> tuple[dict[str, Any], list[str]]:
    basics = work_basics(summary)
    warnings = list(basics.problems)
    title, doi, arxiv_id = basics.title, basics.doi, basics.arxiv_id
    year, month, pub_type = basics.year, basics.month, basics.type
    links = []
    url = _value(summary, "url")
    if url:
        links.append({"kind": "paper", "url": url, "label": None})
    if arxiv_id and not any("arxiv.org/" in link["url"] for link in links):
        arxiv_url = f"https://arxiv.org/abs/{arxiv_id}"
        links.append({"kind": "preprint", "url": arxiv_url, "label": None})
    if not title:
        warnings.append("work has no title")
    warnings.append(
        "ORCID lists no co-authors for a work; you are recorded as its only author until a "
        "BibTeX import or an edit adds them"
    )
    data = {
        "title": title,
        "venue": _value(summary, "journal-title"),
        "venue_short": None,
        "year": year,
        "month": month,
        "type": pub_type,
        "status": "preprint" if pub_type == "preprint" else "published",
        "abstract": None,
        "doi": doi,
        "arxiv_id": arxiv_id,
        "volume": None,
        "number": None,
        "pages": None,
        "publisher": None,
        "location": None,
        "note": None,
        "authors": [
            {"name": owner_name, "person": None, "co_first": False, "corresponding": False}
        ],
        "links": links,
        "awards": [],
        "badges": [],
        "labels": [],
        "selected": False,
        "key": None,
    }
    return data, warnings


def _education(summary: dict[str, Any]) -> RecordEntry:
    institution, place = _organisation(summary)
    data = {
        "degree": _value(summary, "role-title") or "Degree",
        "field": None,
        "institution": institution or "",
        "unit": _value(summary, "department-name"),
        "place": place,
        **_dates(summary),
    }
    text = f"{data['degree']}, {data['institution']}"
    return RecordEntry("education", data, f"{text} ({_span(data)})" if _span(data) else text)


def _experience(summary: dict[str, Any]) -> RecordEntry:
    organisation, place = _organisation(summary)
    title = _value(summary, "role-title") or "Position"
    kind = "job"
    if INTERNSHIP_RE.search(title):
        kind = "internship"
    elif VISITING_RE.search(title):
        kind = "visiting"
    unit = _value(summary, "department-name")
    data = {
        "kind": kind,
        "title": title,
        "organisation": ", ".join(p for p in (unit, organisation) if p) or "",
        "place": place,
        "url": _value(summary, "url"),
        **_dates(summary),
    }
    text = f"{title}, {data['organisation']}"
    return RecordEntry("experience", data, f"{text} ({_span(data)})" if _span(data) else text)


def _distinction(summary: dict[str, Any]) -> RecordEntry:
    giver, _ = _organisation(summary)
    year, _ = _date(summary, "start-date")
    data = {
        "title": _value(summary, "role-title") or "Award",
        "year": year,
        "giver": giver,
        "url": _value(summary, "url"),
        "note": _value(summary, "department-name"),
    }
    text = data["title"] + (f", {giver}" if giver else "") + (f" ({year})" if year else "")
    return RecordEntry("awards", data, text)


def _service(summary: dict[str, Any]) -> RecordEntry:
    venue, _ = _organisation(summary)
    role = _value(summary, "role-title")
    year, _ = _date(summary, "start-date")
    kind = "other"
    for pattern, value in SERVICE_KINDS:
        if role and pattern.search(role):
            kind = value
            break
    department = _value(summary, "department-name")
    data = {
        "kind": kind,
        "venue": ", ".join(p for p in (department, venue) if p) or "",
        "year": year,
        "role": role,
        "note": None,
    }
    text = (f"{role}, " if role else "") + data["venue"] + (f" ({year})" if year else "")
    return RecordEntry("service", data, text)


def _funding(summary: dict[str, Any]) -> RecordEntry:
    funder, _ = _organisation(summary)
    start, _ = _date(summary, "start-date")
    end, _ = _date(summary, "end-date")
    ids = _external_ids(summary)
    data = {
        "funder": funder or "",
        "title": _value(summary, "title", "title"),
        "grant_number": ids.get("grant_number"),
        "url": _value(summary, "url"),
        "start_year": start,
        "end_year": end,
        "note": None,
    }
    text = data["funder"] + (f": {data['title']}" if data["title"] else "")
    if data["grant_number"]:
        text += f" ({data['grant_number']})"
    return RecordEntry("funding", data, text)


def _peer_reviews(section: Any) -> list[RecordEntry]:
    """Peer reviews, one service entry per reviewed venue and year ("Reviewer, Nature
    (2023)"): ORCID lists each review, a profile lists the service."""
    seen: dict[tuple[str, int | None], RecordEntry] = {}
    if not isinstance(section, dict):
        return []
    for group in section.get("group") or []:
        for inner in (group or {}).get("peer-review-group") or []:
            for summary in (inner or {}).get("peer-review-summary") or []:
                if not isinstance(summary, dict):
                    continue
                venue = _value(summary, "convening-organization", "name") or _value(
                    summary, "review-group-id"
                )
                year, _ = _date(summary, "completion-date")
                role = str(_value(summary, "reviewer-role") or "reviewer").lower()
                key = (str(venue or ""), year)
                if key in seen or not venue:
                    continue
                data = {"kind": "editorial" if "editor" in role else "reviewer",
                        "venue": str(venue), "year": year, "role": role.title(),
                        "note": None}  # fmt: skip
                text = f"{data['role']}, {venue}" + (f" ({year})" if year else "")
                seen[key] = RecordEntry("service", data, text)
    return list(seen.values())


def _membership(summary: dict[str, Any]) -> RecordEntry:
    organisation, _ = _organisation(summary)
    role = _value(summary, "role-title") or "Member"
    year, _ = _date(summary, "start-date")
    data = {"kind": "other", "venue": organisation or "", "year": year, "role": role,
            "note": "Membership"}  # fmt: skip
    text = f"{role}, {data['venue']}" + (f" ({year})" if year else "")
    return RecordEntry("service", data, text)


#: A keyword ORCID users often write as one list ("operating systems, RDMA").
_KEYWORD_SPLIT_RE = re.compile(r"\s*[,;]\s*")


def _person_data(person: Any) -> PersonData:
    """The ``person`` part of a record (or a ``/person`` document)."""
    if not isinstance(person, dict):
        return PersonData()
    biography = _value(person, "biography", "content")
    if biography is not None:
        biography = "\n".join(line.rstrip() for line in str(biography).splitlines()).strip()
    keywords: list[str] = []
    for item in _value(person, "keywords", "keyword") or []:
        content = _value(item, "content") if isinstance(item, dict) else None
        for word in _KEYWORD_SPLIT_RE.split(str(content or "")):
            word = " ".join(word.split())
            if word and word.casefold() not in (k.casefold() for k in keywords):
                keywords.append(word)
    urls = []
    for item in _value(person, "researcher-urls", "researcher-url") or []:
        if not isinstance(item, dict):
            continue
        url = _value(item, "url")
        if isinstance(url, str):  # may be empty after a check; kept so the preview says so
            name = _value(item, "url-name")
            urls.append(ResearcherUrl(str(name) if name else None, url))
    return PersonData(biography or None, keywords, urls)


def record_holder_name(record: dict[str, Any]) -> str | None:
    """The name on the record: its credit name, else given and family names."""
    name = _value(record, "person", "name")
    if not isinstance(name, dict):
        return None
    credit = _value(name, "credit-name")
    if credit:
        return str(credit)
    parts = [_value(name, "given-names"), _value(name, "family-name")]
    return " ".join(str(p) for p in parts if p) or None


def parse_orcid_record(
    raw: bytes | str | dict[str, Any], owner_name: str, *, max_bytes: int
) -> OrcidRecord:
    """Read an ORCID 3.0 record. Problems (not JSON, not a record) come back in ``problems``.

    :param owner_name: the author name given to works (ORCID summaries list no co-authors).
    :raises BibtexTooLarge: if the input is larger than ``max_bytes``.
    """
    if isinstance(raw, bytes | str):
        record = _read_json(raw, max_bytes)
        if isinstance(record, BibtexProblem):
            return OrcidRecord(None, None, [], [], [record])
    else:
        record = raw
    record = _as_record(record)
    if not isinstance(record, dict) or not isinstance(record.get("activities-summary"), dict):
        message = (
            "This is not an ORCID record: it has no 'activities-summary' nor works (download "
            "the record as JSON from the public API's /record, /activities or /works "
            "endpoint)."
        )
        return OrcidRecord(None, None, [], [], [BibtexProblem(None, None, message)])
    activities = record["activities-summary"]
    return OrcidRecord(
        _value(record, "orcid-identifier", "path"),
        record_holder_name(record),
        _works(activities.get("works") or {}, owner_name),
        _activity_entries(activities),
        _unread_sections(activities),
        _person_data(record.get("person")),
    )


def _read_json(raw: bytes | str, max_bytes: int) -> Any:
    """The JSON document ``raw``, or the problem that it is none.

    :raises BibtexTooLarge: if it is larger than ``max_bytes``.
    """
    size = len(raw.encode("utf-8")) if isinstance(raw, str) else len(raw)
    if size > max_bytes:
        raise BibtexTooLarge(f"The ORCID record is {size} bytes; the limit is {max_bytes} bytes.")
    try:
        return json.loads(raw)
    except (UnicodeDecodeError, ValueError) as exc:
        line = getattr(exc, "lineno", None)
        return BibtexProblem(line, None, f"The file is not JSON: {exc}.")


def _as_record(record: Any) -> Any:
    """The public API's other documents, wrapped as a record: /activities (the summary
    itself), /works and /person (the biography, keywords and researcher URLs alone)."""
    if not isinstance(record, dict) or "activities-summary" in record:
        return record
    if "person" not in record and any(
        isinstance(record.get(k), dict) for k in ("biography", "keywords", "researcher-urls")
    ):
        return {"person": record, "activities-summary": {}}
    if isinstance(record.get("works"), dict) or isinstance(record.get("educations"), dict):
        return {"activities-summary": record}
    if isinstance(record.get("group"), list) and any(
        isinstance(g, dict) and "work-summary" in g for g in record["group"]
    ):
        return {"activities-summary": {"works": record}}
    return record


def _works(works: dict[str, Any], owner_name: str) -> list[ParsedEntry]:
    """The record's works as publications, one per group of work summaries."""
    entries: list[ParsedEntry] = []
    for group in works.get("group") or []:
        summaries = [s for s in (group or {}).get("work-summary") or [] if isinstance(s, dict)]
        if not summaries:
            continue
        # One group is one work as told by several sources; the preferred one comes first
        # in ORCID's display order.
        summaries.sort(key=lambda s: -(_int(s.get("display-index")) or 0))
        summary = summaries[0]
        data, warnings = _work(summary, owner_name)
        put_code = summary.get("put-code")
        entries.append(
            ParsedEntry(
                key=f"orcid-work-{put_code}" if put_code is not None else None,
                line=None,
                raw="",
                data=data,
                warnings=warnings,
            )
        )
    return entries


#: The affiliation sections of a record: (section, its summaries' key, the entry they make).
_AFFILIATION_SECTIONS = (
    ("educations", "education-summary", _education),
    ("qualifications", "qualification-summary", _education),
    ("employments", "employment-summary", _experience),
    ("invited-positions", "invited-position-summary", _experience),
    ("distinctions", "distinction-summary", _distinction),
    ("services", "service-summary", _service),
)


def _activity_entries(activities: dict[str, Any]) -> list[RecordEntry]:
    """Entries for the profile's tables: affiliations, fundings, peer reviews, memberships."""
    records: list[RecordEntry] = []
    for section, summary_key, build in _AFFILIATION_SECTIONS:
        for summary in _affiliations(activities.get(section), summary_key):
            records.append(build(summary))
    for group in (activities.get("fundings") or {}).get("group") or []:
        for summary in (group or {}).get("funding-summary") or []:
            if isinstance(summary, dict):
                records.append(_funding(summary))
                break  # one funding told by several sources
    records.extend(_peer_reviews(activities.get("peer-reviews")))
    for summary in _affiliations(activities.get("memberships"), "membership-summary"):
        records.append(_membership(summary))
    return records


def _unread_sections(activities: dict[str, Any]) -> list[BibtexProblem]:
    """A problem for each non-empty section of the record the import does not read."""
    return [
        BibtexProblem(None, section, (
            f"The record's {section.replace('-', ' ')} are not imported: the profile has "
            "no place for them."), "skipped")
        for section in sorted(set(activities) - _READ_SECTIONS)
        if activities.get(section)
    ]  # fmt: skip


#: The activities a record import reads (any other non-empty one is listed as not taken).
_READ_SECTIONS = frozenset([
    "works", "educations", "qualifications", "employments", "invited-positions",
    "distinctions", "services", "fundings", "peer-reviews", "memberships", "last-modified-date",
    "path",
])  # fmt: skip


def normalise_orcid_id(text: str) -> str | None:
    """``0000-0002-1825-0097`` from an iD or its URL, if the checksum is right."""
    m = ORCID_ID_RE.match(text.strip())
    if m is None:
        return None
    digits = m.group(1).replace("-", "")
    total = 0
    for char in digits[:-1]:
        total = (total + int(char)) * 2
    check = (12 - total % 11) % 11
    expected = "X" if check == 10 else str(check)
    return m.group(1) if digits[-1] == expected else None
