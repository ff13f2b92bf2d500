"""The kinds of change (services/change_kinds.py) and the rule "announce a record to the change
set before you change it": a change the change set was not told of fails loudly at
``finish()``, while the database's own bookkeeping (timestamps, name orders) never does."""

from __future__ import annotations

import pytest

from directory import models as m
from directory.services import kinds
from directory.services.change_kinds import RecordKind, kind_of, kind_of_record
from directory.services.changes import SAVED, UNCHANGED
from directory.services.history import display_rows, revertable
from directory.services.identity import Viewer
from directory.services.unannounced import UnannouncedChange
from directory.services.unit_of_work import UnitOfWork

ADMIN = Viewer(key="admin", is_admin=True)


def test_every_entry_kind_is_a_kind_of_change() -> None:
    assert m.ENTRY_MODELS
    for name, model in m.ENTRY_MODELS.items():
        kind = kind_of(name)
        assert isinstance(kind, RecordKind) and kind.model is model
        assert kind_of_record(model()) is kind


def test_a_kind_this_version_does_not_know_is_shown_but_never_undone(app, db) -> None:
    record = m.ChangeRecord(entity_kind="retired_kind", entity_id=3, action="update",
                            after={"note": "kept"}, summary="")  # fmt: skip
    assert not revertable(record)
    with app.app_context():
        rows = display_rows(db, "retired_kind", None, {"note": "kept"})
    assert [(row["field"], row["after"]) for row in rows] == [("note", "kept")]


@pytest.fixture
def unit(app, db):
    with app.test_request_context():
        yield UnitOfWork(db, ADMIN)


def test_a_change_without_update_fails_loudly(unit, make_person) -> None:
    person = make_person("Ada Lovelace")
    changes = unit.change_set(person, approval_exempt=True)
    person.bio = "Changed behind the change set's back."
    with pytest.raises(UnannouncedChange, match=rf"person {person.id} was changed") as raised:
        changes.finish()
    assert (raised.value.kind, raised.value.entity_id) == (kinds.PERSON, person.id)


def test_an_entry_added_without_create_fails_loudly(unit, make_person) -> None:
    person = make_person("Ada Lovelace")
    changes = unit.change_set(person, approval_exempt=True)
    unit.session.add(m.NewsItem(owner_id=person.id, year=2026, body="Unannounced", position=0))
    unit.session.flush()  # a flush half-way does not hide it
    with pytest.raises(UnannouncedChange, match="news .* was added"):
        changes.finish()


def test_an_announced_change_is_saved(unit, make_person) -> None:
    person = make_person("Ada Lovelace")
    changes = unit.change_set(person, approval_exempt=True)
    changes.update(kinds.PERSON, person)
    person.bio = "Announced."
    assert changes.finish() == SAVED
    assert [r.entity_kind for r in changes.records] == [kinds.PERSON]


def test_bookkeeping_and_other_profiles_are_not_the_change_sets(unit, make_person) -> None:
    person, other = make_person("Ada Lovelace"), make_person("Grace Hopper")
    changes = unit.change_set(person, approval_exempt=True)
    person.updated_at = m.utcnow()  # the database's bookkeeping, not the user's data
    person.name_key = "recomputed"
    other.bio = "Another profile's change, recorded by its own change set."
    assert changes.finish() == UNCHANGED


def test_an_import_is_one_grouped_kind_and_can_be_undone() -> None:
    imported = m.ChangeRecord(entity_kind=kinds.IMPORT, entity_id=None, action=kinds.IMPORT,
                              summary="")  # fmt: skip
    assert kind_of(kinds.IMPORT).writes_in_bulk and revertable(imported)
    profile = m.ChangeRecord(entity_kind=kinds.PROFILE_IMPORT, entity_id=None, action="x",
                             summary="")  # fmt: skip
    assert not revertable(profile)


def test_a_profile_import_shows_the_document_it_came_from(app, db) -> None:
    with app.app_context():
        rows = display_rows(db, kinds.PROFILE_IMPORT, None, {"source": "ada.json"})
    assert [(row["label"], row["after"]) for row in rows] == [("Document", "ada.json")]
