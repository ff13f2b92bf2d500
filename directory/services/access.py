"""Who may see and change what. Every rule of the directory lives here; views and templates
ask these helpers and never test roles themselves. Denied unless a rule allows."""

from __future__ import annotations

from datetime import date
from typing import Any

from flask import current_app
from sqlalchemy import ColumnElement, and_, exists, or_, select, true
from sqlalchemy.orm import Session, aliased, object_session

from directory.db import get_session
from directory.models import AdvisingRelation, Authorship, Delegation, Person, ProfilePublication
from directory.services.identity import Viewer


def visible_levels(viewer: Viewer) -> tuple[str, ...]:
    """Visibility levels the viewer sees on other people's entries."""
    return ("public", "members") if viewer.is_authenticated else ("public",)


def strictest_visibility(*levels: str) -> str:
    """The most restrictive of some visibility levels: a public notice on a members-only
    profile is shown to members only."""
    order = {"public": 0, "members": 1, "private": 2}
    return max(levels, key=lambda level: order.get(level, 2))


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


def on_visible_profile_clause(viewer: Viewer, publication_id: Any) -> ColumnElement:
    """Publications (given by their id column) listed, not hidden, on the profile of at least
    one person whose profile ``viewer`` may see. A paper known only from hidden profiles is
    absent from the department's lists, search and API, whatever its own visibility."""
    author = aliased(Person, name="listing_author")
    return exists(
        select(ProfilePublication.publication_id)
        .join(author, author.id == ProfilePublication.person_id)
        .where(
            ProfilePublication.publication_id == publication_id,
            ProfilePublication.hidden.is_(False),
            person_clause(viewer, author),
        )
    )


def listed_publication_clause(viewer: Viewer, publication: Any) -> ColumnElement:
    """Publications shown on department pages, exports, search and the API: visible
    themselves and on a visible profile (:func:`on_visible_profile_clause`)."""
    return and_(
        publication_clause(viewer, publication), on_visible_profile_clause(viewer, publication.id)
    )


def person_visible(viewer: Viewer, person: Any) -> bool:
    """Whether the person's profile page may be shown at all."""
    return can_view(viewer, person, owner_id=person.id)


def _session(obj: Any) -> Session:
    session = object_session(obj)
    return session if session is not None else get_session()


def is_owner(viewer: Viewer, person: Any) -> bool:
    """Whether ``person`` is the viewer's own profile."""
    return viewer.person_id is not None and viewer.person_id == person.id


def is_delegate(viewer: Viewer, person: Any) -> bool:
    """Whether the owner of ``person`` named the viewer a delegate (e.g. their lab manager)."""
    if viewer.person_id is None or person.id is None:
        return False
    found = _session(person).scalar(
        select(Delegation.id).where(
            Delegation.person_id == person.id, Delegation.delegate_id == viewer.person_id
        )
    )
    return found is not None


def can_admin(viewer: Viewer) -> bool:
    """Department admins (named by the host through DIRECTORY_ADMINS)."""
    return viewer.is_admin


def can_edit_person(viewer: Viewer, person: Any) -> bool:
    """The owner, a delegate the owner named, or a department admin."""
    if viewer.is_admin:
        return True
    return is_owner(viewer, person) or is_delegate(viewer, person)


def can_manage_delegates(viewer: Viewer, person: Any) -> bool:
    """Only the owner or an admin names delegates (a delegate cannot name more)."""
    return viewer.is_admin or is_owner(viewer, person)


def can_view_history(viewer: Viewer, person: Any) -> bool:
    """A profile's history is shown to those who may edit it."""
    return can_edit_person(viewer, person)


def can_edit_publication(viewer: Viewer, publication: Any) -> bool:
    """A shared paper may be edited by the editors of any department author on it, or of the
    profile that added it."""
    if viewer.is_admin:
        return True
    session = _session(publication)
    ids = set(
        session.scalars(
            select(ProfilePublication.person_id).where(
                ProfilePublication.publication_id == publication.id
            )
        )
    )
    ids.update(
        session.scalars(
            select(Authorship.person_id).where(
                Authorship.publication_id == publication.id, Authorship.person_id.isnot(None)
            )
        )
    )
    if publication.created_by_id:
        ids.add(publication.created_by_id)
    people = session.scalars(select(Person).where(Person.id.in_(ids))) if ids else []
    return any(can_edit_person(viewer, person) for person in people)


def confirmed_advisor_ids(person: Any) -> set[int]:
    """Department advisors of ``person`` whose relation both sides confirmed."""
    return set(
        _session(person).scalars(
            select(AdvisingRelation.advisor_id).where(
                AdvisingRelation.student_id == person.id,
                AdvisingRelation.advisor_id.isnot(None),
                AdvisingRelation.advisor_confirmed.is_(True),
                AdvisingRelation.student_confirmed.is_(True),
            )
        )
    )


def can_approve(viewer: Viewer, person: Any) -> bool:
    """Changes to ``person``'s profile that wait for approval may be decided by an admin or
    by the person's confirmed advisor."""
    if viewer.is_admin:
        return True
    return viewer.person_id is not None and viewer.person_id in confirmed_advisor_ids(person)


def needs_approval(viewer: Viewer, person: Any) -> bool:
    """Whether changes ``viewer`` makes to ``person``'s profile wait for approval: the person's
    role is listed in DIRECTORY_APPROVAL_ROLES and the viewer is not an approver."""
    roles = current_app.config["DIRECTORY_APPROVAL_ROLES"] or ()
    return person.role in roles and not can_approve(viewer, person)


def can_confirm_advising(viewer: Viewer, relation: Any) -> bool:
    """The side of an advising relation that did not enter it (or an admin) confirms it."""
    if viewer.is_admin:
        return True
    other = relation.student if relation.owner_id == relation.advisor_id else relation.advisor
    if relation.owner_id not in (relation.advisor_id, relation.student_id):
        # Entered by a third party (an admin or delegate): either side may confirm.
        sides = [p for p in (relation.advisor, relation.student) if p is not None]
        return any(can_edit_person(viewer, p) for p in sides)
    return other is not None and can_edit_person(viewer, other)


def can_see_email(viewer: Viewer) -> bool:
    """Whether the JSON API gives ``viewer`` people's email addresses: signed-in members only
    (pages show addresses in a form harvesters can't read; the API would hand them out)."""
    return viewer.is_authenticated


def can_import_publications(viewer: Viewer, person: Any) -> bool:
    """Who may import papers into ``person``'s profile (and change how it lists them)."""
    return can_edit_person(viewer, person)


def can_manage_publication_records(viewer: Viewer) -> bool:
    """Merging, splitting and linking shared publication records: department admins."""
    return viewer.is_admin
