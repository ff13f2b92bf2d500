"""The department's publications page (and its exports and the API's publications): the
department's papers matching the filters, newest first, the papers-per-year chart and the
filters' choices."""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from typing import Any

from sqlalchemy import ColumnElement, Select, func, or_, select
from sqlalchemy.orm import Session

from directory import models as m
from directory.services.access import (
    can_view,
    in_area,
    listed_publications,
    on_visible_profile_clause,
    publication_clause,
)
from directory.services.department.people import listed_areas
from directory.services.identity import Viewer
from directory.services.paging import Page
from directory.services.parameters import (
    PAGE,
    Filters,
    read_boolean,
    read_choice,
    read_integer,
    read_text,
)
from directory.services.profiles import publication_options
from directory.services.shown_papers import (
    ShownPaper,
    ShownPerson,
    paper_columns,
    shown_papers_of,
)


@dataclass(frozen=True)
class PublicationFilters(Filters):
    """The department publications' filters (page and exports), and the API's."""

    year: int | None = field(default=None, metadata=read_integer(1000, 9999))
    area: str = field(default="", metadata=read_text())
    person: str = field(default="", metadata=read_text())
    type: str = field(default="", metadata=read_choice(m.values(m.PUBLICATION_TYPES)))
    venue: str = field(default="", metadata=read_text())
    awards: bool | None = field(default=None, metadata=read_boolean())
    page: int = field(default=1, metadata=PAGE)


@dataclass(frozen=True)
class PublicationSearch(PublicationFilters):
    """The API's publications filters: the department publications' and a search (``q``)."""

    q: str = field(default="", metadata=read_text())


def publication_conditions(
    viewer: Viewer, filters: PublicationFilters, *, year: bool = True, walk: bool = False
) -> list[ColumnElement]:
    """The department's papers (each once: :func:`listed_publications`) matching ``filters``
    (all but the year if not ``year``). ``person`` and ``area`` keep the papers a visible
    profile of that person, or of someone in that area or one under it, lists.

    ``walk``: the statement reads the papers in an index's order (newest first, a year's)
    and stops at a page, so each paper it reads is checked against the area's people's lists
    (:func:`on_visible_profile_clause`'s probe) instead of reading every paper of the area
    first; for a count, or an area with few of the department's papers, they are read from
    its people. A person's papers are always read from the person."""
    # A paper on the visible profile of a person or area asked for is on a visible profile:
    # then the "listed" rule's EXISTS (a probe a paper) is implied, and left out.
    if filters.person or filters.area:
        conditions = [publication_clause(viewer, m.Publication)]
    else:
        conditions = [listed_publications(viewer)]
    paper = m.Publication.id
    if filters.person:
        named = on_visible_profile_clause(
            viewer, paper, lambda a: a.slug == filters.person, probe=False
        )
        conditions.append(named)
    if filters.area:
        within = on_visible_profile_clause(
            viewer, paper, lambda a: in_area(filters.area, a), probe=walk
        )
        conditions.append(within)
    if filters.type:
        conditions.append(m.Publication.type == filters.type)
    if filters.venue:
        conditions.append(
            or_(
                m.Publication.venue_short.icontains(filters.venue, autoescape=True),
                m.Publication.venue.icontains(filters.venue, autoescape=True),
            )
        )
    if filters.awards is not None:
        awarded = m.Publication.awards.any()
        conditions.append(awarded if filters.awards else ~awarded)
    if year and filters.year:
        conditions.append(m.Publication.year == filters.year)
    return conditions


def _newest_first() -> tuple[Any, ...]:
    pub = m.Publication
    return (pub.year.desc().nulls_last(), pub.month.desc().nulls_last(), pub.title, pub.id)


def publications_stmt(viewer: Viewer, filters: PublicationFilters) -> Select:
    """The filtered department papers, newest first, with everything a citation shows."""
    return (
        select(m.Publication)
        .where(*publication_conditions(viewer, filters))
        .options(*publication_options())
        .order_by(*_newest_first())
    )


def shown_publications(
    session: Session,
    viewer: Viewer,
    filters: PublicationFilters,
    limit: int,
    offset: int = 0,
    *,
    walk: bool = False,
) -> list[ShownPaper]:
    """``limit`` of the filtered department papers from ``offset``, newest first, as plain
    values with everything a citation shows (:mod:`~directory.services.shown_papers`): the
    pages that only show them need no ORM object for each paper, author and link. ``walk``:
    as :func:`publication_conditions` (the same papers either way)."""
    stmt = (
        select(*paper_columns())
        .where(*publication_conditions(viewer, filters, walk=walk))
        .order_by(*_newest_first())
        .limit(limit)
        .offset(offset)
    )
    return shown_papers_of(session, stmt)


@dataclass
class PublicationChoices:
    years: list[tuple[int, int]]  # (year, papers) for every year from first to last
    #: The types of the papers matching every filter but the year and the type.
    types: list[str]
    #: Suggestions for the venue field (any text filters): the venues of the papers shown.
    venues: list[str]
    #: The person filter's choices: the people (with a profile the viewer may see) among the
    #: authors of the papers shown, and the person filtered by. The filter takes any person's
    #: slug (``?person=``), which every profile links to.
    people: list[ShownPerson | m.Person]
    areas: list[m.ResearchArea]


_VENUE_YEAR = re.compile(r"\s*['’]?\d{2,4}$")


def venue_name(short: str) -> str:
    """A venue's short name without its year: "OSDI'26", "OSDI26" and "OSDI" are one venue."""
    return _VENUE_YEAR.sub("", short).strip() or short


def _listed_person(viewer: Viewer, person: ShownPerson | m.Person) -> bool:
    """:func:`~directory.services.access.person_clause` for one loaded person (no query)."""
    if not can_view(viewer, person, owner_id=person.id):
        return False
    return person.published or viewer.is_admin or person.id == viewer.person_id


def publications_page(
    session: Session, viewer: Viewer, filters: PublicationFilters, page_size: int
) -> tuple[Page[ShownPaper], PublicationChoices]:
    """A page of the filtered department papers, and the filters' choices with the papers-per
    -year counts of the chart (counted with every filter but the year).

    Two statements go through the department's papers, whatever its size: one counts them by
    year and type with every filter but those two (the chart, the total and the type choices
    come from it), one selects the page. The person and venue choices are taken from the
    papers shown, so that they stay a page's worth in a whole university."""
    facets = replace(filters, year=None, type="")
    pub = m.Publication
    per_year: dict[int, int] = defaultdict(int)
    types: set[str] = set()
    total = 0
    for year, kind, count in session.execute(
        select(pub.year, pub.type, func.count(pub.id))
        .where(*publication_conditions(viewer, facets))
        .group_by(pub.year, pub.type)
    ):
        types.add(kind)
        if filters.type and kind != filters.type:
            continue
        if year is not None:
            per_year[year] += count
        if not filters.year or year == filters.year:
            total += count
    number = min(filters.page, max(1, math.ceil(total / page_size)))
    # A year's papers are few enough to walk through whatever the area's share of them.
    offset = (number - 1) * page_size
    walk = filters.year is not None
    items = shown_publications(session, viewer, filters, page_size, offset, walk=walk)
    years = (
        [(y, per_year.get(y, 0)) for y in range(min(per_year), max(per_year) + 1)]
        if per_year
        else []
    )
    venues = sorted({venue_name(p.venue_short) for p in items if p.venue_short}, key=str.casefold)
    people: dict[int, ShownPerson | m.Person] = {
        a.person.id: a.person
        for p in items
        for a in p.authorships
        if a.person is not None and _listed_person(viewer, a.person)
    }
    if filters.person and not any(p.slug == filters.person for p in people.values()):
        named = session.scalar(select(m.Person).where(m.Person.slug == filters.person))
        if named is not None and _listed_person(viewer, named):
            people[named.id] = named
    choices = PublicationChoices(
        years=years,
        types=[t for t in m.values(m.PUBLICATION_TYPES) if t in types],
        venues=venues,
        people=sorted(people.values(), key=lambda p: (p.sort_name or p.full_name, p.id)),
        areas=listed_areas(session, viewer),
    )
    return Page(items, number, page_size, total), choices
