"""The listing's stored name orders (``directory_people.name_key``, ``name_key_zh``).

The listing sorts, pages and counts its letters in SQL by a stored key per language's name
order (``formats.names.name_keys``). That is right only if

* a stored key compares, in the database, as the Python sort key it encodes (binary on SQLite,
  ``COLLATE "C"`` on PostgreSQL), its first character giving the same A–Z letter;
* every path that writes a person fills it: ``write_gates.fill_name_keys`` on every ORM
  insert and update, by any session; the package writes people through the ORM only (its
  source is read below); the benchmark's bulk insert fills them itself. The check that every
  person of every test's database carries the keys of its names
  (``conftest._every_person_keeps_its_name_order``, after each test that used the database)
  enumerates the write paths the suite exercises: forms, imports, the interchange, the
  command line, onboarding, the admin pages, ORCID, each new one with its tests. The test
  below shows that check fails for a write that bypasses the gate.
"""

from __future__ import annotations

import ast
import itertools

import pytest
from sqlalchemy import insert, select, update

from directory import models as m
from directory.formats.names import (
    NAME_KEY_LOCALES,
    initial,
    name_key_column,
    name_keys,
    name_sort_key,
    stored_initial,
    stored_sort_key,
    typed_name_keys,
)
from tests.conftest import wrong_name_keys, wrong_typed_name_keys
from tests.support.eventless_writes import eventless_writes, names, package_offenders
from tests.support.synthetic import Sizes, generate

#: (sort name, native name): accents, case, Han names, mixed scripts, prefixes of each other,
#: empty parts, characters beyond the BMP, the separator's own neighbours.
NAMES = [
    ("Wei, Xingda", "魏星达"),
    ("Wei, Xing", "魏星"),
    ("Wei, Xingda", "韦星达"),
    ("Wei, Xingda", None),
    ("Wei", None),
    ("Wei ", None),
    ("Weiß, Anna", None),
    ("Weiss, Anna", None),
    ("Müller, Ana", None),
    ("Muller, Ana", None),
    ("muller, ana", None),
    ("Du, Alexander", "杜"),
    ("Du, Alexander", "杜亚历"),
    ("Ödön, Ana", None),
    ("Işık, Deniz", None),
    ("Ǆuro, Ivan", None),
    ("ſtern, Eva", None),
    ("Zhang, San", "张三"),
    ("Zhang, San", "張三"),
    ("Zhang, San", "张 三"),
    ("Li", "李"),
    ("Li, A", "李a"),
    ("𠀀, Rare", "𠀀"),
    ("Émile", "エミール"),
    ("123 Group", None),
    ("", None),
    ("A\x01B", None),
    ("A\x00B", None),
    ("A\x02", None),
    ("A", None),
    ("A ", None),
    ("Ab", None),
]

LOCALES = ["en", "zh_Hans", "zh_Hant", "de"]


@pytest.mark.parametrize("locale", LOCALES)
def test_a_stored_key_compares_as_the_sort_key_it_stores(locale: str) -> None:
    keys = [name_sort_key(name, native, locale) for name, native in NAMES]
    for a, b in itertools.product(keys, repeat=2):
        assert (stored_sort_key(a) < stored_sort_key(b)) == (a < b), (a, b)
        assert (stored_sort_key(a) == stored_sort_key(b)) == (a == b), (a, b)
    for key in keys:
        assert stored_initial(stored_sort_key(key)[:1]) == initial(key), key


def test_each_locale_has_its_stored_order() -> None:
    assert name_key_column("zh_Hans") == name_key_column("zh") == "name_key_zh"
    assert name_key_column("en") == name_key_column("fr_CA") == "name_key"
    assert set(NAME_KEY_LOCALES) == {
        c.key for c in m.Person.__table__.columns if c.key.startswith("name_key")
    }
    # Chinese differs from the others exactly where a name is written in Han characters.
    keys = name_keys("Wei, Xingda", "Xingda Wei", "魏星达")
    assert keys["name_key"] != keys["name_key_zh"]
    assert len(set(name_keys("Wei, Xingda", "Xingda Wei", None).values())) == 1


@pytest.mark.parametrize("locale", ["en", "zh_Hans"])
def test_the_database_sorts_people_as_python_sorts_their_names(db, locale: str) -> None:
    """Stored through the ORM (the gate fills the keys), read back in the database's order of
    the locale's column: the order and the letters Python gives the same names."""
    people = [
        m.Person(slug=f"name-{i}", full_name=name or "Nobody", sort_name=name,
                 native_name=native, role="faculty")
        for i, (name, native) in enumerate(NAMES)
    ]  # fmt: skip
    db.add_all(people)
    db.commit()
    column = getattr(m.Person, name_key_column(locale))
    stored = db.scalars(
        select(m.Person.slug).where(m.Person.slug.like("name-%")).order_by(column, m.Person.id)
    ).all()
    # What the flush gate stored: names with control characters lost them (formats.text).
    expected = sorted(
        people, key=lambda p: (name_sort_key(p.sort_name or p.full_name, p.native_name, locale),
                               p.id)
    )  # fmt: skip
    assert stored == [p.slug for p in expected]
    first = db.scalars(select(column).where(m.Person.slug.like("name-%"))).all()
    assert {stored_initial(key[:1]) for key in first} == {
        initial(name_sort_key(p.sort_name or p.full_name, p.native_name, locale)) for p in people
    }


def test_a_rename_by_any_session_updates_the_keys(db) -> None:
    person = m.Person(slug="renamed", full_name="Xingda Wei", sort_name="Wei, Xingda",
                      role="faculty")  # fmt: skip
    db.add(person)
    db.commit()
    person.native_name = "魏星达"
    db.commit()
    assert db.scalar(select(m.Person.name_key_zh).where(m.Person.slug == "renamed")) == (
        stored_sort_key(name_sort_key("Wei, Xingda", "魏星达", "zh_Hans"))
    )
    person.sort_name = "Ardent, Wei"
    db.commit()
    assert db.scalar(select(m.Person.name_key).where(m.Person.slug == "renamed")) == (
        stored_sort_key(name_sort_key("Ardent, Wei", None, "en"))
    )


def test_the_check_after_each_test_finds_a_write_that_bypasses_the_gate(db, connection) -> None:
    """A Core insert or update (no ORM event) leaves keys that do not match: the check that
    runs after every test reports the person."""
    person = m.Person.__table__
    connection.execute(
        insert(person).values(slug="bypass", full_name="By Pass", sort_name="Pass, By",
                              role="faculty", name_key="", name_key_zh="")
    )  # fmt: skip
    assert {(slug, column) for slug, column, _stored, _expected in wrong_name_keys(connection)} == {
        ("bypass", "name_key"),
        ("bypass", "name_key_zh"),
    }
    connection.execute(
        update(person)
        .where(person.c.slug == "bypass")
        .values(**name_keys("Pass, By", "By Pass", None))
    )
    assert wrong_name_keys(connection) == []
    connection.execute(update(person).where(person.c.slug == "bypass").values(sort_name="Zed"))
    assert [row[0] for row in wrong_name_keys(connection)] == ["bypass", "bypass"]
    connection.execute(person.delete().where(person.c.slug == "bypass"))


def _person_statements(tree: ast.AST) -> list[int]:
    """Lines of ``insert(...)``, ``update(...)`` or a bulk write of people, or of advising
    relations where the statement names their typed ``student_name`` (a write of their person
    ids only, as a merge of two profiles does, changes no stored key)."""
    found = []
    for named, node, _name, target in eventless_writes(tree):
        models = names(target)
        if "Person" in models or ("AdvisingRelation" in models and "student_name" in named):
            found.append(node.lineno)
    return found


def test_the_package_writes_people_through_the_orm_only() -> None:
    """No Core insert or update of ``directory_people`` in the package, which would pass no ORM
    event (the benchmark's bulk insert fills the keys itself, checked below)."""
    assert package_offenders(_person_statements) == []
    # The scan finds such a statement.
    assert _person_statements(ast.parse("session.execute(update(m.Person).values(x=1))")) == [1]
    assert _person_statements(ast.parse("session.bulk_insert_mappings(Person, rows)")) == [1]
    assert _person_statements(ast.parse("conn.execute(m.Person.__table__.update())")) == [1]
    assert _person_statements(ast.parse("session.execute(insert(m.Publication))")) == []
    typed = "conn.execute(insert(m.AdvisingRelation).values(student_name='A'))"
    assert _person_statements(ast.parse(typed)) == [1]
    ids_only = "conn.execute(update(m.AdvisingRelation).values(student_id=2))"
    assert _person_statements(ast.parse(ids_only)) == []


def test_the_benchmark_department_carries_the_keys(db, connection) -> None:
    generate(db, Sizes(faculty=3, members=6, alumni=2, publications=12, notices=2))
    db.flush()
    assert db.scalar(select(m.Person.id).where(m.Person.name_key == "")) is None
    assert wrong_name_keys(connection) == []


def test_the_listing_reads_the_page_it_shows_not_the_department(app, client, db, monkeypatch):
    """Rows fetched by the listing and the API's people list, in a department and in one four
    times larger, with the same page size: no more (they used to read every person matching,
    and every open notice, to show three)."""
    from tests.invariants.test_query_counts import build_department, rows_fetched

    monkeypatch.setitem(app.config, "DIRECTORY_LISTING_PAGE_SIZE", 3)
    monkeypatch.setitem(app.config, "DIRECTORY_PAGE_SIZE", 3)
    engine = app.extensions["directory"].db.engine
    urls = [
        "/directory/",
        "/directory/?role=faculty&page=2",
        "/directory/?letter=P&page=2",
        "/directory/api/v1/people",
        "/directory/api/v1/people?page=2",
    ]

    build_department(db, range(0, 6))
    small = rows_fetched(client, engine, urls)
    build_department(db, range(6, 24))
    large = rows_fetched(client, engine, urls)
    assert {url: (small[url], large[url]) for url in urls if large[url] > small[url] + 2} == {}


def test_the_apis_people_file_and_sort_names_as_the_listing_does(client, make_person) -> None:
    """The API's ``letter`` and order are the listing's: accents folded ("Östberg" under O,
    after "Olsen"), a lower-case particle sorted under its letter, not after Z."""
    for name, sort in (
        ("Ana Östberg", "Östberg, Ana"),
        ("Per Olsen", None),
        ("Jan de Vries", "de Vries, Jan"),
        ("Zoe Zed", None),
        ("Amy Able", None),
    ):
        make_person(name, **({"sort_name": sort} if sort else {}))
    names = [p["name"] for p in client.get("/directory/api/v1/people").get_json()["items"]]
    assert names == ["Amy Able", "Jan de Vries", "Per Olsen", "Ana Östberg", "Zoe Zed"]
    listing = client.get("/directory/?letter=O").get_data(as_text=True)
    for letter in ("O", "o"):
        found = client.get(f"/directory/api/v1/people?letter={letter}").get_json()["items"]
        assert [p["name"] for p in found] == ["Per Olsen", "Ana Östberg"]
    assert "Ana Östberg" in listing and "Per Olsen" in listing
    found = client.get("/directory/api/v1/people?letter=D").get_json()["items"]
    assert [p["name"] for p in found] == ["Jan de Vries"]


# ----------------------------------------------------------------------------- typed names


#: Typed student names (an alumnus without a profile): case and ß, accents, Han characters.
TYPED = ["Dee Name", "DEE NAME", "dee name", "Jo Straße", "JO STRASSE", "José Ruiz", "Jose Ruiz",
         "李明", "Émile", "", " Dee"]  # fmt: skip


def test_a_typed_name_is_stored_folded_and_in_order(db) -> None:
    """Through the ORM (the gate fills them): the fold is Python's ``casefold`` (one alumnus
    per fold: "Straße" is "STRASSE"), the key sorts in the database as ``name_sort_key`` of
    the name without a native name (the alumni pages' order in every language)."""
    owner = m.Person(slug="typed-owner", full_name="Typed Owner", sort_name="Owner, Typed",
                     role="faculty")  # fmt: skip
    db.add(owner)
    db.flush()
    rels = [m.AdvisingRelation(owner_id=owner.id, advisor_id=owner.id, student_name=name,
                               status="graduated") for name in TYPED]  # fmt: skip
    db.add_all(rels)
    db.commit()
    rel = m.AdvisingRelation
    stored = db.execute(
        select(rel.student_name, rel.student_fold).where(rel.owner_id == owner.id)
    ).all()
    assert {name: fold for name, fold in stored} == {n: n.casefold() for n in TYPED}
    assert len({fold for _, fold in stored if fold and fold.startswith("jo s")}) == 1
    ordered = db.scalars(
        select(rel.id).where(rel.owner_id == owner.id).order_by(rel.student_key, rel.id)
    ).all()
    expected = sorted(rels, key=lambda r: (name_sort_key(r.student_name, None, "en"), r.id))
    assert ordered == [r.id for r in expected]
    for locale in LOCALES:  # no native name: the same order in every language
        assert {name_sort_key(n, None, locale) for n in TYPED} == {
            name_sort_key(n, None, "en") for n in TYPED
        }
    rels[0].student_name = "Zed Renamed"
    rels[1].student_name = None
    rels[1].student_id = owner.id
    db.commit()
    assert db.get(rel, rels[0].id).student_fold == "zed renamed"
    assert (db.get(rel, rels[1].id).student_fold, db.get(rel, rels[1].id).student_key) == (
        None,
        None,
    )


def test_the_check_after_each_test_finds_a_typed_name_that_bypasses_the_gate(
    db, connection, make_person
) -> None:
    owner = make_person("Gate Owner")
    table = m.AdvisingRelation.__table__
    rel_id = connection.execute(
        insert(table).values(owner_id=owner.id, advisor_id=owner.id, student_name="By Pass",
                             status="graduated", position=0)
    ).inserted_primary_key[0]  # fmt: skip
    assert {column for _, column, _, _ in wrong_typed_name_keys(connection)} == {
        "student_fold",
        "student_key",
    }
    connection.execute(
        update(table).where(table.c.id == rel_id).values(**typed_name_keys("By Pass"))
    )
    assert wrong_typed_name_keys(connection) == []
    connection.execute(table.delete().where(table.c.id == rel_id))
