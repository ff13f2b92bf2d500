"""Each harvest source's documented answer shape, rendered from :mod:`harvest_data`'s
papers: ORCID API v3.0 works (summary and bulk), OpenAlex works, Crossref works, DBLP person
records, arXiv Atom feeds and Semantic Scholar papers."""

from __future__ import annotations

import base64
import hashlib
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from tests.support.harvest_data import Author, HarvestPerson, Paper


def put_code(paper: Paper) -> int:
    return 700_000 + paper.number


def _boxed(value: Any) -> dict[str, Any] | None:
    return {"value": value} if value is not None else None


_ORCID_TYPES = {
    "conference": "conference-paper",
    "workshop": "conference-paper",
    "journal": "journal-article",
    "preprint": "preprint",
    "book": "book",
    "chapter": "book-chapter",
    "thesis": "dissertation-thesis",
    "report": "report",
}


def orcid_work(paper: Paper, owner: HarvestPerson, *, full: bool) -> dict[str, Any]:
    ids = []
    if paper.doi:
        ids.append(
            {
                "external-id-type": "doi",
                "external-id-value": paper.doi,
                "external-id-url": _boxed(f"https://doi.org/{paper.doi}"),
                "external-id-relationship": "self",
            }
        )
    if paper.arxiv_id:
        relation = "self" if not paper.doi else "version-of"
        ids.append(
            {
                "external-id-type": "arxiv",
                "external-id-value": f"arXiv:{paper.arxiv_id}",
                "external-id-url": None,
                "external-id-relationship": relation,
            }
        )
    work = {
        "put-code": put_code(paper),
        # ORCID's own path of the work: the iD, the word work, the put code.
        "path": "/".join(("", owner.orcid, "work", str(put_code(paper)))),
        "source": {"source-name": {"value": "Crossref"}},
        "title": {"title": {"value": paper.title}, "subtitle": None, "translated-title": None},
        "external-ids": {"external-id": ids},
        "url": _boxed(f"https://doi.org/{paper.doi}" if paper.doi else None),
        "type": _ORCID_TYPES.get(paper.type, "other"),
        "publication-date": {
            "year": _boxed(str(paper.year)),
            "month": _boxed(f"{paper.month:02d}" if paper.month else None),
            "day": None,
        },
        "journal-title": _boxed(paper.venue),
        "visibility": "public",
        "display-index": "1",
    }
    if full:
        work["short-description"] = paper.abstract
        work["contributors"] = {
            "contributor": [
                {
                    "contributor-orcid": {
                        "uri": f"https://orcid.org/{a.orcid}",
                        "path": a.orcid,
                        "host": "orcid.org",
                    }
                    if a.orcid
                    else None,
                    "credit-name": {"value": a.name},
                    "contributor-email": None,
                    "contributor-attributes": {
                        "contributor-sequence": "first" if i == 0 else "additional",
                        "contributor-role": "author",
                    },
                }
                for i, a in enumerate(paper.authors)
            ]
        }
    return work


def orcid_summary(owner: HarvestPerson, papers: list[Paper]) -> dict[str, Any]:
    groups = [
        {
            "external-ids": orcid_work(p, owner, full=False)["external-ids"],
            "work-summary": [orcid_work(p, owner, full=False)],
        }
        for p in papers
    ]
    return {
        "last-modified-date": {"value": 1_700_000_000_000},
        "group": groups,
        "path": f"/{owner.orcid}/works",
    }


def orcid_bulk(owner: HarvestPerson, papers: list[Paper], codes: list[str]) -> dict[str, Any]:
    by_code = {str(put_code(p)): p for p in papers}
    bulk = []
    for code in codes:
        if code in by_code:
            bulk.append({"work": orcid_work(by_code[code], owner, full=True)})
        else:
            bulk.append(
                {
                    "error": {
                        "response-code": 404,
                        "developer-message": f"404 Not Found: no work with put code {code}",
                        "user-message": "The resource was not found.",
                        "error-code": 9016,
                    }
                }
            )
    return {"bulk": bulk}


_OPENALEX_TYPES = {
    "conference": ("article", "conference"),
    "workshop": ("article", "conference"),
    "journal": ("article", "journal"),
    "preprint": ("preprint", "repository"),
    "chapter": ("book-chapter", "book series"),
    "book": ("book", None),
}


def openalex_work(paper: Paper) -> dict[str, Any]:
    kind, source_type = _OPENALEX_TYPES.get(paper.type, ("other", None))
    venue = paper.venue or ("arXiv (Cornell University)" if paper.arxiv_id else None)
    words: dict[str, list[int]] = {}
    for i, word in enumerate((paper.abstract or "").split()):
        words.setdefault(word, []).append(i)
    locations = (
        [
            {
                "landing_page_url": f"https://arxiv.org/abs/{paper.arxiv_id}",
                "source": {"display_name": "arXiv (Cornell University)", "type": "repository"},
            }
        ]
        if paper.arxiv_id
        else []
    )
    return {
        "id": f"https://openalex.org/W{4_000_000_000 + paper.number}",
        "doi": f"https://doi.org/{paper.doi}" if paper.doi else None,
        "title": paper.title,
        "display_name": paper.title,
        "publication_year": paper.year,
        "publication_date": f"{paper.year}-{paper.month or 1:02d}-01",
        "ids": {"openalex": f"https://openalex.org/W{4_000_000_000 + paper.number}"},
        "type": kind,
        "primary_location": {
            "landing_page_url": f"https://doi.org/{paper.doi}" if paper.doi else None,
            "source": {"display_name": venue, "type": source_type} if venue else None,
        },
        "locations": locations,
        "authorships": [
            {
                "author_position": "first" if i == 0 else "middle",
                "author": {
                    "id": f"https://openalex.org/{a.openalex}" if a.openalex else None,
                    "display_name": a.name,
                    "orcid": f"https://orcid.org/{a.orcid}" if a.orcid else None,
                },
                "institutions": [{"display_name": a.affiliation}] if a.affiliation else [],
                "raw_author_name": a.name,
                "raw_affiliation_strings": [a.affiliation] if a.affiliation else [],
            }
            for i, a in enumerate(paper.authors)
        ],
        "abstract_inverted_index": words or None,
    }


def cursor_for(offset: int) -> str:
    return base64.urlsafe_b64encode(f"offset:{offset}".encode()).decode()


def offset_of(cursor: str | None) -> int | None:
    if cursor in (None, "", "*"):
        return 0
    try:
        return int(base64.urlsafe_b64decode(cursor.encode()).decode().removeprefix("offset:"))
    except ValueError:
        return None


_CROSSREF_TYPES = {
    "conference": "proceedings-article",
    "workshop": "proceedings-article",
    "journal": "journal-article",
    "book": "book",
    "chapter": "book-chapter",
    "thesis": "dissertation",
    "report": "report",
}


def crossref_item(paper: Paper) -> dict[str, Any]:
    authors = []
    for i, a in enumerate(paper.authors):
        given, _, family = a.name.rpartition(" ")
        author = {
            "given": given,
            "family": family,
            "sequence": "first" if i == 0 else "additional",
            "affiliation": [{"name": a.affiliation}] if a.affiliation else [],
        }
        if a.orcid:
            author |= {"ORCID": f"https://orcid.org/{a.orcid}", "authenticated-orcid": True}
        authors.append(author)
    date = [paper.year, paper.month] if paper.month else [paper.year]
    return {
        "DOI": paper.doi,
        "URL": f"https://doi.org/{paper.doi}",
        "type": _CROSSREF_TYPES.get(paper.type, "other"),
        "title": [paper.title],
        "container-title": [paper.venue] if paper.venue else [],
        "author": authors,
        "issued": {"date-parts": [date]},
        "published": {"date-parts": [date]},
        "abstract": f"<jats:p>{escape(paper.abstract or '')}</jats:p>",
        "publisher": "Example Press",
    }


_DBLP_ELEMENTS = {
    "conference": "inproceedings",
    "workshop": "inproceedings",
    "journal": "article",
    "preprint": "article",
    "chapter": "incollection",
    "book": "book",
    "thesis": "phdthesis",
}


def _dblp_author(a: Author, tag: str = "author") -> str:
    attrs = (f" pid={quoteattr(a.dblp)}" if a.dblp else "") + (
        f" orcid={quoteattr(a.orcid)}" if a.orcid else ""
    )
    return f"<{tag}{attrs}>{escape(a.name)}</{tag}>"


def dblp_key(paper: Paper) -> str:
    area = (
        "journals/jc"
        if paper.type == "journal"
        else "journals/corr"
        if paper.type == "preprint"
        else "conf/sys"
    )
    return f"{area}/Paper{paper.number}"


def dblp_person(owner: HarvestPerson, papers: list[Paper]) -> str:
    records = []
    for paper in papers:
        element = _DBLP_ELEMENTS.get(paper.type, "article")
        informal = ' publtype="informal"' if paper.type == "preprint" else ""
        parts = [_dblp_author(a) for a in paper.authors]
        parts.append(f"<title>{escape(paper.title)}.</title>")
        if paper.type == "preprint":
            parts.append(f"<journal>CoRR</journal><volume>abs/{paper.arxiv_id}</volume>")
        elif element == "article":
            parts.append(f"<journal>{escape(paper.venue or '')}</journal>")
        else:
            parts.append(f"<booktitle>{escape(paper.venue or '')}</booktitle>")
        parts.append(f"<year>{paper.year}</year>")
        if paper.doi:
            parts.append(f"<ee>https://doi.org/{escape(paper.doi)}</ee>")
        if paper.arxiv_id:
            parts.append(f'<ee type="oa">https://arxiv.org/abs/{paper.arxiv_id}</ee>')
        opening = f'<{element} key="{dblp_key(paper)}" mdate="2025-01-01"{informal}>'
        records.append(f"<r>{opening}{''.join(parts)}</{element}></r>")
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        f"<dblpperson name={quoteattr(owner.name)} pid={quoteattr(owner.dblp or '')}"
        f' n="{len(papers)}"><person key="homepages/{owner.dblp}" mdate="2025-01-01">'
        f"{_dblp_author(owner.as_author())}</person>"
        f'{"".join(records)}<coauthors n="0"/></dblpperson>'
    )


def arxiv_feed(owner: HarvestPerson, papers: list[Paper]) -> str:
    entries = []
    for paper in papers:
        if not paper.arxiv_id:
            continue
        authors = "".join(
            f"<author><name>{escape(a.name)}</name>"
            + (
                f"<arxiv:affiliation>{escape(a.affiliation)}</arxiv:affiliation>"
                if a.affiliation
                else ""
            )
            + "</author>"
            for a in paper.authors
        )
        doi = f"<arxiv:doi>{escape(paper.doi)}</arxiv:doi>" if paper.doi else ""
        ref = (
            f"<arxiv:journal_ref>{escape(paper.venue)}</arxiv:journal_ref>"
            if paper.doi and paper.venue
            else ""
        )
        entries.append(
            f"<entry><id>http://arxiv.org/abs/{paper.arxiv_id}v1</id>"
            f"<published>{paper.year}-{paper.month or 1:02d}-02T10:00:00Z</published>"
            f"<updated>{paper.year}-{paper.month or 1:02d}-03T10:00:00Z</updated>"
            f"<title>{escape(paper.title)}</title><summary>{escape(paper.abstract or '')}</summary>"
            f"{authors}{doi}{ref}"
            f'<link href="http://arxiv.org/abs/{paper.arxiv_id}v1" rel="alternate"'
            ' type="text/html"/>'
            f'<arxiv:primary_category term="cs.DC" scheme="http://arxiv.org/schemas/atom"/></entry>'
        )
    return (
        '<?xml version="1.0" encoding="utf-8"?>\n'
        '<feed xmlns="http://www.w3.org/2005/Atom" xmlns:arxiv="http://arxiv.org/schemas/atom">'
        f"<title>arXiv author: {escape(owner.name)}</title><id>http://arxiv.org/a/{owner.key}</id>"
        f"<updated>2025-01-01T00:00:00Z</updated>{''.join(entries)}</feed>"
    )


_S2_TYPES = {
    "conference": ["Conference"],
    "workshop": ["Conference"],
    "journal": ["JournalArticle"],
    "book": ["Book"],
    "chapter": ["BookSection"],
}


def s2_paper(paper: Paper) -> dict[str, Any]:
    paper_id = hashlib.sha1(f"paper{paper.number}".encode()).hexdigest()  # noqa: S324 - an id, not security
    ids: dict[str, Any] = {"CorpusId": 100_000 + paper.number}
    if paper.doi:
        ids["DOI"] = paper.doi
    if paper.arxiv_id:
        ids["ArXiv"] = paper.arxiv_id
    ids["DBLP"] = dblp_key(paper)
    return {
        "paperId": paper_id,
        "externalIds": ids,
        "url": f"https://www.semanticscholar.org/paper/{paper_id}",
        "title": paper.title,
        "abstract": paper.abstract,
        "venue": paper.venue or ("arXiv.org" if paper.arxiv_id else ""),
        "year": paper.year,
        "publicationDate": f"{paper.year}-{paper.month or 1:02d}-01",
        "publicationTypes": _S2_TYPES.get(paper.type),
        "journal": {"name": paper.venue} if paper.venue else None,
        "authors": [{"authorId": a.semantic_scholar, "name": a.name} for a in paper.authors],
    }
