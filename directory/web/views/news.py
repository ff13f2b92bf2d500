"""Department news gathered from profiles ``<prefix>/news``, and its Atom feed."""

from __future__ import annotations

from flask import Response, current_app, render_template, request, url_for

from directory.db import get_session
from directory.formats.feeds import ATOM_MIMETYPE, FeedEntry, atom_feed, day_start
from directory.formats.markdown import render_inline
from directory.i18n import department_name as i18n_department_name
from directory.i18n import gettext as _
from directory.i18n import html_lang
from directory.services.department.news import news_date, news_page
from directory.services.identity import ANONYMOUS, current_viewer
from directory.web.blueprint import blueprint
from directory.web.page_cache import cached_page


def _page_number() -> int:
    value = request.args.get("page", "")
    return int(value) if value.isdigit() and 0 < int(value) < 100_000 else 1


@blueprint.route("/news")
@cached_page
def news() -> str:
    page = news_page(
        get_session(), current_viewer(), _page_number(), current_app.config["DIRECTORY_PAGE_SIZE"]
    )
    return render_template(
        "directory/news.html", page=page, page_args=lambda n: {"page": n} if n > 1 else {}
    )


@blueprint.route("/news.atom")
@cached_page
def news_feed() -> Response:
    """The newest news as Atom; public items only, whoever asks (see ``recruiting_feed``)."""
    page = news_page(get_session(), ANONYMOUS, 1, current_app.config["DIRECTORY_PAGE_SIZE"])
    entries = []
    for item, person in page.items:
        html = render_inline(item.body)
        text = " ".join(html.striptags().split())
        entries.append(
            FeedEntry(
                id=url_for("directory.news", _external=True) + f"#news-{item.id}",
                title=f"{person.full_name}: {text[:117] + '…' if len(text) > 120 else text}",
                url=url_for("directory.profile", slug=person.slug, _external=True) + "#news",
                updated=item.updated_at,
                published=day_start(news_date(item)),
                author=person.full_name,
                content_html=str(html),
            )
        )
    department_name = i18n_department_name()
    self_url = url_for("directory.news_feed", _external=True)
    body = atom_feed(
        title=_("News · %(department)s", department=department_name),
        language=html_lang(),
        feed_id=self_url,
        self_url=self_url,
        page_url=url_for("directory.news", _external=True),
        author=department_name,
        entries=entries,
    )
    return Response(body, mimetype=ATOM_MIMETYPE)
