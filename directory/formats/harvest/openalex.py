"""OpenAlex ``/works`` lists: ``{"meta": {"count", "per_page", "next_cursor"}, "results":
[work, …]}``. A person's works are asked for with ``filter=author.id:A…`` (their OpenAlex
author id) or ``filter=author.orcid:…`` and cursor paging (``cursor=*`` first, then
``meta.next_cursor`` until a page comes back empty or without a cursor)."""

from __future__ import annotations

from typing import Any

from directory.formats.harvest.common import (
    HarvestPage,
    HarvestParseError,
    as_dict,
    as_int,
    as_list,
    clean,
    iso_year_month,
    load_json_object,
)
from directory.formats.harvest.works import HarvestedAuthor, HarvestedWork
from directory.formats.identifiers import normalise_arxiv, normalise_doi
from directory.formats.orcid import normalise_orcid_id

SOURCE = "openalex"
_ID_PREFIX = "https://openalex.org/"
#: OpenAlex work types → publication types (``article`` is decided by its source's type).
WORK_TYPES = {
    "preprint": "preprint",
    "posted-content": "preprint",
    "book-chapter": "chapter",
    "book": "book",
    "monograph": "book",
    "dissertation": "thesis",
    "report": "report",
    "review": "journal",
    "proceedings-article": "conference",
}
#: ``article`` by the type of the source it appeared in.
ARTICLE_SOURCE_TYPES = {
    "journal": "journal",
    "conference": "conference",
    "repository": "preprint",
    "book series": "chapter",
}


def short_id(value: Any) -> str | None:
    """``A123`` or ``W123`` from ``https://openalex.org/A123`` (or the bare id)."""
    text = clean(value)
    if not text:
        return None
    return text.removeprefix(_ID_PREFIX)


def _abstract(inverted: Any) -> str | None:
    """The abstract from OpenAlex's inverted index (word → positions)."""
    if not isinstance(inverted, dict):
        return None
    positions: dict[int, str] = {}
    for word, places in inverted.items():
        for place in as_list(places):
            if isinstance(place, int):
                positions[place] = str(word)
    return clean(" ".join(positions[i] for i in sorted(positions)))


def _authors(work: dict[str, Any]) -> tuple[HarvestedAuthor, ...]:
    authors = []
    for authorship in as_list(work.get("authorships")):
        authorship = as_dict(authorship)
        author = as_dict(authorship.get("author"))
        name = clean(authorship.get("raw_author_name")) or clean(author.get("display_name"))
        if not name:
            continue
        orcid = author.get("orcid")
        institutions = as_list(authorship.get("institutions"))
        places = [clean(as_dict(i).get("display_name")) for i in institutions]
        places += [clean(s) for s in as_list(authorship.get("raw_affiliation_strings"))]
        authors.append(
            HarvestedAuthor(
                name=name,
                orcid=normalise_orcid_id(str(orcid)) if orcid else None,
                source_id=short_id(author.get("id")),
                affiliations=tuple(dict.fromkeys(p for p in places if p)),
            )
        )
    return tuple(authors)


def _arxiv_id(work: dict[str, Any], doi: str | None) -> str | None:
    if doi and doi.startswith("10.48550/arxiv."):
        return normalise_arxiv(doi.removeprefix("10.48550/arxiv."))
    for location in as_list(work.get("locations")):
        url = str(as_dict(location).get("landing_page_url") or "")
        if "arxiv.org/" in url:
            return normalise_arxiv(url)
    return None


def _type(work: dict[str, Any], source: dict[str, Any]) -> str:
    kind = str(work.get("type") or "other").lower()
    if kind == "article":
        return ARTICLE_SOURCE_TYPES.get(str(source.get("type") or "").lower(), "journal")
    return WORK_TYPES.get(kind, "other")


def work_from_openalex(work: dict[str, Any], found_by: str) -> HarvestedWork | None:
    """One OpenAlex work (``None`` without an id)."""
    work_id = short_id(work.get("id"))
    if not work_id:
        return None
    primary = as_dict(work.get("primary_location"))
    source = as_dict(primary.get("source"))
    doi = normalise_doi(work.get("doi") or as_dict(work.get("ids")).get("doi"))
    year, month = iso_year_month(work.get("publication_date"))
    return HarvestedWork(
        source=SOURCE,
        source_key=work_id,
        title=clean(work.get("title")) or clean(work.get("display_name")) or "",
        year=as_int(work.get("publication_year")) or year,
        month=month,
        venue=clean(source.get("display_name")),
        type=_type(work, source),
        authors=_authors(work),
        doi=doi,
        arxiv_id=_arxiv_id(work, doi),
        openalex_id=work_id,
        abstract=_abstract(work.get("abstract_inverted_index")),
        url=clean(primary.get("landing_page_url")),
        found_by=found_by,
    )


def parse_works_page(body: bytes | str, found_by: str = "openalex") -> HarvestPage:
    """One page of ``/works``: its works and ``meta.next_cursor`` (``None`` when the page
    is empty: OpenAlex keeps giving a cursor past the last page)."""
    data = load_json_object(body, "the OpenAlex works page")
    results = data.get("results")
    if not isinstance(results, list):
        raise HarvestParseError("the OpenAlex works page has no results list")
    meta = as_dict(data.get("meta"))
    works = [w for w in (work_from_openalex(as_dict(r), found_by) for r in results) if w]
    cursor = clean(meta.get("next_cursor"))
    return HarvestPage(works, cursor if results and cursor else None, as_int(meta.get("count")))
