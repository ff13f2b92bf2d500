"""A public page per paper: ``<prefix>/publications/<uid>``, what Google Scholar, Zotero and a
reader who follows a link all read: the record, its related versions and projects, a Cite block
(BibTeX and a formatted reference), Highwire ``citation_*`` tags and schema.org JSON-LD.

The paper is shown to whoever may see it on the department's pages (visible itself and listed
on a visible profile, :func:`~directory.services.access.listed_publications`); otherwise
the page is a 404, like a missing one."""

from __future__ import annotations

import re
from typing import Any

from flask import abort, current_app, render_template, url_for

from directory import models as m
from directory.db import get_session
from directory.formats.bibtex.export import publication_to_bibtex
from directory.formats.citations import (
    highwire_tags,
    plain_citation,
    venue_badge,
    venue_has_year,
)
from directory.formats.identifiers import normalise_doi
from directory.i18n import department_name
from directory.i18n import gettext as _
from directory.services import publication_reads
from directory.services.access import (
    person_visible,
)
from directory.services.identity import Viewer, current_viewer
from directory.services.profiles import publication_options, year_heading
from directory.services.publications import publication_data
from directory.web.blueprint import blueprint
from directory.web.page_cache import cached_page
from directory.web.structured import (
    paper_page_jsonld,
    papers_collection_jsonld,
    scholarly_article,
)
from directory.web.views.common import item_url, month_year


def paper_or_404(uid: str, viewer: Viewer) -> m.Publication:
    """The paper named by ``uid`` if ``viewer`` may see it on the department's pages."""
    pub = publication_reads.listed_paper(get_session(), viewer, uid, publication_options())
    if pub is None:
        abort(404)
    return pub


def paper_url(pub: m.Publication) -> str:
    return item_url("directory.paper", "uid", pub.uid, external=True)


def author_profile_urls(
    pub: m.Publication, viewer: Viewer, known: dict[int, str | None] | None = None
) -> list[str | None]:
    """In author order, the profile address of each author ``viewer`` may see (else None);
    ``known``: the answers so far, by person id, for a caller asking about many papers (which
    share their authors: a profile's owner wrote every one), which this adds to."""
    known = {} if known is None else known
    urls = []
    for a in pub.authorships:
        person = a.person
        if person is None:
            urls.append(None)
            continue
        if person.id not in known:
            known[person.id] = (
                item_url("directory.profile", "slug", person.slug, external=True)
                if person_visible(viewer, person)
                else None
            )
        urls.append(known[person.id])
    return urls


def paragraphs(text: str | None) -> list[str]:
    """A text's paragraphs (separated by blank lines), each on one line."""
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text or "") if p.strip()]


def citation_bibtex(data: dict[str, Any]) -> str:
    """One paper's BibTeX entry, under its own key or one made from it
    (:func:`~directory.formats.bibtex.keys.make_citation_key`, which the writer falls back on)."""
    return publication_to_bibtex(data)


def citation_block(data: dict[str, Any]) -> dict[str, str | None]:
    """The Cite block's texts: BibTeX and the reference in the department's CSL style (None,
    and a warning in the log, when DIRECTORY_CITATION_STYLE names no style citeproc knows)."""
    style = current_app.config["DIRECTORY_CITATION_STYLE"]
    try:
        text = plain_citation(data, style)
    except ValueError:
        current_app.logger.warning("DIRECTORY_CITATION_STYLE %r is not a CSL style", style)
        text = None
    return {"bibtex": citation_bibtex(data), "text": text, "style": style}


def articles(pubs: list[Any], data: list[dict[str, Any]] | None = None) -> list[dict[str, Any]]:
    """Papers as schema.org ScholarlyArticle items, their authors linked as the viewer may see;
    ``data``: their :func:`publication_data`, when the caller has it already."""
    viewer = current_viewer()
    if data is None:
        data = [publication_data(pub) for pub in pubs]
    known: dict[int, str | None] = {}
    return [
        scholarly_article(item, paper_url(pub), author_profile_urls(pub, viewer, known))
        for pub, item in zip(pubs, data, strict=True)
    ]


def shown_citations(pubs: list[Any]) -> tuple[list[dict[str, Any]], dict[int, str]]:
    """The JSON-LD items (:func:`articles`) and the Bib blocks' BibTeX (by paper id) of the
    papers a page shows, each paper's citation data read once for both."""
    data = [publication_data(pub) for pub in pubs]
    return articles(pubs, data), {
        pub.id: citation_bibtex(item) for pub, item in zip(pubs, data, strict=True)
    }


def department_papers_jsonld(pubs: list[m.Publication]) -> Any:
    """The department's publications page (its current page of papers) as JSON-LD."""
    name = _("Publications · %(department)s", department=department_name())
    return papers_collection_jsonld(
        articles(pubs), name, url_for("directory.publications", _external=True)
    )


@blueprint.route("/publications/<uid>")
@cached_page
def paper(uid: str) -> str:
    viewer = current_viewer()
    pub = paper_or_404(uid, viewer)
    data = publication_data(pub)
    url = paper_url(pub)
    author_urls = author_profile_urls(pub, viewer)
    return render_template(
        "directory/paper.html",
        pub=pub,
        canonical=url,
        abstract=paragraphs(pub.abstract),
        related=publication_reads.related_versions(get_session(), pub, viewer),
        projects=publication_reads.listing_projects(get_session(), pub, viewer),
        cite=citation_block(data),
        meta=highwire_tags(data, url),
        jsonld=paper_page_jsonld(data, url, author_urls, pub.updated_at),
    )


#: A list folds only when that hides at least this many names: "and 2 more authors" takes
#: about the room of the two names it would hide.
MIN_FOLDED_AUTHORS = 3


def fold_authors(
    authorships: list[m.Authorship], keep_id: int | None = None
) -> tuple[list[m.Authorship | None], int]:
    """Authors shown before a long list folds, and how many are folded: the first
    DIRECTORY_AUTHOR_LIST_LENGTH, plus ``keep_id`` (the profile's owner) and every co-first
    author wherever they are; ``None`` marks a gap between them (none at the end: the
    "and N more authors" that follows says so)."""
    limit = current_app.config["DIRECTORY_AUTHOR_LIST_LENGTH"]
    if not limit or len(authorships) <= limit:
        return list(authorships), 0
    shown: list[m.Authorship | None] = []
    for i, author in enumerate(authorships):
        keep = i < limit or author.co_first or (keep_id and author.person_id == keep_id)
        if keep:
            shown.append(author)
        elif shown and shown[-1] is not None:
            shown.append(None)
    folded = len(authorships) - sum(1 for a in shown if a is not None)
    if folded < MIN_FOLDED_AUTHORS:
        return list(authorships), 0
    if shown[-1] is None:
        shown.pop()  # "…, and N more authors" would say the same twice
    return shown, folded


def by_role(pub: m.Publication) -> tuple[list[m.Authorship], list[m.Authorship]]:
    """(authors, editors) of a paper, each in print order."""
    authors = [a for a in pub.authorships if (a.role or "author") == "author"]
    return authors, [a for a in pub.authorships if a.role == "editor"]


#: Types whose publisher and place are part of the reference ("Springer, Berlin, 2004").
PUBLISHED_BY = frozenset(["book", "chapter", "report", "thesis"])


def venue_parts(pub: m.Publication) -> list[str]:
    """The pieces of a paper's venue line, in order, none empty; joined by ", " and ended by a
    full stop (no line at all when there is nothing)."""
    parts = [pub.venue] if pub.venue else []
    editors = by_role(pub)[1]
    if editors and any((a.role or "author") == "author" for a in pub.authorships):
        names = [a.name for a in editors]
        # Names keep the paper's bibliographic style ("A, B and C"), as author lists do.
        joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        parts.append(_("edited by %(names)s", names=joined))
    if pub.volume:
        parts.append(_("vol. %(volume)s", volume=pub.volume))
    if pub.number:
        parts.append(_("no. %(number)s", number=pub.number))
    if pub.article:
        parts.append(_("article %(article)s", article=pub.article))
    if pub.pages:
        parts.append(_("pp. %(pages)s", pages=pub.pages))
    if pub.type in PUBLISHED_BY and pub.publisher and pub.publisher != pub.venue:
        parts.append(pub.publisher)
    if pub.location:
        parts.append(pub.location)
    if pub.year and not venue_has_year(pub.venue, pub.year):
        parts.append(month_year(pub.year, pub.month))
    return parts


def doi_linked(pub: m.Publication) -> bool:
    """Whether one of the paper's own links is its DOI's address (so that the DOI is not
    listed twice); otherwise the DOI is always shown."""
    doi = (pub.doi or "").lower()
    return bool(doi) and any(
        normalise_doi(link.url) == doi for link in pub.links if "doi.org/" in link.url.lower()
    )


def publication_badge(pub: m.Publication) -> str | None:
    return venue_badge(pub.venue_short, pub.year)


def publication_bibtex(pub: m.Publication) -> str:
    return citation_bibtex(publication_data(pub))


@blueprint.record_once
def _paper_globals(state: Any) -> None:
    """What the publication macros use to render a paper one way everywhere."""
    state.app.jinja_env.globals.update(
        directory_fold_authors=fold_authors,
        directory_venue_badge=publication_badge,
        directory_venue_has_year=venue_has_year,
        directory_venue_parts=venue_parts,
        directory_by_role=by_role,
        directory_doi_linked=doi_linked,
        directory_year_heading=year_heading,
        directory_paragraphs=paragraphs,
        directory_bibtex=publication_bibtex,
        directory_papers_jsonld=department_papers_jsonld,
    )
