"""A recruiting notice as the recruiting page and a research area's page print it: its title
or owner, its level, term, funding and areas, its description, how to apply, and its dates.

The macro ``ui.recruiting_notice`` of ``templates/directory/_macros.html`` prints what
:func:`notice_html` returns, so a host that imports the macro, or overrides the file, keeps
doing so (an override may replace the macro's body with its own Jinja again). The HTML is
written here, not in the macro, because of its count: the recruiting page prints a page of
fifty notices in a university, and the macro spent some 170 µs on each calling back into
Python (gettext, the labels, url_for for each area, the dates), most of the page's time that
grew with the notices shown. The output is the macro's, byte for byte
(``tests/web/test_notice_html.py`` compares them): every value escaped as Jinja's autoescape
escapes it, the texts the template's own (:func:`~directory.i18n.markup_translator`).

``notice`` is a :class:`~directory.models.RecruitingNotice` (or anything with its attributes
and its owner's ``slug``, ``full_name``, ``native_name`` and ``title``).
"""

from __future__ import annotations

from typing import Any

from markupsafe import Markup

from directory import models as m
from directory.formats.markdown import render_inline, render_markdown
from directory.i18n import html_name, markup_translator, term_label
from directory.web.html_text import html_text as _text
from directory.web.views.common import item_url, long_date, profile_url, vocabulary_label


def notice_html(notice: Any, level: int = 3) -> Markup:
    """The notice's ``<article>``, preceded by the newline the macro printed before it; its
    title a heading of ``level``."""
    _ = markup_translator()
    out = [f'\n<article class="notice" id="notice-{_text(str(notice.id))}">\n  ']
    _heading(out, notice, level)
    about = _("About this position")
    out.append(f'\n  <ul class="notice__facts" aria-label="{about}">\n    ')
    _facts(out, notice, _)
    out.append(f'\n  </ul>\n  <div class="prose">{render_markdown(notice.description)}</div>\n  ')
    if notice.how_to_apply:
        apply = render_inline(notice.how_to_apply)
        label = _("How to apply:")
        out.append(f'<div class="notice__apply"><strong>{label}</strong> {apply}</div>')
    out.append('\n  <p class="notice__meta">\n    ')
    _dates(out, notice, _)
    out.append("\n  </p>\n</article>")
    return Markup("".join(out))  # noqa: S704 - every value escaped where it was added


def _heading(out: list[str], notice: Any, level: int) -> None:
    """The notice's own title over its owner's name and title, or the owner's name as the
    title (and their title below it)."""
    owner = notice.owner
    name = html_name(owner.full_name, owner.native_name)
    link = f'<a href="{_text(profile_url(owner.slug))}">{name}</a>'
    level = _text(str(level))
    if notice.title:
        out.append(f'\n  <h{level} class="notice__title">{_text(notice.title)}</h{level}>\n  ')
        owner_title = f", {_text(owner.title)}" if owner.title else ""
        out.append(f'<p class="notice__owner">{link}{owner_title}</p>\n  ')
        return
    out.append(f'\n  <h{level} class="notice__title">{link}</h{level}>\n  ')
    if owner.title:
        out.append(f'<p class="notice__owner">{_text(owner.title)}</p>')
    out.append("\n  ")


def _facts(out: list[str], notice: Any, _: Any) -> None:
    """The level, the term ("Rolling: any time"), "Funded", and the areas, each linked."""
    level = _text(vocabulary_label(m.RECRUITING_LEVELS, notice.level))
    out.append(f'<li><span class="tag tag--level">{level}</span></li>\n    ')
    if notice.is_rolling:
        rolling = _("Rolling: any time")
        out.append(f'<li><span class="tag tag--term tag--rolling">{rolling}')
    else:
        out.append(f'<li><span class="tag tag--term">{_text(term_label(notice))}')
    out.append("</span></li>\n    ")
    if notice.funded:
        funded = _("Funded")
        out.append(f'<li><span class="tag tag--funded">{funded}</span></li>')
    out.append("\n    ")
    for area in notice.areas:
        url = _text(item_url("directory.area", "slug", area.slug))
        out.append(f'<li><a class="tag" href="{url}">{_text(area.name)}</a></li>')


def _dates(out: list[str], notice: Any, _: Any) -> None:
    """The funding note, the deadline, the expiry, and when it was last confirmed (else last
    updated), each a sentence of the line."""
    if notice.funding_note:
        out += (_("Funding: %(note)s.", note=notice.funding_note), " ")
    out.append("\n    ")
    if notice.deadline:
        out += (_("Apply by %(day)s.", day=long_date(notice.deadline)), " ")
    out.append("\n    ")
    if notice.expires_on:
        out += (_("Listing expires on %(day)s.", day=long_date(notice.expires_on)), " ")
    out.append("\n    ")
    if notice.last_confirmed:
        out.append(_("Last confirmed %(day)s.", day=long_date(notice.last_confirmed)))
    else:
        out.append(_("Last updated %(day)s.", day=long_date(notice.updated_at.date())))
