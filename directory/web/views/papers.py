"""A public page per paper: ``<prefix>/publications/<uid>``, what Google Scholar, Zotero and a
reader who follows a link all read: the record, its related versions and projects, a Cite block
(BibTeX and a formatted reference), Highwire ``citation_*`` tags and schema.org JSON-LD.

The paper is shown to whoever may see it on the department's pages (visible itself and listed
on a visible profile, :func:`~directory.services.access.listed_publications`); otherwise
the page is a 404, like a missing one."""

from __future__ import annotations

from typing import Any

from flask import abort, current_app, render_template, url_for

from directory import models as m
from directory.db import get_session
from directory.formats.bibtex.export import publication_to_bibtex
from directory.formats.citations import (
    highwire_tags,
    plain_citation,
    venue_has_year,
)
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
from directory.web.citation_html import (
    author_list,
    by_role,
    citation,
    doi_linked,
    fold_authors,
    paragraphs,
    publication_badge,
    venue_line,
    venue_parts,
)
from directory.web.page_cache import cached_page
from directory.web.structured import (
    paper_page_jsonld,
    papers_collection_jsonld,
    scholarly_article,
)
from directory.web.views.common import item_url


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
        directory_citation=citation,
        directory_author_list=author_list,
        directory_venue_line=venue_line,
    )
