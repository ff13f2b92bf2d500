"""The alumni outputs: the alumni page, its summary, the CSV and the API's alumni and summary,
all built from one record per past student and degree.

Who is an alumnus is not decided here but by the read rules of
:mod:`directory.services.access` (:func:`listed_graduations`, :func:`department_graduation`,
:func:`listed_alumni_people`): someone who graduated under a department advisor (their
advisors outside the department shown on the same record), and people listed as alumni
without such a record.

What it costs. A record merges the graduations of one student for one degree (the latest
year, the first placement, every advisor); a student is their profile or their typed name
case-folded, and records are ordered by year and then by name in the reader's order (pinyin
in Chinese). Both are stored (a profile's ``name_key``, a typed name's ``student_fold`` and
``student_key``, kept by :mod:`directory.services.write_gates`), so the database merges the records
(:func:`_records`), counts them (:func:`_record_counts`: the pages' totals, the summary, the
filters' choices), ranks the advisors and pages both. Python reads one page of records and
the full rows of their graduations (:func:`_full_rows`); the CSV reads every record and every
graduation, in two statements. Nothing builds an ORM object per alumnus, the statements are
as many for ten alumni as for ten thousand, and a page reads as many rows.

The alumni summary (counts per year, degree, kind of placement and advisor) is
:mod:`directory.services.alumni_counts`, from the same statements (:func:`counted`).
"""

from __future__ import annotations

import math
from collections import defaultdict, namedtuple
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, Self

from sqlalchemy import (
    CTE,
    ColumnElement,
    Integer,
    Select,
    String,
    Subquery,
    and_,
    bindparam,
    case,
    cast,
    false,
    func,
    literal,
    null,
    or_,
    select,
    true,
    union,
    union_all,
)
from sqlalchemy.orm import Session, aliased

from directory import models as m
from directory.formats.names import name_key_column, name_sort_key
from directory.i18n import current_locale
from directory.models.people import BINARY_TEXT
from directory.services.access import (
    AREA_TREE,
    department_graduation,
    listed_alumni_people,
    listed_graduations,
    person_clause,
    working_in,
)
from directory.services.identity import Viewer
from directory.services.paging import Page
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


# ----------------------------------------------------------------------------- the records in SQL


def _placed(rel: Any) -> ColumnElement:
    """Whether a graduation has a placement (text or any part of its structure)."""
    return or_(
        func.coalesce(rel.placement, "") != "",
        func.coalesce(rel.placement_organisation, "") != "",
        func.coalesce(rel.placement_kind, "") != "",
    )


def _flag(condition: ColumnElement) -> ColumnElement:
    """``condition`` as 1 or 0: a column both databases take the maximum of."""
    return case((condition, 1), else_=0)


def _in_area(people: Any, *columns: Any) -> ColumnElement:
    """1 if any of the person id ``columns`` is one of ``people`` (those working in the area
    filtered by: :func:`working_in`; None: no area filter), else 0. A column of the records,
    so that the area filter needs no list of ids in Python."""
    if people is None:
        return literal(0)
    return _flag(or_(*(column.in_(people) for column in columns)))


def _student(rel: Any) -> ColumnElement:
    """Who a graduation's student is, as one text: their profile ("#" and its id), or their
    typed name case-folded ("~" and the stored fold)."""
    return case(
        (rel.student_id.isnot(None), literal("#", String) + cast(rel.student_id, String)),
        else_=literal("~", String) + rel.student_fold,
    )


def _merged_graduations(viewer: Viewer, rel: Any = _REL) -> tuple[ColumnElement, ...]:
    """The graduations the records are merged from: those ``viewer`` may see
    (:func:`listed_graduations`) that name their student, under a department advisor
    (:func:`department_graduation`) or of a student with a profile (their outside advisors:
    the merge keeps them only for a record the student has in the department)."""
    return (
        listed_graduations(viewer, rel),
        or_(department_graduation(rel), rel.student_id.isnot(None)),
        or_(rel.student_id.isnot(None), func.coalesce(rel.student_fold, "") != ""),
    )


def _merge_order(rel: Any = _REL) -> tuple[ColumnElement, ...]:
    """The order graduations merge in: the department ones first, each group by position."""
    return (case((department_graduation(rel), 0), else_=1), rel.position, rel.id)


def _graduations(viewer: Viewer, in_area: Any) -> CTE:
    """Every graduation a record is merged from (:func:`_merged_graduations`), with what the
    records are merged, filtered and ordered by (``in_area``: the people of the area
    filtered by, or None). Numbered in merge order (``rn``); ``record`` is the number of the
    first graduation of its student and degree (the record it merges into); ``first_name``
    and ``first_key`` that graduation's typed name and its order; ``placed_id`` and
    ``placed_kind`` those of the first graduation with a placement (or of the first, if none
    has one). Window functions, not joins: each is computed in one pass over the rows."""
    numbered = (
        select(
            _REL.id,
            _REL.advisor_id,
            _REL.student_id,
            _student(_REL).label("student"),
            _REL.degree,
            func.nullif(_REL.end_year, 0).label("year"),
            _REL.placement_kind.label("kind"),
            _flag(_placed(_REL)).label("placed"),
            _in_area(in_area, _REL.advisor_id, _REL.student_id).label("in_area"),
            _REL.student_name,
            _REL.student_key,
            func.row_number().over(order_by=_merge_order()).label("rn"),
        )
        .where(*_merged_graduations(viewer))
        .subquery("numbered")
    )
    n = numbered.c
    same_record = (n.student, n.degree)
    merge_order = {"partition_by": same_record, "order_by": n.rn}
    placed_first = {"partition_by": same_record, "order_by": (n.placed.desc(), n.rn)}
    return select(
        n.id,
        n.advisor_id,
        n.student_id,
        n.student,
        n.degree,
        n.year,
        n.placed,
        n.in_area,
        n.rn,
        func.min(n.rn).over(partition_by=same_record).label("record"),
        func.first_value(n.student_name).over(**merge_order).label("first_name"),
        func.first_value(n.student_key).over(**merge_order).label("first_key"),
        func.first_value(n.id).over(**placed_first).label("placed_id"),
        func.first_value(n.kind).over(**placed_first).label("placed_kind"),
    ).cte("alumni_graduations")


@dataclass(frozen=True)
class _Records:
    """The statements' parts: ``graduations`` (:func:`_graduations`) and ``records``, one
    row per alumnus (:func:`_records`), with ``kept`` the filters' clause on them."""

    graduations: CTE
    records: Subquery
    kept: ColumnElement


def _records(viewer: Viewer, filters: AlumniFilters, advisor: PersonRef | None) -> _Records:
    """One row per alumnus ``viewer`` may see: per student and degree, the graduations of
    :func:`_graduations` merged (a record exists if one is under a department advisor): the
    latest year, the first placement in merge order, whether any side works in the area
    filtered by and whether any advisor is the one filtered by; then the people listed as
    alumni without a department graduation (:func:`listed_alumni_people`). ``first`` is the
    record's first graduation in merge order (None for the people without one)."""
    in_area = working_in(filters.area) if filters.area else None  # one CTE for both parts
    g = _graduations(viewer, in_area)
    with_advisor = literal(0)
    if advisor is not None:
        with_advisor = func.max(_flag(g.c.advisor_id == advisor.id))
    has_placement = func.max(g.c.placed) == 1
    with_record = (
        select(
            func.max(g.c.student).label("student"),
            func.max(g.c.student_id).label("student_id"),
            func.max(g.c.degree).label("degree"),
            func.max(g.c.year).label("year"),
            g.c.record.label("first"),
            case((has_placement, func.max(g.c.placed_id))).label("placed_id"),
            case((has_placement, func.max(g.c.placed_kind))).label("kind"),
            func.max(g.c.in_area).label("in_area"),
            with_advisor.label("with_advisor"),
            func.max(g.c.first_name).label("typed_name"),
            func.max(g.c.first_key).label("typed_key"),
        )
        .group_by(g.c.record)
        .having(func.count(g.c.advisor_id) > 0)
    )
    covered = select(g.c.student_id).where(g.c.advisor_id.isnot(None), g.c.student_id.isnot(None))
    without_record = select(
        cast(null(), String),
        m.Person.id,
        cast(null(), String),
        cast(null(), Integer),
        cast(null(), Integer),
        cast(null(), Integer),
        cast(null(), String),
        _in_area(in_area, m.Person.id),
        literal(0),
        cast(null(), String),
        cast(null(), BINARY_TEXT),
    ).where(listed_alumni_people(viewer), m.Person.id.not_in(covered))
    records = union_all(with_record, without_record).cte("alumni_records")
    return _Records(g, records, _kept_clause(records, filters, advisor))


def _kept_clause(
    records: Subquery, filters: AlumniFilters, advisor: PersonRef | None
) -> ColumnElement:
    """The records every filter keeps; the advisor filtered by, if the viewer may see them
    (None: nobody matches an advisor filter)."""
    c = records.c
    clauses: list[ColumnElement] = []
    if filters.year is not None:
        clauses.append(c.year == filters.year)
    if filters.year_from is not None:
        clauses.append(c.year >= filters.year_from)
    if filters.year_to is not None:
        clauses.append(c.year <= filters.year_to)
    if filters.degree:
        clauses.append(c.degree == filters.degree)
    if filters.advisor:
        clauses.append(c.with_advisor == 1 if advisor is not None else false())
    if filters.kind:
        clauses.append(func.coalesce(c.kind, UNKNOWN_KIND) == filters.kind)
    if filters.area:
        clauses.append(c.in_area == 1)
    return and_(true(), *clauses)


def _record_order(records: Subquery, person: Any, locale: str) -> tuple[ColumnElement, ...]:
    """Most recent first, then by name in the reader's order (a profile's stored name order,
    a typed name's), then as merged, the people without a graduation after the records."""
    c = records.c
    return (
        func.coalesce(c.year, 0).desc(),
        func.coalesce(getattr(person, name_key_column(locale)), c.typed_key),
        case((c.first.is_(None), 1), else_=0),
        c.first,
        person.sort_name,
        person.id,
    )


def _records_page(parts: _Records, locale: str) -> Select:
    """The records the filters keep, in the pages' order, with their students' names."""
    c = parts.records.c
    return (
        select(
            c.student,
            c.student_id,
            c.degree,
            c.year,
            c.placed_id,
            c.typed_name,
            _STUDENT.slug,
            _STUDENT.full_name,
            _STUDENT.sort_name,
            _STUDENT.native_name,
        )
        .select_from(parts.records)
        .outerjoin(_STUDENT, _STUDENT.id == c.student_id)
        .where(parts.kept)
        .order_by(*_record_order(parts.records, _STUDENT, locale))
    )


def _record_counts(parts: _Records) -> Select:
    """Per year, degree and kind of placement: how many records there are, and how many the
    filters keep (what the pages count, the summary's figures, the filters' choices)."""
    c = parts.records.c
    kind = func.coalesce(c.kind, UNKNOWN_KIND)
    return select(
        c.year,
        c.degree,
        kind.label("kind"),
        func.count().label("everyone"),
        func.sum(_flag(parts.kept)).label("kept"),
    ).group_by(c.year, c.degree, kind)


def _advisor_counts(parts: _Records) -> Subquery:
    """Per department advisor: the records kept with a graduation under them."""
    g, c = parts.graduations, parts.records.c
    # The filters' clause as a flag: compared column by column, SQLite would build an index
    # of the records on the filtered columns for each statement, to read them once.
    kept = select(c.first).where(_flag(parts.kept) == 1, c.first.isnot(None))
    return (
        select(g.c.advisor_id, func.count(func.distinct(g.c.record)).label("alumni"))
        .where(g.c.advisor_id.isnot(None), g.c.record.in_(kept))
        .group_by(g.c.advisor_id)
        .subquery("advisor_counts")
    )


def _advisors_ranked(parts: _Records, locale: str) -> Select:
    """The department advisors of the records kept, with their counts: most first, then in
    the reader's name order."""
    counts = _advisor_counts(parts)
    person = m.Person
    return (
        select(
            person.id,
            person.slug,
            person.full_name,
            person.sort_name,
            person.native_name,
            counts.c.alumni,
        )
        .join(counts, counts.c.advisor_id == person.id)
        .order_by(counts.c.alumni.desc(), getattr(person, name_key_column(locale)), person.id)
    )


@lru_cache(maxsize=64)
def _full_rows(viewer: Viewer, every: bool) -> Select:
    """Everything an alumnus shows of each graduation, in merge order: of every record
    (``every``: the CSV), or of the students given as parameters (``ids``, the profiles;
    ``folds``, the typed names: a page's records). The read rule is applied again, so that no
    record can show more than the rule lets through. Built once per viewer (see
    :func:`_statements`)."""
    stmt = (
        select(
            _REL.id,
            _REL.advisor_id,
            _student(_REL).label("student"),
            _REL.degree,
            _REL.advisor_name,
            _REL.role,
            _REL.thesis,
            _REL.placement,
            _REL.placement_organisation,
            _REL.placement_kind,
            _REL.placement_year,
            _ADVISOR.slug.label("advisor_slug"),
            _ADVISOR.full_name.label("advisor_full_name"),
            _ADVISOR.sort_name.label("advisor_sort_name"),
            _ADVISOR.native_name.label("advisor_native_name"),
        )
        .outerjoin(_ADVISOR, _ADVISOR.id == _REL.advisor_id)
        .where(*_merged_graduations(viewer))
        .order_by(*_merge_order())
    )
    if every:
        return stmt
    return stmt.where(
        or_(
            _REL.student_id.in_(bindparam("ids", expanding=True)),
            and_(
                _REL.student_id.is_(None), _REL.student_fold.in_(bindparam("folds", expanding=True))
            ),
        )
    )


#: The filters that shape the records' statements (the others page them).
_SHAPING = ("year", "year_from", "year_to", "advisor", "degree", "kind", "area")


@dataclass(frozen=True, eq=False)
class Statements:
    """The statements of one viewer, set of filters and language (:func:`_statements`)."""

    #: The records kept, in the pages' order (:func:`_records_page`), to be paged.
    records: Select
    #: :func:`_record_counts`.
    counts: Select
    #: The advisors ranked (:func:`_advisors_ranked`); the same with how many there are on
    #: each row (``advisors_total``), to be paged; and how many there are.
    advisors: Select
    advisors_counted: Select
    advisor_total: Select


@lru_cache(maxsize=64)
def _cached_statements(
    viewer: Viewer, shape: tuple[Any, ...], advisor: PersonRef | None, locale: str
) -> Statements:
    parts = _records(viewer, AlumniFilters(**dict(zip(_SHAPING, shape, strict=True))), advisor)
    ranked = _advisors_ranked(parts, locale)
    return Statements(
        records=_records_page(parts, locale),
        counts=_record_counts(parts),
        advisors=ranked,
        advisors_counted=ranked.add_columns(func.count().over().label("advisors_total")),
        advisor_total=select(func.count()).select_from(ranked.subquery()),
    )


def _statements(viewer: Viewer, filters: AlumniFilters, advisor: PersonRef | None) -> Statements:
    """The records' statements for ``viewer``, the filters and the reader's language, built
    once and kept (the last 64): a statement of a few hundred SQL elements costs more to
    build than the database takes to run it. Their values are bound parameters of the key
    (viewer, filters, advisor, language), so a kept statement is the one it would build."""
    shape = tuple(getattr(filters, name) for name in _SHAPING)
    return _cached_statements(viewer, shape, advisor, current_locale())


@lru_cache(maxsize=8)
def _row_type(keys: tuple[str, ...]) -> type:
    return namedtuple("AlumniRow", keys)  # its fields are the select's columns


def _tuples(result: Any) -> list[Any]:
    """The rows of ``result`` as named tuples: read by name thousands of times (the CSV), a
    named tuple's field costs a fraction of a ``Row``'s."""
    make = _row_type(tuple(result.keys()))._make
    return [make(row) for row in result.all()]  # fetched at once: row by row costs more


def _alumni(session: Session, viewer: Viewer, records: list[Any], every: bool) -> list[Alumnus]:
    """The alumni of ``records`` (rows of :func:`_records_page`), from the full rows of their
    graduations (read for these records only, or with ``every`` for every record)."""
    connection = session.connection()
    graduations: dict[tuple[str, str], list[Any]] = defaultdict(list)
    if records:
        students = {
            "ids": [r.student_id for r in records if r.student_id is not None],
            "folds": [r.student[1:] for r in records if r.student_id is None],
        }
        result = connection.execute(_full_rows(viewer, every), {} if every else students)
        for row in _tuples(result):
            graduations[row.student, row.degree].append(row)
    return [_alumnus(record, graduations) for record in records]


def _alumnus(record: Any, graduations: Mapping[tuple[str, str], list[Any]]) -> Alumnus:
    """The alumnus of a record, from the full rows of its graduations."""
    person = None
    if record.student_id is not None:
        person = PersonRef(
            record.student_id, record.slug, record.full_name, record.sort_name, record.native_name
        )
    name = record.typed_name if person is None else person.full_name
    alumnus = Alumnus(name, person, record.degree, record.year)
    for row in graduations.get((record.student, record.degree), ()):
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
        advisor_name = advisor.full_name if advisor else (row.advisor_name or "")
        alumnus.advisors.append(Advisor(advisor_name, advisor, row.role))
        if row.id == record.placed_id:
            alumnus.placement = row.placement
            alumnus.placement_organisation = row.placement_organisation
            alumnus.placement_kind = row.placement_kind
            alumnus.placement_year = row.placement_year
    return alumnus


def _person_refs(session: Session, *where: Any) -> dict[int, PersonRef]:
    """The people ``where`` selects, as references (five plain columns each)."""
    person = m.Person
    stmt = select(person.id, person.slug, person.full_name, person.sort_name, person.native_name)
    return {row.id: PersonRef(*row) for row in session.execute(stmt.where(*where))}


def _advisor_filtered_by(
    session: Session, viewer: Viewer, filters: AlumniFilters
) -> PersonRef | None:
    """The advisor the filters name, if ``viewer`` may see their profile."""
    if not filters.advisor:
        return None
    found = _person_refs(session, m.Person.slug == filters.advisor, person_clause(viewer, m.Person))
    return next(iter(found.values()), None)


@dataclass
class Counts:
    """The rows of :func:`_record_counts`, and the advisor filtered by."""

    rows: list[Any]
    advisor: PersonRef | None

    @property
    def kept(self) -> int:
        return sum(row.kept for row in self.rows)


def counted(session: Session, viewer: Viewer, filters: AlumniFilters) -> tuple[Statements, Counts]:
    """The statements for ``filters`` and the record counts they give (one statement): what
    the page and the summary (:mod:`directory.services.alumni_counts`) start from."""
    advisor = _advisor_filtered_by(session, viewer, filters)
    statements = _statements(viewer, filters, advisor)
    rows = session.connection().execute(statements.counts).all()
    return statements, Counts(rows, advisor)


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


def filter_choices(
    session: Session, viewer: Viewer, counts: Counts, advisors: Iterable[PersonRef]
) -> AlumniChoices:
    """What the filters of the page or the summary offer, its ``advisors`` shown among them."""
    locale = current_locale()
    offered = {p.id: p for p in advisors}
    if counts.advisor is not None:
        offered.setdefault(counts.advisor.id, counts.advisor)
    degrees = {row.degree for row in counts.rows}
    return AlumniChoices(
        years=sorted({row.year for row in counts.rows if row.year}, reverse=True),
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
    statements, counts = counted(session, viewer, filters)
    total = counts.kept
    number = filters.page
    if last_if_past:
        number = min(number, max(1, math.ceil(total / page_size)))
    stmt = statements.records.limit(page_size).offset((number - 1) * page_size)
    shown = _tuples(session.connection().execute(stmt)) if total else []
    items = _alumni(session, viewer, shown, every=False)
    page = Page(items, number, page_size, total)
    if not choices:
        return AlumniPage(page, None)
    advisors = [a.person for item in items for a in item.advisors if a.person is not None]
    return AlumniPage(page, filter_choices(session, viewer, counts, advisors))


def alumni_rows(session: Session, viewer: Viewer, filters: AlumniFilters) -> list[Alumnus]:
    """Every alumnus the filters keep, in the page's order (the CSV): one statement reads
    the records, one the full rows of every graduation; no ORM object is built."""
    advisor = _advisor_filtered_by(session, viewer, filters)
    stmt = _statements(viewer, filters, advisor).records
    records = _tuples(session.connection().execute(stmt))
    return _alumni(session, viewer, records, every=True)
