"""Who may see and change what. Every rule of the directory lives here; views and templates
ask these helpers and never test roles themselves. Denied unless a rule allows."""

from __future__ import annotations

from typing import Any

from sqlalchemy import ColumnElement, or_, true

from .identity import Viewer


def visible_levels(viewer: Viewer) -> tuple[str, ...]:
    """Visibility levels the viewer sees on other people's entries."""
    return ("public", "members") if viewer.is_authenticated else ("public",)


def can_view(viewer: Viewer, obj: Any, owner_id: int | None = None) -> bool:
    """Whether ``viewer`` may see ``obj`` (anything with a ``visibility``)."""
    if obj.visibility in visible_levels(viewer):
        return True
    owner = owner_id if owner_id is not None else getattr(obj, "owner_id", None)
    return viewer.is_admin or (owner is not None and owner == viewer.person_id)


def visibility_clause(viewer: Viewer, model: Any, owner_column: Any = None) -> ColumnElement:
    """A WHERE clause limiting ``model`` rows to what ``viewer`` may see."""
    if viewer.is_admin:
        return true()
    clause = model.visibility.in_(visible_levels(viewer))
    owner_column = owner_column if owner_column is not None else getattr(model, "owner_id", None)
    if viewer.person_id is not None and owner_column is not None:
        clause = or_(clause, owner_column == viewer.person_id)
    return clause


def person_visible(viewer: Viewer, person: Any) -> bool:
    """Whether the person's profile page may be shown at all."""
    return can_view(viewer, person, owner_id=person.id)


def can_edit_person(viewer: Viewer, person: Any) -> bool:
    """Owner or department admin (delegates are added by the editing module)."""
    if viewer.is_admin:
        return True
    return viewer.person_id is not None and viewer.person_id == person.id


def can_import_publications(viewer: Viewer, person: Any) -> bool:
    """Who may import papers into ``person``'s profile (and change how it lists them)."""
    return can_edit_person(viewer, person)


def can_manage_publication_records(viewer: Viewer) -> bool:
    """Merging, splitting and linking shared publication records: department admins."""
    return viewer.is_admin
