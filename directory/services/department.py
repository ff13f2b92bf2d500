"""What the department-wide pages show: the people listing, research areas, recruiting notices,
alumni, publications and news, each filtered by what the viewer may see.

Who and what is listed is not decided here: every query applies the read rules of
:mod:`directory.services.access` (listed people, listed notices, people in an area, listed
publications), which the JSON API, search, feeds and fragments apply too.

Every function here runs a fixed number of statements whatever the department's size (related
rows come through ``selectinload``, never one query per row), so a page costs the same for ten
people as for a thousand. Filters arrive as small dataclasses read from the query string by one
parser for the pages and the API (:meth:`Filters.from_args`): the pages drop a bad value, so any
bookmarked URL still opens; the API (``strict``) answers it with a 400 naming the parameter.
"""

from __future__ import annotations

import math
import re
from collections import defaultdict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, fields
from datetime import date
from typing import Any, Self, TypeVar

from sqlalchemy import ColumnElement, Select, and_, case, distinct, func, or_, select
from sqlalchemy.orm import Session, aliased, contains_eager, defer, selectinload

from directory import models as m
from directory.formats.names import initial, name_sort_key, person_sort_key
from directory.i18n import current_locale, translate
from directory.i18n import gettext as _
from directory.i18n import lazy_gettext as _l
from directory.services.access import (
    AREA_TREE,
    LISTED_ROLES,
    advising_clause,
    in_area,
    listed_notices,
    listed_people,
    listed_publications,
    notice_in_area,
    owned_entry_clause,
    people_in_area,
    person_clause,
    person_visible,
    publication_clause,
)
from directory.services.identity import Viewer
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

LETTERS = tuple("ABCDEFGHIJKLMNOPQRSTUVWXYZ")

# Aliases for the joins below, built once (building an alias costs milliseconds). Each is used
# at most once per SELECT scope.
_OWNER = aliased(m.Person, name="owner")
_AUTHOR = aliased(m.Person, name="author")
_ADVISOR = aliased(m.Person, name="advisor")
_STUDENT = aliased(m.Person, name="student")
_PROFILE_PUB = aliased(m.ProfilePublication, name="profile_pub")
_PUB = aliased(m.Publication, name="pub")
_NAMED_OWNER = aliased(m.Person, name="named_owner")


def today() -> date:
    """Today's date, asked afresh on every request (notices expire without anyone acting)."""
    return date.today()


# ----------------------------------------------------------------------------- filters

#: The longest text a filter takes (longer is a bad value, not a shorter one).
MAX_FILTER_TEXT = 200
#: The highest page number asked for by a page or the API.
MAX_PAGE = 1_000_000


class BadFilter(ValueError):
    """A query parameter whose value its filter cannot take. The pages drop the value; the
    API answers 400 with :attr:`message`, naming :attr:`name`."""

    def __init__(self, name: str, message: str) -> None:
        super().__init__(message)
        self.name, self.message = name, message


def _reader(read: Callable[[str, str], Any]) -> dict[str, Any]:
    """Field metadata: how :meth:`Filters.from_args` reads the field's (stripped, non-empty)
    value; ``read(name, value)`` returns it or raises :class:`BadFilter`."""
    return {"read": read}


def read_text(limit: int = MAX_FILTER_TEXT) -> dict[str, Any]:
    def read(name: str, value: str) -> str:
        # A NUL byte can match nothing, and PostgreSQL refuses it in any text parameter.
        if "\x00" in value or len(value) > limit:
            raise BadFilter(name, f"{name} must be text of at most {limit} characters")
        return value

    return _reader(read)


def read_choice(allowed: tuple[str, ...]) -> dict[str, Any]:
    def read(name: str, value: str) -> str:
        if value not in allowed:
            raise BadFilter(name, f"{name} must be one of: {', '.join(allowed)}")
        return value

    return _reader(read)


def read_integer(low: int, high: int) -> dict[str, Any]:
    def read(name: str, value: str) -> int:
        if not (value.isascii() and value.isdigit() and low <= int(value) <= high):
            raise BadFilter(name, f"{name} must be a whole number from {low} to {high}")
        return int(value)

    return _reader(read)


def read_boolean() -> dict[str, Any]:
    def read(name: str, value: str) -> bool:
        if value.lower() in ("1", "true", "yes", "on"):
            return True
        if value.lower() in ("0", "false", "no", "off"):
            return False
        raise BadFilter(name, f"{name} must be true or false")

    return _reader(read)


def read_letter() -> dict[str, Any]:
    def read(name: str, value: str) -> str:
        if value.upper() not in LETTERS:
            raise BadFilter(name, f"{name} must be a letter from A to Z")
        return value.upper()

    return _reader(read)


@dataclass(frozen=True)
class Filters:
    """The query-parameter filters of a page or an API list. Subclasses declare the fields,
    each with its reader (``field(default=..., metadata=read_text())``); ``to_args`` writes them
    back for links (empty ones left out, so URLs stay short and bookmarkable)."""

    @classmethod
    def from_args(cls, args: Mapping[str, str], *, strict: bool = False) -> Self:
        """The filters in ``args``. A bad value is dropped, or with ``strict`` raises
        :class:`BadFilter`; a missing or blank one keeps the field's default."""
        values = {}
        for f in fields(cls):
            value = (args.get(f.name) or "").strip()
            if not value:
                continue
            try:
                values[f.name] = f.metadata["read"](f.name, value)
            except BadFilter:
                if strict:
                    raise
        return cls(**values)

    def to_args(self) -> dict[str, str]:
        args = {}
        for f in fields(self):
            value = getattr(self, f.name)
            if value is None or value == "" or (f.name == "page" and value == 1):
                continue
            if isinstance(value, bool):
                value = "1" if value else "0"
            args[f.name] = str(value)
        return args

    def without(self, *names: str) -> dict[str, str]:
        """The args with ``names`` (and the page number, which a new filter resets) removed."""
        return {k: v for k, v in self.to_args().items() if k not in names and k != "page"}

    def with_page(self, page: int) -> dict[str, str]:
        args = self.without()
        if page > 1:
            args["page"] = str(page)
        return args

    @property
    def active(self) -> bool:
        return bool(self.without())


def check_references(session: Session, viewer: Viewer, filters: Filters) -> None:
    """Raise :class:`BadFilter` when ``filters`` name a research area that does not exist or
    a person whose profile ``viewer`` may not see (answered like a missing one). The API asks
    this; a page just finds nothing."""
    area = getattr(filters, "area", "")
    found = select(m.ResearchArea.id).where(m.ResearchArea.slug == area)
    if area and session.scalar(found) is None:
        raise BadFilter("area", f"there is no research area {area!r}")
    slug = getattr(filters, "person", "")
    if slug:
        person = session.scalar(select(m.Person).where(m.Person.slug == slug))
        if person is None or not person_visible(viewer, person):
            raise BadFilter("person", f"there is no person {slug!r}")


@dataclass
class Page[T]:
    """One page of a longer list."""

    items: list[T]
    number: int
    size: int
    total: int

    @property
    def pages(self) -> int:
        return max(1, math.ceil(self.total / self.size))

    @property
    def first_index(self) -> int:
        return (self.number - 1) * self.size + 1 if self.total else 0

    @property
    def last_index(self) -> int:
        return min(self.total, self.number * self.size)


def _page_of[T](items: list[T], number: int, size: int) -> Page[T]:
    number = min(number, max(1, math.ceil(len(items) / size)))
    start = (number - 1) * size
    return Page(items[start : start + size], number, size, len(items))


# ----------------------------------------------------------------------------- people


def card_options() -> tuple[Any, ...]:
    """What a person card (and its JSON-LD) needs, loaded for all cards at once. The photo's
    bytes stay in the database: the card only needs to know there is one, and its etag."""
    return (
        defer(m.Person.bio),
        defer(m.Person.address),
        selectinload(m.Person.areas),
        selectinload(m.Person.links),
        selectinload(m.Person.photo).load_only(m.PersonPhoto.etag, m.PersonPhoto.alt_text),
    )


def recruiting_people(viewer: Viewer, day: date) -> Select:
    """Ids of the people with at least one listed notice (:func:`listed_notices`)."""
    return select(m.RecruitingNotice.owner_id).where(listed_notices(viewer, day)).correlate(None)


def recruiting_owner_ids(session: Session, viewer: Viewer, day: date) -> set[int]:
    """Ids of the people with at least one open notice the viewer may see (card badges)."""
    return set(session.scalars(recruiting_people(viewer, day).distinct()))


@dataclass(frozen=True)
class ListingFilters(Filters):
    """The people listing's filters, and the API's people filters (``q`` there is a search)."""

    role: str = field(default="", metadata=read_choice(LISTED_ROLES))
    area: str = field(default="", metadata=read_text())
    unit: str = field(default="", metadata=read_text())
    recruiting: bool | None = field(default=None, metadata=read_boolean())
    q: str = field(default="", metadata=read_text())
    letter: str = field(default="", metadata=read_letter())


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


def letter_clause(letter: str) -> ColumnElement:
    """People whose sort name starts with ``letter``."""
    return _initial(m.Person.sort_name) == letter


@dataclass
class PeopleGroup:
    """A heading of the listing and its people (faculty has one sub-group per rank)."""

    key: str
    heading: str
    people: list[m.Person] = field(default_factory=list)
    subgroups: list[PeopleGroup] = field(default_factory=list)

    @property
    def count(self) -> int:
        return len(self.people) + sum(group.count for group in self.subgroups)


@dataclass
class Listing:
    groups: list[PeopleGroup]
    people: list[m.Person]
    recruiting_ids: set[int]
    areas: list[m.ResearchArea]
    units: list[str]
    letters: set[str]


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


def listing(session: Session, viewer: Viewer, day: date, filters: ListingFilters) -> Listing:
    """The people listing for ``viewer`` with ``filters`` applied."""
    recruiting_ids = recruiting_owner_ids(session, viewer, day)
    conditions = people_conditions(viewer, day, filters)
    if filters.q:
        conditions.append(_search_clause(filters.q))
    # The order and the A–Z index follow the reader's language (pinyin for Han names in
    # Chinese, names.person_sort_key): computed here, on the listed people, not in SQL.
    locale = current_locale()
    keyed = sorted(
        (
            (person_sort_key(person, locale), person.id, person)
            for person in session.scalars(
                select(m.Person).where(*conditions).options(*card_options())
            )
        ),
        key=lambda item: item[:2],
    )
    letters = {initial(key) for key, _id, _person in keyed} - {""}
    if filters.letter:
        keyed = [item for item in keyed if initial(item[0]) == filters.letter]
    people = [person for _key, _id, person in keyed]
    groups = group_people(people)
    return Listing(
        groups=groups,
        people=[p for g in groups for p in g.people + [q for s in g.subgroups for q in s.people]],
        recruiting_ids=recruiting_ids,
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
    profile is not offered)."""
    stmt = (
        select(m.ResearchArea)
        .where(
            m.ResearchArea.id.in_(_people_per_area(viewer).with_only_columns(AREA_TREE.c.area_id))
        )
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
    people: list[m.Person]
    recruiting_ids: set[int]
    notices: list[m.RecruitingNotice]
    publications: list[m.Publication]


def area_page(session: Session, viewer: Viewer, day: date, slug: str) -> AreaPage | None:
    """A research area's people, open notices and recent papers, its sub-areas' included;
    None if no such area."""
    area = session.scalar(
        select(m.ResearchArea)
        .where(m.ResearchArea.slug == slug)
        .options(selectinload(m.ResearchArea.parent))
    )
    if area is None:
        return None
    locale = current_locale()
    people = sorted(
        session.scalars(
            select(m.Person).where(people_in_area(viewer, slug)).options(*card_options())
        ),
        key=lambda person: (person_sort_key(person, locale), person.id),
    )
    groups = group_people(people)
    children = list(
        session.scalars(
            select(m.ResearchArea)
            .where(m.ResearchArea.parent_id == area.id)
            .order_by(m.ResearchArea.position, m.ResearchArea.name)
        )
    )
    notices = recruiting_notices(session, viewer, day, RecruitingFilters(area=slug))
    papers = session.scalars(
        publications_stmt(viewer, PublicationFilters(area=slug)).limit(AREA_RECENT_PAPERS)
    ).all()
    return AreaPage(
        area=area,
        children=children,
        groups=groups,
        people=people,
        recruiting_ids=recruiting_owner_ids(session, viewer, day),
        notices=notices,
        publications=list(papers),
    )


# ----------------------------------------------------------------------------- recruiting


@dataclass(frozen=True)
class RecruitingFilters(Filters):
    """The recruiting page's and feed's filters, and the API's positions filters."""

    level: str = field(default="", metadata=read_choice(m.values(m.RECRUITING_LEVELS)))
    term: str = field(default="", metadata=read_text())
    area: str = field(default="", metadata=read_text())
    person: str = field(default="", metadata=read_text())
    funded: bool | None = field(default=None, metadata=read_boolean())


def notice_conditions(viewer: Viewer, day: date, filters: RecruitingFilters) -> list[Any]:
    """Listed notices (:func:`listed_notices`) matching ``filters``; no join needed."""
    notice = m.RecruitingNotice
    conditions: list[Any] = [listed_notices(viewer, day)]
    if filters.level:
        conditions.append(notice.level == filters.level)
    if filters.term:
        conditions.append(func.lower(notice.term) == filters.term.lower())
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


def recruiting_notices(
    session: Session, viewer: Viewer, day: date, filters: RecruitingFilters
) -> list[m.RecruitingNotice]:
    """Open notices the viewer may see, matching ``filters``: by level, then owner's name."""
    owner = _OWNER
    stmt = (
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
    return list(session.scalars(stmt))


def notices_by_deadline(
    session: Session, viewer: Viewer, day: date, limit: int | None = None
) -> list[m.RecruitingNotice]:
    """Listed notices for a host page's "recruiting now": soonest deadline first, then the
    rolling ones."""
    owner = _OWNER
    stmt = (
        select(m.RecruitingNotice)
        .join(owner, owner.id == m.RecruitingNotice.owner_id)
        .where(listed_notices(viewer, day))
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

    terms: list[str]
    areas: list[m.ResearchArea]
    people: list[m.Person]


def recruiting_choices(session: Session, viewer: Viewer, day: date) -> RecruitingChoices:
    listed = select(m.RecruitingNotice.id).where(listed_notices(viewer, day)).correlate(None)
    terms = session.scalars(
        select(m.RecruitingNotice.term)
        .where(
            m.RecruitingNotice.id.in_(listed),
            m.RecruitingNotice.term.isnot(None),
            m.RecruitingNotice.term != "",
        )
        .distinct()
        .order_by(m.RecruitingNotice.term)
    ).all()
    areas = session.scalars(
        select(m.ResearchArea)
        .where(
            m.ResearchArea.id.in_(
                select(m.notice_areas.c.area_id).where(m.notice_areas.c.notice_id.in_(listed))
            )
        )
        .order_by(m.ResearchArea.name)
    ).all()
    people = session.scalars(
        select(m.Person)
        .where(
            m.Person.id.in_(
                select(m.RecruitingNotice.owner_id).where(m.RecruitingNotice.id.in_(listed))
            )
        )
        .order_by(m.Person.sort_name)
    ).all()
    return RecruitingChoices(list(terms), list(areas), list(people))


# ----------------------------------------------------------------------------- alumni


@dataclass(frozen=True)
class AlumniFilters(Filters):
    year: int | None = field(default=None, metadata=read_integer(1000, 9999))
    advisor: str = field(default="", metadata=read_text())
    degree: str = field(default="", metadata=read_choice(m.values(m.DEGREES)))
    page: int = field(default=1, metadata=read_integer(1, MAX_PAGE))


@dataclass
class Advisor:
    name: str
    person: m.Person | None
    role: str


@dataclass
class Alumnus:
    """One past student of the department for one degree, with every advisor."""

    name: str
    person: m.Person | None
    degree: str | None
    year: int | None
    advisors: list[Advisor] = field(default_factory=list)
    thesis: str | None = None
    placement: str | None = None

    @property
    def advisor_slugs(self) -> set[str]:
        return {a.person.slug for a in self.advisors if a.person is not None}


@dataclass
class AlumniPage:
    page: Page[Alumnus]
    years: list[int]
    advisors: list[m.Person]
    degrees: list[str]


def alumni(session: Session, viewer: Viewer, filters: AlumniFilters, page_size: int) -> AlumniPage:
    """Past students: graduated under a department advisor (every advisor of theirs shown,
    inside or outside the department), and people listed as alumni without such a record."""
    advisor = _ADVISOR
    student = _STUDENT
    visible_sides = and_(
        or_(m.AdvisingRelation.advisor_id.is_(None), person_clause(viewer, advisor)),
        or_(m.AdvisingRelation.student_id.is_(None), person_clause(viewer, student)),
    )
    base = (
        select(m.AdvisingRelation)
        .outerjoin(advisor, advisor.id == m.AdvisingRelation.advisor_id)
        .outerjoin(student, student.id == m.AdvisingRelation.student_id)
        .where(
            advising_clause(viewer, m.AdvisingRelation),
            m.AdvisingRelation.status == "graduated",
            visible_sides,
        )
        .options(
            contains_eager(m.AdvisingRelation.advisor.of_type(advisor)),
            contains_eager(m.AdvisingRelation.student.of_type(student)),
        )
        .order_by(m.AdvisingRelation.position, m.AdvisingRelation.id)
    )
    # Relations with a department advisor make someone an alumnus of the department...
    own = list(session.scalars(base.where(m.AdvisingRelation.advisor_id.isnot(None))))
    student_ids = {rel.student_id for rel in own if rel.student_id}
    # ...and then their other advisors (outside the department too) belong on the record.
    others = (
        list(
            session.scalars(
                base.where(
                    m.AdvisingRelation.student_id.in_(student_ids),
                    m.AdvisingRelation.advisor_id.is_(None),
                )
            )
        )
        if student_ids
        else []
    )
    records: dict[tuple[Any, str], Alumnus] = {}
    for rel in own + others:
        if rel.student_id is None and not rel.student_name:
            continue
        key = (rel.student_id or rel.student_name.casefold(), rel.degree)
        if rel.advisor_id is None and key not in records:
            continue  # an outside advisor of a degree not taken in the department
        record = records.get(key)
        if record is None:
            record = records[key] = Alumnus(
                name=rel.student_display, person=rel.student, degree=rel.degree, year=None
            )
        record.year = max(filter(None, (record.year, rel.end_year)), default=None)
        record.thesis = record.thesis or rel.thesis
        record.placement = record.placement or rel.placement
        record.advisors.append(Advisor(rel.advisor_display, rel.advisor, rel.role))
    covered = {key[0] for key in records}
    for person in session.scalars(
        select(m.Person)
        .where(person_clause(viewer, m.Person), m.Person.role == "alumni")
        .order_by(m.Person.sort_name)
    ):
        if person.id not in covered:
            records[(person.id, "")] = Alumnus(person.full_name, person, None, None)
    locale = current_locale()

    def name_key(record: Alumnus) -> tuple[str, ...]:
        if record.person is not None:
            return person_sort_key(record.person, locale)
        return name_sort_key(record.name, None, locale)

    everyone = sorted(records.values(), key=lambda r: (-(r.year or 0), name_key(r)))
    advisors = {a.person.id: a.person for r in everyone for a in r.advisors if a.person is not None}
    shown = [
        r
        for r in everyone
        if (filters.year is None or r.year == filters.year)
        and (not filters.degree or r.degree == filters.degree)
        and (not filters.advisor or filters.advisor in r.advisor_slugs)
    ]
    degrees_present = {r.degree for r in everyone}
    return AlumniPage(
        page=_page_of(shown, filters.page, page_size),
        years=sorted({r.year for r in everyone if r.year}, reverse=True),
        advisors=sorted(advisors.values(), key=lambda p: person_sort_key(p, locale)),
        degrees=[d for d in m.values(m.DEGREES) if d in degrees_present],
    )


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
    page: int = field(default=1, metadata=read_integer(1, MAX_PAGE))


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
    types: list[str]
    venues: list[str]
    people: list[m.Person]
    areas: list[m.ResearchArea]


_VENUE_YEAR = re.compile(r"\s*['’]?\d{2,4}$")


def venue_name(short: str) -> str:
    """A venue's short name without its year: "OSDI'26", "OSDI26" and "OSDI" are one venue."""
    return _VENUE_YEAR.sub("", short).strip() or short


def publications_page(
    session: Session, viewer: Viewer, filters: PublicationFilters, page_size: int
) -> tuple[Page[m.Publication], PublicationChoices]:
    """A page of the filtered department papers, and the filters' choices with the papers-per
    -year counts of the chart (counted with every filter but the year)."""
    conditions = publication_conditions(viewer, filters)
    total = session.scalar(select(func.count(m.Publication.id)).where(*conditions)) or 0
    number = min(filters.page, max(1, math.ceil(total / page_size)))
    items = session.scalars(
        publications_stmt(viewer, filters).limit(page_size).offset((number - 1) * page_size)
    ).all()
    per_year = dict(
        session.execute(
            select(m.Publication.year, func.count(m.Publication.id))
            .where(*publication_conditions(viewer, filters, year=False))
            .where(m.Publication.year.isnot(None))
            .group_by(m.Publication.year)
        ).all()
    )
    years = (
        [(y, per_year.get(y, 0)) for y in range(min(per_year), max(per_year) + 1)]
        if per_year
        else []
    )
    department = publication_conditions(viewer, PublicationFilters())
    types = set(session.scalars(select(m.Publication.type).where(*department).distinct()))
    shorts = session.scalars(
        select(m.Publication.venue_short)
        .where(*department, m.Publication.venue_short.isnot(None))
        .distinct()
    )
    venues = sorted({venue_name(s) for s in shorts if s}, key=str.casefold)
    pp = _PROFILE_PUB
    pub = _PUB
    people = session.scalars(
        select(m.Person)
        .where(
            person_clause(viewer, m.Person),
            m.Person.id.in_(
                select(pp.person_id)
                .join(pub, pub.id == pp.publication_id)
                .where(pp.hidden.is_(False), publication_clause(viewer, pub))
            ),
        )
        .order_by(m.Person.sort_name)
    ).all()
    choices = PublicationChoices(
        years=years,
        types=[t for t in m.values(m.PUBLICATION_TYPES) if t in types],
        venues=venues,
        people=list(people),
        areas=listed_areas(session, viewer),
    )
    return Page(list(items), number, page_size, total), choices


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
