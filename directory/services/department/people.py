"""The people listing: who it lists for a viewer and filters, grouped by role (faculty by
rank) and paged in the reader's name order, with its counts, A–Z letters and filter choices;
its page of people read as person cards (:mod:`directory.services.shown_cards`)."""

from __future__ import annotations

import math
from collections import defaultdict
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from sqlalchemy import ColumnElement, Select, and_, case, func, or_, select
from sqlalchemy.orm import Session, aliased

from directory import models as m
from directory.formats.names import name_key_column, stored_initial
from directory.i18n import current_locale, translate
from directory.i18n import gettext as _
from directory.i18n import lazy_gettext as _l
from directory.services.access import LISTED_ROLES, listed_people, people_in_area
from directory.services.department.recruiting import recruiting_owner_ids, recruiting_people
from directory.services.identity import Viewer
from directory.services.paging import Page
from directory.services.parameters import (
    PAGE,
    Filters,
    read_boolean,
    read_choice,
    read_letter,
    read_text,
)
from directory.services.shown_cards import PersonCard, card_select, shown_cards_of

# Aliases for the joins below, built once (building an alias costs milliseconds). Each is used
# at most once per SELECT scope.
_PARENT_AREA = aliased(m.ResearchArea, name="parent_area")


#: Headings of the faculty sub-groups on the listing, in FACULTY_RANKS order.
RANK_HEADINGS = {
    "professor": _l("Professors"),
    "associate_professor": _l("Associate Professors"),
    "assistant_professor": _l("Assistant Professors"),
    "teaching_professor": _l("Teaching Professors"),
    "lecturer": _l("Lecturers"),
    "adjunct": _l("Adjunct faculty"),
    "research_professor": _l("Research Professors"),
}


@dataclass(frozen=True)
class ListingFilters(Filters):
    """The people listing's filters, and the API's people filters (``q`` there is a search)."""

    role: str = field(default="", metadata=read_choice(LISTED_ROLES))
    area: str = field(default="", metadata=read_text())
    unit: str = field(default="", metadata=read_text())
    recruiting: bool | None = field(default=None, metadata=read_boolean())
    q: str = field(default="", metadata=read_text())
    letter: str = field(default="", metadata=read_letter())
    page: int = field(default=1, metadata=PAGE)


@dataclass(frozen=True)
class PeopleQuery(ListingFilters):
    """The API's people filters: the listing's, and ``topic``, people ranked by what they work
    on (:mod:`directory.services.expertise.ranking`)."""

    topic: str = field(default="", metadata=read_text())


def people_conditions(viewer: Viewer, day: date, filters: ListingFilters) -> list[ColumnElement]:
    """Listed people matching the filters' role, area, unit and recruiting (``q`` and
    ``letter`` are applied by the caller: the listing counts letters before choosing one)."""
    conditions = [listed_people(viewer)]
    if filters.role:
        conditions.append(m.Person.role == filters.role)
    if filters.area:
        conditions.append(people_in_area(viewer, filters.area))
    if filters.unit:
        conditions.append(m.Person.unit == filters.unit)
    if filters.recruiting is not None:
        recruiting = m.Person.id.in_(recruiting_people(viewer, day))
        conditions.append(recruiting if filters.recruiting else ~recruiting)
    return conditions


def letter_clause(letter: str, locale: str) -> ColumnElement:
    """People filed under ``letter`` in ``locale``'s name order, as on the listing's A–Z index
    ("Östberg" under O; in Chinese a Han name under its pinyin)."""
    return _initial(name_order(locale)) == letter


@dataclass
class PeopleGroup:
    """A heading of the listing and its people (faculty has one sub-group per rank)."""

    key: str
    heading: str
    people: list[PersonCard] = field(default_factory=list)
    subgroups: list[PeopleGroup] = field(default_factory=list)
    #: The group began on the page before.
    continued: bool = False

    @property
    def count(self) -> int:
        return len(self.people) + sum(group.count for group in self.subgroups)


@dataclass
class Listing:
    groups: list[PeopleGroup]
    people: list[PersonCard]
    #: The recruiting people's ids, each with what they recruit for.
    recruiting_ids: dict[int, str]
    areas: list[m.ResearchArea]
    units: list[str]
    letters: set[str]
    #: The page of people shown (``people``, in ``groups``), of every one matching.
    page: Page[PersonCard] | None = None
    #: (role, heading, people matching) for every role with any, in ROLES order.
    role_counts: list[tuple[str, str, int]] = field(default_factory=list)
    #: The page number asked for when there is no such page (the last page is shown).
    requested_page: int | None = None


def _search_clause(q: str) -> ColumnElement:
    """Every word of ``q`` in the name (any spelling), title, unit, interests or an area."""
    conditions = []
    for word in q.split()[:8]:
        conditions.append(
            or_(
                *(
                    column.icontains(word, autoescape=True)
                    for column in (
                        m.Person.full_name,
                        m.Person.sort_name,
                        m.Person.native_name,
                        m.Person.title,
                        m.Person.unit,
                        m.Person.interests,
                    )
                ),
                m.Person.areas.any(m.ResearchArea.name.icontains(word, autoescape=True)),
            )
        )
    return and_(*conditions)


def _initial(column: Any) -> ColumnElement:
    return func.upper(func.substr(column, 1, 1))


def group_people(people: list[PersonCard]) -> list[PeopleGroup]:
    """People by role in ROLES order; faculty further by rank in FACULTY_RANKS order."""
    by_role: dict[str, list[PersonCard]] = defaultdict(list)
    for person in people:
        by_role[person.role].append(person)
    groups = []
    for role, heading in m.ROLES:
        members = by_role.get(role)
        if not members:
            continue
        group = PeopleGroup(role, translate(heading))
        if role == "faculty":
            by_rank: dict[str | None, list[PersonCard]] = defaultdict(list)
            for person in members:
                by_rank[person.rank if person.rank in RANK_HEADINGS else None].append(person)
            for rank, rank_heading in RANK_HEADINGS.items():
                if by_rank.get(rank):
                    group.subgroups.append(PeopleGroup(rank, str(rank_heading), by_rank[rank]))
            if by_rank.get(None):
                heading_other = _("Other faculty") if group.subgroups else _("Faculty")
                group.subgroups.append(PeopleGroup("other", heading_other, by_rank[None]))
        else:
            group.people = members
        groups.append(group)
    return groups


def _role_order() -> ColumnElement:
    """A person's group on the listing, in SQL: by role in ROLES order."""
    roles = {role: i for i, (role, _heading) in enumerate(m.ROLES)}
    return case(roles, value=m.Person.role, else_=len(roles))


def name_order(locale: str) -> Any:
    """The stored name order of ``locale`` (names.name_key_column): people sorted by it are in
    names.name_sort_key's order, compared as Python compares the keys."""
    return getattr(m.Person, name_key_column(locale))


def _listing_order(locale: str) -> tuple[Any, ...]:
    """The listing's order, in SQL so that a page of it can be selected: by role in ROLES
    order, faculty by rank in RANK_HEADINGS order (other ranks after them), then by name in
    ``locale`` (names.name_sort_key, stored), then by id, as :func:`group_people` groups them."""
    ranks = {rank: i for i, rank in enumerate(RANK_HEADINGS)}
    return (
        _role_order(),
        case(
            (m.Person.role != "faculty", 0),
            else_=case(ranks, value=m.Person.rank, else_=len(ranks)),
        ),
        name_order(locale),
        m.Person.id,
    )


def listing_conditions(viewer: Viewer, day: date, filters: ListingFilters) -> list[ColumnElement]:
    """Who the listing shows: :func:`people_conditions` and the search ``q`` (the letter is
    applied by :func:`listing`, which counts the letters first)."""
    conditions = people_conditions(viewer, day, filters)
    if filters.q:
        conditions.append(_search_clause(filters.q))
    return conditions


def _first_character(locale: str) -> ColumnElement:
    return func.substr(name_order(locale), 1, 1)


def listing_counts_stmt(conditions: list[ColumnElement], locale: str) -> Select:
    """(role, first character of the stored name order, people) of everyone matching: the
    listing's group counts, total and A–Z letters (names.stored_initial of each character)."""
    first = _first_character(locale)
    return (
        select(m.Person.role, first, func.count()).where(*conditions).group_by(m.Person.role, first)
    )


def listing_page_stmt(
    conditions: list[ColumnElement], locale: str, size: int, number: int
) -> Select:
    """Page ``number`` of ``size`` people matching, as person cards (:func:`shown_cards_of`
    reads it), in the listing's order. The database sorts the ids and sort columns of
    everyone matching, not their whole rows, then reads the page's people by id."""
    order = _listing_order(locale)
    page = (
        select(m.Person.id)
        .where(*conditions)
        .order_by(*order)
        .limit(size)
        .offset((number - 1) * size)
    )
    return card_select().where(m.Person.id.in_(page)).order_by(*order)


def listing(
    session: Session,
    viewer: Viewer,
    day: date,
    filters: ListingFilters,
    page_size: int,
) -> Listing:
    """One page (``page_size`` people, ``filters.page``; a page past the last shows the last)
    of the people listing for ``viewer`` with ``filters`` applied, and the counts of everyone
    matching, by role and by initial.

    The database sorts and pages (by the stored name order of the reader's language, pinyin
    for Han names in Chinese: names.name_sort_key) and counts everyone matching by role and by
    the first character of that order (one GROUP BY, a few dozen rows): the page reads the
    people it shows, whatever the size of the directory."""
    conditions = listing_conditions(viewer, day, filters)
    locale = current_locale()
    counted = session.execute(listing_counts_stmt(conditions, locale)).all()
    letters = {stored_initial(character) for _role, character, _n in counted} - {""}
    if filters.letter:
        characters = sorted({c for _role, c, _n in counted if stored_initial(c) == filters.letter})
        counted = [row for row in counted if row[1] in characters]
        conditions.append(_first_character(locale).in_(characters))
    per_role: dict[str, int] = defaultdict(int)
    for role, _character, count in counted:
        per_role[role] += count
    role_counts = [
        (role, translate(heading), per_role[role]) for role, heading in m.ROLES if role in per_role
    ]
    total = sum(per_role.values())
    pages = max(1, math.ceil(total / page_size))
    number = min(filters.page, pages)
    page = listing_page_stmt(conditions, locale, page_size, number)
    people = shown_cards_of(session, page) if total else []
    groups = group_people(people)
    # A group continues from the page before when it starts ahead of this page.
    starts, start = {}, 0
    for role, _heading, count in role_counts:
        starts[role] = start
        start += count
    for group in groups:
        group.continued = starts[group.key] < (number - 1) * page_size
    return Listing(
        groups=groups,
        people=[p for g in groups for p in g.people + [q for s in g.subgroups for q in s.people]],
        page=Page(people, number, page_size, total),
        role_counts=role_counts,
        requested_page=filters.page if filters.page > pages else None,
        recruiting_ids=recruiting_owner_ids(session, viewer, day, [p.id for p in people]),
        areas=listed_areas(session, viewer),
        units=list(
            session.scalars(
                select(m.Person.unit)
                .where(listed_people(viewer), m.Person.unit.isnot(None), m.Person.unit != "")
                .distinct()
                .order_by(m.Person.unit)
            )
        ),
        letters=letters,
    )


def listed_areas(session: Session, viewer: Viewer) -> list[m.ResearchArea]:
    """Areas whose filter finds someone (filter choices; an area known only from a hidden
    profile is not offered): the areas of listed people and every area above them, walked up
    by ``parent_id`` from those few areas (pairing every area with the whole tree under it,
    as the counts do, made SQLite build an index of that tree for the statement)."""
    start = (
        select(m.person_areas.c.area_id.label("id"))
        .join(m.Person, m.Person.id == m.person_areas.c.person_id)
        .where(listed_people(viewer))
        .distinct()
    )
    above = start.cte("directory_areas_above", recursive=True)
    above = above.union(
        select(_PARENT_AREA.parent_id).where(
            _PARENT_AREA.id == above.c.id, _PARENT_AREA.parent_id.isnot(None)
        )
    )
    stmt = (
        select(m.ResearchArea)
        .where(m.ResearchArea.id.in_(select(above.c.id)))
        .order_by(m.ResearchArea.name)
    )
    return list(session.scalars(stmt))
