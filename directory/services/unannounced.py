"""The rule "announce a record to the change set before you change it", checked.

A change set takes a record's before-state when it is told of the change
(``changes.update(kind, obj)``, ``create``, ``delete``). A record changed without that is
missing from the history and from a proposal held for approval, so it is an error: while a
change set is open, a :class:`FlushWatch` notes the records of a kind of change that every
flush of the session writes, and when the change set finishes, one of its profile that was
never announced raises :class:`UnannouncedChange`.

What is never such a change: the database's bookkeeping (versions, timestamps, stored name
orders; :func:`directory.services.snapshots.edited_columns`), rows that are no kind of change
(links, search documents, listings), records of other profiles, the records a bulk change
(an import) wrote under its one group, and what goes with an announced deletion (a cascade,
or a merge's records moved off the deleted person).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from sqlalchemy import event, inspect
from sqlalchemy.orm import Session, SessionTransaction

from directory import models as m
from directory.services.change_kinds import RecordKind, kind_of_record
from directory.services.snapshots import edited_columns

#: session.info key: the watches of the change sets open in the session.
_OPEN = "directory_open_change_sets"

_ANNOUNCE = {"changed": "update", "added": "create", "deleted": "delete"}


class UnannouncedChange(RuntimeError):
    """A record of the change set's profile was changed without telling the change set first
    (``update``, ``create`` or ``delete``). A programming error, never the user's."""

    def __init__(self, kind: str, entity_id: int | None, how: str) -> None:
        super().__init__(
            f"{kind} {entity_id} was {how} without being announced to the change set: call "
            f"changes.{_ANNOUNCE[how]}({kind!r}, obj) before changing it"
        )
        self.kind, self.entity_id, self.how = kind, entity_id, how


@dataclass
class _Written:
    """A record of a kind of change that a flush wrote while the change set was open."""

    kind: RecordKind
    obj: Any
    how: str  # "added", "changed" or "deleted"
    #: The person who owned the record before, when the flush gave it another owner.
    moved_from: int | None = None


class FlushWatch:
    """What the flushes of ``session`` write from now until :meth:`stop`, for the change set
    whose ``savepoint`` was just opened (opening it flushed what came before)."""

    def __init__(self, session: Session, savepoint: SessionTransaction) -> None:
        self.session = session
        self._savepoint = savepoint
        self._written: dict[int, _Written] = {}
        watches = session.info.get(_OPEN)
        if watches is None:  # one listener per session, for all its open change sets
            watches = session.info[_OPEN] = []
            event.listen(session, "before_flush", _note_flush)
        watches.append(self)

    def stop(self) -> None:
        watches = self.session.info.get(_OPEN, [])
        if self in watches:
            watches.remove(self)

    def note(self, session: Session) -> None:
        """Note the records of a kind of change the coming flush writes."""
        new, dirty, deleted = session.new, session.dirty, session.deleted
        written = [
            *((obj, "added") for obj in new),
            *((obj, "deleted") for obj in deleted),
            *((obj, "changed") for obj in dirty if obj not in deleted),
        ]
        for obj, how in written:
            kind = kind_of_record(obj)
            if kind is None or id(obj) in self._written:
                continue
            if how != "changed" or edited_columns(obj):
                self._written[id(obj)] = _Written(kind, obj, how, _previous_owner(obj))

    def check(
        self, person: m.Person | None, announced: Iterable[tuple[str, Any]], in_bulk: bool
    ) -> None:
        """Raise UnannouncedChange for a record of ``person``'s profile (None: the
        department's) written but not among ``announced`` ((action, record) pairs). Nothing
        to check when ``in_bulk``: a bulk change's group stands for what it wrote."""
        if in_bulk:
            return
        announced = list(announced)
        told = {id(obj) for _action, obj in announced}
        deleted = [obj for action, obj in announced if action == "delete"]
        deleted_people = {obj.id for obj in deleted if isinstance(obj, m.Person)}
        for key, written in self._written.items():
            if key in told or (written.how == "deleted" and deleted):
                continue
            if written.moved_from is not None and written.moved_from in deleted_people:
                continue
            if written.kind.belongs_to(written.obj, person):
                raise UnannouncedChange(
                    written.kind.name, getattr(written.obj, "id", None), written.how
                )


def _note_flush(session: Session, _context: Any, _instances: Any) -> None:
    watches = session.info.get(_OPEN, [])
    # A change set given up half-way (an exception, the session rolled back) notes nothing.
    watches[:] = [watch for watch in watches if watch._savepoint.is_active]
    for watch in watches:
        watch.note(session)


def _previous_owner(obj: Any) -> int | None:
    attrs = inspect(obj).attrs
    if "owner_id" not in attrs:
        return None
    return next(iter(attrs["owner_id"].history.deleted), None)
