"""The read-only JSON API, version 1, under ``<prefix>/api/v1`` (described by
``<prefix>/api/v1/openapi.json``: :mod:`directory.formats.openapi`; prose in docs/api.md).

* Lists take ``page`` and ``per_page`` (at most 100) and answer
  ``{"items": [...], "page", "per_page", "pages", "total", "links": {"self", "first", "last",
  "next", "prev"}}``; their filters mirror the pages'.
* A bad filter value is a 400 and an unknown (or hidden) object a 404, both as RFC 9457
  problem details (``application/problem+json``).
* What a viewer sees follows :mod:`directory.services.access`, as on the pages. Email addresses
  go to
  signed-in members only. Anonymous answers are public and cacheable, with an ETag; signed-in
  answers are private.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import date
from typing import Any

from flask import Response, current_app, request, url_for
from sqlalchemy import ColumnElement, Select, exists, func, or_, select
from sqlalchemy.orm import aliased, selectinload
from werkzeug.http import HTTP_STATUS_CODES

from directory import models as m
from directory.db import get_session
from directory.formats import representations as rep
from directory.formats.openapi import openapi_document
from directory.services import department
from directory.services.access import listed_publication_clause, person_visible, visibility_clause
from directory.services.identity import Viewer, current_viewer
from directory.services.profiles import load_profile
from directory.services.search import matching_ids, publication_urls
from directory.web.blueprint import blueprint

API = "/api/v1"
MAX_PER_PAGE = 100
MAX_TEXT = 200


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


def _text(name: str) -> str | None:
    value = request.args.get(name)
    if value is None or not value.strip():
        return None
    if "\x00" in value or len(value) > MAX_TEXT:
        raise ApiError(400, f"{name} must be text of at most {MAX_TEXT} characters", name)
    return value.strip()


def _choice(name: str, vocabulary: tuple[tuple[str, str], ...]) -> str | None:
    value = _text(name)
    allowed = m.values(vocabulary)
    if value is not None and value not in allowed:
        raise ApiError(400, f"{name} must be one of: {', '.join(allowed)}", name)
    return value


def _integer(name: str, low: int, high: int) -> int | None:
    value = _text(name)
    if value is None:
        return None
    if not value.isascii() or not value.isdigit() or not low <= int(value) <= high:
        raise ApiError(400, f"{name} must be a whole number from {low} to {high}", name)
    return int(value)


def _boolean(name: str) -> bool | None:
    value = _text(name)
    if value is None:
        return None
    if value.lower() in ("true", "1", "yes"):
        return True
    if value.lower() in ("false", "0", "no"):
        return False
    raise ApiError(400, f"{name} must be true or false", name)


def _area() -> m.ResearchArea | None:
    slug = _text("area")
    if slug is None:
        return None
    found = get_session().scalar(select(m.ResearchArea).where(m.ResearchArea.slug == slug))
    if found is None:
        raise ApiError(400, f"there is no research area {slug!r}", "area")
    return found


def _person(viewer: Viewer) -> m.Person | None:
    slug = _text("person")
    if slug is None:
        return None
    found = get_session().scalar(select(m.Person).where(m.Person.slug == slug))
    if found is None or not person_visible(viewer, found):
        # A hidden profile answers exactly like a missing one.
        raise ApiError(400, f"there is no person {slug!r}", "person")
    return found


def _query(kind: str, viewer: Viewer, column: Any) -> ColumnElement | None:
    ids = matching_ids(get_session(), _text("q") or "", viewer, kind)
    return None if ids is None else column.in_(ids)


def _page(
    stmt: Select, key: Any, order_by: Sequence[Any], options: Sequence[Any], item: Callable
) -> Response:
    """One page of the filtered ``stmt`` (counted by its ``key`` column), in the envelope."""
    page = _integer("page", 1, 1_000_000) or 1
    default = min(current_app.config["DIRECTORY_PAGE_SIZE"], MAX_PER_PAGE)
    per_page = _integer("per_page", 1, MAX_PER_PAGE) or default
    session = get_session()
    total = session.scalar(
        select(func.count()).select_from(stmt.with_only_columns(key).distinct().subquery())
    )
    rows = list(
        session.scalars(
            stmt.options(*options).order_by(*order_by).limit(per_page).offset((page - 1) * per_page)
        )
    )
    pages = max(1, -(-total // per_page))

    def link(number: int | None) -> str | None:
        if number is None:
            return None
        args = request.args.to_dict() | {"page": number, "per_page": per_page}
        return url_for(request.endpoint, _external=True, **(request.view_args or {}), **args)

    return _respond(
        {
            "items": item(rows),
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


# ----------------------------------------------------------------------------- shared clauses


def _open_notice_clauses(viewer: Viewer, today: date, owner: Any = m.Person) -> list[Any]:
    """Notices a list of positions may show ``viewer``: open, visible, and on the visible
    profile of an active person (the query must join the notice's ``owner``)."""
    notice = m.RecruitingNotice
    return [
        or_(notice.expires_on.is_(None), notice.expires_on > today),
        visibility_clause(viewer, notice),
        owner.active.is_(True),
        visibility_clause(viewer, owner, owner.id),
    ]


def _recruiting_owner_ids(viewer: Viewer, people_ids: list[int]) -> set[int]:
    if not people_ids:
        return set()
    return set(
        get_session().scalars(
            select(m.RecruitingNotice.owner_id)
            .join(m.Person, m.Person.id == m.RecruitingNotice.owner_id)
            .where(
                m.RecruitingNotice.owner_id.in_(people_ids),
                *_open_notice_clauses(viewer, date.today()),
            )
        )
    )


def _shown_publication_ids(*conditions: Any) -> Select:
    """Ids of publications some department member shows on their profile (not hidden)."""
    return select(m.ProfilePublication.publication_id).where(
        m.ProfilePublication.hidden.is_(False), *conditions
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
        }
    )


@blueprint.route(f"{API}/openapi.json")
def api_openapi() -> Response:
    return _respond(openapi_document(url_for("directory.api_index", _external=True).rstrip("/")))


@blueprint.route(f"{API}/people")
def api_people() -> Response:
    viewer = current_viewer()
    person = m.Person
    clauses: list[Any] = [person.active.is_(True), visibility_clause(viewer, person, person.id)]
    if (role := _choice("role", m.ROLES)) is not None:
        clauses.append(person.role == role)
    if (area := _area()) is not None:
        clauses.append(person.areas.any(m.ResearchArea.id == area.id))
    if (unit := _text("unit")) is not None:
        clauses.append(person.unit == unit)
    recruiting = _boolean("recruiting")
    if recruiting is not None:
        owner = aliased(m.Person)
        has_open = exists(
            select(m.RecruitingNotice.id)
            .join(owner, owner.id == m.RecruitingNotice.owner_id)
            .where(
                m.RecruitingNotice.owner_id == person.id,
                *_open_notice_clauses(viewer, date.today(), owner),
            )
        )
        clauses.append(has_open if recruiting else ~has_open)
    if (matched := _query("person", viewer, person.id)) is not None:
        clauses.append(matched)

    def items(rows: list[m.Person]) -> list[dict]:
        open_ids = _recruiting_owner_ids(viewer, [p.id for p in rows])
        return [rep.person_summary(p, viewer, p.id in open_ids) for p in rows]

    return _page(
        select(person).where(*clauses),
        person.id,
        (person.sort_name, person.id),
        (selectinload(person.areas), selectinload(person.photo)),
        items,
    )


@blueprint.route(f"{API}/people/<slug>")
def api_person(slug: str) -> Response:
    viewer = current_viewer()
    session = get_session()
    found = session.scalar(
        select(m.Person)
        .where(m.Person.slug == slug)
        .options(
            selectinload(m.Person.links),
            selectinload(m.Person.areas),
            selectinload(m.Person.photo),
        )
    )
    if found is None or not person_visible(viewer, found):
        raise ApiError(404, f"there is no person {slug!r}")
    profile = load_profile(session, found, viewer, date.today())
    return _respond(rep.person_detail(profile, viewer))


@blueprint.route(f"{API}/positions")
def api_positions() -> Response:
    viewer = current_viewer()
    notice = m.RecruitingNotice
    clauses: list[Any] = _open_notice_clauses(viewer, date.today())
    if (level := _choice("level", m.RECRUITING_LEVELS)) is not None:
        clauses.append(notice.level == level)
    if (term := _text("term")) is not None:
        clauses.append(func.lower(notice.term) == term.lower())
    if (area := _area()) is not None:
        clauses.append(notice.areas.any(m.ResearchArea.id == area.id))
    if (person := _person(viewer)) is not None:
        clauses.append(notice.owner_id == person.id)
    if (funded := _boolean("funded")) is not None:
        clauses.append(notice.funded.is_(funded))
    return _page(
        select(notice).join(m.Person, m.Person.id == notice.owner_id).where(*clauses),
        notice.id,
        (notice.deadline.asc().nulls_last(), m.Person.sort_name, notice.position, notice.id),
        (selectinload(notice.areas), selectinload(notice.owner)),
        lambda rows: [rep.position(n) for n in rows],
    )


@blueprint.route(f"{API}/publications")
def api_publications() -> Response:
    viewer = current_viewer()
    pub = m.Publication
    clauses: list[Any] = [listed_publication_clause(viewer, pub)]
    if (year := _integer("year", 1000, 9999)) is not None:
        clauses.append(pub.year == year)
    if (kind := _choice("type", m.PUBLICATION_TYPES)) is not None:
        clauses.append(pub.type == kind)
    if (venue := _text("venue")) is not None:
        clauses.append(
            or_(
                pub.venue.icontains(venue, autoescape=True),
                pub.venue_short.icontains(venue, autoescape=True),
            )
        )
    if (person := _person(viewer)) is not None:
        clauses.append(
            pub.id.in_(_shown_publication_ids(m.ProfilePublication.person_id == person.id))
        )
    if (area := _area()) is not None:
        members = select(m.Person.id).where(
            m.Person.areas.any(m.ResearchArea.id == area.id),
            m.Person.active.is_(True),
            visibility_clause(viewer, m.Person, m.Person.id),
        )
        clauses.append(
            pub.id.in_(_shown_publication_ids(m.ProfilePublication.person_id.in_(members)))
        )
    if (matched := _query("publication", viewer, pub.id)) is not None:
        clauses.append(matched)

    def items(rows: list[m.Publication]) -> list[dict]:
        urls = publication_urls(get_session(), viewer, [p.id for p in rows], external=True)
        return [rep.publication(p, viewer, urls.get(p.id)) for p in rows]

    return _page(
        select(pub).where(*clauses),
        pub.id,
        (pub.year.desc().nulls_last(), pub.month.desc().nulls_last(), pub.title, pub.id),
        (
            selectinload(pub.authorships).selectinload(m.Authorship.person),
            selectinload(pub.links),
            selectinload(pub.awards),
            selectinload(pub.badges),
            selectinload(pub.relations).selectinload(m.PublicationRelation.target),
        ),
        items,
    )


def _shown_area_ids(viewer: Viewer) -> list[int]:
    """The areas the research areas page shows ``viewer``: those with a listed person or an
    open notice, or with such a sub-area (an area known only from hidden profiles is left
    out)."""
    ids: list[int] = []
    pending = department.area_summaries(get_session(), viewer, department.today())
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
        counts = dict(
            get_session()
            .execute(
                select(m.person_areas.c.area_id, func.count())
                .join(m.Person, m.Person.id == m.person_areas.c.person_id)
                .where(
                    m.person_areas.c.area_id.in_([a.id for a in rows]),
                    m.Person.active.is_(True),
                    visibility_clause(viewer, m.Person, m.Person.id),
                )
                .group_by(m.person_areas.c.area_id)
            )
            .all()
        )
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
        select(area).where(area.id.in_(_shown_area_ids(viewer))),
        area.id,
        (area.position, area.name, area.id),
        (selectinload(area.parent),),
        items,
    )


@blueprint.route(f"{API}/<path:rest>")
def api_not_found(rest: str) -> Response:
    raise ApiError(404, f"there is no API endpoint {rest!r}")
