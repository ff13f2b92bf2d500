"""A paper's citation as every page prints it: the venue badge, the title linked to the paper's
page, the authors (a long list folded), the venue line, honours, related versions, links and
the Abstract and Bib toggles.

The macros ``ui.publication``, ``ui.author_list`` and ``ui.venue_line`` of
``templates/directory/_macros.html`` print what these functions return, so a host that imports
the macros, or overrides the file, keeps doing so. The HTML is written here, not in the macros,
because of its count: a profile prints some seventy citations and four hundred authors, and a
macro spends most of a millisecond on each citation calling back into Python, where this
takes a tenth of that. Every value goes into the HTML escaped (:func:`_text`, markupsafe's
escaping as plain text); the texts are the templates' own
(:func:`~directory.i18n.markup_translator`).

``pub`` is a :class:`~directory.models.Publication` or anything with its attributes (the
plain values of :mod:`directory.services.shown_papers`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from flask import current_app
from markupsafe import Markup

from directory import models as m
from directory.formats.citations import venue_badge, venue_has_year
from directory.formats.identifiers import normalise_doi
from directory.formats.markdown import render_inline
from directory.i18n import gettext, markup_translator
from directory.i18n import markup_ngettext as ngettext
from directory.services.access import can_view
from directory.services.identity import current_viewer
from directory.web.html_text import html_text as _text
from directory.web.views.common import month_year, paper_url, profile_url, vocabulary_label

#: A list folds only when that hides at least this many names: "and 2 more authors" takes
#: about the room of the two names it would hide.
MIN_FOLDED_AUTHORS = 3

#: Types whose publisher and place are part of the reference ("Springer, Berlin, 2004").
PUBLISHED_BY = frozenset(["book", "chapter", "report", "thesis"])


# ----------------------------------------------------------------------------- the parts


def fold_authors(authorships: Sequence[Any], keep_id: int | None = None) -> tuple[list[Any], int]:
    """Authors shown before a long list folds, and how many are folded: the first
    DIRECTORY_AUTHOR_LIST_LENGTH, plus ``keep_id`` (the profile's owner) and every co-first
    author wherever they are; ``None`` marks a gap between them (none at the end: the
    "and N more authors" that follows says so)."""
    limit = current_app.config["DIRECTORY_AUTHOR_LIST_LENGTH"]
    if not limit or len(authorships) <= limit:
        return list(authorships), 0
    shown: list[Any] = []
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


def by_role(pub: Any) -> tuple[list[Any], list[Any]]:
    """(authors, editors) of a paper, each in print order."""
    authors = [a for a in pub.authorships if (a.role or "author") == "author"]
    return authors, [a for a in pub.authorships if a.role == "editor"]


def venue_parts(pub: Any) -> list[str]:
    """The pieces of a paper's venue line, in order, none empty; joined by ", " and ended by a
    full stop (no line at all when there is nothing)."""
    parts = [pub.venue] if pub.venue else []
    editors = by_role(pub)[1]
    if editors and any((a.role or "author") == "author" for a in pub.authorships):
        names = [a.name for a in editors]
        # Names keep the paper's bibliographic style ("A, B and C"), as author lists do.
        joined = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]
        parts.append(gettext("edited by %(names)s", names=joined))
    if pub.volume:
        parts.append(gettext("vol. %(volume)s", volume=pub.volume))
    if pub.number:
        parts.append(gettext("no. %(number)s", number=pub.number))
    if pub.article:
        parts.append(gettext("article %(article)s", article=pub.article))
    if pub.pages:
        parts.append(gettext("pp. %(pages)s", pages=pub.pages))
    if pub.type in PUBLISHED_BY and pub.publisher and pub.publisher != pub.venue:
        parts.append(pub.publisher)
    if pub.location:
        parts.append(pub.location)
    if pub.year and not venue_has_year(pub.venue, pub.year):
        parts.append(month_year(pub.year, pub.month))
    return parts


def doi_linked(pub: Any) -> bool:
    """Whether one of the paper's own links is its DOI's address (so that the DOI is not
    listed twice); otherwise the DOI is always shown."""
    doi = (pub.doi or "").lower()
    return bool(doi) and any(
        normalise_doi(link.url) == doi for link in pub.links if "doi.org/" in link.url.lower()
    )


def publication_badge(pub: Any) -> str | None:
    return venue_badge(pub.venue_short, pub.year)


def paragraphs(text: str | None) -> list[str]:
    """A text's paragraphs (separated by blank lines), each on one line."""
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n", text or "") if p.strip()]


# ----------------------------------------------------------------------------- the HTML


def venue_line(pub: Any) -> Markup:
    """``<span class="pub__venue">…, ….</span>``, or nothing."""
    parts = venue_parts(pub)
    if not parts:
        return Markup("")
    return Markup(f'<span class="pub__venue">{", ".join(map(_text, parts))}.</span>')  # noqa: S704


def author_list(pub: Any, emphasise_id: int | None = None, fold: bool = True) -> Markup:
    """The authors in print order (or the editors, "(eds.)", when it has no authors), the
    person ``emphasise_id`` in bold; beyond DIRECTORY_AUTHOR_LIST_LENGTH (``fold=False``:
    never) the list folds, keeping that person and co-first authors in view, and opens
    without JavaScript."""
    _ = markup_translator()
    authors, editors = by_role(pub)
    people = authors or editors
    shown, more = fold_authors(people, emphasise_id) if fold else (people, 0)
    out = ['<span class="pub__authors">']
    if more:
        out.append('<span class="pub__authors-short">')
        out.append(_authors(shown, emphasise_id, listing=False))
        out.append('</span>\n  <details class="pub__more-authors"><summary>')
        out.append('<span class="pub__more-label">')
        if authors:
            label = ngettext(
                "and %(count)s more author", "and %(count)s more authors", more, count=more
            )
        else:
            label = ngettext(
                "and %(count)s more editor", "and %(count)s more editors", more, count=more
            )
        out.append(label)
        out.append('<span class="visually-hidden">')
        out.append(_(": show all %(total)s", total=len(people)))
        out.append('</span></span><span class="pub__fewer-label">')
        out.append(_("Fewer authors") if authors else _("Fewer editors"))
        out.append("</span></summary>")
        out.append(_authors(people, emphasise_id, pub.authors_incomplete))
        out.append("</details>")
    else:
        out.append(_authors(shown, emphasise_id, pub.authors_incomplete))
    if not authors and editors:
        one = len(editors) == 1 and not pub.authors_incomplete
        out.append(" (ed.)" if one else " (eds.)")
    out.append("</span>")
    return Markup("".join(out))  # noqa: S704 - every value escaped where it was added


def _authors(
    authors: Sequence[Any], emphasise_id: int | None, et_al: bool = False, listing: bool = True
) -> str:
    """The names in print order ("A, B and C"; ``listing=False``: "A, B, C", a folded list's
    start); ``None`` marks a gap ("…"). HTML, every value escaped."""
    _ = markup_translator()
    out: list[str] = []
    last = len(authors) - 1
    for i, a in enumerate(authors):
        if i:
            if listing and i == last and not et_al:
                out.append(f"{',' if len(authors) > 2 else ''} {_('and')} ")
            else:
                out.append(", ")
        if a is None:
            out.append("…")
            continue
        name = _text(a.name)
        own = a.person_id and a.person_id == emphasise_id
        if own:
            out.append(f'<span class="author author--self"><strong>{name}</strong>')
        elif a.person and a.person.visibility == "public" and a.person_id != emphasise_id:
            url = _text(profile_url(a.person.slug))
            out.append(f'<span class="author"><a href="{url}">{name}</a>')
        else:
            out.append(f'<span class="author">{name}')
        if a.co_first:
            out.append(f'<sup class="mark" title="{_("co-first author")}">*</sup>')
        if a.corresponding:
            out.append(f'<sup class="mark" title="{_("corresponding author")}">†</sup>')
        out.append("</span>")
    if listing and et_al and authors:
        comma = "," if len(authors) > 1 else ""
        out.append(f'{comma} <span class="pub__et-al">{_("et al.")}</span>')
    return "".join(out)


def citation(
    pub: Any, emphasise_id: int | None = None, bib: str | None = None, id_prefix: str = "pub-"
) -> Markup:
    """The paper's ``<article class="pub">``: ``emphasise_id`` the profile's owner, whose name
    is in bold (and not linked); ``bib``, its BibTeX, shows the Bib toggle; ``id_prefix``
    starts the element's id (then the paper's uid)."""
    _ = markup_translator()
    viewer = current_viewer()
    badge = publication_badge(pub)
    out = [
        f'\n<article class="pub{" pub--awarded" if pub.awards else ""}" '
        f'id="{_text(id_prefix)}{_text(pub.uid)}">'
    ]
    if badge:
        out.append(
            f'\n  <div class="pub__aside"><span class="tag tag--venue">{_text(badge)}</span></div>'
        )
    out.append('\n  <div class="pub__body">\n  <p class="pub__title-line">\n    ')
    _title_line(out, pub, viewer)
    if pub.authorships:
        out.append('\n  <div class="pub__meta pub__meta--authors">')
        out.append(author_list(pub, emphasise_id))
        out.append("</div>")
    venue = venue_line(pub)
    if venue or pub.note:
        note = f'<span class="pub__note">{_text(pub.note)}</span>' if pub.note else ""
        out.append(f'\n  <p class="pub__meta">{venue}{" " if venue and note else ""}{note}</p>')
    if pub.awards or pub.badges:
        _honours(out, pub, _)
    _relations(out, pub, viewer)
    actions = pub.links or pub.doi or pub.abstract or bib
    if actions:
        out.append('\n  <div class="pub__actions">')
    if pub.links or pub.doi:
        _links(out, pub, _)
    if pub.abstract or bib:
        _toggles(out, pub, bib, _)
    if actions:
        out.append("\n  </div>")
    out.append("\n  </div>\n</article>")
    return Markup("".join(out))  # noqa: S704 - every value escaped where it was added


def _title_line(out: list[str], pub: Any, viewer: Any) -> None:
    """The title (linked to the paper's page when the viewer may see it), status and labels."""
    title = _text(pub.title)
    if can_view(viewer, pub):
        out.append(f'<cite class="pub__title"><a href="{_text(paper_url(pub.uid))}">{title}</a>')
    else:
        out.append(f'<cite class="pub__title">{title}')
    out.append("</cite>")
    if pub.status != "published":
        status = vocabulary_label(m.PUBLICATION_STATUSES, pub.status)
        out.append(
            f' <span class="tag tag--status tag--{_text(pub.status)}">{_text(status)}</span>'
        )
    for label in pub.labels:
        out.append(f' <span class="tag tag--label">{_text(label)}</span>')
    out.append("</p>")


def _honours(out: list[str], pub: Any, _: Any) -> None:
    """The paper's awards (their Markdown rendered) and artifact badges."""
    out.append(f'\n  <ul class="pub__honours" aria-label="{_("Awards and badges")}">')
    for award in pub.awards:
        out.append('<li class="award-badge"><span aria-hidden="true">★</span> ')
        out.append(f"{render_inline(award.name)}</li>")
    for honour in pub.badges:
        issuer = f"{_text(honour.issuer)} {_('badge:')} " if honour.issuer else ""
        out.append(f'<li class="artifact-badge">{issuer}{_text(honour.name)}</li>')
    out.append("</ul>")


def _relations(out: list[str], pub: Any, viewer: Any) -> None:
    """Each related version the viewer may see, linked to its page."""
    for rel in pub.relations:
        if not can_view(viewer, rel.target):
            continue
        kind = vocabulary_label(m.PUBLICATION_RELATIONS, rel.kind)
        target_badge = publication_badge(rel.target)
        shown = f"{_text(target_badge)}: " if target_badge else ""
        url = _text(paper_url(rel.target.uid))
        out.append(
            f'\n  <p class="pub__relation">{_text(kind)}:\n    '
            f'<a href="{url}">{shown}{_text(rel.target.title)}</a></p>'
        )


def _links(out: list[str], pub: Any, _: Any) -> None:
    """The paper's own links, then its DOI unless one of them is the DOI's address."""
    out.append(
        f'\n  <ul class="pub__links" aria-label="{_("Links for %(title)s", title=pub.title)}">'
    )
    for link in pub.links:
        text = link.label or vocabulary_label(m.PUBLICATION_LINK_KINDS, link.kind)
        out.append(f'<li><a href="{_text(link.url)}">{_text(text)}</a></li>')
    if pub.doi and not doi_linked(pub):
        out.append(f'<li><a href="https://doi.org/{_text(pub.doi)}">{_("DOI")}</a></li>')
    out.append("</ul>")


def _toggles(out: list[str], pub: Any, bib: str | None, _: Any) -> None:
    """The Abstract and Bib toggles (open without JavaScript)."""
    out.append('\n  <div class="pub__toggles">')
    if pub.abstract:
        out.append(
            f'\n  <details class="pub__abstract"><summary>{_("Abstract")}'
            f'<span class="visually-hidden"> {_("of %(title)s", title=pub.title)}</span>'
            "</summary>"
        )
        out.extend(f"<p>{_text(para)}</p>" for para in paragraphs(pub.abstract))
        out.append("</details>")
    if bib:
        out.append(
            f'\n  <details class="pub__bib"><summary>{_("Bib")}'
            f'<span class="visually-hidden">{_("TeX of %(title)s", title=pub.title)}</span>'
            f'</summary><pre class="bibtex"><code>{_text(bib)}</code></pre></details>'
        )
    out.append("\n  </div>")
