"""The reads of the JSON API's lists: what each list selects (from the department's filter
clauses, the same the pages use) and one page of it with its total. The read rules are
:mod:`directory.services.access`'s and :mod:`directory.services.department`'s."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import ColumnElement, Select, func, select
from sqlalchemy.orm import Session

from directory import models as m
from directory.services import department
from directory.services.department.recruiting import notice_conditions
from directory.services.expertise.ranking import people_in_order, rank_people
from directory.services.identity import Viewer
from directory.services.shown_papers import ShownPaper, paper_columns, shown_papers_of


def page_of(
    session: Session,
    stmt: Select,
    key: Any,
    order_by: Sequence[Any],
    options: Sequence[Any],
    page: int,
    per_page: int,
) -> tuple[list[Any], int]:
    """Page ``page`` of ``per_page`` rows of ``stmt`` in ``order_by``, and how many there are
    in all (counted by the ``key`` column)."""
    total = session.scalar(
        select(func.count()).select_from(stmt.with_only_columns(key).distinct().subquery())
    )
    rows = list(
        session.scalars(
            stmt.options(*options).order_by(*order_by).limit(per_page).offset((page - 1) * per_page)
        )
    )
    return rows, total or 0


def shown_page_of(
    session: Session, stmt: Select, order_by: Sequence[Any], page: int, per_page: int
) -> tuple[list[ShownPaper], int]:
    """:func:`page_of` for papers, read as plain values with everything their representation
    shows (:mod:`~directory.services.shown_papers`): no ORM object for each paper, author and
    link. ``stmt`` selects publications and joins nothing that repeats one, so it is counted
    as it is (no DISTINCT, which sorts every key)."""
    total = session.scalar(stmt.with_only_columns(func.count(m.Publication.id)).order_by(None))
    papers = shown_papers_of(
        session,
        stmt.with_only_columns(*paper_columns())
        .order_by(*order_by)
        .limit(per_page)
        .offset((page - 1) * per_page),
    )
    return papers, total or 0


def ranked_people(
    session: Session,
    topic: str,
    viewer: Viewer,
    clauses: list[ColumnElement],
    options: Sequence[Any],
    page: int,
    per_page: int,
) -> tuple[list[m.Person], int]:
    """Page ``page`` of the people the clauses keep whose work matches ``topic``, best first
    (:func:`~directory.services.expertise.ranking.rank_people`), and how many match."""
    ranked = rank_people(session, topic, viewer, among=clauses, today=department.today())
    start = (page - 1) * per_page
    return people_in_order(session, ranked.people[start : start + per_page], options), ranked.total


def people(clauses: list[ColumnElement]) -> Select:
    """The people the clauses (department.people_conditions and the search's) keep."""
    return select(m.Person).where(*clauses)


def positions(viewer: Viewer, filters: Any) -> Select:
    """The recruiting notices the positions list shows ``viewer`` with ``filters``."""
    notice = m.RecruitingNotice
    return (
        select(notice)
        .join(m.Person, m.Person.id == notice.owner_id)
        .where(*notice_conditions(viewer, department.today(), filters))
    )


def publications(clauses: list[ColumnElement]) -> Select:
    """The papers the clauses (department.publication_conditions and the search's) keep."""
    return select(m.Publication).where(*clauses)


def areas(ids: list[int]) -> Select:
    """The research areas ``ids``."""
    return select(m.ResearchArea).where(m.ResearchArea.id.in_(ids))
