"""The people listing ``<prefix>/`` and the research areas ``<prefix>/areas/``."""

from __future__ import annotations

from flask import abort, current_app, render_template, request

from directory.db import get_session
from directory.services import department
from directory.services.department.areas import area_page, area_summaries
from directory.services.department.people import ListingFilters, listing
from directory.services.identity import current_viewer
from directory.services.parameters import LETTERS
from directory.web.blueprint import blueprint
from directory.web.page_cache import cached_page
from directory.web.structured import area_jsonld, listing_jsonld


@blueprint.route("/")
@cached_page
def index() -> str:
    filters = ListingFilters.from_args(request.args)
    size = current_app.config["DIRECTORY_LISTING_PAGE_SIZE"]
    data = listing(get_session(), current_viewer(), department.today(), filters, size)
    return render_template(
        "directory/index.html",
        listing=data,
        filters=filters,
        letters=LETTERS,
        jsonld=listing_jsonld(data.people, "People"),
    )


@blueprint.route("/areas/")
@cached_page
def areas() -> str:
    summaries = area_summaries(get_session(), current_viewer(), department.today())
    return render_template("directory/areas.html", summaries=summaries)


@blueprint.route("/areas/<slug>")
@cached_page
def area(slug: str) -> str:
    size = current_app.config["DIRECTORY_PAGE_SIZE"]
    page = area_page(get_session(), current_viewer(), department.today(), slug, size)
    if page is None:
        abort(404)
    return render_template("directory/area.html", page=page, jsonld=area_jsonld(page))
