"""The read-only JSON API, version 1, under ``<prefix>/api/v1`` (described by
``<prefix>/api/v1/openapi.json``: :mod:`directory.web.api.openapi`; prose in docs/api.md).

* Lists take ``page`` and ``per_page`` (at most 100) and answer
  ``{"items": [...], "page", "per_page", "pages", "total", "links": {"self", "first", "last",
  "next", "prev"}}``; their filters mirror the pages'.
* Query parameters are read by the pages' own filter classes, strictly: each value must be
  valid against the parameter's schema, the very one the OpenAPI document publishes
  (:mod:`directory.services.parameters`; which class each list reads is
  :data:`directory.web.api.openapi.LIST_FILTERS`). A bad value is a 400 naming the parameter
  and an unknown (or hidden) object a 404, both as RFC 9457 problem details
  (``application/problem+json``).
* What a viewer sees follows the read rules of :mod:`directory.services.access`, as on the
  pages, through the same queries (:mod:`directory.services.department`). Email addresses go
  to signed-in members only. Anonymous answers are public and cacheable, with an ETag; signed-in
  answers are private.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any

from flask import Response, current_app, request, url_for
from sqlalchemy import ColumnElement, Select
from sqlalchemy.orm import selectinload
from werkzeug.exceptions import MethodNotAllowed
from werkzeug.http import HTTP_STATUS_CODES

from directory import models as m
from directory.db import get_session
from directory.i18n import current_locale
from directory.services import alumni, alumni_counts, api_reads, department, profiles
from directory.services.access import person_visible
from directory.services.department.areas import area_people_counts, area_summaries
from directory.services.department.filters import check_references
from directory.services.department.people import letter_clause, name_order, people_conditions
from directory.services.department.publications import publication_conditions
from directory.services.department.recruiting import recruiting_owner_ids
from directory.services.identity import Viewer, current_viewer
from directory.services.parameters import MAX_PER_PAGE, BadFilter, Paging
from directory.services.profiles import load_profile
from directory.services.search import matching_ids, publication_urls
from directory.web.api import representations as rep
from directory.web.api.openapi import LIST_FILTERS, openapi_document
from directory.web.blueprint import blueprint

API = "/api/v1"


class ApiError(Exception):
    """Answered as a problem details document with ``status``."""

    def __init__(self, status: int, detail: str, parameter: str | None = None) -> None:
        super().__init__(detail)
        self.status, self.detail, self.parameter = status, detail, parameter


@blueprint.errorhandler(ApiError)
def _problem(error: ApiError) -> Response:
    body: dict[str, Any] = {
        "type": "about:blank",
        "title": HTTP_STATUS_CODES.get(error.status, "Error"),
        "status": error.status,
        "detail": error.detail,
    }
    if error.parameter:
        body["parameter"] = error.parameter
    response = current_app.response_class(
        current_app.json.dumps(body), status=error.status, mimetype="application/problem+json"
    )
    response.cache_control.no_store = True
    return response


@blueprint.errorhandler(BadFilter)
def _bad_filter(error: BadFilter) -> Response:
    # Only the API reads filters strictly; the pages drop a bad value.
    return _problem(ApiError(400, error.message, error.name))


def _respond(data: Any) -> Response:
    """JSON with an ETag (a matching If-None-Match gets a 304), cacheable by anyone when the
    caller is anonymous, only by the caller's own browser otherwise."""
    response = current_app.response_class(current_app.json.dumps(data), mimetype="application/json")
    response.add_etag()
    if current_viewer().is_authenticated:
        response.cache_control.private = True
        response.cache_control.no_cache = True
    else:
        response.cache_control.public = True
        seconds = current_app.config["DIRECTORY_CACHE_SECONDS"]
        if seconds:
            response.cache_control.max_age = seconds
        else:
            response.cache_control.no_cache = True
    response.vary.add("Cookie")
    return response.make_conditional(request)


# ----------------------------------------------------------------------------- parameters


def _filters(path: str, viewer: Viewer) -> Any:
    """The filters the list at ``path`` documents (:data:`LIST_FILTERS`), read strictly from
    the query string: a bad value, an unknown area or a person the viewer may not see is a 400
    (:class:`BadFilter`)."""
    filters = LIST_FILTERS[path].from_args(request.args, strict=True)
    check_references(get_session(), viewer, filters)
    return filters


def _query(kind: str, viewer: Viewer, column: Any, q: str) -> ColumnElement | None:
    ids = matching_ids(get_session(), q, viewer, kind)
    return None if ids is None else column.in_(ids)


def _page(
    stmt: Select,
    key: Any,
    order_by: Sequence[Any],
    options: Sequence[Any],
    item: Callable,
) -> Response:
    """One page of the filtered ``stmt`` (:func:`directory.services.api_reads.page_of`), in
    the envelope."""
    page, per_page = _paging()
    rows, total = api_reads.page_of(get_session(), stmt, key, order_by, options, page, per_page)
    return _envelope(item(rows), page, per_page, total)


def _paging() -> tuple[int, int]:
    """The page asked for and the page size."""
    paging = Paging.from_args(request.args, strict=True)
    return paging.page, paging.per_page or min(
        current_app.config["DIRECTORY_PAGE_SIZE"], MAX_PER_PAGE
    )


def _envelope(items: list[Any], page: int, per_page: int, total: int) -> Response:
    """A list's page in the envelope: the items, the counts and the links to other pages."""
    pages = max(1, -(-total // per_page))

    def link(number: int | None) -> str | None:
        if number is None:
            return None
        args = request.args.to_dict() | {"page": number, "per_page": per_page}
        return url_for(request.endpoint, _external=True, **(request.view_args or {}), **args)

    return _respond(
        {
            "items": items,
            "page": page,
            "per_page": per_page,
            "pages": pages,
            "total": total,
            "links": {
                "self": link(page),
                "first": link(1),
                "last": link(pages),
                "next": link(page + 1 if page < pages else None),
                "prev": link(min(page - 1, pages) if page > 1 else None),
            },
        }
    )


# ----------------------------------------------------------------------------- endpoints


@blueprint.route(f"{API}/")
def api_index() -> Response:
    return _respond(
        {
            "openapi": url_for("directory.api_openapi", _external=True),
            "people": url_for("directory.api_people", _external=True),
            "positions": url_for("directory.api_positions", _external=True),
            "publications": url_for("directory.api_publications", _external=True),
            "areas": url_for("directory.api_areas", _external=True),
            "alumni": url_for("directory.api_alumni", _external=True),
            "alumni_summary": url_for("directory.api_alumni_summary", _external=True),
        }
    )


@blueprint.route(f"{API}/openapi.json")
def api_openapi() -> Response:
    return _respond(openapi_document(url_for("directory.api_index", _external=True).rstrip("/")))


@blueprint.route(f"{API}/people")
def api_people() -> Response:
    viewer, today = current_viewer(), department.today()
    filters = _filters("/people", viewer)
    clauses = people_conditions(viewer, today, filters)
    locale = current_locale()
    if filters.letter:
        clauses.append(letter_clause(filters.letter, locale))
    if (matched := _query("person", viewer, m.Person.id, filters.q)) is not None:
        clauses.append(matched)

    def items(rows: list[m.Person]) -> list[dict]:
        shown = [p.id for p in rows]
        open_ids = recruiting_owner_ids(get_session(), viewer, today, shown)
        return [rep.person_summary(p, viewer, p.id in open_ids) for p in rows]

    options = (selectinload(m.Person.areas), selectinload(m.Person.photo))
    if filters.topic.strip():
        page, per_page = _paging()
        rows, total = api_reads.ranked_people(
            get_session(), filters.topic, viewer, clauses, options, page, per_page
        )
        return _envelope(items(rows), page, per_page, total)
    return _page(
        api_reads.people(clauses),
        m.Person.id,
        (name_order(locale), m.Person.id),
        options,
        items,
    )


@blueprint.route(f"{API}/people/<slug>")
def api_person(slug: str) -> Response:
    viewer = current_viewer()
    session = get_session()
    found = profiles.person_by_slug(session, slug, "links", "areas", "photo")
    if found is None or not person_visible(viewer, found):
        raise ApiError(404, f"there is no person {slug!r}")
    profile = load_profile(session, found, viewer, department.today())
    return _respond(rep.person_detail(profile, viewer))


@blueprint.route(f"{API}/positions")
def api_positions() -> Response:
    viewer = current_viewer()
    notice = m.RecruitingNotice
    filters = _filters("/positions", viewer)
    return _page(
        api_reads.positions(viewer, filters),
        notice.id,
        (notice.deadline.asc().nulls_last(), m.Person.sort_name, notice.position, notice.id),
        (selectinload(notice.areas), selectinload(notice.owner)),
        lambda rows: [rep.position(n) for n in rows],
    )


@blueprint.route(f"{API}/publications")
def api_publications() -> Response:
    viewer = current_viewer()
    pub = m.Publication
    filters = _filters("/publications", viewer)
    clauses = publication_conditions(viewer, filters)
    if (matched := _query("publication", viewer, pub.id, filters.q)) is not None:
        clauses.append(matched)

    page, per_page = _paging()
    rows, total = api_reads.shown_page_of(
        get_session(),
        api_reads.publications(clauses),
        (pub.year.desc().nulls_last(), pub.month.desc().nulls_last(), pub.title, pub.id),
        page,
        per_page,
    )
    urls = publication_urls(get_session(), viewer, [p.id for p in rows], external=True)
    items = [rep.publication(p, viewer, urls.get(p.id)) for p in rows]
    return _envelope(items, page, per_page, total)


def _shown_area_ids(viewer: Viewer) -> list[int]:
    """The areas the research areas page shows ``viewer``: those with a listed person or an
    open notice, or with such a sub-area (an area known only from hidden profiles is left
    out)."""
    ids: list[int] = []
    pending = area_summaries(get_session(), viewer, department.today())
    while pending:
        summary = pending.pop()
        ids.append(summary.area.id)
        pending.extend(summary.children)
    return ids


@blueprint.route(f"{API}/areas")
def api_areas() -> Response:
    viewer = current_viewer()
    area = m.ResearchArea

    def items(rows: list[m.ResearchArea]) -> list[dict]:
        # The number of people its people_url lists.
        counts = area_people_counts(get_session(), viewer)
        return [
            {
                **rep.area(a),
                "description": a.description,
                "parent": a.parent.slug if a.parent else None,
                "people": counts.get(a.id, 0),
                "people_url": url_for("directory.api_people", area=a.slug, _external=True),
            }
            for a in rows
        ]

    return _page(
        api_reads.areas(_shown_area_ids(viewer)),
        area.id,
        (area.position, area.name, area.id),
        (selectinload(area.parent),),
        items,
    )


def _alumni_filters(path: str) -> alumni.AlumniFilters:
    """The alumni filters of ``path``, read strictly."""
    return _filters(path, current_viewer())


@blueprint.route(f"{API}/alumni")
def api_alumni() -> Response:
    viewer = current_viewer()
    filters = _alumni_filters("/alumni")
    page, per_page = _paging()
    found = alumni.alumni_page(
        get_session(),
        viewer,
        replace(filters, page=page),
        per_page,
        choices=False,
        last_if_past=False,
    ).page
    items = [rep.alumnus(a, viewer) for a in found.items]
    return _envelope(items, page, per_page, found.total)


@blueprint.route(f"{API}/alumni/summary")
def api_alumni_summary() -> Response:
    viewer = current_viewer()
    filters = _alumni_filters("/alumni/summary")
    args = {k: v for k, v in request.args.items() if k not in ("page", "per_page", "advisors")}
    size = min(current_app.config["DIRECTORY_PAGE_SIZE"], MAX_PER_PAGE)
    summary = alumni_counts.alumni_summary(get_session(), viewer, filters, size, choices=False)
    pages = summary.advisor_page

    def advisors(number: int) -> str | None:
        if not 1 <= number <= pages.pages or number == pages.number:
            return None
        return url_for(request.endpoint, _external=True, **args, advisors=number)

    return _respond(
        {
            **rep.alumni_summary(summary, viewer),
            "links": {
                "alumni": url_for("directory.api_alumni", _external=True, **args),
                "page": url_for("directory.alumni_summary", _external=True, **args),
                "csv": url_for("directory.alumni_csv", _external=True, **args),
                "next_advisors": advisors(pages.number + 1),
                "prev_advisors": advisors(pages.number - 1),
            },
        }
    )


@blueprint.route(f"{API}/<path:rest>")
def api_not_found(rest: str) -> Response:
    raise ApiError(404, f"there is no API endpoint {rest!r}")


@blueprint.before_app_request
def _api_method_not_allowed() -> Response | None:
    """A method the API does not answer (it is read-only) is a 405 problem with ``Allow``, as
    its other errors are. Routing finds no view for such a request, so the blueprint's error
    handlers never see it: it is answered here, before the host's handlers would make it HTML."""
    error = request.routing_exception
    prefix = current_app.config["DIRECTORY_URL_PREFIX"].rstrip("/") + API
    if not isinstance(error, MethodNotAllowed) or not (
        request.path == prefix or request.path.startswith(prefix + "/")
    ):
        return None
    allowed = sorted(error.valid_methods or ("GET", "HEAD", "OPTIONS"))
    response = _problem(
        ApiError(405, f"the API is read-only: {request.method} is not one of {', '.join(allowed)}")
    )
    response.allow.update(allowed)
    return response
