"""Who may see and change what. Every rule of the directory lives here; views and templates
ask these helpers and never test roles themselves. Denied unless a rule allows."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy import ColumnElement, and_, or_, true

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


def person_clause(viewer: Viewer, person: Any) -> ColumnElement:
    """A WHERE clause limiting ``person`` (the Person model or an alias of it) to the profiles
    ``viewer`` may see. Anything shown *because of* a person (their notices, news, papers on
    department pages) must also pass this, so that a hidden profile leaves no trace."""
    return visibility_clause(viewer, person, person.id)


def open_notice_clause(notice: Any, today: date) -> ColumnElement:
    """Recruiting notices still open on ``today``: a notice disappears on its expiry date by
    itself (the SQL side of ``RecruitingNotice.is_open``). Pass a date computed per request."""
    return or_(notice.expires_on.is_(None), notice.expires_on > today)


def owned_entry_clause(viewer: Viewer, entry: Any, owner: Any) -> ColumnElement:
    """Entries shown on department pages: visible themselves and owned by a visible profile
    (``owner`` is the Person entity the caller joined as the entry's owner)."""
    return and_(visibility_clause(viewer, entry), person_clause(viewer, owner))


def listed_notice_clause(viewer: Viewer, notice: Any, owner: Any, today: date) -> ColumnElement:
    """Recruiting notices shown on department pages and feeds: visible, open on ``today``, and
    owned by a visible profile."""
    return and_(owned_entry_clause(viewer, notice, owner), open_notice_clause(notice, today))


def advising_clause(viewer: Viewer, relation: Any) -> ColumnElement:
    """Advising relations shown on department pages: visible and confirmed by both sides (an
    unconfirmed claim appears nowhere but on its author's own editing pages)."""
    return and_(
        visibility_clause(viewer, relation),
        relation.advisor_confirmed.is_(True),
        relation.student_confirmed.is_(True),
    )


def publication_clause(viewer: Viewer, publication: Any) -> ColumnElement:
    """Publications ``viewer`` may see (their creator sees their own private ones)."""
    return visibility_clause(viewer, publication, publication.created_by_id)


def person_visible(viewer: Viewer, person: Any) -> bool:
    """Whether the person's profile page may be shown at all."""
    return can_view(viewer, person, owner_id=person.id)


def can_edit_person(viewer: Viewer, person: Any) -> bool:
    """Owner or department admin (delegates are added by the editing module)."""
    if viewer.is_admin:
        return True
    return viewer.person_id is not None and viewer.person_id == person.id
