"""Semantic Scholar Academic Graph, ``GET /graph/v1/author/{id}/papers?fields=…&offset=…&
limit=…``: ``{"offset", "next", "data": [paper, …]}``, ``next`` absent on the last page.
:data:`FIELDS` are the paper fields asked for."""

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

SOURCE = "semantic_scholar"
FIELDS = ",".join((
    "externalIds", "title", "year", "publicationDate", "venue", "journal", "publicationTypes",
    "authors", "abstract", "url",
))  # fmt: skip
#: Semantic Scholar publication types → publication types, first match wins.
PUBLICATION_TYPES = (
    ("Conference", "conference"),
    ("JournalArticle", "journal"),
    ("Review", "survey"),
    ("Book", "book"),
    ("BookSection", "chapter"),
    ("Thesis", "thesis"),
)


def _type(paper: dict[str, Any], arxiv_id: str | None, venue: str | None) -> str:
    kinds = {str(k) for k in as_list(paper.get("publicationTypes"))}
    for kind, pub_type in PUBLICATION_TYPES:
        if kind in kinds:
            return pub_type
    if arxiv_id and (not venue or venue.lower().startswith("arxiv")):
        return "preprint"
    return "other"


def work_from_paper(paper: dict[str, Any]) -> HarvestedWork | None:
    """One paper (``None`` without a ``paperId``)."""
    paper_id = clean(paper.get("paperId"))
    if not paper_id:
        return None
    ids = as_dict(paper.get("externalIds"))
    arxiv_id = normalise_arxiv(str(ids.get("ArXiv") or "")) or None
    venue = clean(paper.get("venue")) or clean(as_dict(paper.get("journal")).get("name"))
    _year, month = iso_year_month(paper.get("publicationDate"))
    authors = tuple(
        HarvestedAuthor(name=name, source_id=clean(as_dict(a).get("authorId")))
        for a in as_list(paper.get("authors"))
        if (name := clean(as_dict(a).get("name")))
    )
    return HarvestedWork(
        source=SOURCE,
        source_key=paper_id,
        title=clean(paper.get("title")) or "",
        year=as_int(paper.get("year")) or _year,
        month=month,
        venue=venue,
        type=_type(paper, arxiv_id, venue),
        authors=authors,
        doi=normalise_doi(str(ids.get("DOI") or "")),
        arxiv_id=arxiv_id,
        dblp_key=clean(ids.get("DBLP")),
        semantic_scholar_id=paper_id,
        abstract=clean(paper.get("abstract")),
        url=clean(paper.get("url")),
        found_by="semantic_scholar",
    )


def parse_papers_page(body: bytes | str) -> HarvestPage:
    """One page of an author's papers and the ``offset`` of the next (``None``: the last)."""
    data = load_json_object(body, "the Semantic Scholar papers page")
    papers = data.get("data")
    if not isinstance(papers, list):
        raise HarvestParseError("the Semantic Scholar papers page has no data list")
    works = [w for w in (work_from_paper(as_dict(p)) for p in papers) if w]
    following = as_int(data.get("next"))
    return HarvestPage(works, following if papers and following is not None else None)
