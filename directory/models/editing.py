"""Tables of self-service editing: the change history, changes waiting for approval,
invitations to claim a profile, and the delegates a profile owner names.

History rows deliberately hold plain ids (no foreign keys) for the person and entity they
concern, so that the history of a deleted entry, or of a person merged into another, survives.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Integer, String, Text, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from directory.models.base import Base, utcnow
from directory.models.people import Person

CHANGE_ACTIONS = (
    ("create", "Added"),
    ("update", "Edited"),
    ("delete", "Deleted"),
    ("reorder", "Moved"),
    ("revert", "Reverted"),
    ("restore", "Restored"),
)

PENDING_STATUSES = (("pending", "Waiting"), ("approved", "Approved"), ("rejected", "Rejected"))


class ChangeRecord(Base):
    """One stored change: who, when, to what, and the state before and after."""

    __tablename__ = "directory_changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    #: The host identity key of whoever made the change (None: a command-line tool).
    actor_key: Mapped[str | None] = mapped_column(String(254))
    actor_person_id: Mapped[int | None] = mapped_column(Integer)
    #: Whose profile the change concerns.
    person_id: Mapped[int | None] = mapped_column(Integer, index=True)
    #: "person", "publication" or an entry kind of :data:`directory.models.ENTRY_MODELS`.
    entity_kind: Mapped[str] = mapped_column(String(32), nullable=False)
    entity_id: Mapped[int | None] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(16), nullable=False)
    #: The record's version once the change was saved (None for a deletion).
    entity_version: Mapped[int | None] = mapped_column(Integer)
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    after: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    #: A one-line description of the record, for history lists ("News: Paper accepted").
    summary: Mapped[str] = mapped_column(String(300), default="", nullable=False)
    #: For reverts and approvals: the change this one undoes or carries out.
    source_id: Mapped[int | None] = mapped_column(Integer)


class PendingChange(Base):
    """A change by someone whose changes need approval; the public page keeps showing the
    old state until an approver (their confirmed advisor, or an admin) accepts it."""

    __tablename__ = "directory_pending_changes"

    id: Mapped[int] = mapped_column(primary_key=True)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    author_key: Mapped[str | None] = mapped_column(String(254))
    author_person_id: Mapped[int | None] = mapped_column(Integer)
    person_id: Mapped[int] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), index=True, nullable=False
    )
    entity_kind: Mapped[str] = mapped_column(String(32), nullable=False)
    #: None for an entry that does not exist yet (a proposed addition).
    entity_id: Mapped[int | None] = mapped_column(Integer)
    action: Mapped[str] = mapped_column(String(16), nullable=False)
    #: The record's version the proposal was based on.
    base_version: Mapped[int | None] = mapped_column(Integer)
    before: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    proposed: Mapped[dict[str, Any] | None] = mapped_column(JSON)
    summary: Mapped[str] = mapped_column(String(300), default="", nullable=False)
    status: Mapped[str] = mapped_column(String(16), default="pending", nullable=False, index=True)
    decided_by_key: Mapped[str | None] = mapped_column(String(254))
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    reason: Mapped[str | None] = mapped_column(Text)

    person: Mapped[Person] = relationship()


class Invitation(Base):
    """A single-use, expiring link to claim a profile. Only a hash of the token is stored."""

    __tablename__ = "directory_invitations"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), index=True, nullable=False
    )
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    created_by_key: Mapped[str | None] = mapped_column(String(254))
    expires_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), nullable=False)
    used_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    used_by_key: Mapped[str | None] = mapped_column(String(254))

    person: Mapped[Person] = relationship()


class Delegation(Base):
    """``delegate`` may edit ``person``'s profile (a lab manager keeping a lab's pages)."""

    __tablename__ = "directory_delegations"
    __table_args__ = (UniqueConstraint("person_id", "delegate_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), index=True, nullable=False
    )
    delegate_id: Mapped[int] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), index=True, nullable=False
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    person: Mapped[Person] = relationship(foreign_keys=[person_id])
    delegate: Mapped[Person] = relationship(foreign_keys=[delegate_id])


class Reminder(Base):
    """A reminder e-mail asking a person whether their profile is still current. Its
    "still current" link names this row; confirming through it sets ``confirmed_at``, after
    which the link is used up. ``sent_at`` keeps a daily cron run from reminding anyone twice
    within a period."""

    __tablename__ = "directory_reminders"

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), index=True, nullable=False
    )
    sent_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow,
                                              nullable=False)  # fmt: skip
    sent_to: Mapped[str] = mapped_column(String(254), nullable=False)
    #: Who sent it: an admin's identity key, or None for the command line.
    sent_by_key: Mapped[str | None] = mapped_column(String(254))
    confirmed_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    person: Mapped[Person] = relationship()
