"""No input gives a 500 and every output stays well-formed: record versions out of range,
control characters in every text field of every form (one rule, the same on SQLite and
PostgreSQL), control characters that other paths store, XML outputs whatever is stored, a
connection lost before teardown, an SQLite save that cannot get the write lock, and a NUL
byte in any URL's slug or uid."""

from __future__ import annotations

import re
import sqlite3
from xml.etree import ElementTree as ET

import pytest
from flask import Flask
from flask_wtf.csrf import generate_csrf
from sqlalchemy import select, text, update
from sqlalchemy.engine import make_url
from werkzeug.datastructures import MultiDict
from wtforms import SelectFieldBase, StringField

from directory import db as directory_db
from directory import migrate
from directory import models as m
from directory.web.csrf import CONTROL_CHARACTER_MESSAGE
from tests.conftest import DATABASE_URL, login, make_app
from tests.invariants.test_form_classes import package_form_classes
from tests.support.editing import post

BASE = "/directory/people/ada-lovelace/edit"
ON_SQLITE = make_url(DATABASE_URL).get_backend_name() == "sqlite"


# ----------------------------------------------------------------------------- versions


@pytest.mark.parametrize("version", ["99999999999999999999999", "2147483648", "-1", "1e3", "٣"])
def test_a_version_out_of_range_is_a_400_page_not_a_500(client, make_person, db, version) -> None:
    ada = make_person(user_key="ada")
    item = m.NewsItem(owner_id=ada.id, year=2025, body="Old news")
    db.add(item)
    db.commit()
    login(client, "ada")
    response = post(
        client, f"{BASE}/news/{item.id}", {"year": "2026", "body": "Typed news", "version": version}
    )
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert "invalid version of the record" in page
    assert "Typed news" in page
    profile = post(client, f"{BASE}/profile", {"full_name": "Ada L.", "version": version})
    assert profile.status_code == 400
    assert "invalid version of the record" in profile.get_data(as_text=True)
    assert post(client, f"{BASE}/news/{item.id}/delete", {"version": version}).status_code == 400
    db.expire_all()
    assert db.get(m.NewsItem, item.id).body == "Old news"


# ----------------------------------------------------------------------------- control characters


def text_fields(form_class: type) -> list[str]:
    """The names of the form's free-text fields (StringField, TextAreaField, HiddenField...)."""
    unbound = [
        (name, field) for name, field in vars(form_class).items() if hasattr(field, "field_class")
    ]
    for base in form_class.__mro__[1:]:
        unbound += [(n, f) for n, f in vars(base).items() if hasattr(f, "field_class")]
    return sorted(
        {
            name
            for name, field in unbound
            if issubclass(field.field_class, StringField) and name != "csrf_token"
        }
    )


FORMS_WITH_TEXT = [f for f in package_form_classes() if text_fields(f)]


def test_the_enumeration_finds_the_forms() -> None:
    names = {f.__name__ for f in FORMS_WITH_TEXT}
    assert {"ProfileForm", "NewsItemForm", "RecruitingNoticeForm", "RejectForm"} <= names
    assert len(FORMS_WITH_TEXT) > 15


@pytest.mark.parametrize("form_class", FORMS_WITH_TEXT, ids=lambda f: f.__name__)
def test_every_text_field_of_every_form_refuses_control_characters(app, form_class) -> None:
    """One rule for every text field: the character is removed, the form is refused with a
    message next to the field, and the field shows the text without it."""
    with app.test_request_context(method="POST"):
        for name in text_fields(form_class):
            sent = "1\x00" if name == "version" else "Before\x00after\x01 and\x7f end"
            form = form_class(formdata=MultiDict({name: sent, "csrf_token": generate_csrf()}))
            for field in form:
                if isinstance(field, SelectFieldBase) and field.choices is None:
                    field.choices = []  # set from the database by the view
            assert form.validate() is False, (form_class.__name__, name)
            field = form[name]
            assert CONTROL_CHARACTER_MESSAGE in field.errors, (form_class.__name__, name)
            assert field.data == ("1" if name == "version" else "Beforeafter and end")


def test_a_nul_byte_in_a_form_is_refused_with_a_message_and_nothing_is_stored(
    client, make_person, db
) -> None:
    ada = make_person(user_key="ada")
    login(client, "ada")
    response = post(client, f"{BASE}/news/new", {"year": "2026", "body": "Paper\x00 accepted"})
    assert response.status_code == 400
    page = response.get_data(as_text=True)
    assert CONTROL_CHARACTER_MESSAGE in page
    assert "Paper accepted" in page
    assert list(db.scalars(select(m.NewsItem).where(m.NewsItem.owner_id == ada.id))) == []
    again = post(client, f"{BASE}/news/new", {"year": "2026", "body": "Paper accepted"})
    assert again.status_code == 302


def test_text_other_paths_bring_is_stripped_before_it_is_stored(db, make_person) -> None:
    """Importers and commands do not go through a form: the flush gate strips what no text
    may hold, in text and JSON columns, on both databases (PostgreSQL refuses NUL)."""
    ada = make_person("Ada\x00 Lovelace", name_variants=["A.\x00 Lovelace"])
    db.add(m.NewsItem(owner_id=ada.id, year=2026, body="Imported\x00 \x01news"))
    db.commit()
    db.expire_all()
    assert db.get(m.Person, ada.id).full_name == "Ada Lovelace"
    assert db.get(m.Person, ada.id).name_variants == ["A. Lovelace"]
    assert db.scalar(select(m.NewsItem.body).where(m.NewsItem.owner_id == ada.id)) == (
        "Imported news"
    )


# ----------------------------------------------------------------------------- XML outputs


def test_every_xml_output_is_well_formed_whatever_is_stored(client, make_person, db) -> None:
    ada = make_person("Ada Lovelace")
    db.add(m.RecruitingNotice(owner_id=ada.id, level="phd", title="Title", description="D"))
    db.add(m.NewsItem(owner_id=ada.id, year=2026, body="News"))
    db.commit()
    # Stored before the rule existed (or by SQL): written past the ORM's flush gate.
    bad = "Students\x01 \x1b\ufffe wanted"
    db.execute(update(m.RecruitingNotice).values(title=bad, description=bad))
    db.execute(update(m.NewsItem).values(body=bad))
    db.execute(update(m.Person).values(full_name="Ada\x02 Lovelace"))
    db.commit()
    for url in ("/directory/recruiting.atom", "/directory/news.atom", "/directory/sitemap.xml"):
        response = client.get(url)
        assert response.status_code == 200, url
        root = ET.fromstring(response.data)  # noqa: S314 - our own output; raises if not well-formed
        assert root.tag.endswith(("feed", "urlset"))
    feed = ET.fromstring(client.get("/directory/recruiting.atom").data)  # noqa: S314
    titles = [e.text for e in feed.iter("{http://www.w3.org/2005/Atom}title")]
    assert "Students  wanted" in titles


# ----------------------------------------------------------------------------- SQLite lock


@pytest.mark.skipif(not ON_SQLITE, reason="SQLite's file lock; PostgreSQL locks rows")
def test_a_save_that_cannot_get_the_sqlite_lock_is_a_conflict_with_the_input_kept(
    tmp_path, monkeypatch
) -> None:
    monkeypatch.setattr(directory_db, "SQLITE_BUSY_TIMEOUT_MS", 200)
    path = tmp_path / "locked.sqlite3"
    app: Flask = make_app(DIRECTORY_DATABASE_URL=f"sqlite:///{path}")
    state = app.extensions["directory"].db
    migrate.upgrade(state.engine)
    with state.new_session() as session:
        session.add(
            m.Person(
                full_name="Ada Lovelace",
                slug="ada-lovelace",
                sort_name="Lovelace, Ada",
                role="faculty",
                user_key="ada",
            )
        )
        session.commit()
    with state.engine.connect() as connection:
        assert connection.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        mmap_size = connection.exec_driver_sql("PRAGMA mmap_size").scalar()
    assert mmap_size == directory_db.SQLITE_MMAP_BYTES
    client = app.test_client()
    login(client, "ada")
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")  # another writer holds the lock longer than we wait
    try:
        response = post(client, f"{BASE}/news/new", {"year": "2026", "body": "My typed news"})
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert response.status_code == 409
    page = response.get_data(as_text=True)
    assert "Not saved" in page and "unavailable" not in page
    assert "My typed news" in page
    # Sent again once the other writer is done, it goes through.
    response = post(client, f"{BASE}/news/new", {"year": "2026", "body": "My typed news"})
    assert response.status_code == 302
    with state.engine.connect() as conn:
        assert conn.execute(text("SELECT body FROM directory_news")).scalars().all() == [
            "My typed news"
        ]
    state.dispose()


def _get_routes_with_parameters(app: Flask) -> list[str]:
    return sorted(
        rule.rule
        for rule in app.url_map.iter_rules()
        if rule.endpoint.startswith("directory.") and "GET" in rule.methods and rule.arguments
    )


def test_a_nul_byte_in_a_urls_slug_or_uid_is_a_404_on_every_route(app, client, make_person) -> None:
    """PostgreSQL refuses NUL in any text parameter: ``/people/%00`` was a server error."""
    make_person()
    routes = _get_routes_with_parameters(app)
    assert {"/directory/people/<slug>", "/directory/publications/<uid>"} <= set(routes)
    answers = {}
    for rule in routes:
        for value in ("%00", "ada-lovelace%00", "1%002"):
            url = re.sub(r"<(?:int:)?[^>]+>", value, rule)
            response = client.get(url)
            answers[url] = response.status_code
            if response.status_code == 404 and "/api/" in url:
                assert response.mimetype == "application/problem+json", url
    assert {url: code for url, code in answers.items() if code != 404} == {}
