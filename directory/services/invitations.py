"""Invitations to claim a profile: a single-use link that expires after
DIRECTORY_INVITATION_DAYS. Only a SHA-256 hash of the token is stored, so a leaked database
holds no usable link."""

from __future__ import annotations

import hashlib
import secrets
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING

from sqlalchemy import select
from sqlalchemy.orm import Session

from directory import models as m
from directory.models import Invitation
from directory.services.kinds import INVITATION, PERSON

if TYPE_CHECKING:
    from directory.services.changes import ChangeSet


class InvitationUnusable(Exception):
    """The link is unknown, used or expired; the message says which, for the user."""


def _hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _aware(moment: datetime) -> datetime:
    # SQLite gives back naive datetimes; every stored time is UTC.
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def create_invitation(changes: ChangeSet, days: int) -> str:
    """Create an invitation for the change set's person and return its token (shown once,
    never stored). Earlier unused invitations of the person stop working."""
    session, person, by_key = changes.session, changes.person, changes.viewer.key
    now = datetime.now(UTC)
    for old in session.scalars(
        select(Invitation).where(Invitation.person_id == person.id, Invitation.used_at.is_(None))
    ):
        old.expires_at = now
    token = secrets.token_urlsafe(32)
    session.add(
        Invitation(
            person_id=person.id,
            token_hash=_hash(token),
            created_by_key=by_key,
            expires_at=now + timedelta(days=days),
        )
    )
    changes.group(
        INVITATION, "invite", "Invitation to claim this profile",
        {"expires_at": (now + timedelta(days=days)).isoformat(), "by": by_key},
    )  # fmt: skip
    session.flush()
    return token


def find_invitation(session: Session, token: str) -> Invitation:
    """The usable invitation for ``token``; raises :class:`InvitationUnusable`."""
    invitation = session.scalar(select(Invitation).where(Invitation.token_hash == _hash(token)))
    if invitation is None:
        raise InvitationUnusable(
            "This invitation link is not valid. Check that it was copied whole."
        )
    if invitation.used_at is not None:
        raise InvitationUnusable("This invitation link has already been used.")
    if _aware(invitation.expires_at) <= datetime.now(UTC):
        raise InvitationUnusable("This invitation link has expired; ask an admin for a new one.")
    return invitation


def claim(changes: ChangeSet, invitation: Invitation) -> m.Person:
    """Bind the change set's viewer (signed in) to the invited person and use up the
    invitation; the binding is recorded in the person's history."""
    session, user_key = changes.session, changes.viewer.key
    bound = session.scalar(select(m.Person).where(m.Person.user_key == user_key))
    if bound is not None and bound.id != invitation.person_id:
        raise InvitationUnusable(
            f"Your account is already linked to the profile of {bound.full_name}; "
            "ask an admin to fix this."
        )
    person = invitation.person
    changes.update(PERSON, person)
    person.user_key = user_key
    invitation.used_at = datetime.now(UTC)
    invitation.used_by_key = user_key
    session.flush()
    return person
