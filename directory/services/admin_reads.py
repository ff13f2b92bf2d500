"""The reads of the admin area and the approval queue: counts for the admin's index, the
people list, what the person and area forms check against, the proposals an approver may
decide. The read rules themselves are :mod:`directory.services.access`'s."""

from __future__ import annotations

from sqlalchemy import func, or_, select
from sqlalchemy.orm import Session, selectinload

from directory import models as m
from directory.models import PendingChange
from directory.services import access
from directory.services.identity import Viewer
from directory.services.paging import Page


def counts(session: Session) -> dict[str, int]:
    """How many people, pending proposals and research areas there are."""
    return {
        "people": session.scalar(select(func.count(m.Person.id))) or 0,
        "pending": session.scalar(
            select(func.count(PendingChange.id)).where(PendingChange.status == "pending")
        )
        or 0,
        "areas": session.scalar(select(func.count(m.ResearchArea.id))) or 0,
    }


def notices_with_unreadable_terms(session: Session) -> list[m.RecruitingNotice]:
    """Notices whose old free-text intake names no term: no term filter finds them."""
    return list(
        session.scalars(
            select(m.RecruitingNotice)
            .where(m.RecruitingNotice.term.isnot(None), m.RecruitingNotice.term != "")
            .options(selectinload(m.RecruitingNotice.owner))
            .order_by(m.RecruitingNotice.owner_id, m.RecruitingNotice.id)
        )
    )


def people_page(session: Session, query: str, role: str, asked: int, size: int) -> Page:
    """A page of everyone (active first, by name), matching ``query`` in the name or email
    and of ``role`` when given; a page past the last is the last."""
    stmt = select(m.Person).order_by(m.Person.active.desc(), m.Person.sort_name)
    if query:
        like = f"%{query}%"
        stmt = stmt.where(or_(m.Person.full_name.ilike(like), m.Person.email.ilike(like)))
    if role:
        stmt = stmt.where(m.Person.role == role)
    total = session.scalar(select(func.count()).select_from(stmt.subquery())) or 0
    number = min(asked, max(1, -(-total // size)))
    stmt = stmt.order_by(m.Person.id).limit(size).offset((number - 1) * size)
    return Page(list(session.scalars(stmt)), number, size, total)


def everyone(session: Session) -> list[m.Person]:
    return list(session.scalars(select(m.Person).order_by(m.Person.sort_name)))


def taken_slugs(session: Session, except_id: int | None = None) -> set[str]:
    """Every person's address but ``except_id``'s."""
    stmt = select(m.Person.slug)
    if except_id is not None:
        stmt = stmt.where(m.Person.id != except_id)
    return set(session.scalars(stmt))


def identity_bound_elsewhere(session: Session, user_key: str, person_id: int | None) -> bool:
    """Whether another person than ``person_id`` has the sign-in identity ``user_key``."""
    found = session.scalar(
        select(m.Person.id).where(m.Person.user_key == user_key, m.Person.id != (person_id or -1))
    )
    return found is not None


def area_slug_taken(session: Session, slug: str, area_id: int | None) -> bool:
    """Whether another area than ``area_id`` has ``slug``."""
    found = session.scalar(
        select(m.ResearchArea.id).where(
            m.ResearchArea.slug == slug, m.ResearchArea.id != (area_id or -1)
        )
    )
    return found is not None


def approvable(session: Session, viewer: Viewer) -> list[PendingChange]:
    """The pending proposals ``viewer`` may decide, oldest first."""
    people = select(m.Person.id).where(access.approvable(viewer))
    stmt = (
        select(PendingChange)
        .where(PendingChange.status == "pending", PendingChange.person_id.in_(people))
        .order_by(PendingChange.created_at, PendingChange.id)
    )
    return list(session.scalars(stmt))


def proposal(session: Session, pending_id: int) -> PendingChange | None:
    return session.get(PendingChange, pending_id)
