"""What the department-wide pages show: the people listing, research areas, recruiting notices,
publications and news, each filtered by what the viewer may see (the alumni outputs have
:mod:`directory.services.alumni`).

Who and what is listed is not decided here: every query applies the read rules of
:mod:`directory.services.access` (listed people, listed notices, people in an area, listed
publications), which the JSON API, search, feeds and fragments apply too.

Every function here runs a fixed number of statements whatever the department's size (related
rows come through ``selectinload``, never one query per row), so a page costs the same for ten
people as for a thousand. Filters arrive as small dataclasses read from the query string by one
parser for the pages and the API (:mod:`directory.services.parameters`): the pages drop a bad
value, so any bookmarked URL still opens; the API (``strict``) answers it with a 400 naming the
parameter.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from dataclasses import dataclass, field, replace
from datetime import date
from typing import Any, TypeVar

from sqlalchemy import ColumnElement, Select, and_, case, distinct, func, or_, select
from sqlalchemy.orm import Session, aliased, contains_eager, defer, selectinload

from directory import models as m
from directory.formats.names import name_key_column, stored_initial
from directory.i18n import current_locale, term_label, translate
from directory.i18n import gettext as _
from directory.i18n import lazy_gettext as _l
from directory.services.access import (
    AREA_TREE,
    LISTED_ROLES,
    can_view,
    in_area,
    listed_notices,
    listed_people,
    listed_publications,
    notice_for_term,
    notice_in_area,
    owned_entry_clause,
    people_in_area,
    person_clause,
    person_visible,
    publication_clause,
)
from directory.services.identity import Viewer
from directory.services.paging import Page
from directory.services.parameters import (
    MAX_FILTER_TEXT,
    PAGE,
    BadFilter,
    Filters,
    Parameter,
    read_boolean,
    read_choice,
    read_integer,
    read_letter,
    read_text,
)
from directory.services.profiles import publication_options

T = TypeVar("T")

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

#: Papers shown on a research area's page.
AREA_RECENT_PAPERS = 10

# Aliases for the joins below, built once (building an alias costs milliseconds). Each is used
# at most once per SELECT scope.
_OWNER = aliased(m.Person, name="owner")
_AUTHOR = aliased(m.Person, name="author")
_PROFILE_PUB = aliased(m.ProfilePublication, name="profile_pub")
_PUB = aliased(m.Publication, name="pub")
_NAMED_OWNER = aliased(m.Person, name="named_owner")
_PARENT_AREA = aliased(m.ResearchArea, name="parent_area")


def today() -> date:
    """Today's date, asked afresh on every request (notices expire without anyone acting)."""
    return date.today()


# ----------------------------------------------------------------------------- filters


@dataclass(frozen=True)
class PageFilters(Filters):
    """Just a page number (a list without other filters)."""

    page: int = field(default=1, metadata=PAGE)


@dataclass(frozen=True)
class PaperListFilters(Filters):
    """The page of the paper list in a profile's editor (``papers``, beside its sections)."""

    papers: int = field(default=1, metadata=PAGE)

    def with_page_of_papers(self) -> dict[str, str]:
        return {"papers": str(self.papers)} if self.papers > 1 else {}


def check_references(session: Session, viewer: Viewer, filters: Filters) -> None:
    """Raise :class:`BadFilter` when ``filters`` name a research area that does not exist or
    a person whose profile ``viewer`` may not see (answered like a missing one). The API asks
    this; a page just finds nothing."""
    area = getattr(filters, "area", "")
    found = select(m.ResearchArea.id).where(m.ResearchArea.slug == area)
    if area and session.scalar(found) is None:
        raise BadFilter("area", f"there is no research area {area!r}")
    for name in ("person", "advisor"):
        slug = getattr(filters, name, "")
        if slug:
            person = session.scalar(select(m.Person).where(m.Person.slug == slug))
            if person is None or not person_visible(viewer, person):
                raise BadFilter(name, f"there is no {name} {slug!r}")


# ----------------------------------------------------------------------------- people


def card_options() -> tuple[Any, ...]:
    """What a person card (and its JSON-LD) needs, loaded for all cards at once. The photo's
    bytes stay in the database: the card only needs to know there is one, its etag, and how to
    crop it (size and focal point)."""
    return (
        defer(m.Person.bio),
        defer(m.Person.address),
        selectinload(m.Person.areas),
        selectinload(m.Person.links),
        selectinload(m.Person.photo).load_only(
            m.PersonPhoto.etag,
            m.PersonPhoto.alt_text,
            m.PersonPhoto.width,
            m.PersonPhoto.height,
            m.PersonPhoto.focus_x,
            m.PersonPhoto.focus_y,
        ),
    )


def recruiting_summary(notices: Any) -> str:
    """What someone recruits for, each level and each term named once, in the levels' order:
    "PhD students (Fall 2026, any time); Research interns (any time)", or "PhD students,
    Research interns (any time)" when both are for the same terms. ``notices`` are
    RecruitingNotice objects, or (level, intake, term_label) triples."""
    levels = m.values(m.RECRUITING_LEVELS)
    by_level: dict[str, list[tuple[m.Term | None, str]]] = defaultdict(list)
    for notice in notices:
        if isinstance(notice, tuple):
            level, intake, label = notice
        else:
            level, intake, label = notice.level, notice.intake, notice.term_label
        by_level[level].append((intake, label))
    seasons = m.values(m.TERM_SEASONS)
    parts = []
    for level in sorted(by_level, key=lambda v: levels.index(v) if v in levels else len(levels)):
        found = by_level[level]
        dated = {t for t, _ in found if t is not None and not t.rolling}
        # In the reader's language: the levels, the seasons and "any time".
        ordered = sorted(dated, key=lambda t: (t.year, seasons.index(t.season)))
        terms = [term_label(t) for t in ordered]
        terms += sorted({label for t, label in found if t is None})
        if any(t is not None and t.rolling for t, _ in found):
            terms.append(_("any time"))
        parts.append((translate(m.label(m.RECRUITING_LEVELS, level)), ", ".join(terms)))
    # Levels recruited for the same terms share them: "PhD students, Research interns (any
    # time)", not "(any time)" twice.
    by_terms: dict[str, list[str]] = {}
    for level_label, terms_text in parts:
        by_terms.setdefault(terms_text, []).append(level_label)
    return "; ".join(
        _("%(levels)s (%(terms)s)", levels=", ".join(labels), terms=terms)
        for terms, labels in by_terms.items()
    )


def recruiting_people(viewer: Viewer, day: date) -> Select:
    """Ids of the people with at least one listed notice (:func:`listed_notices`)."""
    return select(m.RecruitingNotice.owner_id).where(listed_notices(viewer, day)).correlate(None)


def recruiting_owner_ids(
    session: Session, viewer: Viewer, day: date, among: list[int]
) -> dict[int, str]:
    """The people ``among`` those ids (the cards shown) with at least one open notice the
    viewer may see (card badges): their ids, each with what they recruit for
    (:func:`recruiting_summary`). One statement (none for no one), reading the notices of the
    people shown only."""
    if not among:
        return {}
    notice = m.RecruitingNotice
    rows = session.execute(
        select(notice.owner_id, notice.level, notice.term_season, notice.term_year, notice.term)
        .where(notice.owner_id.in_(among), listed_notices(viewer, day))
        .order_by(notice.owner_id, notice.position, notice.id)
    ).all()
    by_owner: dict[int, list[tuple[str, m.Term | None, str]]] = defaultdict(list)
    for owner_id, level, season, year, term in rows:
        intake = m.stored_term(season, year, term)
        by_owner[owner_id].append((level, intake, intake.label if intake else term.strip()))
    # The summary depends on the set of (level, intake) only, and many people recruit alike:
    # each set is summarised once.
    summaries: dict[frozenset, str] = {}
    for found in by_owner.values():
        key = frozenset(found)
        if key not in summaries:
            summaries[key] = recruiting_summary(found)
    return {owner: summaries[frozenset(found)] for owner, found in by_owner.items()}


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
    people: list[m.Person] = field(default_factory=list)
    subgroups: list[PeopleGroup] = field(default_factory=list)
    #: The group began on the page before.
    continued: bool = False

    @property
    def count(self) -> int:
        return len(self.people) + sum(group.count for group in self.subgroups)


@dataclass
class Listing:
    groups: list[PeopleGroup]
    people: list[m.Person]
    #: The recruiting people's ids, each with what they recruit for.
    recruiting_ids: dict[int, str]
    areas: list[m.ResearchArea]
    units: list[str]
    letters: set[str]
    #: The page of people shown (``people``, in ``groups``), of every one matching.
    page: Page[m.Person] | None = None
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


def group_people(people: list[m.Person]) -> list[PeopleGroup]:
    """People by role in ROLES order; faculty further by rank in FACULTY_RANKS order."""
    by_role: dict[str, list[m.Person]] = defaultdict(list)
    for person in people:
        by_role[person.role].append(person)
    groups = []
    for role, heading in m.ROLES:
        members = by_role.get(role)
        if not members:
            continue
        group = PeopleGroup(role, translate(heading))
        if role == "faculty":
            by_rank: dict[str | None, list[m.Person]] = defaultdict(list)
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
    """Page ``number`` of ``size`` people matching, as person cards, in the listing's order.
    The database sorts the ids and sort columns of everyone matching, not their whole rows,
    then reads the page's people by id."""
    order = _listing_order(locale)
    page = (
        select(m.Person.id)
        .where(*conditions)
        .order_by(*order)
        .limit(size)
        .offset((number - 1) * size)
    )
    return select(m.Person).where(m.Person.id.in_(page)).options(*card_options()).order_by(*order)


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
    people = list(session.scalars(page)) if total else []
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


def people_in_area_cards(
    session: Session, viewer: Viewer, area_slug: str, limit: int | None = None
) -> list[m.Person]:
    """The people of an area (:func:`people_in_area`) for a host page's fragment: by role in
    ROLES order, then by name."""
    role_order = case({role: i for i, (role, _) in enumerate(m.ROLES)}, value=m.Person.role)
    stmt = (
        select(m.Person)
        .where(people_in_area(viewer, area_slug))
        .options(selectinload(m.Person.areas), selectinload(m.Person.photo))
        .order_by(role_order, m.Person.sort_name, m.Person.id)
        .limit(limit)
    )
    return list(session.scalars(stmt))


# ----------------------------------------------------------------------------- research areas


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
    people: Page[m.Person]
    #: The recruiting people's ids, each with what they recruit for.
    recruiting_ids: dict[int, str]
    #: The first open notices (``notices.total``: every one); the rest are on the recruiting
    #: page filtered by the area.
    notices: Page[m.RecruitingNotice]
    publications: list[m.Publication]


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
    total = session.scalar(select(func.count(m.Person.id)).where(*conditions)) or 0
    people = (
        list(session.scalars(listing_page_stmt(conditions, current_locale(), page_size, 1)))
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
    papers = session.scalars(
        publications_stmt(viewer, PublicationFilters(area=slug)).limit(AREA_RECENT_PAPERS)
    ).all()
    return AreaPage(
        area=area,
        children=children,
        groups=group_people(people),
        people=Page(people, 1, page_size, total),
        recruiting_ids=recruiting_owner_ids(session, viewer, day, [p.id for p in people]),
        notices=notices,
        publications=list(papers),
    )


# ----------------------------------------------------------------------------- recruiting


#: An intake as the API takes it, in its one spelling ("Fall 2026", or "rolling"), so that a
#: URL names a selection once; the pages read any case and order ("2026 fall") first.
TERM_SCHEMA = {
    "type": "string",
    "pattern": "^(?:(?:Spring|Summer|Fall|Winter) (?:19[0-9]{2}|2[01][0-9]{2}|2200)|rolling)$",
}


def _tidy_term(text: str) -> str:
    term = m.parse_term(text) if text.strip() and len(text) <= MAX_FILTER_TEXT else None
    return term.arg if term is not None else text.strip()


def read_term() -> dict[str, Any]:
    """An intake: a season and a year ("Fall 2026") or "rolling"."""
    return {
        "parameter": Parameter(
            TERM_SCHEMA,
            '{name} must be a season and a year, e.g. "Fall 2026", or "rolling"',
            tidy=_tidy_term,
        )
    }


@dataclass(frozen=True)
class RecruitingFilters(Filters):
    """The recruiting page's and feed's filters, and the API's positions filters."""

    level: str = field(default="", metadata=read_choice(m.values(m.RECRUITING_LEVELS)))
    #: An intake: shows that term's notices and the rolling ones (:func:`notice_for_term`).
    term: str = field(default="", metadata=read_term())
    area: str = field(default="", metadata=read_text())
    person: str = field(default="", metadata=read_text())
    funded: bool | None = field(default=None, metadata=read_boolean())

    @property
    def intake(self) -> m.Term | None:
        """The term asked for, if any."""
        return m.parse_term(self.term) if self.term else None


def notice_conditions(viewer: Viewer, day: date, filters: RecruitingFilters) -> list[Any]:
    """Listed notices (:func:`listed_notices`) matching ``filters``; no join needed."""
    notice = m.RecruitingNotice
    conditions: list[Any] = [listed_notices(viewer, day)]
    if filters.level:
        conditions.append(notice.level == filters.level)
    if filters.intake is not None:
        conditions.append(notice_for_term(filters.intake))
    if filters.area:
        conditions.append(notice_in_area(filters.area))
    if filters.person:
        owner = _NAMED_OWNER
        named = select(owner.id).where(owner.slug == filters.person).correlate(None)
        conditions.append(notice.owner_id.in_(named))
    if filters.funded is not None:
        conditions.append(notice.funded.is_(filters.funded))
    return conditions


def _level_order(column: Any) -> ColumnElement:
    levels = m.values(m.RECRUITING_LEVELS)
    return case({level: i for i, level in enumerate(levels)}, value=column, else_=len(levels))


@dataclass(frozen=True)
class RecruitingPageFilters(RecruitingFilters):
    """The recruiting page's filters and its page number (the feed and the API list every
    notice matching: they take :class:`RecruitingFilters`)."""

    page: int = field(default=1, metadata=PAGE)


def recruiting_notices(
    session: Session, viewer: Viewer, day: date, filters: RecruitingFilters
) -> list[m.RecruitingNotice]:
    """Open notices the viewer may see, matching ``filters``: by level, then owner's name."""
    return list(session.scalars(_notices_stmt(viewer, day, filters)))


def recruiting_page(
    session: Session, viewer: Viewer, day: date, filters: RecruitingPageFilters, page_size: int
) -> Page[m.RecruitingNotice]:
    """Page ``filters.page`` (``page_size`` notices; past the last, the last) of
    :func:`recruiting_notices`, and how many match in all."""
    conditions = notice_conditions(viewer, day, filters)
    total = session.scalar(select(func.count(m.RecruitingNotice.id)).where(*conditions)) or 0
    number = min(filters.page, max(1, math.ceil(total / page_size)))
    stmt = _notices_stmt(viewer, day, filters).limit(page_size).offset((number - 1) * page_size)
    return Page(list(session.scalars(stmt)), number, page_size, total)


def _notices_stmt(viewer: Viewer, day: date, filters: RecruitingFilters) -> Select:
    owner = _OWNER
    return (
        select(m.RecruitingNotice)
        .join(owner, owner.id == m.RecruitingNotice.owner_id)
        .where(*notice_conditions(viewer, day, filters))
        .options(
            contains_eager(m.RecruitingNotice.owner.of_type(owner)),
            selectinload(m.RecruitingNotice.areas),
        )
        .order_by(
            _level_order(m.RecruitingNotice.level),
            owner.sort_name,
            m.RecruitingNotice.position,
            m.RecruitingNotice.id,
        )
    )


def notices_by_deadline(
    session: Session,
    viewer: Viewer,
    day: date,
    limit: int | None = None,
    filters: RecruitingFilters | None = None,
) -> list[m.RecruitingNotice]:
    """Listed notices (matching ``filters``, if given) for a host page's "recruiting now":
    soonest deadline first, then those without a deadline."""
    owner = _OWNER
    stmt = (
        select(m.RecruitingNotice)
        .join(owner, owner.id == m.RecruitingNotice.owner_id)
        .where(*notice_conditions(viewer, day, filters or RecruitingFilters()))
        .options(contains_eager(m.RecruitingNotice.owner.of_type(owner)))
        .order_by(
            m.RecruitingNotice.deadline.is_(None),
            m.RecruitingNotice.deadline,
            owner.sort_name,
            m.RecruitingNotice.position,
            m.RecruitingNotice.id,
        )
        .limit(limit)
    )
    return list(session.scalars(stmt))


@dataclass
class RecruitingChoices:
    """The values offered by the recruiting filters: taken from the open notices themselves."""

    #: The terms of the open notices, soonest first (rolling notices match each of them).
    terms: list[m.Term]
    areas: list[m.ResearchArea]
    #: The person filter's choices: the owners of the notices shown, and the person filtered
    #: by (any person's slug filters: ``?person=``); a page's worth in a whole university.
    people: list[m.Person]
    #: Whether some open notice is rolling (the filter then offers "rolling only").
    rolling: bool = False


def recruiting_choices(
    session: Session,
    viewer: Viewer,
    day: date,
    shown: list[m.RecruitingNotice],
    person: str = "",
) -> RecruitingChoices:
    """The filters' values: every term and area of the open notices, and as people the
    owners of the notices ``shown`` and the one named ``person`` (a slug), if any."""
    listed = select(m.RecruitingNotice.id).where(listed_notices(viewer, day)).correlate(None)
    notice = m.RecruitingNotice
    season_order = case(
        {season: i for i, (season, _) in enumerate(m.TERM_SEASONS)}, value=notice.term_season
    )
    terms = [
        m.Term(season, year)
        for season, year, _order in session.execute(
            select(notice.term_season, notice.term_year, season_order)
            .where(
                notice.id.in_(listed), notice.term_season.isnot(None), notice.term_year.isnot(None)
            )
            .distinct()
            .order_by(notice.term_year, season_order)
        )
    ]
    rolling = session.scalar(
        select(notice.id).where(notice.id.in_(listed), notice_for_term(m.ROLLING)).limit(1)
    )
    recruiting = select(notice.owner_id).where(notice.id.in_(listed))
    areas = session.scalars(
        select(m.ResearchArea)
        .where(
            m.ResearchArea.id.in_(
                select(m.notice_areas.c.area_id).where(m.notice_areas.c.notice_id.in_(listed))
            )
        )
        .order_by(m.ResearchArea.name)
    ).all()
    people = {notice.owner.id: notice.owner for notice in shown}
    if person and not any(p.slug == person for p in people.values()):
        named = session.scalar(
            select(m.Person).where(m.Person.slug == person, m.Person.id.in_(recruiting))
        )
        if named is not None:
            people[named.id] = named
    ordered = sorted(people.values(), key=lambda p: (p.sort_name or p.full_name, p.id))
    return RecruitingChoices(terms, list(areas), ordered, rolling is not None)


# ----------------------------------------------------------------------------- publications


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


def _papers_of(viewer: Viewer, *conditions: Any) -> ColumnElement:
    """Publications on the (not hidden) profile list of a visible person meeting ``conditions``."""
    author = _AUTHOR
    return m.Publication.id.in_(
        select(m.ProfilePublication.publication_id)
        .join(author, author.id == m.ProfilePublication.person_id)
        .where(
            m.ProfilePublication.hidden.is_(False),
            person_clause(viewer, author),
            *(condition(author) for condition in conditions),
        )
    )


def publication_conditions(
    viewer: Viewer, filters: PublicationFilters, *, year: bool = True
) -> list[ColumnElement]:
    """The department's papers (each once: :func:`listed_publications`) matching ``filters``
    (all but the year if not ``year``). ``person`` and ``area`` keep the papers a visible
    profile of that person, or of someone in that area or one under it, lists."""
    # A paper on the visible profile of a person or area asked for is on a visible profile:
    # then the "listed" rule's EXISTS (a probe a paper) is implied, and left out.
    if filters.person or filters.area:
        conditions = [publication_clause(viewer, m.Publication)]
    else:
        conditions = [listed_publications(viewer)]
    if filters.person:
        conditions.append(_papers_of(viewer, lambda a: a.slug == filters.person))
    if filters.area:
        conditions.append(_papers_of(viewer, lambda a: in_area(filters.area, a)))
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


def publications_stmt(viewer: Viewer, filters: PublicationFilters) -> Select:
    """The filtered department papers, newest first, with everything a citation shows."""
    return (
        select(m.Publication)
        .where(*publication_conditions(viewer, filters))
        .options(*publication_options())
        .order_by(
            m.Publication.year.desc().nulls_last(),
            m.Publication.month.desc().nulls_last(),
            m.Publication.title,
            m.Publication.id,
        )
    )


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
    people: list[m.Person]
    areas: list[m.ResearchArea]


_VENUE_YEAR = re.compile(r"\s*['’]?\d{2,4}$")


def venue_name(short: str) -> str:
    """A venue's short name without its year: "OSDI'26", "OSDI26" and "OSDI" are one venue."""
    return _VENUE_YEAR.sub("", short).strip() or short


def _listed_person(viewer: Viewer, person: m.Person) -> bool:
    """:func:`~directory.services.access.person_clause` for one loaded person (no query)."""
    if not can_view(viewer, person, owner_id=person.id):
        return False
    return person.published or viewer.is_admin or person.id == viewer.person_id


def publications_page(
    session: Session, viewer: Viewer, filters: PublicationFilters, page_size: int
) -> tuple[Page[m.Publication], PublicationChoices]:
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
    items = list(
        session.scalars(
            publications_stmt(viewer, filters).limit(page_size).offset((number - 1) * page_size)
        )
    )
    years = (
        [(y, per_year.get(y, 0)) for y in range(min(per_year), max(per_year) + 1)]
        if per_year
        else []
    )
    venues = sorted({venue_name(p.venue_short) for p in items if p.venue_short}, key=str.casefold)
    people = {
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


# ----------------------------------------------------------------------------- news


def news_page(session: Session, viewer: Viewer, number: int, page_size: int) -> Page[Any]:
    """Department news gathered from profiles, newest first: rows of (NewsItem, Person)."""
    owner = _OWNER
    conditions = owned_entry_clause(viewer, m.NewsItem, owner)
    total = (
        session.scalar(
            select(func.count(m.NewsItem.id))
            .join(owner, owner.id == m.NewsItem.owner_id)
            .where(conditions)
        )
        or 0
    )
    number = min(max(1, number), max(1, math.ceil(total / page_size)))
    rows = session.execute(
        select(m.NewsItem, owner)
        .join(owner, owner.id == m.NewsItem.owner_id)
        .where(conditions)
        .order_by(
            m.NewsItem.year.desc(),
            m.NewsItem.month.desc().nulls_last(),
            m.NewsItem.day.desc().nulls_last(),
            m.NewsItem.id.desc(),
        )
        .limit(page_size)
        .offset((number - 1) * page_size)
    ).all()
    return Page([tuple(row) for row in rows], number, page_size, total)


def news_date(item: m.NewsItem) -> date:
    """The date a news item is about (the first of the month or year when vaguer)."""
    month = item.month if item.month and 1 <= item.month <= 12 else 1
    try:
        return date(item.year, month, item.day or 1)
    except ValueError:
        return date(item.year, month, 1)
