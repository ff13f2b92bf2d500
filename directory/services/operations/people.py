"""Operations on a person: the profile's own fields, its photo, its paper list and CV
layout, "my profile is current", listing it or not, and the admin's person form,
deactivation, invitation and merge of duplicates."""

from __future__ import annotations

from datetime import date
from typing import Any

from sqlalchemy.exc import IntegrityError

from directory import models as m
from directory.formats.names import sort_name, unique_slug
from directory.services.accounts import save_account
from directory.services.errors import Conflict
from directory.services.invitations import claim, create_invitation
from directory.services.kinds import PERSON
from directory.services.merge import merge_people
from directory.services.operations.entries import areas_by_id
from directory.services.person_identifiers import set_identifiers
from directory.services.unit_of_work import UnitOfWork

#: The profile fields copied as text (empty text is None, except the name).
PLAIN_FIELDS = (
    "full_name", "native_name", "pronouns", "title", "rank", "unit", "email", "office",
    "address", "phone", "interests", "bio", "visibility",
)  # fmt: skip


def update_profile(
    uow: UnitOfWork, person: m.Person, values: dict[str, Any], base_version: int | None
) -> str:
    """The profile's own fields: ``values`` has the :data:`PLAIN_FIELDS`, ``name_variants``
    (a list), ``links`` (a list of kind/url/label dicts) and ``areas`` (ids)."""
    changes = uow.change_set(person)
    changes.update(PERSON, person, base_version)
    for name in PLAIN_FIELDS:
        value = (values.get(name) or "").strip()
        setattr(person, name, value if name == "full_name" else (value or None))
    person.visibility = values.get("visibility") or "public"
    person.name_variants = list(values.get("name_variants") or [])
    wanted = list(values.get("links") or [])
    current = [{"kind": k.kind, "url": k.url, "label": k.label} for k in person.links]
    if wanted != current:
        person.links = [m.PersonLink(position=i, **link) for i, link in enumerate(wanted)]
    person.areas = areas_by_id(uow, values.get("areas") or [])
    if "identifiers" in values:
        set_identifiers(person, values["identifiers"])
    return changes.finish()


def set_paper_layout(
    uow: UnitOfWork,
    person: m.Person,
    *,
    repeat_selected: bool,
    unpublished_in_year: bool,
    cv_sections: list[str],
    base_version: int | None,
) -> str:
    """How the profile lists its papers, and the CV's sections in their order."""
    changes = uow.change_set(person)
    changes.update(PERSON, person, base_version)
    person.repeat_selected = bool(repeat_selected)
    person.unpublished_in_year = bool(unpublished_in_year)
    # Every section in the default order is no choice: a section added later is included.
    default = [name for name, _label in m.CV_SECTIONS]
    person.cv_sections = None if cv_sections == default else list(cv_sections)
    return changes.finish()


def set_photo(uow: UnitOfWork, person: m.Person, photo: m.PersonPhoto | None) -> str:
    """Put up a new photo (None: take it down). The image is not kept in the history, so it
    cannot wait for approval."""
    changes = uow.change_set(person, approval_exempt=True)
    changes.update(PERSON, person)
    person.photo = photo
    return changes.finish()


def set_photo_focus(
    uow: UnitOfWork, person: m.Person, focus_x: int, focus_y: int, base_version: int | None
) -> str:
    """The photo's focal point: a change of the profile like its other fields."""
    changes = uow.change_set(person)
    changes.update(PERSON, person, base_version)
    person.photo.focus_x, person.photo.focus_y = focus_x, focus_y
    return changes.finish()


def confirm_current(uow: UnitOfWork, person: m.Person, today: date | None = None) -> str:
    """The owner says the profile is current (it leaves the stale report)."""
    changes = uow.change_set(person, approval_exempt=True)
    changes.update(PERSON, person)
    person.last_confirmed = today or date.today()
    return changes.finish()


def set_published(uow: UnitOfWork, person: m.Person, listed: bool) -> str:
    """List an unlisted profile, or take a listed one off the lists."""
    changes = uow.change_set(person)
    changes.update(PERSON, person)
    person.published = listed
    return changes.finish()


def deactivate(uow: UnitOfWork, person: m.Person) -> str:
    """A member who left: inactive, listed as alumni, the profile and entries kept."""
    changes = uow.change_set(person, approval_exempt=True)
    changes.update(PERSON, person)
    person.active = False
    person.role = "alumni"
    return changes.finish()


def save_by_admin(
    uow: UnitOfWork,
    person: m.Person | None,
    values: dict[str, Any],
    *,
    slug: str,
    taken: set[str],
    base_version: int | None,
    listed_when_new: bool,
) -> m.Person:
    """The admin's person form: add a person (``person`` None) or change one. ``slug`` is the
    wanted address, made unique against ``taken``. An address or identity taken by another
    save at the same moment is a :class:`Conflict` like a stale version."""
    new = person is None
    target = person or m.Person(sort_name=sort_name(values["full_name"]))
    changes = uow.change_set(target, approval_exempt=True)
    if new:
        changes.create(PERSON, target)
    else:
        changes.update(PERSON, target, base_version)
    if not new and target.full_name != values["full_name"]:
        target.sort_name = sort_name(values["full_name"])
    target.full_name = values["full_name"].strip()
    target.slug = unique_slug(slug, taken)
    target.role = values["role"]
    target.email = (values.get("email") or "").strip() or None
    target.user_key = (values.get("user_key") or "").strip() or None
    target.active = values["active"]
    target.visibility = values["visibility"]
    if "identifiers" in values:
        set_identifiers(target, values["identifiers"])
    if new:
        target.published = listed_when_new
    try:
        changes.finish()
    except IntegrityError:
        raise Conflict(PERSON, None if new else target.id, base_version) from None
    return target


def invite(uow: UnitOfWork, person: m.Person, days: int) -> str:
    """A new invitation to claim ``person``'s profile; returns its token (shown once)."""
    changes = uow.change_set(person, approval_exempt=True)
    token = create_invitation(changes, days)
    changes.finish()
    return token


def merge(uow: UnitOfWork, keep: m.Person, duplicate: m.Person) -> str:
    """Merge ``duplicate`` into ``keep``; both halves are recorded in the kept person's
    history, where the entries now are."""
    changes = uow.change_set(keep, approval_exempt=True)
    changes.update(PERSON, keep)
    merge_people(uow.session, keep, duplicate)
    changes.delete(PERSON, duplicate)
    return changes.finish()


def claim_invitation(uow: UnitOfWork, invitation: m.Invitation) -> m.Person:
    """The signed-in viewer takes the invited profile (the invitation is what allows a
    not-yet-bound identity to); raises
    :class:`~directory.services.invitations.InvitationUnusable`."""
    changes = uow.change_set(invitation.person, approval_exempt=True, allowed=True)
    person = claim(changes, invitation)
    changes.finish()
    return person


def bind_identity(uow: UnitOfWork, person: m.Person, user_key: str | None) -> str:
    """Whoever signs in as ``user_key`` is ``person`` in the directory (None: nobody)."""
    changes = uow.change_set(person, approval_exempt=True)
    changes.update(PERSON, person)
    person.user_key = user_key
    return changes.finish()


def save_login(
    uow: UnitOfWork, username: str, password: str, person: m.Person | None
) -> tuple[Any, bool]:
    """Create a built-in login account (or give it a new password), bound to ``person``
    when given, the binding recorded in their history. Returns the account and whether it
    is new."""
    if person is None:
        return save_account(uow.session, username, password)
    changes = uow.change_set(person, approval_exempt=True)
    changes.update(PERSON, person)
    saved = save_account(uow.session, username, password, person)
    changes.finish()
    return saved
