"""``<prefix>/sitemap.xml``: the department pages, areas, the profiles of the people the
department lists (alumni profiles are reached from the alumni page) and every public paper's
page. A sitemap holds at most 50,000 URLs (the protocol's limit, :data:`MAX_URLS`): past that,
``sitemap.xml`` is a sitemap index naming ``sitemap.xml?part=1``, ``?part=2``..."""

from __future__ import annotations

from flask import Response, abort, request, url_for

from directory.db import get_session
from directory.formats.feeds import SitemapUrl, sitemap, sitemap_index
from directory.services import department, publication_reads
from directory.services.department.areas import AreaSummary, area_summaries
from directory.services.identity import ANONYMOUS
from directory.services.profiles import listed_people_dates
from directory.web.blueprint import blueprint
from directory.web.page_cache import cached_page

#: URLs in one sitemap (sitemaps.org: at most 50,000, and 50 MB, which 50,000 URLs stay under).
MAX_URLS = 50_000

PAGES = ("directory.index", "directory.areas", "directory.recruiting", "directory.alumni",
         "directory.publications", "directory.news")  # fmt: skip


@blueprint.route("/sitemap.xml")
@cached_page
def sitemap_xml() -> Response:
    """What a search engine may crawl: always the anonymous view, whoever asks."""
    session = get_session()
    urls = [SitemapUrl(url_for(endpoint, _external=True)) for endpoint in PAGES]

    def walk(items: list[AreaSummary]) -> None:
        for item in items:
            urls.append(SitemapUrl(url_for("directory.area", slug=item.area.slug, _external=True)))
            walk(item.children)

    walk(area_summaries(session, ANONYMOUS, department.today()))
    for slug, updated in listed_people_dates(session, ANONYMOUS):
        url = url_for("directory.profile", slug=slug, _external=True)
        urls.append(SitemapUrl(url, updated.date() if updated else None))
    for uid, updated in publication_reads.listed_paper_dates(session, ANONYMOUS):
        url = url_for("directory.paper", uid=uid, _external=True)
        urls.append(SitemapUrl(url, updated.date() if updated else None))
    parts = -(-len(urls) // MAX_URLS)
    part = request.args.get("part", "")
    if not part:
        if parts <= 1:
            return Response(sitemap(urls), mimetype="application/xml")
        locations = [
            url_for("directory.sitemap_xml", part=i, _external=True) for i in range(1, parts + 1)
        ]
        return Response(sitemap_index(locations), mimetype="application/xml")
    if not (part.isascii() and part.isdigit() and 1 <= int(part) <= parts) or parts <= 1:
        abort(404)
    start = (int(part) - 1) * MAX_URLS
    return Response(sitemap(urls[start : start + MAX_URLS]), mimetype="application/xml")
