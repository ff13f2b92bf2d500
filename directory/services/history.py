"""Using the history: what a recorded change or a proposal shows, undoing a change, and
approving or rejecting a proposal.

Each function asks the change's kind (:func:`directory.services.change_kinds.kind_of`) what to
do, and makes any change through a change set of the request's unit of work, so that undoing
and approving are recorded (or held for approval) and checked like any other change.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from directory import models as m
from directory.models import ChangeRecord, PendingChange
from directory.services.access import can_approve
from directory.services.change_kinds import kind_of
from directory.services.claims.queue import proposal_decided
from directory.services.errors import CannotApply

if TYPE_CHECKING:
    from directory.services.unit_of_work import UnitOfWork


def revertable(record: ChangeRecord) -> bool:
    """Whether the history offers to undo ``record``: changes to a record (not a merged-away
    person) and publication imports. Invitations, claims and version links are not undone
    from the history."""
    return kind_of(record.entity_kind).revertable(record)


def changed_since_proposed(session: Session, pending: PendingChange) -> list[str]:
    """The fields (by their labels) of the record a proposal concerns that differ now from
    what the author saw when proposing it: empty when nobody changed it since, whatever its
    version number says. A record deleted since counts as changed."""
    return kind_of(pending.entity_kind).changed_since_proposed(session, pending)


def proposal_fields(pending: PendingChange) -> list[str]:
    """The fields a proposed change to a record changes, by their labels ("Title", "Research
    interests"): what a rejection names to its author. Empty for an addition, a deletion or
    an import (the whole entry is meant)."""
    return kind_of(pending.entity_kind).proposal_fields(pending)


def display_rows(session: Session, kind: str, before: Any, after: Any) -> list[dict[str, Any]]:
    """The rows a history entry or a proposal shows: the fields that differ, or what a grouped
    change (an import) holds."""
    return kind_of(kind).display_rows(session, before, after)


def revert(uow: UnitOfWork, person: m.Person, record: ChangeRecord) -> str:
    """Undo ``record``: put back its before-state (an addition is deleted, a deletion
    restored, an import taken off the profile). The revert is itself a change, recorded (or
    held for approval) like any other."""
    kind = kind_of(record.entity_kind)
    if not kind.revertable(record):
        raise CannotApply("This change cannot be undone from the history.")
    changes = uow.change_set(person, action=kind.revert_action(record), source_id=record.id)
    kind.revert(changes, record)
    return changes.finish()


def apply_pending(uow: UnitOfWork, pending: PendingChange) -> None:
    """Carry out an approved proposal on the live records, recorded in the history as done
    by the approver on behalf of the author."""
    person = pending.person
    allowed = can_approve(uow.viewer, person)
    changes = uow.change_set(person, approval_exempt=True, allowed=allowed)
    kind_of(pending.entity_kind).apply(changes, pending)
    changes.finish()
    made = next((r.entity_id for r in changes.records
                 if r.entity_kind == pending.entity_kind and r.action == "create"),
                None)  # fmt: skip
    decide(uow, pending, "approved", entity_id=made or pending.entity_id)


def decide(
    uow: UnitOfWork,
    pending: PendingChange,
    status: str,
    reason: str | None = None,
    *,
    entity_id: int | None = None,
) -> None:
    """Mark a proposal approved or rejected by the unit's viewer; a claim candidate waiting
    on it is accepted or asked again. ``entity_id``: the record an approval made or changed."""
    pending.status = status
    pending.reason = reason
    pending.decided_by_key = uow.viewer.key
    pending.decided_at = datetime.now(UTC)
    proposal_decided(uow.session, pending, uow.viewer.key, entity_id)
    uow.session.flush()


def changes_since(
    session: Session, kind: str, entity_id: int, version: int | None
) -> list[ChangeRecord]:
    """What was saved to a record after ``version`` (for the conflict message)."""
    stmt = select(ChangeRecord).where(
        ChangeRecord.entity_kind == kind, ChangeRecord.entity_id == entity_id
    )
    if version is not None:
        stmt = stmt.where(ChangeRecord.entity_version > version)
    return list(session.scalars(stmt.order_by(ChangeRecord.id)))
