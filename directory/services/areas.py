"""The reads of the research-area taxonomy: an area by its id or address, and all of them.
(What each area's page lists is :mod:`directory.services.department`'s.)"""

from __future__ import annotations

from sqlalchemy import select
from sqlalchemy.orm import Session

from directory import models as m


def research_areas(session: Session) -> list[m.ResearchArea]:
    """Every research area, by name (the pickers of areas, the taxonomy's admin page)."""
    return list(session.scalars(select(m.ResearchArea).order_by(m.ResearchArea.name)))


def area_by_id(session: Session, area_id: int) -> m.ResearchArea | None:
    return session.get(m.ResearchArea, area_id)


def area_by_slug(session: Session, slug: str) -> m.ResearchArea | None:
    return session.scalar(select(m.ResearchArea).where(m.ResearchArea.slug == slug))
