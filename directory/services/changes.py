"""Changes to one person's profile, within a request's unit of work.

Every change to a profile goes through a :class:`ChangeSet`, obtained from
:meth:`directory.services.unit_of_work.UnitOfWork.change_set`. It checks that the viewer may
make it, checks versions, holds changes back for approval where the settings ask for it, and
writes the history (the one place that writes :class:`~directory.models.ChangeRecord` and
:class:`~directory.models.PendingChange` rows). It only flushes; the unit of work commits.

    changes = uow.change_set(person)
    changes.update("news", item, base_version=form.version.data)   # before-state taken here
    form.fill(item)
    outcome = changes.finish()          # "saved", "pending" or "unchanged"; Conflict if stale
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.exceptions import Forbidden

from directory import models as m
from directory.models import ChangeRecord, PendingChange
from directory.services import importing
from directory.services.access import can_admin, can_approve, can_edit_person, needs_approval
from directory.services.errors import CannotApply, Conflict
from directory.services.publications import link_coauthor_profiles
from directory.services.snapshots import (
    HIDDEN_FIELDS,
    PERSON,
    PUBLICATION,
    apply_snapshot,
    describe,
    diff,
    field_label,
    model_for,
    readable_rows,
    snapshot,
    snapshot_kinds,
)

if TYPE_CHECKING:
    from directory.services.identity import Viewer
    from directory.services.unit_of_work import UnitOfWork

SAVED, PENDING, UNCHANGED = "saved", "pending", "unchanged"


@dataclass
class _Tracked:
    kind: str
    obj: Any
    action: str
    before: dict[str, Any] | None
    #: The record's version when the change set was told of the change (what a proposal is
    #: based on).
    version: int | None = None


@dataclass
class _Group:
    """A change written in bulk (an import): one history record or one proposal for all."""

    kind: str
    action: str
    summary: str
    after: dict[str, Any] | None
    before: dict[str, Any] | None = None


class ChangeSet:
    """The changes of one unit of work to one person's profile.

    ``allowed`` overrides the access check for changes a viewer may make without editing the
    profile (an advisor confirming a relation a student entered; an approver carrying out an
    approved proposal): the caller passes the result of the named check in
    :mod:`directory.services.access`. By default the viewer must be able to edit the profile.
    ``person`` is None for the department's own records (research areas): admins only.
    ``actor`` names who the history records as making the change, when it is not the viewer.
    """

    def __init__(
        self,
        uow: UnitOfWork,
        person: m.Person | None,
        *,
        action: str | None = None,
        source_id: int | None = None,
        approval_exempt: bool = False,
        allowed: bool | None = None,
        actor: Viewer | None = None,
    ) -> None:
        self.uow = uow
        self.session = uow.session
        self.viewer = uow.viewer
        #: Who the history names: the unit's viewer, unless the change is made on someone's
        #: behalf by something else (a signed link someone followed without signing in).
        self.actor = actor or uow.viewer
        self.person = person
        if allowed is None:
            viewer = self.viewer
            allowed = can_admin(viewer) if person is None else can_edit_person(viewer, person)
        if not allowed:
            raise Forbidden()
        #: Overrides the recorded action ("revert", "restore").
        self.action = action
        self.source_id = source_id
        self.approval_exempt = approval_exempt
        self._items: list[_Tracked] = []
        self._groups: list[_Group] = []
        self.records: list[ChangeRecord] = []
        self.pending: list[PendingChange] = []
        # Everything this change set does can be undone alone (a change held for approval).
        self._savepoint = uow.savepoint()

    @property
    def held(self) -> bool:
        """Whether this change set's changes will wait for approval instead of being made."""
        if self.approval_exempt or self.person is None:
            return False
        return needs_approval(self.viewer, self.person)

    # -- what the request does
    def create(self, kind: str, obj: Any) -> None:
        self.session.add(obj)
        self._items.append(_Tracked(kind, obj, "create", None))

    def update(self, kind: str, obj: Any, base_version: int | None = None) -> None:
        """Track ``obj`` before it is changed; refuse at once if the user's form was based on
        an older version than the stored one."""
        if base_version is not None and base_version != getattr(obj, "version", None):
            raise Conflict(kind, obj.id, base_version)
        self._items.append(_Tracked(kind, obj, "update", self._snapshot(kind, obj), _version(obj)))

    def delete(
        self, kind: str, obj: Any, base_version: int | None = None, *, remove: bool = True
    ) -> None:
        """Track the deletion of ``obj`` (its state now is what a restore brings back) and
        delete it; ``remove=False`` when the service doing the change deletes it itself."""
        if base_version is not None and base_version != getattr(obj, "version", None):
            raise Conflict(kind, obj.id, base_version)
        self._items.append(_Tracked(kind, obj, "delete", self._snapshot(kind, obj), _version(obj)))
        if remove:
            self.session.delete(obj)

    def group(
        self,
        kind: str,
        action: str,
        summary: str,
        after: dict[str, Any] | None,
        before: dict[str, Any] | None = None,
    ) -> None:
        """A change written (or, when held, to be written) in bulk: one history record or one
        proposal for the whole of it, e.g. an import with the ids of what it wrote."""
        self._groups.append(_Group(kind, action, summary, after, before))

    def _snapshot(self, kind: str, obj: Any) -> dict[str, Any]:
        return snapshot(kind, obj, self.person_id)

    @property
    def person_id(self) -> int | None:
        return self.person.id if self.person is not None else None

    # -- the end of the change set
    def finish(self) -> str:
        """Record everything (or, for changes that need approval, only the proposals) and
        flush. Returns SAVED, PENDING or UNCHANGED; raises :class:`Conflict`."""
        for item in self._items:
            if item.action == "update" and hasattr(item.obj, "updated_at"):
                # How one profile lists a shared paper is that profile's, not the paper's.
                now = self._snapshot(item.kind, item.obj)
                if {row["field"] for row in diff(item.before, now)} - {"listing"}:
                    # A change to a list that belongs to the record (links, authors, areas)
                    # must still bump the record's version, so that concurrent edits are seen.
                    item.obj.updated_at = m.utcnow()
        try:
            self.session.flush()
        except StaleDataError:
            self._savepoint.rollback()
            item = next((t for t in self._items if t.action != "create"), None)
            raise Conflict(
                item.kind if item else "", getattr(item and item.obj, "id", None), None
            ) from None
        changes = []
        for item in self._items:
            after = None if item.action == "delete" else self._snapshot(item.kind, item.obj)
            if item.action == "update":
                changed = {row["field"] for row in diff(item.before, after)}
                if not changed:
                    continue
                action = "reorder" if changed == {"position"} else "update"
            else:
                action = item.action
            changes.append((item, action, after))
        if not changes and not self._groups:
            self._savepoint.rollback()
            return UNCHANGED
        if self.held:
            self._hold_for_approval(changes)
            return PENDING
        for item, action, after in changes:
            state = after or item.before
            self._record(
                kind=item.kind,
                entity_id=item.obj.id,
                action=self.action or action,
                entity_version=None if item.action == "delete" else _version(item.obj),
                before=item.before,
                after=after,
                summary=describe(item.kind, state),
            )
        for group in self._groups:
            self._record(kind=group.kind, entity_id=None, action=group.action,
                         entity_version=None, before=group.before, after=group.after,
                         summary=group.summary)  # fmt: skip
        # A paper saved on a profile shows on its department co-authors' profiles too (not so
        # for the department's own record management: merges and splits move those rows).
        saved_papers = [i.obj for i, _a, after in changes if i.kind == PUBLICATION and after]
        if saved_papers and self.person is not None:
            link_coauthor_profiles(self.session, saved_papers)
        self.uow.release(self._savepoint)
        self.session.flush()
        return SAVED

    def _record(self, *, kind: str, summary: str, **values: Any) -> None:
        record = ChangeRecord(
            actor_key=self.actor.key,
            actor_person_id=self.actor.person_id,
            person_id=self.person_id,
            entity_kind=kind,
            summary=summary[:300],
            source_id=self.source_id,
            **values,
        )
        self.session.add(record)
        self.records.append(record)

    def _hold_for_approval(self, changes: list[tuple[_Tracked, str, Any]]) -> None:
        """Undo the change itself and keep it as a proposal instead."""
        proposals = [
            {
                "kind": item.kind,
                "entity_id": None if item.action == "create" else item.obj.id,
                "action": "delete" if item.action == "delete" else
                ("create" if item.action == "create" else "update"),
                "base_version": _base_version(item),
                "before": item.before,
                "after": after,
                "summary": describe(item.kind, after or item.before),
            }
            for item, _action, after in changes
        ] + [
            {"kind": g.kind, "entity_id": None, "action": g.action, "base_version": None,
             "before": g.before, "after": g.after, "summary": g.summary}
            for g in self._groups
        ]  # fmt: skip
        self._savepoint.rollback()
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
                summary=p["summary"][:300],
            )
            self.session.add(pending)
            self.pending.append(pending)
        self.session.flush()


def _version(obj: Any) -> int | None:
    return getattr(obj, "version", None)


def _base_version(item: _Tracked) -> int | None:
    """The version a proposal was based on: the record's when the change was announced (not
    the flushed one less 1: a change to a record's lists alone, or none of its columns, is
    not always flushed as a new version)."""
    return None if item.action == "create" else item.version


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


def revertable(record: ChangeRecord) -> bool:
    """Whether the history offers to undo ``record``: changes to a record (not a merged-away
    person) and publication imports. Invitations, claims and version links are not undone
    from the history."""
    if record.entity_kind == importing.IMPORT:
        return True
    if record.entity_id is None or record.entity_kind not in snapshot_kinds():
        return False
    return not (record.entity_kind == PERSON and record.action == "delete")


def changed_since_proposed(session: Session, pending: PendingChange) -> list[str]:
    """The fields (by their labels) of the record a proposal concerns that differ now from
    what the author saw when proposing it: empty when nobody changed it since, whatever its
    version number says. A record deleted since counts as changed."""
    if pending.entity_kind in importing.GROUPED_KINDS or pending.before is None:
        return []
    current = load_entity(session, pending.entity_kind, pending.entity_id)
    if current is None:
        return ["the whole entry (deleted)"]
    now = snapshot(pending.entity_kind, current, pending.person_id)
    rows = readable_rows(session, pending.entity_kind, diff(pending.before, now))
    return [row["label"] for row in rows]


def proposal_fields(pending: PendingChange) -> list[str]:
    """The fields a proposed change to a record changes, by their labels ("Title", "Research
    interests"): what a rejection names to its author. Empty for an addition, a deletion or
    an import (the whole entry is meant)."""
    if pending.action != "update" or pending.entity_kind in importing.GROUPED_KINDS:
        return []
    rows = diff(pending.before, pending.proposed)
    return [field_label(row["field"]) for row in rows if row["field"] not in HIDDEN_FIELDS]


def display_rows(session: Session, kind: str, before: Any, after: Any) -> list[dict[str, Any]]:
    """The rows a history entry or a proposal shows: the fields that differ, or what a grouped
    change (an import) holds."""
    if kind in importing.GROUPED_KINDS:
        return importing.display_rows(session, kind, after)
    return readable_rows(session, kind, diff(before, after))


def revert(uow: UnitOfWork, person: m.Person, record: ChangeRecord) -> str:
    """Undo ``record``: put back its before-state (an addition is deleted, a deletion
    restored). The revert is itself a change, recorded (or held for approval) like any other."""
    session = uow.session
    if not revertable(record):
        raise CannotApply("This change cannot be undone from the history.")
    if record.entity_kind in importing.GROUPED_KINDS:
        changes = uow.change_set(person, action="revert", source_id=record.id)
        importing.revert_group(changes, record)
        return changes.finish()
    obj = load_entity(session, record.entity_kind, record.entity_id)
    if record.action == "delete":
        changes = uow.change_set(person, action="restore", source_id=record.id)
        restored = new_entity(record.entity_kind, person)
        changes.create(record.entity_kind, restored)
        apply_snapshot(session, record.entity_kind, restored, record.before or {}, person.id)
        return changes.finish()
    if obj is None:
        raise CannotApply("This entry has been deleted since; restore it from its deletion first.")
    changes = uow.change_set(person, action="revert", source_id=record.id)
    if record.before is None:  # undoing an addition
        changes.delete(record.entity_kind, obj)
    else:
        changes.update(record.entity_kind, obj)
        # Only what that change altered goes back; later edits to other fields stay.
        apply_snapshot(
            session, record.entity_kind, obj, changed_fields(record.before, record.after),
            person.id,
        )  # fmt: skip
    return changes.finish()


def changed_fields(base: dict[str, Any] | None, target: dict[str, Any] | None) -> dict[str, Any]:
    """The part of ``base`` whose values ``target`` differs in (what a change touched)."""
    base, target = base or {}, target or {}
    return {key: base.get(key) for key in {**base, **target} if base.get(key) != target.get(key)}


def apply_pending(uow: UnitOfWork, pending: PendingChange) -> None:
    """Carry out an approved proposal on the live records, recorded in the history as done
    by the approver on behalf of the author."""
    session = uow.session
    person = pending.person
    allowed = can_approve(uow.viewer, person)
    changes = uow.change_set(person, approval_exempt=True, allowed=allowed)
    if pending.entity_kind in importing.GROUPED_KINDS:
        importing.apply_group(changes, pending)
    elif pending.action == "create":
        obj = new_entity(pending.entity_kind, person)
        if hasattr(obj, "position"):
            obj.position = _first_position(session, pending.entity_kind, person)
        changes.create(pending.entity_kind, obj)
        apply_snapshot(session, pending.entity_kind, obj, pending.proposed or {}, person.id)
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
            apply_snapshot(session, pending.entity_kind, obj, proposal, person.id)
    changes.finish()
    decide(uow, pending, "approved")


def decide(uow: UnitOfWork, pending: PendingChange, status: str, reason: str | None = None) -> None:
    """Mark a proposal approved or rejected by the unit's viewer."""
    pending.status = status
    pending.reason = reason
    pending.decided_by_key = uow.viewer.key
    pending.decided_at = datetime.now(UTC)
    uow.session.flush()


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
