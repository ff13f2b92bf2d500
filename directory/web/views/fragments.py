"""Pieces of the directory a host puts on its own pages, as Jinja globals:

    {{ directory_person_card("ada-lovelace") }}
    {{ directory_people_in_area("systems") }}
    {{ directory_recruiting_now(5) }}

Each respects what the current viewer may see (and recruiting notices' expiry), renders an
overridable template under ``directory/fragments/``, and returns empty markup when there is
nothing to show, so a host can write ``{% set cards = ... %}{% if cards %}...{% endif %}``.
"""

from __future__ import annotations

from typing import Any

from flask import render_template
from markupsafe import Markup

from directory.db import get_session
from directory.services import areas as taxonomy
from directory.services import department
from directory.services.access import person_visible
from directory.services.department.areas import people_in_area_cards
from directory.services.department.recruiting import RecruitingFilters, notices_by_deadline
from directory.services.identity import current_viewer
from directory.services.parameters import BadFilter
from directory.services.shown_cards import card_by_slug
from directory.web.blueprint import blueprint


def _render(template: str, **context: Any) -> Markup:
    # Output of an autoescaped template: already safe HTML.
    return Markup(render_template(f"directory/fragments/{template}", **context))  # noqa: S704


def person_card(slug: str) -> Markup:
    """One person's card, or nothing if there is no such person the viewer may see."""
    person = card_by_slug(get_session(), slug)
    if person is None or not person_visible(current_viewer(), person):
        return Markup("")
    return _render("person_card.html", person=person)


def people_in_area(area_slug: str, limit: int | None = None) -> Markup:
    """Cards of the people of an area (those its area page lists, sub-areas included)."""
    session = get_session()
    people = people_in_area_cards(session, current_viewer(), area_slug, limit)
    if not people:
        return Markup("")
    area = taxonomy.area_by_slug(session, area_slug)
    return _render("people_in_area.html", area=area, people=people)


def recruiting_now(limit: int | None = 5, term: str | None = None) -> Markup:
    """Who is recruiting now: the recruiting page's notices, soonest deadline first, each
    linking to its owner's profile. ``term`` ("Fall 2026") keeps those open to that intake,
    rolling ones included, as the recruiting page's filter does; a term naming no season and
    year shows nothing."""
    filters = RecruitingFilters()
    if term:
        try:
            filters = RecruitingFilters.from_args({"term": term}, strict=True)
        except BadFilter:
            return Markup("")
    notices = notices_by_deadline(
        get_session(), current_viewer(), department.today(), limit, filters
    )
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
