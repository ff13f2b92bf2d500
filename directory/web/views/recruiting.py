"""Recruiting notices ``<prefix>/recruiting`` and their Atom feed, for any filter combination."""

from __future__ import annotations

from typing import Any

from flask import Response, current_app, render_template, request, url_for
from markupsafe import Markup

from directory import models as m
from directory.db import get_session
from directory.formats.feeds import ATOM_MIMETYPE, FeedEntry, atom_feed
from directory.formats.markdown import render_inline, render_markdown
from directory.i18n import department_name as i18n_department_name
from directory.i18n import gettext as _
from directory.i18n import html_lang, term_label, translate
from directory.services import department
from directory.services.department.recruiting import (
    RecruitingFilters,
    RecruitingPageFilters,
    recruiting_choices,
    recruiting_notices,
    recruiting_page,
)
from directory.services.identity import ANONYMOUS, current_viewer
from directory.web.blueprint import blueprint
from directory.web.notice_html import notice_html
from directory.web.page_cache import cached_page
from directory.web.views.common import item_url, long_date


@blueprint.record_once
def _notice_globals(state: Any) -> None:
    """The notice the macro ``ui.recruiting_notice`` prints (directory/web/notice_html.py)."""
    state.app.jinja_env.globals.update(directory_recruiting_notice=notice_html)


@blueprint.route("/recruiting")
@cached_page
def recruiting() -> str:
    filters = RecruitingPageFilters.from_args(request.args)
    session, viewer, today = get_session(), current_viewer(), department.today()
    size = current_app.config["DIRECTORY_PAGE_SIZE"]
    page = recruiting_page(session, viewer, today, filters, size)
    return render_template(
        "directory/recruiting.html",
        page=page,
        notices=page.items,
        choices=recruiting_choices(session, viewer, today, page.items, filters.person),
        filters=filters,
    )


def notice_title(notice: m.RecruitingNotice) -> str:
    """'PhD students with Xingda Wei (Fall 2026)', or the notice's own title; a rolling notice
    names no term here (its entry's categories say "Rolling / any time")."""
    level = translate(m.label(m.RECRUITING_LEVELS, notice.level))
    title = notice.title or _("%(level)s with %(name)s", level=level, name=notice.owner.full_name)
    if notice.is_rolling:
        return title
    return _("%(title)s (%(term)s)", title=title, term=term_label(notice))


def _notice_html(notice: m.RecruitingNotice) -> str:
    parts = [render_markdown(notice.description)]
    if notice.how_to_apply:
        apply = render_inline(notice.how_to_apply)
        label = _("How to apply:")
        parts.append(Markup("<p><strong>{}</strong> {}</p>").format(label, apply))
    facts = []
    if notice.funding_note:
        facts.append(_("Funding: %(note)s.", note=notice.funding_note))
    if notice.deadline:
        facts.append(_("Apply by %(day)s.", day=long_date(notice.deadline)))
    if notice.last_confirmed:
        facts.append(_("Last confirmed %(day)s.", day=long_date(notice.last_confirmed)))
    if facts:
        parts.append(Markup("<p>{}</p>").format(" ".join(facts)))
    return str(Markup("\n").join(parts))


@blueprint.route("/recruiting.atom")
@cached_page
def recruiting_feed() -> Response:
    """The notices as an Atom feed. Feeds are public documents (readers fetch them without a
    session and share their caches), so they hold public notices only, whoever asks."""
    filters = RecruitingFilters.from_args(request.args)
    notices = recruiting_notices(get_session(), ANONYMOUS, department.today(), filters)
    page_url = url_for("directory.recruiting", **filters.to_args(), _external=True)
    self_url = url_for("directory.recruiting_feed", **filters.to_args(), _external=True)
    # Built once, not once per entry: a feed holds every open notice (hundreds).
    notices_url = url_for("directory.recruiting", _external=True)
    entries = [
        FeedEntry(
            id=f"{notices_url}#notice-{notice.id}",
            title=notice_title(notice),
            url=item_url("directory.profile", "slug", notice.owner.slug, external=True)
            + "#recruiting",
            updated=notice.updated_at,
            published=notice.created_at,
            author=notice.owner.full_name,
            categories=(translate(m.label(m.RECRUITING_LEVELS, notice.level)), term_label(notice))
            + tuple(area.name for area in notice.areas),
            content_html=_notice_html(notice),
        )
        for notice in notices
    ]
    department_name = i18n_department_name()
    body = atom_feed(
        title=_("Recruiting · %(department)s", department=department_name),
        language=html_lang(),
        feed_id=self_url,
        self_url=self_url,
        page_url=page_url,
        author=department_name,
        entries=entries,
    )
    return Response(body, mimetype=ATOM_MIMETYPE)
