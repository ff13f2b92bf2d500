"""Every kind of change the write path knows, and what it does with each: the registry.

A change set (:mod:`directory.services.changes`) and the history (:mod:`directory.services.history`)
never branch on a kind's name; they ask :func:`kind_of` for the kind and call its hooks:

* ``snapshot`` and ``describe``: the state of a record and a line naming it;
* ``display_rows``: what a history entry or a proposal shows;
* ``revertable``, ``revert``: whether the history offers to undo a record, and undoing it;
* ``apply``: carrying out an approved proposal;
* ``changed_since_proposed``, ``proposal_fields``: what the approval queue says of a proposal;
* ``saved_on_profile``: what follows once records of the kind are saved on a profile;
* ``belongs_to``: whether a record is the profile's (the update-before-change check).

Two families: a *record* kind (a person, a paper, an area, a delegation, each entry kind)
keeps one record's before and after, read and written by :mod:`directory.services.snapshots`;
a *grouped* kind is one history record for something written in bulk (an import, by
:mod:`directory.services.importing`) or a note (an invitation, an onboarding batch) that is
shown but never undone. The kinds' names are in :mod:`directory.services.kinds`.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from sqlalchemy import select
from sqlalchemy.orm import Session, object_session

from directory import models as m
from directory.models.vocabularies import N_
from directory.services import importing
from directory.services.claims.queue import offer_to_coauthors
from directory.services.errors import CannotApply
from directory.services.kinds import (
    AREA,
    DELEGATION,
    IMPORT,
    INVITATION,
    ONBOARDING,
    PERSON,
    PROFILE_IMPORT,
    PUBLICATION,
    Changes,
)
from directory.services.snapshots import (
    HIDDEN_FIELDS,
    apply_snapshot,
    describe,
    diff,
    field_label,
    readable_rows,
    snapshot,
)

if TYPE_CHECKING:
    from directory.models import ChangeRecord, PendingChange

Rows = list[dict[str, Any]]


class ChangeKind:
    """A kind of change. This base is a *note*: recorded and shown, never undone or applied
    (an invitation, an onboarding batch, and any kind this version does not know)."""

    #: Whether the kind's one history record stands for records written in bulk (an
    #: import's papers and entries), which are then not announced one by one.
    writes_in_bulk = False

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.name}>"

    def display_rows(self, session: Session, before: Any, after: Any) -> Rows:
        """The rows a history entry or a proposal of this kind shows."""
        return readable_rows(session, self.name, diff(before, after))

    def revertable(self, record: ChangeRecord) -> bool:
        """Whether the history offers to undo ``record``."""
        return False

    def revert_action(self, record: ChangeRecord) -> str:
        """The action the undoing of ``record`` is recorded as."""
        return "revert"

    def revert(self, changes: Changes, record: ChangeRecord) -> None:
        """Undo ``record`` through ``changes``."""
        raise CannotApply("This change cannot be undone from the history.")

    def apply(self, changes: Changes, pending: PendingChange) -> None:
        """Carry out the approved proposal ``pending`` through ``changes``."""
        raise CannotApply("This kind of change cannot be approved.")

    def changed_since_proposed(self, session: Session, pending: PendingChange) -> list[str]:
        """The fields (by their labels) of the record ``pending`` concerns that differ now
        from what its author saw."""
        return []

    def proposal_fields(self, pending: PendingChange) -> list[str]:
        """The fields (by their labels) a proposed change changes."""
        return []

    def saved_on_profile(self, session: Session, objs: list[Any]) -> None:
        """What follows once ``objs`` are saved through a profile's change set."""
        return None


class RecordKind(ChangeKind):
    """One record per change (its before and after); profile entries are owned by their
    person (``owner_id``)."""

    def __init__(self, name: str, model: type[m.Base]) -> None:
        super().__init__(name)
        self.model = model

    def snapshot(self, obj: Any, person_id: int | None) -> dict[str, Any]:
        return snapshot(self.name, obj, person_id)

    def describe(self, state: dict[str, Any] | None) -> str:
        return describe(self.name, state)

    def load(self, session: Session, entity_id: int | None) -> Any:
        return None if entity_id is None else session.get(self.model, entity_id)

    def new_record(self, person: m.Person) -> Any:
        """An empty record of this kind belonging to ``person``."""
        return self.model(owner_id=person.id)

    def belongs_to(self, obj: Any, person: m.Person | None) -> bool:
        """Whether ``obj`` is part of ``person``'s profile (None: the department's own)."""
        return person is not None and getattr(obj, "owner_id", None) == person.id

    def revertable(self, record: ChangeRecord) -> bool:
        return record.entity_id is not None

    def revert_action(self, record: ChangeRecord) -> str:
        return "restore" if record.action == "delete" else "revert"

    def revert(self, changes: Changes, record: ChangeRecord) -> None:
        """Put back ``record``'s before-state: an addition is deleted, a deletion restored,
        and of an update only what it altered goes back (later edits to other fields stay)."""
        session, person = changes.session, changes.person
        if record.action == "delete":
            restored = self.new_record(person)
            changes.create(self.name, restored)
            apply_snapshot(session, self.name, restored, record.before or {}, person.id)
            return
        obj = self.load(session, record.entity_id)
        if obj is None:
            raise CannotApply(
                "This entry has been deleted since; restore it from its deletion first."
            )
        if record.before is None:  # undoing an addition
            changes.delete(self.name, obj)
            return
        changes.update(self.name, obj)
        apply_snapshot(session, self.name, obj, changed_fields(record.before, record.after),
                       person.id)  # fmt: skip

    def apply(self, changes: Changes, pending: PendingChange) -> None:
        session, person = changes.session, changes.person
        if pending.action == "create":
            obj = self.new_record(person)
            if hasattr(obj, "position"):
                obj.position = self._first_position(session, person)
            changes.create(self.name, obj)
            apply_snapshot(session, self.name, obj, pending.proposed or {}, person.id)
            return
        obj = self.load(session, pending.entity_id)
        if obj is None:
            raise CannotApply("The entry this change concerns has been deleted since.")
        if pending.action == "delete":
            changes.delete(self.name, obj)
            return
        changes.update(self.name, obj)
        # Only the fields the author changed: an admin's edit made meanwhile to another
        # field (a role, an address) is not undone by approving.
        proposal = changed_fields(pending.proposed, pending.before)
        apply_snapshot(session, self.name, obj, proposal, person.id)

    def changed_since_proposed(self, session: Session, pending: PendingChange) -> list[str]:
        if pending.before is None:
            return []
        current = self.load(session, pending.entity_id)
        if current is None:
            return ["the whole entry (deleted)"]
        now = self.snapshot(current, pending.person_id)
        return [row["label"] for row in readable_rows(session, self.name,
                                                      diff(pending.before, now))]  # fmt: skip

    def proposal_fields(self, pending: PendingChange) -> list[str]:
        if pending.action != "update":
            return []
        rows = diff(pending.before, pending.proposed)
        return [field_label(row["field"]) for row in rows if row["field"] not in HIDDEN_FIELDS]

    def _first_position(self, session: Session, person: m.Person) -> int:
        model = self.model
        lowest = session.scalar(
            select(model.position).where(model.owner_id == person.id).order_by(model.position)
        )
        return (lowest or 0) - 1


class PersonKind(RecordKind):
    """A person's own record: the profile itself."""

    def new_record(self, person: m.Person) -> Any:
        raise CannotApply("A deleted person cannot be restored from a profile's history.")

    def belongs_to(self, obj: Any, person: m.Person | None) -> bool:
        return obj is person

    def revertable(self, record: ChangeRecord) -> bool:
        # A person merged away or deleted is not brought back from a profile's history.
        return super().revertable(record) and record.action != "delete"


class PublicationKind(RecordKind):
    """A paper: shared by the profiles that list it. How one profile lists it (its
    "listing") is that profile's, not the paper's."""

    #: Fields of a paper's state that are the profile's, not the paper's: changing them alone
    #: does not make a new version of the paper.
    profile_fields = frozenset({"listing"})

    def new_record(self, person: m.Person) -> Any:
        return m.Publication(created_by_id=person.id)

    def belongs_to(self, obj: Any, person: m.Person | None) -> bool:
        if person is None:
            return False
        if obj.created_by_id == person.id:
            return True
        session = object_session(obj)
        return (
            session is not None
            and obj.id is not None
            and (session.get(m.ProfilePublication, (person.id, obj.id)) is not None)
        )

    def saved_on_profile(self, session: Session, objs: list[Any]) -> None:
        # Its department co-authors are asked whether it is theirs (a name is no proof).
        offer_to_coauthors(session, [obj.id for obj in objs])


class DelegationKind(RecordKind):
    """Someone allowed to edit a person's profile (``person_id``: whose profile)."""

    def new_record(self, person: m.Person) -> Any:
        return m.Delegation(person_id=person.id)

    def belongs_to(self, obj: Any, person: m.Person | None) -> bool:
        return person is not None and obj.person_id == person.id


class AreaKind(RecordKind):
    """A research area: the department's own record, changed in no profile."""

    def new_record(self, person: m.Person) -> Any:
        return m.ResearchArea()

    def belongs_to(self, obj: Any, person: m.Person | None) -> bool:
        return person is None


class ImportKind(ChangeKind):
    """A publication import: one history record of the papers and entries it wrote (or one
    proposal holding the file), written, undone and shown by :mod:`importing`."""

    writes_in_bulk = True

    def display_rows(self, session: Session, before: Any, after: Any) -> Rows:
        return importing.display_rows(session, after)

    def revertable(self, record: ChangeRecord) -> bool:
        return True

    def revert(self, changes: Changes, record: ChangeRecord) -> None:
        importing.revert_group(changes, record)

    def apply(self, changes: Changes, pending: PendingChange) -> None:
        importing.apply_group(changes, pending)


class ProfileImportKind(ChangeKind):
    """An interchange profile import (command line only): shown, never undone from the
    history (its entries are edited or deleted one by one, or an earlier document imported)."""

    writes_in_bulk = True

    def display_rows(self, session: Session, before: Any, after: Any) -> Rows:
        source = (after or {}).get("source")
        return [{"field": "source", "label": N_("Document"), "before": None, "after": source}]


def changed_fields(base: dict[str, Any] | None, target: dict[str, Any] | None) -> dict[str, Any]:
    """The part of ``base`` whose values ``target`` differs in (what a change touched)."""
    base, target = base or {}, target or {}
    return {key: base.get(key) for key in {**base, **target} if base.get(key) != target.get(key)}


#: The kinds of change that are not profile entries, by name. Entry kinds are read from
#: their declarations (directory.models.entry_kinds), so a kind declared later is one too.
KINDS: dict[str, ChangeKind] = {
    kind.name: kind
    for kind in (
        PersonKind(PERSON, m.Person),
        PublicationKind(PUBLICATION, m.Publication),
        AreaKind(AREA, m.ResearchArea),
        DelegationKind(DELEGATION, m.Delegation),
        ImportKind(IMPORT),
        ProfileImportKind(PROFILE_IMPORT),
        ChangeKind(INVITATION),
        ChangeKind(ONBOARDING),
    )
}

_BY_MODEL: dict[type[m.Base], RecordKind] = {
    kind.model: kind for kind in KINDS.values() if isinstance(kind, RecordKind)
}


class _EntryKinds:
    """A record kind per declared entry kind, made again whenever the declarations change."""

    def __init__(self) -> None:
        self._declared: tuple[tuple[str, type[m.Base]], ...] = ()
        self.by_name: dict[str, RecordKind] = {}
        self.by_model: dict[type[m.Base], RecordKind] = {}

    def current(self) -> _EntryKinds:
        declared = tuple(m.ENTRY_MODELS.items())
        if declared != self._declared:
            self.by_name = {name: RecordKind(name, model) for name, model in declared}
            self.by_model = {kind.model: kind for kind in self.by_name.values()}
            self._declared = declared
        return self


_ENTRIES = _EntryKinds()


def kind_of(name: str) -> ChangeKind:
    """The kind named ``name``; a name this version does not know (an old history row) is a
    note: shown, never undone."""
    return KINDS.get(name) or _ENTRIES.current().by_name.get(name) or ChangeKind(name)


def record_kind(name: str) -> RecordKind:
    """The record kind named ``name`` (what a change set's update, create and delete take);
    raises KeyError for any other name."""
    kind = kind_of(name)
    if not isinstance(kind, RecordKind):
        raise KeyError(name)
    return kind


def kind_of_record(obj: Any) -> RecordKind | None:
    """The record kind of ``obj`` (None: not a kind of change, e.g. a link or a search row)."""
    return _BY_MODEL.get(type(obj)) or _ENTRIES.current().by_model.get(type(obj))
