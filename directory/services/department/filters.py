"""Filters shared beyond one page family: a plain page number (admin lists, a profile's
papers), the page of papers in a profile's editor, and the API's check that the people and
areas a filter names exist."""

from __future__ import annotations

from dataclasses import dataclass, field

from sqlalchemy import select
from sqlalchemy.orm import Session

from directory import models as m
from directory.services.access import person_visible
from directory.services.identity import Viewer
from directory.services.parameters import PAGE, BadFilter, Filters


@dataclass(frozen=True)
class PageFilters(Filters):
    """Just a page number (a list without other filters)."""

    page: int = field(default=1, metadata=PAGE)


@dataclass(frozen=True)
class PaperListFilters(Filters):
    """The page of the paper list in a profile's editor (``papers``, beside its sections)."""

    papers: int = field(default=1, metadata=PAGE)

    def with_page_of_papers(self) -> dict[str, str]:
        return {"papers": str(self.papers)} if self.papers > 1 else {}


def check_references(session: Session, viewer: Viewer, filters: Filters) -> None:
    """Raise :class:`BadFilter` when ``filters`` name a research area that does not exist or
    a person whose profile ``viewer`` may not see (answered like a missing one). The API asks
    this; a page just finds nothing."""
    area = getattr(filters, "area", "")
    found = select(m.ResearchArea.id).where(m.ResearchArea.slug == area)
    if area and session.scalar(found) is None:
        raise BadFilter("area", f"there is no research area {area!r}")
    for name in ("person", "advisor"):
        slug = getattr(filters, name, "")
        if slug:
            person = session.scalar(select(m.Person).where(m.Person.slug == slug))
            if person is None or not person_visible(viewer, person):
                raise BadFilter(name, f"there is no {name} {slug!r}")
