"""Operations on the research-area taxonomy: the department's, not a profile's, so their
change sets have no person (admins only)."""

from __future__ import annotations

from typing import Any

from directory import models as m
from directory.services.kinds import AREA
from directory.services.unit_of_work import UnitOfWork


def save(
    uow: UnitOfWork,
    area: m.ResearchArea | None,
    values: dict[str, Any],
    *,
    slug: str,
    base_version: int | None,
    allowed: bool,
) -> m.ResearchArea:
    """Add an area (``area`` None) or change one loaded at ``base_version``: ``values`` has
    its name, description and ``parent_id`` ("" for none)."""
    changes = uow.change_set(None, allowed=allowed)
    target = area or m.ResearchArea()
    if area is None:
        changes.create(AREA, target)
    else:
        changes.update(AREA, target, base_version)
    target.name = values["name"].strip()
    target.slug = slug
    target.description = values.get("description") or None
    target.parent_id = int(values["parent_id"]) if values.get("parent_id") else None
    changes.finish()
    return target


def delete(uow: UnitOfWork, area: m.ResearchArea, *, allowed: bool) -> str:
    """Delete ``area``; profiles no longer list it."""
    changes = uow.change_set(None, allowed=allowed)
    changes.delete(AREA, area)
    return changes.finish()
