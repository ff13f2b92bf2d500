"""The research area pages: the area tree with its counts (the areas index) and one area's
people, open notices and recent papers; and the people of an area for a host's fragment."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import date

from sqlalchemy import Select, case, distinct, func, select
from sqlalchemy.orm import Session, selectinload

from directory import models as m
from directory.i18n import current_locale
from directory.services.access import AREA_TREE, listed_notices, listed_people, people_in_area
from directory.services.department.people import PeopleGroup, group_people, listing_page_stmt
from directory.services.department.publications import PublicationFilters, shown_publications
from directory.services.department.recruiting import (
    RecruitingPageFilters,
    recruiting_owner_ids,
    recruiting_page,
)
from directory.services.identity import Viewer
from directory.services.paging import Page
from directory.services.shown_cards import PersonCard, card_select, shown_cards_of
from directory.services.shown_papers import ShownPaper

#: Papers shown on a research area's page.
AREA_RECENT_PAPERS = 10
#: An area whose people are at least this share of the listed people has its newest papers
#: found by walking the department's papers newest first (some hundred read, whatever the
#: area's size); a smaller one's are read from its people (a walk would read far more papers
#: before it found ten of theirs).
AREA_WALK_SHARE = 0.05


def _people_per_area(viewer: Viewer) -> Select:
    """(area id, listed people in it or in an area under it), for every area with any."""
    return (
        select(AREA_TREE.c.area_id, func.count(distinct(m.person_areas.c.person_id)))
        .join(m.person_areas, m.person_areas.c.area_id == AREA_TREE.c.sub_id)
        .join(m.Person, m.Person.id == m.person_areas.c.person_id)
        .where(listed_people(viewer))
        .group_by(AREA_TREE.c.area_id)
    )


def area_people_counts(session: Session, viewer: Viewer) -> dict[int, int]:
    """How many people each area page lists for ``viewer`` (:func:`people_in_area`), by
    area id; areas with nobody are left out."""
    return dict(session.execute(_people_per_area(viewer)).all())


def people_in_area_cards(
    session: Session, viewer: Viewer, area_slug: str, limit: int | None = None
) -> list[PersonCard]:
    """The people of an area (:func:`people_in_area`) for a host page's fragment, as person
    cards: by role in ROLES order, then by name."""
    role_order = case({role: i for i, (role, _) in enumerate(m.ROLES)}, value=m.Person.role)
    stmt = (
        card_select()
        .where(people_in_area(viewer, area_slug))
        .order_by(role_order, m.Person.sort_name, m.Person.id)
        .limit(limit)
    )
    return shown_cards_of(session, stmt)


@dataclass
class AreaSummary:
    area: m.ResearchArea
    people: int
    notices: int
    children: list[AreaSummary] = field(default_factory=list)


def area_summaries(session: Session, viewer: Viewer, day: date) -> list[AreaSummary]:
    """The area tree with counts of listed people and open notices (each area's counting its
    sub-areas', as its page does); areas with nothing the viewer may see are left out."""
    people = area_people_counts(session, viewer)
    notices = dict(
        session.execute(
            select(AREA_TREE.c.area_id, func.count(distinct(m.notice_areas.c.notice_id)))
            .join(m.notice_areas, m.notice_areas.c.area_id == AREA_TREE.c.sub_id)
            .join(m.RecruitingNotice, m.RecruitingNotice.id == m.notice_areas.c.notice_id)
            .where(listed_notices(viewer, day))
            .group_by(AREA_TREE.c.area_id)
        ).all()
    )
    areas = session.scalars(
        select(m.ResearchArea).order_by(m.ResearchArea.position, m.ResearchArea.name)
    ).all()
    nodes = {a.id: AreaSummary(a, people.get(a.id, 0), notices.get(a.id, 0)) for a in areas}
    roots = []
    for area in areas:
        parent = nodes.get(area.parent_id) if area.parent_id else None
        (parent.children if parent else roots).append(nodes[area.id])

    def prune(items: list[AreaSummary]) -> list[AreaSummary]:
        kept = []
        for item in items:
            item.children = prune(item.children)
            if item.people or item.notices or item.children:
                kept.append(item)
        return kept

    return prune(roots)


@dataclass
class AreaPage:
    area: m.ResearchArea
    children: list[m.ResearchArea]
    groups: list[PeopleGroup]
    #: The first people of the area in the listing's order (``people.total``: everyone in it);
    #: the rest are on the people listing filtered by the area.
    people: Page[PersonCard]
    #: The recruiting people's ids, each with what they recruit for.
    recruiting_ids: dict[int, str]
    #: The first open notices (``notices.total``: every one); the rest are on the recruiting
    #: page filtered by the area.
    notices: Page[m.RecruitingNotice]
    #: The newest papers of its people, as plain values (what their citations show).
    publications: list[ShownPaper]


def area_page(
    session: Session, viewer: Viewer, day: date, slug: str, page_size: int
) -> AreaPage | None:
    """A research area's people, open notices and recent papers, its sub-areas' included,
    at most ``page_size`` people and notices (a page shows what a reader can use; the people
    listing and the recruiting page filtered by the area page through the rest); None if no
    such area."""
    area = session.scalar(
        select(m.ResearchArea)
        .where(m.ResearchArea.slug == slug)
        .options(selectinload(m.ResearchArea.parent))
    )
    if area is None:
        return None
    conditions = [people_in_area(viewer, slug)]
    # The area's people and all the listed people, in one statement: their ratio tells how
    # the area's newest papers are best found.
    listed, total = session.execute(
        select(func.count(m.Person.id), func.count(m.Person.id).filter(*conditions)).where(
            listed_people(viewer)
        )
    ).one()
    people = (
        shown_cards_of(session, listing_page_stmt(conditions, current_locale(), page_size, 1))
        if total
        else []
    )
    children = list(
        session.scalars(
            select(m.ResearchArea)
            .where(m.ResearchArea.parent_id == area.id)
            .order_by(m.ResearchArea.position, m.ResearchArea.name)
        )
    )
    notices = recruiting_page(session, viewer, day, RecruitingPageFilters(area=slug), page_size)
    walk = total > 0 and total >= AREA_WALK_SHARE * listed
    papers = shown_publications(
        session, viewer, PublicationFilters(area=slug), AREA_RECENT_PAPERS, walk=walk
    )
    return AreaPage(
        area=area,
        children=children,
        groups=group_people(people),
        people=Page(people, 1, page_size, total),
        recruiting_ids=recruiting_owner_ids(session, viewer, day, [p.id for p in people]),
        notices=notices,
        publications=papers,
    )
