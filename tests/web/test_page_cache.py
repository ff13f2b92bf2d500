"""The page cache: anonymous pages are served from memory for one cheap query, and never a page
older than the last committed write, whichever process made it."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from sqlalchemy import delete, event, select, update

from directory import migrate
from directory import models as m
from directory.db import get_session
from directory.services.cache import current_generation
from directory.web.page_cache import page_store
from tests.conftest import login, make_app
from tests.support.statements import count_statements

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def caching(app, connection):
    """The session app with the page cache on, emptied before and after the test."""
    page_store(app).clear()
    app.config["DIRECTORY_CACHE_SECONDS"] = 300
    try:
        yield page_store(app)
    finally:
        app.config["DIRECTORY_CACHE_SECONDS"] = 0
        page_store(app).clear()


def test_a_repeated_anonymous_page_is_served_from_the_cache_for_one_query(
    app, client, make_person, caching
) -> None:
    make_person("Ada Lovelace", title="Professor of Engines")
    first = client.get("/directory/people/ada-lovelace")
    assert first.headers["X-Directory-Cache"] == "miss"
    engine = app.extensions["directory"].db.engine
    with count_statements(engine) as log:
        second = client.get("/directory/people/ada-lovelace")
    assert second.headers["X-Directory-Cache"] == "hit"
    assert second.data == first.data
    assert "Professor of Engines" in second.text
    assert len(log) == 1, str(log)
    assert "directory_cache_state" in log.statements[0]
    # The security headers are still set on a page from the cache.
    assert "frame-ancestors" in second.headers["Content-Security-Policy"]


def test_an_edit_is_visible_on_the_next_request(client, db, make_person, caching) -> None:
    person = make_person("Ada Lovelace", title="Professor of Engines")
    assert "Professor of Engines" in client.get("/directory/people/ada-lovelace").text
    assert "Professor of Engines" in client.get("/directory/").text
    person.title = "Countess of Lovelace"
    db.commit()
    page = client.get("/directory/people/ada-lovelace")
    assert "Countess of Lovelace" in page.text
    assert "Professor of Engines" not in page.text
    assert "Countess of Lovelace" in client.get("/directory/").text


def test_bulk_statements_move_the_generation_and_rollbacks_do_not(
    client, db, make_person, caching
) -> None:
    make_person("Ada Lovelace", title="Professor of Engines")
    before = current_generation(db)
    db.execute(update(m.Person).values(title="Bulk title"))
    db.rollback()
    assert current_generation(db) == before

    db.execute(delete(m.Person).where(m.Person.slug == "ada-lovelace"))
    db.commit()
    assert current_generation(db) == before + 1
    assert client.get("/directory/people/ada-lovelace").status_code == 404


def test_signed_in_viewers_never_get_the_anonymous_page(client, db, make_person, caching) -> None:
    make_person("Ada Lovelace", user_key="ada", visibility="members")
    make_person("Bob Babbage")
    assert client.get("/directory/").headers["X-Directory-Cache"] == "miss"
    assert "Ada Lovelace" not in client.get("/directory/").text
    login(client, "bob")
    page = client.get("/directory/")
    assert "X-Directory-Cache" not in page.headers
    assert "Ada Lovelace" in page.text


def test_a_page_with_a_pending_message_is_neither_stored_nor_served(
    client, make_person, caching
) -> None:
    make_person("Ada Lovelace")
    client.get("/directory/")  # stored, without the message
    with client.session_transaction() as session:  # as flash() after a save leaves it
        session["_flashes"] = [("message", "Your profile was saved.")]
    page = client.get("/directory/")
    assert "Your profile was saved." in page.text
    assert "X-Directory-Cache" not in page.headers


@pytest.mark.slow
def test_a_write_by_another_process_is_never_served_stale(scratch_url, tmp_path) -> None:
    """The parent app caches a profile; a separate process (the CLI) edits it; the parent's next
    request shows the edit, with no shared memory between the two."""
    app = make_app(DIRECTORY_DATABASE_URL=scratch_url, DIRECTORY_CACHE_SECONDS=3600)
    state = app.extensions["directory"].db
    migrate.upgrade(state.engine)
    env = {**os.environ, "DIRECTORY_DATABASE_URL": scratch_url}

    def import_in_another_process(title: str) -> None:
        document = tmp_path / "grace.json"
        document.write_text(
            json.dumps(
                {
                    "format": "faculty-directory-profile",
                    "format_version": 1,
                    "person": {"full_name": "Grace Hopper", "role": "faculty", "title": title},
                }
            )
        )
        command = [sys.executable, "-m", "flask", "--app", "wsgi"]
        result = subprocess.run(
            [*command, "directory", "import-profile", str(document)],
            cwd=ROOT,
            env=env,
            capture_output=True,
            text=True,
            check=False,
        )
        assert result.returncode == 0, result.stderr

    try:
        import_in_another_process("Rear Admiral")
        client = app.test_client()
        assert "Rear Admiral" in client.get("/directory/people/grace-hopper").text
        cached = client.get("/directory/people/grace-hopper")
        assert cached.headers["X-Directory-Cache"] == "hit"

        import_in_another_process("Professor of Compilers")
        fresh = client.get("/directory/people/grace-hopper")
        assert "Professor of Compilers" in fresh.text
        assert "Rear Admiral" not in fresh.text
        assert "Professor of Compilers" in client.get("/directory/").text
    finally:
        state.dispose()


def test_browsers_get_the_cached_page_compressed(client, make_person, caching) -> None:
    make_person("Ada Lovelace", bio="A long biography. " * 200)
    first = client.get("/directory/people/ada-lovelace", headers={"Accept-Encoding": "gzip"})
    hit = client.get("/directory/people/ada-lovelace", headers={"Accept-Encoding": "gzip, br"})
    assert hit.headers["X-Directory-Cache"] == "hit"
    assert hit.headers["Content-Encoding"] == "gzip"
    assert "Accept-Encoding" in hit.headers["Vary"]
    assert len(hit.data) < len(first.data) / 4
    assert gzip.decompress(hit.data) == first.data
    plain = client.get("/directory/people/ada-lovelace")
    assert "Content-Encoding" not in plain.headers
    assert plain.data == first.data


def test_a_conditional_get_of_a_cached_page_is_answered_304_without_a_body(
    client, make_person, caching
) -> None:
    make_person("Ada Lovelace")
    first = client.get("/directory/people/ada-lovelace")
    etag = first.headers["ETag"]
    again = client.get("/directory/people/ada-lovelace", headers={"If-None-Match": etag})
    assert again.status_code == 304
    assert again.data == b""
    assert again.headers["ETag"] == etag
    # Compressed or not, it is the same page.
    zipped = client.get(
        "/directory/people/ada-lovelace",
        headers={"If-None-Match": etag, "Accept-Encoding": "gzip"},
    )
    assert zipped.status_code == 304
    other = client.get("/directory/people/ada-lovelace", headers={"If-None-Match": '"old"'})
    assert other.status_code == 200
    assert other.data == first.data


def test_a_cache_hit_takes_no_connection_from_the_pool_and_still_sees_every_write(
    scratch_url,
) -> None:
    """On a database of its own (not the suite's bound connection), a hit reads the generation
    on a kept connection outside any transaction; a write made through the app's sessions is
    seen at once."""
    app = make_app(DIRECTORY_DATABASE_URL=scratch_url, DIRECTORY_CACHE_SECONDS=300)
    state = app.extensions["directory"]
    migrate.upgrade(state.db.engine)
    checkouts = []
    event.listen(state.db.engine, "checkout", lambda *args: checkouts.append(args))
    try:
        with app.app_context():
            session = get_session()
            session.add(
                m.Person(
                    full_name="Ada Lovelace", slug="ada-lovelace", sort_name="L", role="faculty"
                )
            )
            session.commit()
        client = app.test_client()
        assert client.get("/directory/people/ada-lovelace").headers["X-Directory-Cache"] == "miss"
        assert client.get("/directory/people/ada-lovelace").headers["X-Directory-Cache"] == "hit"
        checkouts.clear()
        assert client.get("/directory/people/ada-lovelace").headers["X-Directory-Cache"] == "hit"
        assert checkouts == []

        with app.app_context():
            session = get_session()
            session.scalar(select(m.Person)).title = "Countess of Lovelace"
            session.commit()
        fresh = client.get("/directory/people/ada-lovelace")
        assert fresh.headers["X-Directory-Cache"] == "miss"
        assert "Countess of Lovelace" in fresh.text
    finally:
        state.generations.close()
        state.db.dispose()
