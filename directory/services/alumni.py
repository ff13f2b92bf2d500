"""The alumni outputs: the alumni page, its summary, the CSV and the API's alumni and summary,
all built from one record per past student and degree.

Who is an alumnus is not decided here but by the read rules of
:mod:`directory.services.access` (:func:`listed_graduations`, :func:`department_graduation`,
:func:`listed_alumni_people`): someone who graduated under a department advisor (their
advisors outside the department shown on the same record), and people listed as alumni
without such a record.

What it costs. A record merges the graduations of one student for one degree (the latest
year, the first placement, every advisor); its identity compares typed names case-folded and
its order is the reader's name order (pinyin in Chinese), neither of which SQL gives exactly.
So every output first reads the directory's graduations as *light rows*: a few plain columns
each, one statement, no ORM object (:func:`_light_records`). On those the records are merged,
filtered, counted (the summary) and ordered, and only the names of the years a page shows are
turned into sort keys. A page then reads the full columns of its own records' graduations
(:func:`_full_rows`, by id); the CSV reads them for every record it writes, in one statement.
Nothing builds an ORM object per alumnus, and the statements are as many for ten alumni as
for ten thousand.
"""

from __future__ import annotations

import math
from collections import defaultdict, namedtuple
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from itertools import chain
from typing import Any, Self

from sqlalchemy import ColumnElement, Select, case, false, func, or_, select, union
from sqlalchemy.orm import Session, aliased

from directory import models as m
from directory.formats.names import name_sort_key
from directory.i18n import current_locale
from directory.services.access import (
    AREA_TREE,
    department_graduation,
    listed_alumni_people,
    listed_graduations,
    person_clause,
    working_in,
)
from directory.services.identity import Viewer
from directory.services.paging import Page, page_of
from directory.services.parameters import (
    PAGE,
    BadFilter,
    Filters,
    read_choice,
    read_integer,
    read_text,
)

#: The kind filter's value for alumni whose placement has no kind (none given, or unread).
UNKNOWN_KIND = "unknown"
#: The alumni summary's filters take years from here to here.
FIRST_YEAR, LAST_YEAR = 1900, 2200
#: The kinds of placement in the order the summary, its chart and the tables list them.
KIND_ORDER = (*m.values(m.PLACEMENT_KINDS), UNKNOWN_KIND)

# Aliases for the joins below, built once (building an alias costs milliseconds).
_ADVISOR = aliased(m.Person, name="advisor")
_STUDENT = aliased(m.Person, name="student")
_OWN = aliased(m.AdvisingRelation, name="own_graduation")
_REL = m.AdvisingRelation


# ----------------------------------------------------------------------------- filters


@dataclass(frozen=True)
class AlumniFilters(Filters):
    """The alumni page's, summary's, CSV's and the API's alumni filters. ``year`` is one year
    of graduation; ``year_from`` and ``year_to`` a range (both included)."""

    year: int | None = field(default=None, metadata=read_integer(FIRST_YEAR, LAST_YEAR))
    year_from: int | None = field(default=None, metadata=read_integer(FIRST_YEAR, LAST_YEAR))
    year_to: int | None = field(default=None, metadata=read_integer(FIRST_YEAR, LAST_YEAR))
    advisor: str = field(default="", metadata=read_text())
    degree: str = field(default="", metadata=read_choice(m.values(m.DEGREES)))
    kind: str = field(default="", metadata=read_choice(KIND_ORDER))
    area: str = field(default="", metadata=read_text())
    page: int = field(default=1, metadata=PAGE)

    @classmethod
    def from_args(cls, args: Mapping[str, str], *, strict: bool = False) -> Self:
        """As :meth:`Filters.from_args`; a range ending before it starts is a bad ``year_to``
        (dropped, or with ``strict`` a :class:`BadFilter`)."""
        filters = super().from_args(args, strict=strict)
        if filters.year_from and filters.year_to and filters.year_to < filters.year_from:
            if strict:
                raise BadFilter("year_to", "year_to must not be before year_from")
            filters = replace(filters, year_to=None)
        return filters

    def matches(self, record: Any, advisor_id: int | None) -> bool:
        """Whether ``record`` (with ``year``, ``degree``, ``kind``, ``advisor_ids`` and
        ``in_area``) passes every filter; ``advisor_id`` is the id of the advisor filtered
        by, if the viewer may see them (None: nobody matches an advisor filter)."""
        year = record.year
        return (
            (self.year is None or year == self.year)
            and (self.year_from is None or (year is not None and year >= self.year_from))
            and (self.year_to is None or (year is not None and year <= self.year_to))
            and (not self.degree or record.degree == self.degree)
            and (not self.advisor or advisor_id in record.advisor_ids)
            and (not self.kind or (record.kind or UNKNOWN_KIND) == self.kind)
            and (not self.area or record.in_area)
        )


@dataclass(frozen=True)
class AlumniSummaryFilters(AlumniFilters):
    """The summary page's filters, and the page of its table of advisors (``advisors``)."""

    advisors: int = field(default=1, metadata=PAGE)

    def without(self, *names: str) -> dict[str, str]:
        """As :meth:`Filters.without`; the page of advisors is reset like the page."""
        return super().without("advisors", *names)

    def with_page_of_advisors(self, number: int) -> dict[str, str]:
        args = self.without()
        if number > 1:
            args["advisors"] = str(number)
        return args


# ----------------------------------------------------------------------------- records


@dataclass(frozen=True)
class PersonRef:
    """A department person named by an alumni output: the read rules have already decided
    that the viewer may see their profile."""

    id: int
    slug: str
    full_name: str
    sort_name: str = ""
    native_name: str | None = None


@dataclass
class Advisor:
    name: str
    person: PersonRef | None
    role: str


@dataclass
class Alumnus:
    """One past student of the department for one degree, with every advisor, and where they
    went: the placement as written, and its structure."""

    name: str
    person: PersonRef | None
    degree: str | None
    year: int | None
    advisors: list[Advisor] = field(default_factory=list)
    thesis: str | None = None
    placement: str | None = None
    placement_organisation: str | None = None
    placement_kind: str | None = None
    placement_year: int | None = None

    @property
    def placement_text(self) -> str | None:
        """The placement as written, or (given only as structure) its parts."""
        if self.placement:
            return self.placement
        parts = [self.placement_organisation, m.label(m.PLACEMENT_KINDS, self.placement_kind)]
        text = ", ".join(part for part in parts if part)
        if text and self.placement_year:
            text += f" ({self.placement_year})"
        return text or None


@dataclass(slots=True)
class _Record:
    """An alumnus as the light rows tell it: enough to filter, count and order them."""

    #: The record's graduations (ids), in the order they are merged.
    ids: list[int]
    student_id: int | None
    #: The typed name (a student without a profile), or the profile's name (None until read).
    name: str | None
    degree: str | None
    year: int | None = None
    #: The graduation whose placement the record shows (the first with one), and its kind.
    placed: int | None = None
    kind: str | None = None
    #: The department advisors, one per graduation that has one.
    advisor_ids: list[int] = field(default_factory=list)
    in_area: bool = False
    sort_name: str = ""
    native_name: str | None = None
    #: The profile's slug, for people listed as alumni without a graduation (the others'
    #: comes with their graduations' full rows).
    slug: str | None = None

    def name_key(self, locale: str) -> tuple[str, ...]:
        if self.student_id is not None:
            return name_sort_key(self.sort_name or self.name, self.native_name, locale)
        return name_sort_key(self.name, None, locale)


def _placed(rel: Any) -> ColumnElement:
    """Whether a graduation has a placement (text or any part of its structure)."""
    return or_(
        func.coalesce(rel.placement, "") != "",
        func.coalesce(rel.placement_organisation, "") != "",
        func.coalesce(rel.placement_kind, "") != "",
    )


def _in_area(area: str, *columns: Any) -> ColumnElement:
    """Whether any of the person id ``columns`` is someone working in ``area`` (or under it):
    a column of the light rows, so that the area filter needs no list of ids in Python."""
    if not area:
        return false()
    people = working_in(area)  # one subquery (and one CTE) for every column
    return or_(*(column.in_(people) for column in columns))


def _light_columns(area: str) -> tuple[Any, ...]:
    """What the records are merged, filtered and counted on: a few plain columns of each
    graduation (the names to order them by are read for the years a page shows only)."""
    return (
        _REL.id,
        _REL.advisor_id,
        _REL.student_id,
        _REL.student_name,
        _REL.degree,
        _REL.end_year,
        _REL.placement_kind,
        _placed(_REL).label("placed"),
        _in_area(area, _REL.advisor_id, _REL.student_id).label("in_area"),
    )


def _full_columns() -> tuple[Any, ...]:
    """What an alumnus shows beyond the light columns, for each of their graduations."""
    return (
        _REL.advisor_name,
        _REL.role,
        _REL.thesis,
        _REL.placement,
        _REL.placement_organisation,
        _REL.placement_year,
        _STUDENT.slug.label("student_slug"),
        _STUDENT.full_name.label("student_full_name"),
        _STUDENT.sort_name.label("student_sort_name"),
        _STUDENT.native_name.label("student_native_name"),
        _ADVISOR.slug.label("advisor_slug"),
        _ADVISOR.full_name.label("advisor_full_name"),
        _ADVISOR.sort_name.label("advisor_sort_name"),
        _ADVISOR.native_name.label("advisor_native_name"),
    )


def _graduations(viewer: Viewer, area: str, full: bool = False) -> Select:
    """The graduations the alumni records are merged from (every department graduation, and
    the other graduations of their students), the department ones first, each group by
    position: light rows, or with ``full`` everything an alumnus shows."""
    stmt = select(*_light_columns(area))
    if full:
        stmt = stmt.add_columns(*_full_columns())
        stmt = stmt.outerjoin(_STUDENT, _STUDENT.id == _REL.student_id)
        stmt = stmt.outerjoin(_ADVISOR, _ADVISOR.id == _REL.advisor_id)
    return stmt.where(
        listed_graduations(viewer, _REL),
        or_(department_graduation(_REL), _REL.student_id.in_(_covered(viewer).scalar_subquery())),
    ).order_by(case((department_graduation(_REL), 0), else_=1), _REL.position, _REL.id)


def _covered(viewer: Viewer) -> Select:
    """The students of department graduations: alumni with a record."""
    return select(_OWN.student_id).where(
        listed_graduations(viewer, _OWN), department_graduation(_OWN), _OWN.student_id.isnot(None)
    )


#: How many columns _light_columns has.
_LIGHT = 9


@lru_cache(maxsize=8)
def _row_type(keys: tuple[str, ...]) -> type:
    return namedtuple("GraduationRow", keys)  # its fields are the select's columns


def _tuples(result: Any) -> list[Any]:
    """The rows of ``result`` as named tuples: read by name thousands of times (the CSV), a
    named tuple's field costs a fraction of a ``Row``'s."""
    make = _row_type(tuple(result.keys()))._make
    return [make(row) for row in result]


def _merge(rows: Iterable[Any]) -> dict[tuple[Any, str], _Record]:
    """One record per (student, degree): a student is their profile, or their typed name
    case-folded; the latest year, the first placement and thesis, every advisor. A graduation
    under an outside advisor only joins a record its student has in the department. (The
    rows, of :func:`_light_columns` first, are unpacked as tuples: reading a Row's attributes
    by name costs several times more, for every graduation of the directory.)"""
    records: dict[tuple[Any, str], _Record] = {}
    for row in rows:
        rel_id, advisor_id, student_id, student_name, degree, end_year, kind, placed, in_area = (
            row if len(row) == _LIGHT else row[:_LIGHT]
        )
        if student_id is None and not student_name:
            continue
        key = (student_id or student_name.casefold(), degree)
        record = records.get(key)
        if record is None:
            if advisor_id is None:
                continue  # an outside advisor of a degree not taken in the department
            # A profile's names come later (_named), for the records that need them.
            name = student_name if student_id is None else None
            record = records[key] = _Record([], student_id, name, degree)
        record.ids.append(rel_id)
        if end_year and (record.year is None or end_year > record.year):
            record.year = end_year
        if record.placed is None and placed:
            record.placed, record.kind = rel_id, kind
        if advisor_id is not None:
            record.advisor_ids.append(advisor_id)
        if in_area:
            record.in_area = True
    return records


def _people_without_record(viewer: Viewer, area: str) -> Select:
    """The people listed as alumni without a department graduation (:func:`_covered`)."""
    return (
        select(
            m.Person.id,
            m.Person.slug,
            m.Person.full_name,
            m.Person.sort_name,
            m.Person.native_name,
            _in_area(area, m.Person.id).label("in_area"),
        )
        .where(listed_alumni_people(viewer), m.Person.id.not_in(_covered(viewer)))
        .order_by(m.Person.sort_name, m.Person.id)
    )


def _light_records(
    session: Session, viewer: Viewer, area: str, full: bool = False
) -> tuple[list[_Record], dict[int, Any]]:
    """Every alumnus ``viewer`` may see, as light records in the order they were merged
    (graduations by position, then the people listed as alumni without one, by sort name),
    and the graduations' rows by id (with ``full``, everything an alumnus shows)."""
    # Read on the session's connection, as Core rows: the ORM's result layer would only
    # wrap them. A page merges them a thousand at a time (fetched row by row, the driver
    # costs three times more; kept all at once, thousands of rows make the garbage
    # collector run through the whole process more often); the CSV keeps its full rows.
    result = session.connection().execute(_graduations(viewer, area, full))
    rows = _tuples(result) if full else chain.from_iterable(result.partitions(1000))
    records = list(_merge(rows).values())
    by_id = {row[0]: row for row in rows} if full else {}
    for record in records:
        if full and record.name is None:  # the full rows have the student's names
            row = by_id[record.ids[0]]
            record.name = row.student_full_name
            record.sort_name, record.native_name = row.student_sort_name, row.student_native_name
    people = session.execute(_people_without_record(viewer, area))
    for person in people:
        records.append(
            _Record(
                [],
                person.id,
                person.full_name,
                None,
                in_area=bool(person.in_area),
                sort_name=person.sort_name,
                native_name=person.native_name,
                slug=person.slug,
            )
        )
    return records, by_id


def _person_refs(session: Session, *where: Any) -> dict[int, PersonRef]:
    """The people ``where`` selects, as references (five plain columns each)."""
    person = m.Person
    stmt = select(person.id, person.slug, person.full_name, person.sort_name, person.native_name)
    return {row.id: PersonRef(*row) for row in session.execute(stmt.where(*where))}


@dataclass
class _Kept:
    """Every light record, those the filters keep, the advisor filtered by (if the viewer
    may see them) and the graduations' rows."""

    everyone: list[_Record]
    kept: list[_Record]
    advisor: PersonRef | None
    rows: dict[int, Any]


def _kept(session: Session, viewer: Viewer, filters: AlumniFilters, full: bool = False) -> _Kept:
    everyone, rows = _light_records(session, viewer, filters.area, full)
    advisor = None
    if filters.advisor:
        found = _person_refs(
            session, m.Person.slug == filters.advisor, person_clause(viewer, m.Person)
        )
        advisor = next(iter(found.values()), None)
    advisor_id = advisor.id if advisor else None
    if filters.active:
        kept = [r for r in everyone if filters.matches(r, advisor_id)]
    else:
        kept = list(everyone)
    return _Kept(everyone, kept, advisor, rows)


def _named(session: Session, records: list[_Record]) -> None:
    """Give the records of students with a profile their names (one statement)."""
    ids = {r.student_id for r in records if r.name is None}
    if not ids:
        return
    person = m.Person
    names = session.connection().execute(
        select(person.id, person.full_name, person.sort_name, person.native_name).where(
            person.id.in_(ids)
        )
    )
    found = {row[0]: row for row in names}
    for record in records:
        if record.name is None:
            _, record.name, record.sort_name, record.native_name = found[record.student_id]


def _ordered(
    session: Session, records: list[_Record], start: int = 0, stop: int | None = None
) -> list[_Record]:
    """``records`` most recent first, then by name in the reader's order (ties as merged).
    Only the years that reach into ``records[start:stop]`` are named and sorted by name: a
    page does not pay for the names of every year."""
    locale = current_locale()
    by_year: dict[int, list[_Record]] = defaultdict(list)
    for record in records:
        by_year[record.year or 0].append(record)
    groups, begin = [], 0
    for year in sorted(by_year, reverse=True):
        group = by_year[year]
        end = begin + len(group)
        groups.append((group, end > start and (stop is None or begin < stop)))
        begin = end
    _named(session, [r for group, shown in groups if shown for r in group])
    ordered: list[_Record] = []
    for group, shown in groups:
        if shown:
            group.sort(key=lambda r: r.name_key(locale))
        ordered.extend(group)
    return ordered


# ----------------------------------------------------------------------------- full records


def _full_rows(session: Session, viewer: Viewer, ids: list[int]) -> dict[int, Any]:
    """The full rows of the graduations ``ids``, read by id (the read rule is applied again,
    so that no id can show more than the rule lets through)."""
    if not ids:
        return {}
    stmt = (
        select(*_light_columns(""), *_full_columns())
        .outerjoin(_STUDENT, _STUDENT.id == _REL.student_id)
        .outerjoin(_ADVISOR, _ADVISOR.id == _REL.advisor_id)
        .where(_REL.id.in_(ids), listed_graduations(viewer, _REL))
    )
    return {row.id: row for row in _tuples(session.connection().execute(stmt))}


def _alumnus(record: _Record, rows: Mapping[int, Any], slugs: Mapping[int, str]) -> Alumnus:
    """The alumnus of a light record, from the full rows of its graduations."""
    person = None
    if record.student_id is not None:
        person = PersonRef(
            record.student_id,
            slugs[record.student_id],
            record.name,
            record.sort_name,
            record.native_name,
        )
    alumnus = Alumnus(record.name, person, record.degree, record.year)
    for rel_id in record.ids:
        row = rows[rel_id]
        alumnus.thesis = alumnus.thesis or row.thesis
        advisor = None
        if row.advisor_id is not None:
            advisor = PersonRef(
                row.advisor_id,
                row.advisor_slug,
                row.advisor_full_name,
                row.advisor_sort_name,
                row.advisor_native_name,
            )
        name = advisor.full_name if advisor else (row.advisor_name or "")
        alumnus.advisors.append(Advisor(name, advisor, row.role))
    if record.placed is not None:
        row = rows[record.placed]
        alumnus.placement = row.placement
        alumnus.placement_organisation = row.placement_organisation
        alumnus.placement_kind = row.placement_kind
        alumnus.placement_year = row.placement_year
    return alumnus


def _alumni(records: list[_Record], rows: Mapping[int, Any]) -> list[Alumnus]:
    """The alumni of ``records`` from their graduations' full ``rows``."""
    slugs = {row.student_id: row.student_slug for row in rows.values() if row.student_id}
    for record in records:
        if record.slug is not None:
            slugs[record.student_id] = record.slug
    return [_alumnus(record, rows, slugs) for record in records]


# ----------------------------------------------------------------------------- the page


@dataclass
class AlumniChoices:
    """What the filters offer: every year and degree with alumni, the areas of the people
    concerned, and as advisors those of the alumni shown and the one filtered by."""

    years: list[int]
    advisors: list[PersonRef]
    degrees: list[str]
    areas: list[m.ResearchArea]


def _areas(session: Session, viewer: Viewer) -> list[m.ResearchArea]:
    """The research areas (and the areas above them) of the people the alumni records
    concern: their students and their department advisors."""
    listed = (listed_graduations(viewer, _OWN), department_graduation(_OWN))
    named = or_(_OWN.student_id.isnot(None), func.coalesce(_OWN.student_name, "") != "")
    people = union(
        select(_OWN.advisor_id.label("id")).where(*listed, named),
        select(_OWN.student_id).where(*listed, named),
        select(m.Person.id).where(listed_alumni_people(viewer)),
    ).subquery()
    within = (
        select(AREA_TREE.c.area_id)
        .join(m.person_areas, m.person_areas.c.area_id == AREA_TREE.c.sub_id)
        .where(m.person_areas.c.person_id.in_(select(people.c.id)))
    )
    stmt = select(m.ResearchArea).where(m.ResearchArea.id.in_(within))
    return list(session.scalars(stmt.order_by(m.ResearchArea.name)))


def _choices(
    session: Session, viewer: Viewer, kept: _Kept, advisors: Iterable[PersonRef]
) -> AlumniChoices:
    locale = current_locale()
    offered = {p.id: p for p in advisors}
    if kept.advisor is not None:
        offered.setdefault(kept.advisor.id, kept.advisor)
    degrees = {r.degree for r in kept.everyone}
    return AlumniChoices(
        years=sorted({r.year for r in kept.everyone if r.year}, reverse=True),
        advisors=sorted(
            offered.values(),
            key=lambda p: (name_sort_key(p.sort_name or p.full_name, p.native_name, locale), p.id),
        ),
        degrees=[d for d in m.values(m.DEGREES) if d in degrees],
        areas=_areas(session, viewer),
    )


@dataclass
class AlumniPage:
    page: Page
    #: None when not asked for (the API).
    choices: AlumniChoices | None


def alumni_page(
    session: Session,
    viewer: Viewer,
    filters: AlumniFilters,
    page_size: int,
    *,
    choices: bool = True,
    last_if_past: bool = True,
) -> AlumniPage:
    """A page of past students (:func:`listed_graduations`, :func:`department_graduation`,
    :func:`listed_alumni_people`): graduated under a department advisor (every advisor of
    theirs shown, inside or outside the department), and people listed as alumni without
    such a record; most recent first, then by name. A page number past the last shows the
    last page (unless not ``last_if_past``)."""
    kept = _kept(session, viewer, filters)
    number = filters.page
    if last_if_past:
        number = min(number, max(1, math.ceil(len(kept.kept) / page_size)))
    start = (number - 1) * page_size
    shown = _ordered(session, kept.kept, start, start + page_size)[start : start + page_size]
    items = _alumni(shown, _full_rows(session, viewer, [i for r in shown for i in r.ids]))
    page = Page(items, number, page_size, len(kept.kept))
    if not choices:
        return AlumniPage(page, None)
    advisors = [a.person for item in items for a in item.advisors if a.person is not None]
    return AlumniPage(page, _choices(session, viewer, kept, advisors))


def alumni_rows(session: Session, viewer: Viewer, filters: AlumniFilters) -> list[Alumnus]:
    """Every alumnus the filters keep, in the page's order (the CSV): one statement reads
    the full rows of every graduation; no ORM object is built."""
    kept = _kept(session, viewer, filters, full=True)
    return _alumni(_ordered(session, kept.kept), kept.rows)


# ----------------------------------------------------------------------------- the summary


@dataclass
class AlumniSummary:
    """The counts of the alumni summary (and its chart, table, CSV and API answer)."""

    total: int
    #: (year, {kind or UNKNOWN_KIND: alumni}) for every year from the first to the last.
    years: list[tuple[int, dict[str, int]]]
    #: Alumni with no year of graduation.
    no_year: int
    degrees: list[tuple[str | None, int]]
    #: (kind or UNKNOWN_KIND, alumni), in PLACEMENT_KINDS order, unknown last.
    kinds: list[tuple[str, int]]
    #: (department advisor, alumni), most first, then by sort name; an alumnus counts once
    #: for each advisor.
    advisors: list[tuple[PersonRef, int]]
    #: The page of ``advisors`` the summary page shows, and what its filters offer (its
    #: advisors as choices); None when not asked for (the API).
    advisor_page: Page | None = None
    choices: AlumniChoices | None = None

    @property
    def kinds_present(self) -> list[str]:
        return [kind for kind, count in self.kinds if count]


def alumni_summary(
    session: Session,
    viewer: Viewer,
    filters: AlumniFilters,
    advisor_page_size: int | None = None,
) -> AlumniSummary:
    """Counts per year (split by kind of placement), degree, kind and advisor of the alumni
    the filters keep, counted on the light records. With ``advisor_page_size``, also the
    page of advisors the summary page shows (``filters.advisors``) and its choices."""
    kept = _kept(session, viewer, filters)
    per_year: dict[int, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    degrees: dict[str | None, int] = defaultdict(int)
    kinds: dict[str, int] = defaultdict(int)
    counted: dict[int, int] = defaultdict(int)
    for record in kept.kept:
        kind = record.kind or UNKNOWN_KIND
        if record.year:
            per_year[record.year][kind] += 1
        degrees[record.degree] += 1
        kinds[kind] += 1
        for advisor_id in set(record.advisor_ids):
            counted[advisor_id] += 1
    # Everyone counted is the department advisor of a listed graduation: read them so.
    advisor_ids = select(_OWN.advisor_id).where(
        listed_graduations(viewer, _OWN), department_graduation(_OWN)
    )
    people = _person_refs(session, m.Person.id.in_(advisor_ids))
    advisors = sorted(
        ((people[i], n) for i, n in counted.items() if i in people),
        key=lambda pair: (-pair[1], pair[0].sort_name.casefold(), pair[0].id),
    )
    years = (
        [
            (y, {k: per_year[y][k] for k in KIND_ORDER if per_year.get(y, {}).get(k)})
            for y in range(min(per_year), max(per_year) + 1)
        ]
        if per_year
        else []
    )
    summary = AlumniSummary(
        total=len(kept.kept),
        years=years,
        no_year=sum(1 for r in kept.kept if not r.year),
        degrees=[(d, degrees[d]) for d in (*m.values(m.DEGREES), None) if degrees.get(d)],
        kinds=[(k, kinds[k]) for k in KIND_ORDER if kinds.get(k)],
        advisors=advisors,
    )
    if advisor_page_size:
        number = getattr(filters, "advisors", 1)
        summary.advisor_page = page_of(advisors, number, advisor_page_size)
        shown = (person for person, _ in summary.advisor_page.items)
        summary.choices = _choices(session, viewer, kept, shown)
    return summary
