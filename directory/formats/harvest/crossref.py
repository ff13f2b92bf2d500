"""Crossref ``/works`` lists: ``{"status": "ok", "message-type": "work-list", "message":
{"total-results", "items-per-page", "next-cursor", "items": [work, …]}}``. A person's works
are asked for by their ORCID iD only (``filter=orcid:…``; a name query returns hundreds of
strangers), with deep paging by ``cursor=*`` then ``message.next-cursor`` until a page comes
back with no items."""

from __future__ import annotations

from typing import Any

from directory.formats.harvest.common import (
    HarvestPage,
    HarvestParseError,
    as_dict,
    as_int,
    as_list,
    clean,
    first_text,
    load_json_object,
    strip_markup,
)
from directory.formats.harvest.works import HarvestedAuthor, HarvestedWork
from directory.formats.identifiers import normalise_arxiv, normalise_doi
from directory.formats.orcid import normalise_orcid_id

SOURCE = "crossref"
#: Crossref work types → publication types.
WORK_TYPES = {
    "journal-article": "journal",
    "proceedings-article": "conference",
    "posted-content": "preprint",
    "book-chapter": "chapter",
    "book-section": "chapter",
    "book-part": "chapter",
    "book": "book",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "dissertation": "thesis",
    "report": "report",
    "report-component": "report",
}
#: Crossref's date fields, most telling first.
_DATES = ("issued", "published", "published-print", "published-online", "created")


def _year_month(item: dict[str, Any]) -> tuple[int | None, int | None]:
    for name in _DATES:
        parts = as_list(as_dict(item.get(name)).get("date-parts"))
        first = as_list(parts[0]) if parts else []
        year = as_int(first[0]) if first else None
        if year:
            month = as_int(first[1]) if len(first) > 1 else None
            return year, month if month and 1 <= month <= 12 else None
    return None, None


def _authors(item: dict[str, Any]) -> tuple[HarvestedAuthor, ...]:
    authors = []
    for author in as_list(item.get("author")):
        author = as_dict(author)
        given, family = clean(author.get("given")), clean(author.get("family"))
        name = " ".join(p for p in (given, family) if p) or clean(author.get("name"))
        if not name:
            continue
        orcid = author.get("ORCID")
        places = (clean(as_dict(a).get("name")) for a in as_list(author.get("affiliation")))
        authors.append(
            HarvestedAuthor(
                name=name,
                orcid=normalise_orcid_id(str(orcid)) if orcid else None,
                affiliations=tuple(p for p in places if p),
            )
        )
    return tuple(authors)


def work_from_crossref(item: dict[str, Any], found_by: str) -> HarvestedWork | None:
    """One Crossref work (``None`` without a DOI)."""
    doi = normalise_doi(item.get("DOI"))
    if not doi:
        return None
    title = first_text(item.get("title")) or ""
    subtitle = first_text(item.get("subtitle"))
    if title and subtitle:
        title = f"{title}: {subtitle}"
    year, month = _year_month(item)
    arxiv_id = None
    if doi.startswith("10.48550/arxiv."):  # arXiv's own DOIs
        arxiv_id = normalise_arxiv(doi.removeprefix("10.48550/arxiv."))
    return HarvestedWork(
        source=SOURCE,
        source_key=doi,
        title=title,
        year=year,
        month=month,
        venue=first_text(item.get("container-title")),
        type=WORK_TYPES.get(str(item.get("type") or "").lower(), "other"),
        authors=_authors(item),
        doi=doi,
        arxiv_id=arxiv_id,
        abstract=strip_markup(item.get("abstract")),
        url=clean(item.get("URL")),
        found_by=found_by,
    )


def parse_works_page(body: bytes | str, found_by: str = "orcid") -> HarvestPage:
    """One page of ``/works``: its works and ``message.next-cursor`` (``None`` once a page
    has no items: Crossref gives a cursor on the last page too)."""
    data = load_json_object(body, "the Crossref works page")
    message = data.get("message")
    if data.get("status") not in (None, "ok") or not isinstance(message, dict):
        raise HarvestParseError("the Crossref answer is not a work list")
    items = message.get("items")
    if not isinstance(items, list):
        raise HarvestParseError("the Crossref work list has no items")
    works = [w for w in (work_from_crossref(as_dict(i), found_by) for i in items) if w]
    cursor = clean(message.get("next-cursor"))
    total = as_int(message.get("total-results"))
    return HarvestPage(works, cursor if items and cursor else None, total)
