"""What a report cannot count, said up front, each with where to fix it: papers without a
year (placed in no period), funding without dates, graduations without a year, placements to
complete, and papers counted in the period whose venue has no short name (the department
counts venues by the short names the papers' badges show)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from sqlalchemy import ColumnElement, and_, func, or_, select
from sqlalchemy.orm import Session, aliased

from directory import models as m
from directory.services.access import (
    listed_on_profile,
    listed_people,
    listed_publications,
    person_clause,
    shown_advising,
    visibility_clause,
)
from directory.services.identity import Viewer
from directory.services.reports import counting, memo
from directory.services.reports.periods import Period

#: The kinds of problem, in the order a report lists them.
KINDS = ("paper_no_year", "venue_no_short", "funding_no_dates", "graduation_no_year",
         "placement")  # fmt: skip
PAPER_KINDS = KINDS[:2]
#: Problems of one kind the department's report names (it counts them all).
DEPARTMENT_LIMIT = 20


#: Aliases made once: a new alias builds its own copy of every column of the table when first
#: used (some 2 ms each, measured), the same one serves every statement.
_OWNER = aliased(m.Person, name="problem_owner")
_STUDENT = aliased(m.Person, name="problem_student")
#: The department's period, bound at execution (:func:`department_problems`).
_PERIOD = counting.BoundPeriod("problems")


@dataclass(frozen=True)
class Problem:
    """One thing a report cannot count. ``edit`` names the editor page that fixes it: a
    paper's (``publications``) or an entry kind's, with ``entry_id``, on ``slug``'s profile."""

    kind: str
    title: str
    slug: str
    owner: str
    edit: str
    entry_id: int


@dataclass
class Problems:
    """The department's problems: every count, and the first :data:`DEPARTMENT_LIMIT` of
    each kind."""

    counts: dict[str, int]
    shown: list[Problem]

    @property
    def total(self) -> int:
        return sum(self.counts.values())


def paper_problem(kind: str, period: Period, pub: Any = m.Publication) -> ColumnElement:
    """Papers of a kind of problem: no year (an accepted paper without one is counted as
    accepted), or published in the period with no short venue."""
    if kind == "paper_no_year":
        return and_(pub.year.is_(None), pub.status != "accepted")
    return and_(
        pub.year.between(period.first_year, period.last_year),
        counting.paper_group(period, pub) == "published",
        or_(pub.venue_short.is_(None), func.trim(pub.venue_short) == ""),
    )


def paper_problem_of(kind: str, period: Period, row: Any) -> bool:
    """:func:`paper_problem` for a row already read (``status``, ``year``, ``month``,
    ``venue_short``)."""
    if kind == "paper_no_year":
        return row.year is None and row.status != "accepted"
    group = counting.paper_group_of(period, row.status, row.year, row.month)
    return group == "published" and not (row.venue_short or "").strip()


def _advising_problem(kind: str, period: Any, rel: Any = m.AdvisingRelation) -> ColumnElement:
    if kind == "graduation_no_year":
        return and_(rel.status == "graduated", rel.end_year.is_(None))
    return and_(
        rel.status == "graduated",
        or_(counting.dated_in(period, rel.end_year), rel.end_year.is_(None)),
        or_(rel.placement_kind.is_(None), rel.placement_unparsed.is_(True)),
    )


def _entry_problems(period: Any) -> dict[str, tuple[Any, ColumnElement]]:
    """The entry kinds' problems: (model, clause)."""
    funding = and_(m.Funding.start_year.is_(None), m.Funding.end_year.is_(None))
    return {
        "funding_no_dates": (m.Funding, funding),
        "graduation_no_year": (m.AdvisingRelation, _advising_problem("graduation_no_year", period)),
        "placement": (m.AdvisingRelation, _advising_problem("placement", period)),
    }


def _entry_statement(viewer: Viewer, kind: str, model: Any, where: ColumnElement) -> Any:
    owner = _OWNER
    if model is m.AdvisingRelation:
        student = _STUDENT
        title = func.coalesce(model.student_name, student.full_name)
        stmt = (select(model.id, title, owner.slug, owner.full_name)
                .join(owner, owner.id == model.advisor_id)
                .outerjoin(student, student.id == model.student_id)
                .where(shown_advising(viewer, model)))  # fmt: skip
    else:
        stmt = (select(model.id, model.funder, owner.slug, owner.full_name)
                .join(owner, owner.id == model.owner_id)
                .where(visibility_clause(viewer, model)))  # fmt: skip
    return stmt.where(where), owner


def _entry_kind_statements(
    viewer: Viewer, period: Any, owners: Any, limit: int | None
) -> dict[str, tuple[Any, str]]:
    """Each entry kind's problems: (statement, the editor that fixes them)."""
    stmts = {}
    for kind, (model, where) in _entry_problems(period).items():
        stmt, owner = _entry_statement(viewer, kind, model, where)
        stmt = stmt.where(owners(owner))
        edit = "advising" if model is m.AdvisingRelation else "funding"
        # Every one counted in the same statement (a window count), the first ``limit`` read.
        stmt = stmt.add_columns(func.count().over()).order_by(owner.sort_name, model.id)
        stmts[kind] = (stmt.limit(limit), edit)
    return stmts


def _entry_kind_problems(
    session: Session, stmts: dict[str, tuple[Any, str]], values: dict[str, Any] | None = None
) -> tuple[dict[str, list[Problem]], dict[str, int]]:
    found, counts = {}, {}
    for kind, (stmt, edit) in stmts.items():
        rows = session.execute(stmt, values).all()
        found[kind] = [Problem(kind, t or "", s, o, edit, i) for i, t, s, o, _ in rows]
        counts[kind] = rows[0][-1] if rows else 0
    return found, counts


def person_problems(
    session: Session, viewer: Viewer, person: m.Person, period: Period
) -> list[Problem]:
    """Everything ``person``'s report for ``period`` cannot count, as ``viewer`` sees it."""
    pub = m.Publication
    problems = []
    for kind in PAPER_KINDS:
        stmt = (select(pub.id, pub.title)
                .join(m.ProfilePublication, m.ProfilePublication.publication_id == pub.id)
                .where(listed_on_profile(viewer, person), paper_problem(kind, period))
                .order_by(pub.title, pub.id))  # fmt: skip
        problems += [Problem(kind, title, person.slug, person.full_name, "publications", i)
                     for i, title in session.execute(stmt)]  # fmt: skip
    stmts = _entry_kind_statements(viewer, period, lambda owner: owner.id == person.id, None)
    found, _ = _entry_kind_problems(session, stmts)
    return problems + [problem for kind in KINDS[2:] for problem in found[kind]]


def _paper_owners(session: Session, viewer: Viewer, ids: list[int]) -> dict[int, tuple]:
    """A profile each paper is listed on that ``viewer`` may see (the first by name): where
    the link to fix it goes."""
    row, person = m.ProfilePublication, m.Person
    stmt = (select(row.publication_id, person.slug, person.full_name)
            .join(person, person.id == row.person_id)
            .where(row.publication_id.in_(ids), row.hidden.is_(False),
                   person_clause(viewer, person))
            .order_by(person.sort_name.desc()))  # fmt: skip
    return {pub_id: (slug, name) for pub_id, slug, name in session.execute(stmt)}


def department_problems(
    session: Session, viewer: Viewer, period: Period, paper_counts: dict[str, int]
) -> Problems:
    """What the department's report cannot count, on the department's listed papers and its
    listed people's entries: every count (the papers' are counted by the caller, from the rows
    it counts the papers with) and the first few of each kind."""
    pub, shown = m.Publication, []
    for kind in PAPER_KINDS:
        if not paper_counts.get(kind):  # none to name: no statement
            continue
        stmt = (select(pub.id, pub.title)
                .where(paper_problem(kind, period), listed_publications(viewer, pub))
                .order_by(pub.title, pub.id).limit(DEPARTMENT_LIMIT))  # fmt: skip
        rows = session.execute(stmt).all()
        owners = _paper_owners(session, viewer, [i for i, _ in rows])
        shown += [Problem(kind, title, *owners[i], "publications", i)
                  for i, title in rows if i in owners]  # fmt: skip
    # Built once for the viewer's read rules, the period bound (as the report's statements).
    stmts = memo.statements(("department problems", *memo.viewer_key(viewer), DEPARTMENT_LIMIT),
                            lambda: _entry_kind_statements(
                                viewer, _PERIOD, lambda owner: listed_people(viewer, owner),
                                DEPARTMENT_LIMIT))  # fmt: skip
    found, counts = _entry_kind_problems(session, stmts, _PERIOD.values(period))
    counts = {kind: paper_counts.get(kind, 0) for kind in PAPER_KINDS} | counts
    return Problems(counts, shown + [problem for kind in KINDS[2:] for problem in found[kind]])
