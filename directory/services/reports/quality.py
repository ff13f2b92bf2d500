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
    shown_advising,
    visibility_clause,
)
from directory.services.identity import Viewer
from directory.services.reports import counting
from directory.services.reports.periods import Period

#: The kinds of problem, in the order a report lists them.
KINDS = ("paper_no_year", "venue_no_short", "funding_no_dates", "graduation_no_year",
         "placement")  # fmt: skip
#: Problems of one kind the department's report names (it counts them all).
DEPARTMENT_LIMIT = 20


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


def _paper_rows(
    session: Session, where: ColumnElement, listing: ColumnElement, limit: int | None
) -> list[tuple[Any, ...]]:
    pub, row = m.Publication, m.ProfilePublication
    owner = aliased(m.Person, name="problem_owner")
    stmt = (
        select(pub.id, pub.title, owner.slug, owner.full_name)
        .join(row, row.publication_id == pub.id)
        .join(owner, owner.id == row.person_id)
        .where(listing, where)
        .order_by(pub.title, pub.id, owner.sort_name)
    )
    rows, seen = [], set()
    for found in session.execute(stmt):  # a shared paper is named once, on its first profile
        if found[0] not in seen:
            seen.add(found[0])
            rows.append(tuple(found))
        if limit is not None and len(rows) >= limit:
            break
    return rows


def _paper_problems(period: Period) -> dict[str, ColumnElement]:
    pub = m.Publication
    return {
        "paper_no_year": and_(pub.year.is_(None), pub.status != "accepted"),
        "venue_no_short": and_(
            counting.paper_group(period, pub) == "published",
            or_(pub.venue_short.is_(None), func.trim(pub.venue_short) == ""),
        ),
    }


def _advising_problems(period: Period) -> dict[str, ColumnElement]:
    rel = m.AdvisingRelation
    return {
        "graduation_no_year": and_(rel.status == "graduated", rel.end_year.is_(None)),
        "placement": and_(
            rel.status == "graduated",
            or_(counting.dated_in(period, rel.end_year), rel.end_year.is_(None)),
            or_(rel.placement_kind.is_(None), rel.placement_unparsed.is_(True)),
        ),
    }


def _entry_rows(
    session: Session, viewer: Viewer, model: Any, where: ColumnElement, owners: ColumnElement,
    limit: int | None,
) -> list[tuple[Any, ...]]:  # fmt: skip
    owner = aliased(m.Person, name="problem_owner")
    title = m.AdvisingRelation.student_name if model is m.AdvisingRelation else model.funder
    owner_id = model.advisor_id if model is m.AdvisingRelation else model.owner_id
    visible = (shown_advising(viewer, model) if model is m.AdvisingRelation
               else visibility_clause(viewer, model))  # fmt: skip
    stmt = (
        select(model.id, title, owner.slug, owner.full_name)
        .join(owner, owner.id == owner_id)
        .where(visible, where, owners(owner) if callable(owners) else owners)
        .order_by(owner.sort_name, model.id)
        .limit(limit)
    )
    return [tuple(row) for row in session.execute(stmt)]


def _student_titles(session: Session, rows: list[tuple[Any, ...]]) -> list[tuple[Any, ...]]:
    """A linked student's name where the relation has no typed one."""
    ids = [row[0] for row in rows if not row[1]]
    if not ids:
        return rows
    rel, student = m.AdvisingRelation, m.Person
    names = dict(session.execute(
        select(rel.id, student.full_name).join(student, student.id == rel.student_id)
        .where(rel.id.in_(ids))
    ).all())  # fmt: skip
    return [(row[0], row[1] or names.get(row[0], ""), *row[2:]) for row in rows]


def _collect(
    session: Session, viewer: Viewer, period: Period, listing: ColumnElement, owners: Any,
    limit: int | None,
) -> dict[str, list[Problem]]:  # fmt: skip
    found: dict[str, list[Problem]] = {}
    for kind, where in _paper_problems(period).items():
        rows = _paper_rows(session, where, listing, limit)
        found[kind] = [Problem(kind, t, s, o, "publications", i) for i, t, s, o in rows]
    funding = and_(m.Funding.start_year.is_(None), m.Funding.end_year.is_(None))
    rows = _entry_rows(session, viewer, m.Funding, funding, owners, limit)
    found["funding_no_dates"] = [Problem("funding_no_dates", t, s, o, "funding", i)
                                 for i, t, s, o in rows]  # fmt: skip
    for kind, where in _advising_problems(period).items():
        rows = _student_titles(
            session, _entry_rows(session, viewer, m.AdvisingRelation, where, owners, limit)
        )
        found[kind] = [Problem(kind, t, s, o, "advising", i) for i, t, s, o in rows]
    return found


def person_problems(
    session: Session, viewer: Viewer, person: m.Person, period: Period, papers: Any = None
) -> list[Problem]:
    """Everything ``person``'s report for ``period`` cannot count, as ``viewer`` sees it."""
    listing = listed_on_profile(viewer, person)
    found = _collect(session, viewer, period, listing, lambda owner: owner.id == person.id, None)
    return [problem for kind in KINDS for problem in found[kind]]


def department_problems(session: Session, viewer: Viewer, period: Period) -> Problems:
    """What the department's report cannot count: every count, and the first few of each
    kind, on the profiles of the department's listed people."""

    def owners(owner: Any) -> ColumnElement:
        return listed_people(viewer, owner)

    listing = and_(
        listed_publications(viewer, m.Publication),
        m.ProfilePublication.hidden.is_(False),
        m.ProfilePublication.person_id.in_(
            select(m.Person.id).where(listed_people(viewer)).correlate(None)
        ),
    )
    shown = _collect(session, viewer, period, listing, owners, DEPARTMENT_LIMIT)
    counts = {kind: len(shown[kind]) for kind in KINDS}
    for kind in KINDS:
        if counts[kind] >= DEPARTMENT_LIMIT:
            counts[kind] = _count(session, viewer, period, kind, listing, owners)
    return Problems(counts, [problem for kind in KINDS for problem in shown[kind]])


def _count(
    session: Session, viewer: Viewer, period: Period, kind: str, listing: ColumnElement,
    owners: Any,
) -> int:  # fmt: skip
    """Every problem of ``kind`` (when there are more than the report names)."""
    return len(_collect(session, viewer, period, listing, owners, None)[kind])
