"""Changes to one person's profile, within a request's unit of work.

Every change to a profile goes through a :class:`ChangeSet`, obtained from
:meth:`directory.services.unit_of_work.UnitOfWork.change_set`. It checks that the viewer may
make it, checks versions, holds changes back for approval where the settings ask for it, and
writes the history (the one place that writes :class:`~directory.models.ChangeRecord` and
:class:`~directory.models.PendingChange` rows). It only flushes; the unit of work commits.

    changes = uow.change_set(person)
    changes.update(NEWS, item, base_version=form.version.data)   # before-state taken here
    form.fill(item)
    outcome = changes.finish()          # "saved", "pending" or "unchanged"; Conflict if stale

What each kind of record does (its snapshot, its description, what follows its saving) is
asked of its kind (:mod:`directory.services.change_kinds`); the change set never branches on
a kind's name.

Announce before you change: a record of the change set's profile added, changed or deleted
while it is open without ``create``, ``update`` or ``delete`` makes ``finish()`` raise
:class:`~directory.services.unannounced.UnannouncedChange` (such a change would be missing
from the history and from a proposal held for approval; that module says what never counts).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from sqlalchemy.orm import Session, SessionTransaction
from sqlalchemy.orm.exc import StaleDataError
from werkzeug.exceptions import Forbidden

from directory import models as m
from directory.models import ChangeRecord, PendingChange
from directory.services.access import can_admin, can_edit_person, needs_approval
from directory.services.change_kinds import kind_of, record_kind
from directory.services.errors import Conflict
from directory.services.snapshots import diff
from directory.services.unannounced import FlushWatch

if TYPE_CHECKING:
    from directory.services.identity import Viewer

SAVED, PENDING, UNCHANGED = "saved", "pending", "unchanged"


class Unit(Protocol):
    """What a change set needs of its unit of work: the
    :class:`~directory.services.unit_of_work.UnitOfWork` that creates change sets (and so is
    not imported here)."""

    session: Session
    viewer: Viewer

    def savepoint(self) -> SessionTransaction: ...

    def release(self, savepoint: SessionTransaction) -> None: ...


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
    """The changes of one unit of work to one person's profile (obtained with
    :meth:`directory.services.unit_of_work.UnitOfWork.change_set`).

    ``allowed`` overrides the access check for changes a viewer may make without editing the
    profile (an advisor confirming a relation a student entered; an approver carrying out an
    approved proposal): the caller passes the result of the named check in
    :mod:`directory.services.access`. By default the viewer must be able to edit the profile.
    ``person`` is None for the department's own records (research areas): admins only.
    ``actor`` names who the history records as making the change, when it is not the viewer.
    """

    def __init__(
        self,
        uow: Unit,
        person: m.Person | None,
        *,
        action: str | None = None,
        source_id: int | None = None,
        approval_exempt: bool = False,
        allowed: bool | None = None,
        actor: Viewer | None = None,
    ) -> None:
        self.uow = uow
        self.session = session = uow.session
        self.viewer = viewer = uow.viewer
        #: Who the history names: the unit's viewer, unless the change is made on someone's
        #: behalf by something else (a signed link someone followed without signing in).
        self.actor = actor or viewer
        self.person = person
        if allowed is None:
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
        # Opening the savepoint flushed what came before: what is written from here on is
        # this change set's, and must be announced to it.
        self._watch = FlushWatch(session, self._savepoint)

    @property
    def held(self) -> bool:
        """Whether this change set's changes will wait for approval instead of being made."""
        if self.approval_exempt or self.person is None:
            return False
        return needs_approval(self.viewer, self.person)

    # -- what the request does
    def create(self, kind: str, obj: Any) -> None:
        record_kind(kind)  # an unknown kind fails here, not at the end
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
        return record_kind(kind).snapshot(obj, self.person_id)

    @property
    def person_id(self) -> int | None:
        return self.person.id if self.person is not None else None

    # -- the end of the change set
    def finish(self) -> str:
        """Record everything (or, for changes that need approval, only the proposals) and
        flush. Returns SAVED, PENDING or UNCHANGED; raises :class:`Conflict`, and
        UnannouncedChange if a record of the profile was changed unannounced."""
        self._mark_new_versions()
        try:
            self.session.flush()
        except StaleDataError:
            self._watch.stop()
            self._savepoint.rollback()
            item = next((t for t in self._items if t.action != "create"), None)
            raise Conflict(
                item.kind if item else "", getattr(item and item.obj, "id", None), None
            ) from None
        self._watch.stop()
        self._watch.check(
            self.person,
            [(item.action, item.obj) for item in self._items],
            in_bulk=any(kind_of(group.kind).writes_in_bulk for group in self._groups),
        )
        changes = self._changes()
        if not changes and not self._groups:
            self._savepoint.rollback()
            return UNCHANGED
        if self.held:
            self._hold_for_approval(changes)
            return PENDING
        for item, action, after in changes:
            self._record(
                kind=item.kind,
                entity_id=item.obj.id,
                action=self.action or action,
                entity_version=None if item.action == "delete" else _version(item.obj),
                before=item.before,
                after=after,
                summary=record_kind(item.kind).describe(after or item.before),
            )
        for group in self._groups:
            self._record(kind=group.kind, entity_id=None, action=group.action,
                         entity_version=None, before=group.before, after=group.after,
                         summary=group.summary)  # fmt: skip
        if self.person is not None:
            self._saved_on_profile(changes)
        self.uow.release(self._savepoint)
        self.session.flush()
        return SAVED

    def _mark_new_versions(self) -> None:
        """A change to a list that belongs to a record (links, authors, areas) must still bump
        the record's version, so that concurrent edits are seen."""
        for item in self._items:
            if item.action == "update" and hasattr(item.obj, "updated_at"):
                kind = record_kind(item.kind)
                now = kind.snapshot(item.obj, self.person_id)
                own = getattr(kind, "profile_fields", frozenset())
                if {row["field"] for row in diff(item.before, now)} - own:
                    item.obj.updated_at = m.utcnow()

    def _changes(self) -> list[tuple[_Tracked, str, Any]]:
        """(tracked item, action, after-state) of every tracked record that changed."""
        changes = []
        for item in self._items:
            after = None if item.action == "delete" else self._snapshot(item.kind, item.obj)
            action = item.action
            if action == "update":
                changed = {row["field"] for row in diff(item.before, after)}
                if not changed:
                    continue
                action = "reorder" if changed == {"position"} else "update"
            changes.append((item, action, after))
        return changes

    def _saved_on_profile(self, changes: list[tuple[_Tracked, str, Any]]) -> None:
        saved: dict[str, list[Any]] = {}
        for item, _action, after in changes:
            if after is not None:
                saved.setdefault(item.kind, []).append(item.obj)
        for kind, objs in saved.items():
            record_kind(kind).saved_on_profile(self.session, objs)

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
                "action": item.action,
                "base_version": _base_version(item),
                "before": item.before,
                "after": after,
                "summary": record_kind(item.kind).describe(after or item.before),
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
