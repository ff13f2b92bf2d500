"""The unit of work of an editing request: every change to a profile goes through a
:class:`ChangeSet`, which checks versions, writes the history (the one place that writes
:class:`~directory.models.ChangeRecord` rows), holds changes back for approval where
the settings ask for it, and commits once.

    changes = ChangeSet(session, viewer, person)
    changes.update("news", item, base_version=form.version.data)   # before-state taken here
    form.fill(item)
    outcome = changes.commit()          # "saved", "pending" or "unchanged"; Conflict if stale
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError

from directory import models as m
from directory.models import ChangeRecord, PendingChange
from directory.services.access import needs_approval
from directory.services.identity import Viewer
from directory.services.snapshots import PERSON, apply_snapshot, describe, diff, model_for, snapshot

SAVED, PENDING, UNCHANGED = "saved", "pending", "unchanged"


class Conflict(Exception):
    """The record changed since the form was loaded; nothing was written."""

    def __init__(self, kind: str, entity_id: int | None, base_version: int | None) -> None:
        super().__init__(f"{kind} {entity_id} changed since version {base_version}")
        self.kind = kind
        self.entity_id = entity_id
        self.base_version = base_version


class CannotApply(Exception):
    """A revert or approval that no longer makes sense (its record is gone); the message says
    why, for the user."""


@dataclass
class _Tracked:
    kind: str
    obj: Any
    action: str
    before: dict[str, Any] | None


class ChangeSet:
    """The changes of one request to one person's profile."""

    def __init__(
        self,
        session: Session,
        viewer: Viewer,
        person: m.Person,
        *,
        action: str | None = None,
        source_id: int | None = None,
        approval_exempt: bool = False,
    ) -> None:
        self.session = session
        self.viewer = viewer
        self.person = person
        #: Overrides the recorded action ("revert", "restore").
        self.action = action
        self.source_id = source_id
        self.approval_exempt = approval_exempt
        self._items: list[_Tracked] = []
        self.records: list[ChangeRecord] = []
        self.pending: list[PendingChange] = []

    # -- what the request does
    def create(self, kind: str, obj: Any) -> None:
        self.session.add(obj)
        self._items.append(_Tracked(kind, obj, "create", None))

    def update(self, kind: str, obj: Any, base_version: int | None = None) -> None:
        """Track ``obj`` before it is changed; refuse at once if the user's form was based on
        an older version than the stored one."""
        if base_version is not None and base_version != obj.version:
            raise Conflict(kind, obj.id, base_version)
        self._items.append(_Tracked(kind, obj, "update", snapshot(kind, obj)))

    def delete(self, kind: str, obj: Any, base_version: int | None = None) -> None:
        if base_version is not None and base_version != obj.version:
            raise Conflict(kind, obj.id, base_version)
        self._items.append(_Tracked(kind, obj, "delete", snapshot(kind, obj)))
        self.session.delete(obj)

    # -- the end of the request
    def commit(self) -> str:
        """Write everything (or, for changes that need approval, only the proposals) and
        commit once. Returns SAVED, PENDING or UNCHANGED; raises :class:`Conflict`."""
        for item in self._items:
            if item.action == "update" and diff(item.before, snapshot(item.kind, item.obj)):
                # A change to a list that belongs to the record (links, authors, areas) must
                # still bump the record's version, so that concurrent edits are detected.
                item.obj.updated_at = m.utcnow()
        try:
            self.session.flush()
        except StaleDataError:
            self.session.rollback()
            item = next((t for t in self._items if t.action != "create"), None)
            raise Conflict(
                item.kind if item else "", getattr(item and item.obj, "id", None), None
            ) from None
        changes = []
        for item in self._items:
            after = None if item.action == "delete" else snapshot(item.kind, item.obj)
            if item.action == "update":
                changed = {row["field"] for row in diff(item.before, after)}
                if not changed:
                    continue
                action = "reorder" if changed == {"position"} else "update"
            else:
                action = item.action
            changes.append((item, action, after))
        if not changes:
            self.session.rollback()
            return UNCHANGED
        if not self.approval_exempt and needs_approval(self.viewer, self.person):
            self._hold_for_approval(changes)
            return PENDING
        for item, action, after in changes:
            state = after or item.before
            record = ChangeRecord(
                actor_key=self.viewer.key,
                actor_person_id=self.viewer.person_id,
                person_id=self.person.id,
                entity_kind=item.kind,
                entity_id=item.obj.id,
                action=self.action or action,
                entity_version=None if item.action == "delete" else item.obj.version,
                before=item.before,
                after=after,
                summary=describe(item.kind, state)[:300],
                source_id=self.source_id,
            )
            self.session.add(record)
            self.records.append(record)
        self.session.commit()
        return SAVED

    def _hold_for_approval(self, changes: list[tuple[_Tracked, str, Any]]) -> None:
        """Undo the change itself and keep it as a proposal instead."""
        proposals = [
            {
                "kind": item.kind,
                "entity_id": None if item.action == "create" else item.obj.id,
                "action": "delete" if item.action == "delete" else
                ("create" if item.action == "create" else "update"),
                "base_version": None if item.action == "create" else (
                    item.obj.version - 1 if item.action == "update" else item.obj.version
                ),
                "before": item.before,
                "after": after,
            }
            for item, _action, after in changes
        ]  # fmt: skip
        self.session.rollback()
        for p in proposals:
            pending = PendingChange(
                author_key=self.viewer.key,
                author_person_id=self.viewer.person_id,
                person_id=self.person.id,
                entity_kind=p["kind"],
                entity_id=p["entity_id"],
                action=p["action"],
                base_version=p["base_version"],
                before=p["before"],
                proposed=p["after"],
                summary=describe(p["kind"], p["after"] or p["before"])[:300],
            )
            self.session.add(pending)
            self.pending.append(pending)
        self.session.commit()


# ----------------------------------------------------------------------------- using the history


def load_entity(session: Session, kind: str, entity_id: int | None) -> Any:
    if entity_id is None:
        return None
    return session.get(model_for(kind), entity_id)


def new_entity(kind: str, person: m.Person) -> Any:
    """An empty record of ``kind`` belonging to ``person``."""
    model = model_for(kind)
    if kind == PERSON:
        raise CannotApply("A deleted person cannot be restored from a profile's history.")
    if model is m.Publication:
        return model(created_by_id=person.id)
    return model(owner_id=person.id)


def _attach(session: Session, kind: str, obj: Any, person: m.Person) -> None:
    """A re-created paper goes back on the person's profile."""
    if kind == "publication":
        session.flush()
        if session.get(m.ProfilePublication, (person.id, obj.id)) is None:
            session.add(m.ProfilePublication(person_id=person.id, publication_id=obj.id))


def revert(session: Session, viewer: Viewer, person: m.Person, record: ChangeRecord) -> str:
    """Undo ``record``: put back its before-state (an addition is deleted, a deletion
    restored). The revert is itself a change, recorded (or held for approval) like any other."""
    obj = load_entity(session, record.entity_kind, record.entity_id)
    if record.action == "delete":
        changes = ChangeSet(session, viewer, person, action="restore", source_id=record.id)
        restored = new_entity(record.entity_kind, person)
        apply_snapshot(session, record.entity_kind, restored, record.before or {})
        changes.create(record.entity_kind, restored)
        outcome = changes.commit()
        if outcome == SAVED:
            _attach(session, record.entity_kind, restored, person)
            session.commit()
        return outcome
    if obj is None:
        raise CannotApply("This entry has been deleted since; restore it from its deletion first.")
    changes = ChangeSet(session, viewer, person, action="revert", source_id=record.id)
    if record.before is None:  # undoing an addition
        changes.delete(record.entity_kind, obj)
    else:
        changes.update(record.entity_kind, obj)
        # Only what that change altered goes back; later edits to other fields stay.
        apply_snapshot(
            session, record.entity_kind, obj, changed_fields(record.before, record.after)
        )
    return changes.commit()


def changed_fields(base: dict[str, Any] | None, target: dict[str, Any] | None) -> dict[str, Any]:
    """The part of ``base`` whose values ``target`` differs in (what a change touched)."""
    base, target = base or {}, target or {}
    return {key: base.get(key) for key in {**base, **target} if base.get(key) != target.get(key)}


def apply_pending(session: Session, viewer: Viewer, pending: PendingChange) -> None:
    """Carry out an approved proposal on the live records, recorded in the history as done
    by the approver on behalf of the author."""
    person = pending.person
    changes = ChangeSet(session, viewer, person, approval_exempt=True)
    if pending.action == "create":
        obj = new_entity(pending.entity_kind, person)
        apply_snapshot(session, pending.entity_kind, obj, pending.proposed or {})
        if hasattr(obj, "position"):
            obj.position = _first_position(session, pending.entity_kind, person)
        changes.create(pending.entity_kind, obj)
    else:
        obj = load_entity(session, pending.entity_kind, pending.entity_id)
        if obj is None:
            raise CannotApply("The entry this change concerns has been deleted since.")
        if pending.action == "delete":
            changes.delete(pending.entity_kind, obj)
        else:
            changes.update(pending.entity_kind, obj)
            # Only the fields the author changed: an admin's edit made meanwhile to another
            # field (a role, an address) is not undone by approving.
            proposal = changed_fields(pending.proposed, pending.before)
            apply_snapshot(session, pending.entity_kind, obj, proposal)
    pending.status = "approved"
    pending.decided_by_key = viewer.key
    pending.decided_at = datetime.now(UTC)
    changes.commit()
    if pending.status != "approved":  # an unchanged outcome rolled the decision back
        session.refresh(pending)
        pending.status = "approved"
        pending.decided_by_key = viewer.key
        pending.decided_at = datetime.now(UTC)
        session.commit()


def _first_position(session: Session, kind: str, person: m.Person) -> int:
    model = model_for(kind)
    lowest = session.scalar(
        select(model.position).where(model.owner_id == person.id).order_by(model.position)
    )
    return (lowest or 0) - 1


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
