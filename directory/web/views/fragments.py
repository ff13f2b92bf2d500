"""Pieces of the directory a host puts on its own pages, as Jinja globals:

    {{ directory_person_card("ada-lovelace") }}
    {{ directory_people_in_area("systems") }}
    {{ directory_recruiting_now(5) }}

Each respects what the current viewer may see (and recruiting notices' expiry), renders an
overridable template under ``directory/fragments/``, and returns empty markup when there is
nothing to show, so a host can write ``{% set cards = ... %}{% if cards %}...{% endif %}``.
"""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import render_template
from markupsafe import Markup
from sqlalchemy import case, or_, select
from sqlalchemy.orm import selectinload

from directory import models as m
from directory.db import get_session
from directory.services.access import person_visible, visibility_clause
from directory.services.identity import Viewer, current_viewer
from directory.web.blueprint import blueprint

_ROLE_ORDER = case({role: i for i, (role, _) in enumerate(m.ROLES)}, value=m.Person.role)


def _render(template: str, **context: Any) -> Markup:
    # Output of an autoescaped template: already safe HTML.
    return Markup(render_template(f"directory/fragments/{template}", **context))  # noqa: S704


def _listed_people(viewer: Viewer) -> Any:
    """Active, non-alumni people the viewer may see, in listing order."""
    return (
        select(m.Person)
        .where(
            m.Person.active.is_(True),
            m.Person.role != "alumni",
            visibility_clause(viewer, m.Person, m.Person.id),
        )
        .options(selectinload(m.Person.areas), selectinload(m.Person.photo))
        .order_by(_ROLE_ORDER, m.Person.sort_name)
    )


def person_card(slug: str) -> Markup:
    """One person's card, or nothing if there is no such person the viewer may see."""
    viewer = current_viewer()
    person = get_session().scalar(
        select(m.Person)
        .where(m.Person.slug == slug)
        .options(selectinload(m.Person.areas), selectinload(m.Person.photo))
    )
    if person is None or not person_visible(viewer, person):
        return Markup("")
    return _render("person_card.html", person=person)


def area_and_subareas(area_slug: str) -> list[int]:
    """The ids of the area named by ``area_slug`` and of every area under it."""
    session = get_session()
    rows = session.execute(select(m.ResearchArea.id, m.ResearchArea.parent_id)).all()
    root = session.scalar(select(m.ResearchArea.id).where(m.ResearchArea.slug == area_slug))
    if root is None:
        return []
    ids, frontier = [root], [root]
    while frontier:
        frontier = [id_ for id_, parent in rows if parent in frontier and id_ not in ids]
        ids.extend(frontier)
    return ids


def people_in_area(area_slug: str, limit: int | None = None) -> Markup:
    """Cards of the people working in an area (or any area under it)."""
    area_ids = area_and_subareas(area_slug)
    if not area_ids:
        return Markup("")
    in_area = select(m.person_areas.c.person_id).where(m.person_areas.c.area_id.in_(area_ids))
    stmt = _listed_people(current_viewer()).where(m.Person.id.in_(in_area)).limit(limit)
    people = list(get_session().scalars(stmt))
    if not people:
        return Markup("")
    area = get_session().scalar(select(m.ResearchArea).where(m.ResearchArea.slug == area_slug))
    return _render("people_in_area.html", area=area, people=people)


def open_recruiting_notices(viewer: Viewer, today: date, limit: int | None = None) -> list[Any]:
    """Recruiting notices still open on ``today`` that the viewer may see, from people the
    viewer may see; soonest deadline first, then rolling ones."""
    stmt = (
        select(m.RecruitingNotice)
        .join(m.RecruitingNotice.owner)
        .where(
            or_(m.RecruitingNotice.expires_on.is_(None), m.RecruitingNotice.expires_on > today),
            visibility_clause(viewer, m.RecruitingNotice),
            m.Person.active.is_(True),
            m.Person.role != "alumni",
            visibility_clause(viewer, m.Person, m.Person.id),
        )
        .options(selectinload(m.RecruitingNotice.owner))
        .order_by(
            m.RecruitingNotice.deadline.is_(None),
            m.RecruitingNotice.deadline,
            m.Person.sort_name,
            m.RecruitingNotice.position,
        )
        .limit(limit)
    )
    return list(get_session().scalars(stmt))


def recruiting_now(limit: int | None = 5) -> Markup:
    """Who is recruiting now: open notices, each linking to its owner's profile."""
    notices = open_recruiting_notices(current_viewer(), date.today(), limit)
    if not notices:
        return Markup("")
    return _render("recruiting_now.html", notices=notices)


@blueprint.record_once
def _fragment_globals(state: Any) -> None:
    state.app.jinja_env.globals.update(
        directory_person_card=person_card,
        directory_people_in_area=people_in_area,
        directory_recruiting_now=recruiting_now,
    )
