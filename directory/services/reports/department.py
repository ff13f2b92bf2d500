"""The department's activity report for a period: totals and the same totals a year before,
a row per person, papers per venue and year (venues grouped into the department's areas,
``DIRECTORY_VENUE_AREAS``), the students who graduated and where they went, funding, and what
the report cannot count. Counted as ``viewer`` may see (an admin all; the chair what a member
sees), by the clauses of :mod:`.counting`.

Totals count each thing once: a paper two members wrote is one paper of the department, and
one in each of their rows."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from sqlalchemy import ColumnElement, and_, bindparam, case, func, or_, select
from sqlalchemy.orm import Session, aliased

from directory import models as m
from directory.services.access import (
    department_graduation,
    listed_graduations,
    listed_people,
    listed_publications,
    publication_clause,
    shown_advising,
    visibility_clause,
)
from directory.services.department.publications import venue_name
from directory.services.identity import Viewer
from directory.services.reports import counting, memo
from directory.services.reports.memo import viewer_key
from directory.services.reports.periods import Period
from directory.services.reports.person import entry_clauses
from directory.services.reports.quality import (
    PAPER_KINDS,
    Problems,
    department_problems,
    paper_problem_of,
)

#: The measures of the totals and the per-person rows, in the report's order.
MEASURES = ("published", "accepted", "in_progress", "students_current", "students_graduated",
            "teaching", "service", "funding", "awards", "news", "recruiting")  # fmt: skip
#: Calendar years the venue table covers, ending with the period's last.
VENUE_YEARS = 5
#: Venues the venue table names (the most papers first); the rest are summed as "other".
VENUE_ROWS = 25
#: What a venue in no configured area is counted as.
OTHER_AREA = "Other"


#: Aliases made once: a new alias builds its own copy of every column of the table when first
#: used (some 2 ms each, measured), the same one serves every statement.
_COUNTED_PAPER = aliased(m.Publication, name="report_paper")
_GRADUATE = aliased(m.Person, name="grad_student")
_ADVISOR = aliased(m.Person, name="grad_adv")

#: The period and the year before as bind parameters, and the first year of papers read:
#: each statement is built once for a viewer's read rules (:func:`_statements`), and a request
#: binds its periods' values (:func:`_values`). Building the report's statements took some
#: 20 ms of SQLAlchemy a request (measured), their values nothing.
_NOW, _BEFORE = counting.BoundPeriod("now"), counting.BoundPeriod("before")
_FROM_YEAR = bindparam("from_year")


@dataclass
class PersonRow:
    id: int
    slug: str
    name: str
    role: str
    counts: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Graduate:
    name: str
    slug: str | None
    degree: str
    year: int | None
    advisor: str
    placement: str | None
    kind: str | None


@dataclass
class DepartmentReport:
    period: Period
    previous: Period
    totals: dict[str, int]
    previous_totals: dict[str, int]
    #: Published papers of the period by type.
    types: list[tuple[str, int]]
    role: str
    people: list[PersonRow]
    years: list[int]
    #: (venue, {year: papers}) for the most published venues, and every other one summed.
    venues: list[tuple[str, dict[int, int]]]
    other_venues: dict[int, int]
    #: (area, {year: papers}) by the department's grouping of venues.
    areas: list[tuple[str, dict[int, int]]]
    graduates: list[Graduate]
    placements: list[tuple[str, int]]
    funders: list[tuple[str, int]]
    problems: Problems

    def change(self, measure: str) -> int:
        return self.totals[measure] - self.previous_totals[measure]


def _members(viewer: Viewer) -> Any:
    return select(m.Person.id).where(listed_people(viewer)).correlate(None)


@dataclass(frozen=True)
class Statements:
    """The report's statements for one viewer's read rules and role, their periods bound by
    :data:`_NOW`, :data:`_BEFORE` and :data:`_FROM_YEAR`."""

    #: The listed papers from ``from_year`` on, counted by (year, month, status, type, venue).
    paper_rows: Any
    #: Per entry kind: (owner, entries of the period, of the year before).
    entries: dict[str, Any]
    #: Current students of the period and of the year before.
    current: Any
    #: Graduated students of the period (bound as ``now``, also for the year before).
    graduated: Any
    people: Any
    #: (person, paper group, papers) of the period.
    groups: Any
    #: "current"/"graduated" → (advisor, students) of the period.
    advised: dict[str, Any]
    graduates: Any
    funders: Any


def _statements(viewer: Viewer, role: str) -> Statements:
    """The report's statements for ``viewer``'s read rules (:func:`.memo.viewer_key`, what
    decides them) and ``role``: built on first use, kept for the next requests."""
    return memo.statements(("department", *viewer_key(viewer), role), lambda: _build(viewer, role))


def _values(period: Period, previous: Period, first_year: int) -> dict[str, Any]:
    return _NOW.values(period) | _BEFORE.values(previous) | {"from_year": first_year}


def _build(viewer: Viewer, role: str) -> Statements:
    pub, rel = m.Publication, m.AdvisingRelation
    columns = (pub.year, pub.month, pub.status, pub.type, pub.venue_short)
    paper_rows = (
        select(*columns, func.count().label("papers"))
        .where(counting.papers_from(_FROM_YEAR, pub), listed_publications(viewer, pub))
        .group_by(*columns)
    )
    # Current students of the year before are among the period's (begun by an earlier end):
    # one statement counts both. Graduates of the two periods are apart (an OR of the two
    # costs SQLite its index): the same statement, bound to each period.
    earlier = counting.advising_current_in(_BEFORE, rel)
    current = select(_students_counted(rel), _students_counted(rel, earlier))
    person = m.Person
    where = [listed_people(viewer)] + ([person.role == role] if role else [])
    people = (select(person.id, person.slug, person.full_name, person.role).where(*where)
              .order_by(person.sort_name, person.id))  # fmt: skip
    return Statements(
        paper_rows=paper_rows, entries=_entry_statements(viewer),
        current=current.where(_advising(viewer, _NOW, "current")),
        graduated=select(_students_counted(rel)).where(_advising(viewer, _NOW, "graduated")),
        people=people, groups=_groups_statement(viewer),
        advised={status: select(rel.advisor_id, func.count())
                 .where(_advising(viewer, _NOW, status)).group_by(rel.advisor_id)
                 for status in ("current", "graduated")},
        graduates=_graduates_statement(viewer), funders=_funders_statement(viewer),
    )  # fmt: skip


def _paper_counts(rows: list[Any], period: Period) -> Counter:
    """(group, type) → papers of the department counted in the period."""
    counts: Counter = Counter()
    groups: dict[tuple, str | None] = {}  # a few hundred (status, year, month) for 1,000 rows
    for year, month, status, kind, _venue, papers in rows:
        key = (status, year, month)
        if key not in groups:
            groups[key] = counting.paper_group_of(period, status, year, month)
        if groups[key]:
            counts[groups[key], kind] += papers
    return counts


def _advising(viewer: Viewer, period: Any, status: str) -> ColumnElement:
    rel = m.AdvisingRelation
    if status == "current":
        return and_(shown_advising(viewer, rel), counting.advising_current_in(period, rel),
                    rel.advisor_id.in_(_members(viewer)))  # fmt: skip
    return and_(listed_graduations(viewer, rel), department_graduation(rel),
                counting.graduated_in(period, rel))  # fmt: skip


def _students_counted(rel: Any = m.AdvisingRelation, among: Any = None) -> Any:
    """Students, each once whatever their number of advisors: distinct profiles, and
    distinct typed names (folded) of students without one (only the rows ``among`` holds)."""
    typed = case((rel.student_id.is_(None), rel.student_fold))
    profiles, names = func.count(func.distinct(rel.student_id)), func.count(func.distinct(typed))
    if among is not None:
        profiles, names = profiles.filter(among), names.filter(among)
    return profiles + names


def _entry_statements(viewer: Viewer) -> dict[str, Any]:
    """Each entry kind's entries of the period and of the year before, per listed owner: one
    statement a kind (its rows of either period read once, each counted where it falls), from
    which the totals and the per-person rows are both counted."""
    earlier = entry_clauses(_BEFORE)
    stmts = {}
    for kind, (model, clause) in entry_clauses(_NOW).items():
        before = earlier[kind][1]
        stmts[kind] = (
            select(model.owner_id, func.count().filter(clause), func.count().filter(before))
            .where(or_(clause, before), visibility_clause(viewer, model),
                   model.owner_id.in_(_members(viewer)))
            .group_by(model.owner_id)
        )  # fmt: skip
    return stmts


def _entry_counts(
    session: Session, stmts: Statements, values: dict[str, Any]
) -> dict[str, tuple[Counter, Counter]]:
    counts = {}
    for kind, stmt in stmts.entries.items():
        now, then = Counter(), Counter()
        for owner_id, in_period, in_previous in session.execute(stmt, values):
            now[owner_id], then[owner_id] = in_period, in_previous
        counts[kind] = (now, then)
    return counts


def _totals(
    session: Session, stmts: Statements, periods: tuple[Period, Period], rows: list[Any],
    entries: dict[str, tuple[Counter, Counter]],
) -> tuple[tuple[dict, dict], list]:  # fmt: skip
    """The totals of the period and of the year before (each entry kind's from ``entries``);
    the published papers of the period by type."""
    both: tuple[dict, dict] = ({}, {})
    for totals, period in zip(both, periods, strict=True):
        papers = _paper_counts(rows, period)
        totals.update({group: sum(n for (g, _), n in papers.items() if g == group)
                       for group, _ in counting.PAPER_GROUPS})  # fmt: skip
        if totals is both[0]:
            order = m.values(m.PUBLICATION_TYPES)
            types = sorted(((t, n) for (g, t), n in papers.items() if g == "published"),
                           key=lambda tn: order.index(tn[0]) if tn[0] in order else 99)  # fmt: skip
    current = session.execute(stmts.current, _values(*periods, 0)).one()
    for totals, period, count in zip(both, periods, current, strict=True):
        totals["students_current"] = count
        totals["students_graduated"] = session.scalar(stmts.graduated, _NOW.values(period))
    for kind, per_owner in entries.items():
        for totals, counts in zip(both, per_owner, strict=True):
            totals[kind] = sum(counts.values())
    return both, types


def _groups_statement(viewer: Viewer) -> Any:
    """(person, group, papers) of the period. The papers counted in the period first (by the
    index on the year), their listing rows by the paper's, kept for the rows' people in
    Python: with ``person_id IN (ids)`` SQLite reads the whole lists of 150 faculty instead,
    and looks each of their papers up."""
    listing, pub, counted = m.ProfilePublication, m.Publication, _COUNTED_PAPER
    papers = select(counted.id).where(
        counting.papers_from(_NOW.first_year, counted), counting.counted_paper(_NOW, counted),
        publication_clause(viewer, counted),
    )  # fmt: skip
    group = counting.paper_group(_NOW, pub)
    return (
        select(listing.person_id, group, func.count())
        .join(pub, pub.id == listing.publication_id)
        .where(listing.publication_id.in_(papers), listing.hidden.is_(False))
        .group_by(listing.person_id, group)
    )


def _people(
    session: Session, stmts: Statements, period: Period,
    entries: dict[str, tuple[Counter, Counter]],
) -> list[PersonRow]:  # fmt: skip
    rows = {row.id: PersonRow(row.id, row.slug, row.full_name, row.role)
            for row in session.execute(stmts.people)}  # fmt: skip
    if not rows:
        return []
    for row in rows.values():
        row.counts = dict.fromkeys(MEASURES, 0)
    values = _NOW.values(period)
    for person_id, name, count in session.execute(stmts.groups, values):
        if person_id in rows:
            rows[person_id].counts[name] = count
    for status, stmt in stmts.advised.items():  # every advisor's, the rows' kept (no IN list)
        for person_id, count in session.execute(stmt, values):
            if person_id in rows:
                rows[person_id].counts[f"students_{status}"] = count
    for kind, (counts, _previous) in entries.items():
        for person_id, row in rows.items():
            row.counts[kind] = counts[person_id]
    return list(rows.values())


def _venue_areas(areas: dict[str, list[str]]) -> dict[str, str]:
    return {venue.strip().casefold(): area for area, venues in areas.items() for venue in venues}


def _venues(
    rows: list[Any], period: Period, areas: dict[str, list[str]]
) -> tuple[list[int], list, dict[int, int], list]:
    """Published papers per venue and calendar year over :data:`VENUE_YEARS` years, the
    most published venues first; and the same per area of venues."""
    years = list(range(period.last_year - VENUE_YEARS + 1, period.last_year + 1))
    per_venue: dict[str, Counter] = defaultdict(Counter)
    names: dict[str, str] = {}  # short name as written → venue (a few dozen for 1,000 rows)
    counted = set(years)
    for year, _month, status, _kind, venue_short, papers in rows:
        if status != "published" or year not in counted or not venue_short:
            continue
        if venue_short not in names:  # as written, stripped once
            names[venue_short] = venue_name(venue_short.strip()) if venue_short.strip() else ""
        if names[venue_short]:
            per_venue[names[venue_short]][year] += papers
    ranked = sorted(per_venue, key=lambda v: (-sum(per_venue[v].values()), v.casefold()))
    venues = [(v, dict(per_venue[v])) for v in ranked[:VENUE_ROWS]]
    other: Counter = Counter()
    for venue in ranked[VENUE_ROWS:]:
        other.update(per_venue[venue])
    grouping = _venue_areas(areas)
    per_area: dict[str, Counter] = defaultdict(Counter)
    for venue, counts in per_venue.items():
        per_area[grouping.get(venue.casefold(), OTHER_AREA)].update(counts)
    order = [*areas, OTHER_AREA]
    area_rows = [(a, dict(per_area[a])) for a in order if per_area.get(a)]
    return years, venues, dict(other), area_rows


def _graduates_statement(viewer: Viewer) -> Any:
    rel = m.AdvisingRelation
    student, advisor = _GRADUATE, _ADVISOR
    return (
        select(rel.student_id, rel.student_fold, student.full_name, rel.student_name,
               student.slug, rel.degree, rel.end_year, advisor.full_name, rel.placement,
               rel.placement_kind)
        .outerjoin(student, student.id == rel.student_id)
        .join(advisor, advisor.id == rel.advisor_id)
        .where(_advising(viewer, _NOW, "graduated"))
        .order_by(rel.id)
    )  # fmt: skip


def _graduates(session: Session, stmts: Statements, period: Period) -> list[Graduate]:
    """The department's graduates of the period, one line per student (their department
    advisors named together), in order of name."""
    merged: dict[tuple, dict[str, Any]] = {}
    for row in session.execute(stmts.graduates, _NOW.values(period)):
        key = (row[0], None) if row[0] else (None, row[1])
        line = merged.setdefault(key, {"name": row[2] or row[3] or "", "slug": row[4],
                                       "degree": row[5], "year": row[6], "advisors": [],
                                       "placement": row[8], "kind": row[9]})  # fmt: skip
        line["advisors"].append(row[7])
        line["placement"] = line["placement"] or row[8]
        line["kind"] = line["kind"] or row[9]
    lines = [Graduate(v["name"], v["slug"], v["degree"], v["year"], ", ".join(v["advisors"]),
                      v["placement"], v["kind"]) for v in merged.values()]  # fmt: skip
    return sorted(lines, key=lambda g: (g.name.casefold(), g.degree))


def _funders_statement(viewer: Viewer) -> Any:
    model, clause = entry_clauses(_NOW)["funding"]
    return (
        select(model.funder, func.count())
        .where(clause, visibility_clause(viewer, model), model.owner_id.in_(_members(viewer)))
        .group_by(model.funder)
    )


def department_report(
    session: Session, viewer: Viewer, period: Period, *, role: str = "faculty",
    areas: dict[str, list[str]] | None = None,
) -> DepartmentReport:  # fmt: skip
    """The department's report for ``period`` as ``viewer`` may see it (the caller checked
    :func:`~directory.services.access.can_view_department_report`); per-person rows of the
    listed people of ``role`` (every role: "")."""
    previous = period.shifted(-1)
    stmts = _statements(viewer, role)
    values = _values(period, previous, min(previous.first_year,
                                           period.last_year - VENUE_YEARS + 1))  # fmt: skip
    rows = session.execute(stmts.paper_rows, values).all()
    entries = _entry_counts(session, stmts, values)
    (totals, previous_totals), types = _totals(session, stmts, (period, previous), rows, entries)
    years, venues, other, area_rows = _venues(rows, period, areas or {})
    paper_problems = {kind: sum(r.papers for r in rows if paper_problem_of(kind, period, r))
                      for kind in PAPER_KINDS}  # fmt: skip
    graduates = _graduates(session, stmts, period)
    placements = Counter(g.kind or "" for g in graduates)
    order = [*m.values(m.PLACEMENT_KINDS), ""]
    funders = session.execute(stmts.funders, _NOW.values(period))
    return DepartmentReport(
        period=period, previous=previous, totals=totals, previous_totals=previous_totals,
        types=types, role=role, people=_people(session, stmts, period, entries), years=years,
        venues=venues, other_venues=other, areas=area_rows, graduates=graduates,
        placements=[(k, placements[k]) for k in order if placements.get(k)],
        funders=sorted(((f, n) for f, n in funders), key=lambda fn: (-fn[1], fn[0])),
        problems=department_problems(session, viewer, period, paper_problems),
    )  # fmt: skip
