"""A "not mine" survives a backup: the person's document carries it (``"rejected_works"``,
one item per key of the work) and a database restored from it still never suggests the work,
from whichever source finds it again."""

from __future__ import annotations

from sqlalchemy import delete, select

from directory import models as m
from directory.formats.harvest.works import HarvestedAuthor, HarvestedWork
from directory.services.claims.evidence import member_index, person_facts
from directory.services.claims.queue import REJECTED, Offering, remember_rejection
from directory.services.interchange import export_person, import_documents, validate_document

TITLE = "A Stranger's Paper"
KEYS = ["doi:10.1234/stranger", "title:a strangers paper|2024"]


def _offer(db, person) -> tuple[int, int, int]:
    person = db.get(m.Person, person.id)
    offering = Offering(db, person, person_facts(db, person, None), member_index(db))
    work = HarvestedWork(source="openalex", source_key="W9", title=TITLE, year=2024,
                         doi="10.1234/STRANGER", authors=(HarvestedAuthor("Ada Lovelace"),),
                         found_by="name")  # fmt: skip
    result = offering.offer([work])
    db.commit()
    return result.fetched, result.new, result.known


def test_a_restored_database_never_suggests_a_rejected_work_again(db, make_person) -> None:
    ada = make_person(user_key="ada")
    remember_rejection(db, ada.id, KEYS, TITLE, REJECTED)
    db.commit()
    doc = export_person(db, ada)
    assert doc["person"]["rejected_works"] == [
        {"key": key, "title": TITLE, "reason": REJECTED} for key in KEYS
    ]
    assert validate_document(doc, "ada.json") == []
    # The database forgets (a restore into an empty one), then takes the document back.
    db.execute(delete(m.ClaimRejection))
    db.commit()
    assert _offer(db, ada)[1] == 1  # forgotten: asked again
    db.execute(delete(m.ClaimCandidate))
    db.commit()
    import_documents(db, [("ada.json", doc)])
    db.commit()
    assert sorted(db.scalars(select(m.ClaimRejection.work_key))) == KEYS
    assert _offer(db, ada) == (1, 0, 1)  # remembered: not asked
    assert db.scalars(select(m.ClaimCandidate)).all() == []


def test_a_rejected_works_item_is_checked_like_the_rest(db, make_person) -> None:
    ada = make_person(user_key="ada")
    doc = export_person(db, ada)
    assert "rejected_works" not in doc["person"]  # none: the document is as before
    doc["person"]["rejected_works"] = [{"key": "", "reason": "forgotten"}]
    paths = {p.path for p in validate_document(doc, "ada.json")}
    assert paths and all(p.startswith("$.person.rejected_works[0]") for p in paths), paths
