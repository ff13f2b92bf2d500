"""The operations without the web: each takes the unit of work and plain values (what a
form's ``data`` holds), changes the model through a change set and says what came of it;
a stale version is a Conflict that writes nothing."""

from __future__ import annotations

import pytest
from sqlalchemy import func, select

from directory import models as m
from directory.models import ChangeRecord
from directory.services.changes import SAVED
from directory.services.errors import Conflict
from directory.services.identity import Viewer
from directory.services.operations import entries, people
from directory.services.unit_of_work import command_unit_of_work

NEWS = {"year": 2026, "body": "  A new grant  ", "visibility": "public", "csrf_token": "x"}


@pytest.fixture
def ada(app, db, make_person):
    person = make_person(user_key="ada")
    with app.test_request_context():
        yield person


def _owner(person: m.Person) -> Viewer:
    return Viewer(key="ada", person_id=person.id, name=person.full_name)


def _records(db) -> int:
    return db.scalar(select(func.count()).select_from(ChangeRecord))


def test_an_entry_is_added_first_in_its_list_from_plain_values(db, ada) -> None:
    with command_unit_of_work(db, _owner(ada)) as uow:
        first, _ = entries.save(uow, ada, "news", None, NEWS)
        second, item = entries.save(uow, ada, "news", None, {**NEWS, "body": "Later"})
    assert (first, second) == (SAVED, SAVED)
    listed = entries.list_of(uow, m.NewsItem, ada)
    assert [n.body for n in listed] == ["Later", "A new grant"]  # stripped, newest first
    assert item.owner_id == ada.id
    assert _records(db) == 2


def test_a_stale_update_is_a_conflict_that_changes_nothing(db, ada) -> None:
    with command_unit_of_work(db, _owner(ada)) as uow:
        _, item = entries.save(uow, ada, "news", None, NEWS)
    stale = item.version
    with command_unit_of_work(db, _owner(ada)) as uow:
        entries.save(uow, ada, "news", item, {**NEWS, "body": "First edit"}, stale)
    before = _records(db)
    with pytest.raises(Conflict), command_unit_of_work(db, _owner(ada)) as uow:
        entries.save(uow, ada, "news", item, {**NEWS, "body": "Second edit"}, stale)
    db.expire_all()
    assert db.get(m.NewsItem, item.id).body == "First edit"
    assert _records(db) == before


def test_an_advising_relation_with_a_member_waits_for_their_confirmation(
    db, ada, make_person
) -> None:
    sam = make_person("Sam Student", role="phd_student")
    values = {"side": "student", "other_id": str(sam.id), "other_name": "", "role": "advisor",
              "degree": "phd", "status": "current", "visibility": "public"}  # fmt: skip
    with command_unit_of_work(db, _owner(ada)) as uow:
        _, relation = entries.save(uow, ada, "advising", None, values)
    assert (relation.advisor_id, relation.student_id) == (ada.id, sam.id)
    assert relation.advisor_confirmed and not relation.student_confirmed


def test_a_move_swaps_an_entry_with_its_neighbour(db, ada) -> None:
    with command_unit_of_work(db, _owner(ada)) as uow:
        entries.save(uow, ada, "news", None, {**NEWS, "body": "Old"})
        _, new = entries.save(uow, ada, "news", None, {**NEWS, "body": "New"})
    with command_unit_of_work(db, _owner(ada)) as uow:
        moved = entries.move(uow, ada, "news", new, "down", new.version)
        at_the_end = entries.move(uow, ada, "news", new, "down", None)
    assert moved.outcome == SAVED and set(moved.versions) == {
        str(n.id) for n in entries.list_of(uow, m.NewsItem, ada)
    }
    assert at_the_end.outcome is None
    assert [n.body for n in entries.list_of(uow, m.NewsItem, ada)] == ["Old", "New"]


def test_the_profile_takes_parsed_links_and_areas(db, ada) -> None:
    area = m.ResearchArea(slug="systems", name="Systems")
    db.add(area)
    db.commit()
    link = {"kind": "other", "url": "https://ada.example", "label": None}
    values = {"full_name": " Ada Lovelace ", "title": "", "visibility": "public",
              "name_variants": ["A. Lovelace"], "areas": [area.id], "links": [link]}  # fmt: skip
    with command_unit_of_work(db, _owner(ada)) as uow:
        outcome = people.update_profile(uow, ada, values, ada.version)
    db.expire_all()
    person = db.get(m.Person, ada.id)
    assert outcome == SAVED
    assert (person.full_name, person.title, person.name_variants) == (
        "Ada Lovelace", None, ["A. Lovelace"],
    )  # fmt: skip
    assert [a.slug for a in person.areas] == ["systems"]
    assert [link.url for link in person.links] == ["https://ada.example"]
