"""The clauses the activity reports count with: what "in the period" means for each kind of
thing (:mod:`.periods`), on top of the read rules of :mod:`directory.services.access`, so
that the person's report, the department's, their CSV, JSON and PDF, and the network all
count the same rows.

Papers are counted in three groups, each saying what it counts:

* ``published``: status published, dated in the period;
* ``accepted``: accepted, not yet published: status accepted, dated in the period or later,
  or not dated yet;
* ``in_progress``: under review, preprints and work in preparation dated in the period.
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from sqlalchemy import BindParameter, ColumnElement, and_, bindparam, case, func, literal, or_

from directory import models as m
from directory.services.reports.periods import MIDDLE_MONTH, Period, month_key

#: The paper groups, in the report's order: (name, statuses).
PAPER_GROUPS = (
    ("published", ("published",)),
    ("accepted", ("accepted",)),
    ("in_progress", ("under_review", "preprint", "in_preparation")),
)
#: The season words of a course's term, and the month each starts in (periods.teaching_month
#: reads the same table in Python).
TERM_MONTHS = (("fall", 9), ("autumn", 9), ("spring", 2), ("summer", 6), ("winter", 1))


class BoundPeriod:
    """A period whose bounds are bind parameters named ``name``\\_first, ...: the clauses
    below take it as they take a :class:`Period`, so that a statement is built once and each
    request binds its period's values (:meth:`values`). The parameters take the type of the
    column they are compared with, as a period's values do."""

    def __init__(self, name: str) -> None:
        self.name = name
        bound: dict[str, BindParameter] = {part: bindparam(f"{name}_{part}") for part in self.PARTS}
        self.first, self.last = bound["first"], bound["last"]
        self.first_year, self.last_year = bound["first_year"], bound["last_year"]
        self.start, self.until = bound["start"], bound["until"]

    PARTS = ("first", "last", "first_year", "last_year", "start", "until")

    def values(self, period: Period) -> dict[str, Any]:
        """The parameters' values for ``period``."""
        return {f"{self.name}_{part}": getattr(period, part) for part in self.PARTS}


def _key(year: Any, month: Any = None) -> ColumnElement:
    month = func.coalesce(month, MIDDLE_MONTH) if month is not None else literal(MIDDLE_MONTH)
    return year * 12 + month - 1


def dated_in(period: Period, year: Any, month: Any = None) -> ColumnElement:
    """Rows dated ``year`` (and ``month``: without one, the year's middle) in the period."""
    return and_(year.isnot(None), _key(year, month).between(period.first, period.last))


def active_in(period: Period, start_year: Any, end_year: Any) -> ColumnElement:
    """Rows running from ``start_year`` to ``end_year`` (no end: still running) during the
    period; a row with neither year is undated and counted nowhere."""
    return and_(
        or_(start_year.isnot(None), end_year.isnot(None)),
        or_(start_year.is_(None), start_year <= period.last_year),
        or_(end_year.is_(None), end_year >= period.first_year),
    )


def paper_group(period: Period, pub: Any = m.Publication) -> ColumnElement:
    """The group (:data:`PAPER_GROUPS`) a paper counts in for the period, or NULL: a CASE
    expression to group by."""
    published = and_(pub.status == "published", dated_in(period, pub.year, pub.month))
    accepted = and_(
        pub.status == "accepted",
        or_(pub.year.is_(None), _key(pub.year, pub.month) >= period.first),
    )
    in_progress = and_(pub.status.in_(PAPER_GROUPS[2][1]), dated_in(period, pub.year, pub.month))
    return case(
        (published, "published"), (accepted, "accepted"), (in_progress, "in_progress"), else_=None
    )


def counted_paper(period: Period, pub: Any = m.Publication) -> ColumnElement:
    """Papers counted in one of the groups for the period."""
    return paper_group(period, pub).isnot(None)


def teaching_in(period: Period, course: Any = m.Teaching) -> ColumnElement:
    """Courses taught in the period: their year, and the month their term's season starts in
    ("Fall 2025": September 2025; a term naming no season, the year's middle)."""
    term = func.lower(func.coalesce(course.term, ""))
    month = case(*((term.contains(word), number) for word, number in TERM_MONTHS),
                 else_=MIDDLE_MONTH)  # fmt: skip
    key = course.year * 12 + month - 1
    return and_(course.year.isnot(None), key.between(period.first, period.last))


def notice_open_in(period: Period, notice: Any = m.RecruitingNotice) -> ColumnElement:
    """Recruiting notices open at some time in the period: written before its end, and not
    expired before its start."""
    return and_(
        notice.created_at < period.until,
        or_(notice.expires_on.is_(None), notice.expires_on > period.start),
    )


def graduated_in(period: Period, relation: Any = m.AdvisingRelation) -> ColumnElement:
    """Graduations in the period (a graduation is dated by its year: its middle)."""
    return and_(relation.status == "graduated", dated_in(period, relation.end_year))


def advising_current_in(period: Period, relation: Any = m.AdvisingRelation) -> ColumnElement:
    """Students still advised: current relations begun by the period's end."""
    return and_(
        relation.status == "current",
        or_(relation.start_year.is_(None), relation.start_year <= period.last_year),
    )


@lru_cache(maxsize=4096)  # the department's rows share a few hundred (status, year, month)
def paper_group_of(period: Period, status: str, year: int | None, month: int | None) -> str | None:
    """:func:`paper_group` in Python, for rows already read (the department counts its papers
    once, for the period and the year before, from one statement)."""
    if status == "published":
        return "published" if period.holds(year, month) else None
    if status == "accepted":
        undated = year is None
        return (
            "accepted"
            if undated or month_key(year, month or MIDDLE_MONTH) >= period.first
            else None
        )
    if status in PAPER_GROUPS[2][1]:
        return "in_progress" if period.holds(year, month) else None
    return None


def papers_from(first_year: int, pub: Any = m.Publication) -> ColumnElement:
    """Papers dated from ``first_year`` on, or not dated: a condition on the indexed year that
    holds for every paper a period from that year counts (and those it cannot place)."""
    return or_(pub.year >= first_year, pub.year.is_(None))
