"""Test fixtures: one app and schema per session; every test inside a rolled-back transaction.

The database comes from DIRECTORY_TEST_DATABASE_URL (default: in-memory SQLite); CI runs the
suite on SQLite and on the PostgreSQL server.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from flask import Flask, session
from sqlalchemy import Connection, create_engine, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.orm import Session

from directory import Directory, migrate
from directory import models as m
from directory.formats.names import make_slug, name_keys, sort_name, typed_name_keys
from directory.services.reports import memo
from directory.services.title_words import title_words
from tests.support.mail import Inbox, mail_settings, smtp_server


def _worker_database(url: str) -> str:
    """``url``, or under pytest-xdist (``make test`` runs a worker per core) a PostgreSQL
    database of this worker's own beside it (``test_gw0``...), created if missing and dropped
    when the session ends (``app``): each worker builds and empties its schema. SQLite's
    default is in memory, so already each worker's own."""
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    given = make_url(url)
    if not worker or given.get_backend_name() == "sqlite":
        return url
    name = f"{given.database}_{worker}"
    admin = create_engine(given, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        exists = conn.scalar(text("SELECT 1 FROM pg_database WHERE datname = :n"), {"n": name})
        if not exists:
            conn.execute(text(f'CREATE DATABASE "{name}"'))
    admin.dispose()
    return given.set(database=name).render_as_string(hide_password=False)


def _drop_worker_database() -> None:
    if DATABASE_URL == GIVEN_DATABASE_URL:
        return
    admin = create_engine(GIVEN_DATABASE_URL, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(
            text(f'DROP DATABASE IF EXISTS "{make_url(DATABASE_URL).database}" WITH (FORCE)')
        )
    admin.dispose()


GIVEN_DATABASE_URL = os.environ.get("DIRECTORY_TEST_DATABASE_URL", "sqlite://")
DATABASE_URL = _worker_database(GIVEN_DATABASE_URL)
# Command-line output follows the environment's language (gettext's LANGUAGE, LC_ALL, LANG);
# the tests read it in English whatever the machine's locale (tests/invariants/test_i18n.py reads
# Chinese).
os.environ["LANGUAGE"] = "en"
TEST_USER_KEY = "_test_user"
ADMINS = ["admin"]


@contextmanager
def scratch_database(folder: Path) -> Iterator[str]:
    """The URL of an empty database of its own, on the test database's server: an SQLite file
    in ``folder``, or a new PostgreSQL database dropped afterwards."""
    url = make_url(DATABASE_URL)
    if url.get_backend_name() == "sqlite":
        yield f"sqlite:///{folder / f'scratch-{uuid.uuid4().hex[:8]}.sqlite3'}"
        return
    name = f"directory_scratch_{uuid.uuid4().hex[:8]}"
    admin = create_engine(url, isolation_level="AUTOCOMMIT")
    with admin.connect() as conn:
        conn.execute(text(f'CREATE DATABASE "{name}"'))
    try:
        yield url.set(database=name).render_as_string(hide_password=False)
    finally:
        with admin.connect() as conn:
            conn.execute(text(f'DROP DATABASE "{name}" WITH (FORCE)'))
        admin.dispose()


def _test_identity() -> str | None:
    return session.get(TEST_USER_KEY)


def make_app(**config: Any) -> Flask:
    """A minimal host app; tests sign users in through the session (see ``login``)."""
    app = Flask("directory_test_host")
    app.config.update(
        SECRET_KEY="test",
        TESTING=True,
        SERVER_NAME="directory.test",
        DIRECTORY_DATABASE_URL=DATABASE_URL,
        DIRECTORY_IDENTITY_SOURCE="callable",
        DIRECTORY_IDENTITY_CALLABLE=_test_identity,
        DIRECTORY_ADMINS=ADMINS,
    )
    app.config.update(config)
    Directory(app)
    return app


@pytest.fixture(scope="session")
def app() -> Iterator[Flask]:
    app = make_app()
    engine = app.extensions["directory"].db.engine
    # Start from nothing, even if an earlier run on this server was interrupted.
    migrate.downgrade(engine, "base")
    migrate.upgrade(engine)
    yield app
    migrate.downgrade(engine, "base")
    app.extensions["directory"].db.dispose()
    _drop_worker_database()


@pytest.fixture
def connection(app: Flask) -> Iterator[Connection]:
    """An outer transaction every session of the test joins through savepoints; rolled back."""
    state = app.extensions["directory"].db
    # Reports kept under the data's generation would outlive the rollback, which takes the
    # generation back to where it was (directory/services/reports/memo.py).
    memo.forget()
    conn = state.engine.connect()
    outer = conn.begin()
    state.sessionmaker.configure(bind=conn, join_transaction_mode="create_savepoint")
    try:
        yield conn
    finally:
        state.sessionmaker.configure(
            bind=state.engine, join_transaction_mode="conservative_savepoint"
        )
        outer.rollback()
        conn.close()


def wrong_name_keys(conn: Connection) -> list[tuple[Any, ...]]:
    """The people whose stored name orders (``name_key``, ``name_key_zh``) are not what
    ``names.name_keys`` says of their names, as (slug, column, stored, expected)."""
    person = m.Person.__table__.c
    wrong = []
    for row in conn.execute(
        select(person.slug, person.sort_name, person.full_name, person.native_name,
               person.name_key, person.name_key_zh)
    ):  # fmt: skip
        for column, key in name_keys(row.sort_name, row.full_name, row.native_name).items():
            if getattr(row, column) != key:
                wrong.append((row.slug, column, getattr(row, column), key))
    return wrong


def wrong_typed_name_keys(conn: Connection) -> list[tuple[Any, ...]]:
    """The advising relations whose stored typed-name forms (``student_fold``,
    ``student_key``) are not what ``names.typed_name_keys`` says of their typed student name,
    as (id, column, stored, expected)."""
    rel = m.AdvisingRelation.__table__.c
    wrong = []
    for row in conn.execute(select(rel.id, rel.student_name, rel.student_fold, rel.student_key)):
        for column, key in typed_name_keys(row.student_name).items():
            if getattr(row, column) != key:
                wrong.append((row.id, column, getattr(row, column), key))
    return wrong


def wrong_title_words(conn: Connection) -> list[tuple[Any, ...]]:
    """The papers whose stored title words (``directory_publication_title_words``) are not
    ``title_words.title_words`` of their titles, as (id, stored, expected)."""
    paper, word = m.Publication.__table__.c, m.PublicationTitleWord.__table__.c
    stored: dict[int, set[str]] = {}
    for pid, stored_word in conn.execute(select(word.publication_id, word.word)):
        stored.setdefault(pid, set()).add(stored_word)
    wrong = []
    for pid, title in conn.execute(select(paper.id, paper.title)):
        expected, have = title_words(title), stored.pop(pid, set())
        if have != expected:
            wrong.append((pid, have, expected))
    return wrong + [(pid, have, set()) for pid, have in stored.items()]


@pytest.fixture(autouse=True)
def _every_person_keeps_its_name_order(request: pytest.FixtureRequest) -> Iterator[None]:
    """After every test that used the database, whatever path it wrote people by (forms,
    imports, the interchange, the command line, onboarding, the admin pages, ORCID...): each
    person's stored name orders are those of their names as stored (the listing sorts and
    pages by them; write_gates.fill_name_keys keeps them), and so are each advising
    relation's typed student name folded and its order (the alumni outputs merge and page by
    them; write_gates.fill_typed_name_keys); and each paper's stored title words are those of
    its title (imports find near-duplicates by them; services/title_words.py). A new write path
    that bypasses the gate fails its own test here (tests/invariants/test_name_keys.py and
    tests/invariants/test_title_words.py show these checks can fail)."""
    if "connection" not in request.fixturenames:
        yield
        return
    conn = request.getfixturevalue("connection")  # set up first, so rolled back after this
    yield
    assert wrong_name_keys(conn) == []
    assert wrong_typed_name_keys(conn) == []
    assert wrong_title_words(conn) == []


@pytest.fixture
def join_test_transaction(app: Flask, connection: Connection):
    """For tests that build their own host app on the test database (``DIRECTORY_ENGINE`` =
    ``test_engine``): ``join(host)`` puts that host's directory sessions inside this test's
    rolled-back transaction too, so hosts see the ``db`` fixture's rows and leave nothing."""

    def join(host: Flask) -> Flask:
        host.extensions["directory"].db.sessionmaker.configure(
            bind=connection, join_transaction_mode="create_savepoint"
        )
        return host

    return join


@pytest.fixture
def test_engine(app: Flask):
    """The engine of the test database, for host apps to share (``DIRECTORY_ENGINE``)."""
    return app.extensions["directory"].db.engine


@pytest.fixture
def db(app: Flask, connection: Connection) -> Iterator[Session]:
    """The test's own session for arranging and checking data. No app context stays pushed:
    Flask would reuse it for the client's requests, sharing ``g`` between them."""
    session = app.extensions["directory"].db.new_session()
    try:
        yield session
    finally:
        session.close()


@pytest.fixture
def client(app: Flask, connection: Connection):
    return app.test_client()


@pytest.fixture
def runner(app: Flask, connection: Connection):
    return app.test_cli_runner()


def login(client, key: str | None) -> None:
    """Sign ``key`` in (None signs out) for the following requests of ``client``."""
    with client.session_transaction() as sess:
        if key is None:
            sess.pop(TEST_USER_KEY, None)
        else:
            sess[TEST_USER_KEY] = key


@pytest.fixture
def fast_password_hashing(monkeypatch) -> None:
    """Cheap password hashes for tests that sign in many times (scrypt takes ~0.4 s here)."""
    from directory.models import accounts

    monkeypatch.setattr(accounts, "PASSWORD_HASH_METHOD", "pbkdf2:sha256:1000")


@pytest.fixture
def make_person(db: Session):
    """Factory: ``make_person(full_name="Ada Lovelace", role="faculty", **overrides)``."""

    def factory(full_name: str = "Ada Lovelace", **overrides: Any) -> m.Person:
        values: dict[str, Any] = {
            "full_name": full_name,
            "slug": make_slug(full_name),
            "sort_name": sort_name(full_name),
            "role": "faculty",
        }
        values.update(overrides)
        person = m.Person(**values)
        db.add(person)
        db.commit()
        return person

    return factory


@pytest.fixture
def make_publication(db: Session):
    """Factory: a publication with authors (names or Person objects) on their profiles."""

    def factory(title: str = "A Paper", authors: tuple = ("Ada Lovelace",), **overrides: Any):
        pub = m.Publication(title=title, year=overrides.pop("year", 2024), **overrides)
        for i, author in enumerate(authors):
            if isinstance(author, m.Person):
                pub.authorships.append(
                    m.Authorship(position=i, name=author.full_name, person=author)
                )
            else:
                pub.authorships.append(m.Authorship(position=i, name=author))
        db.add(pub)
        db.flush()
        for author in authors:
            if isinstance(author, m.Person):
                db.add(m.ProfilePublication(person_id=author.id, publication_id=pub.id))
        db.commit()
        return pub

    return factory


@pytest.fixture
def demo(runner) -> None:
    """The demo department, loaded through the real CLI command."""
    result = runner.invoke(args=["directory", "load-demo"])
    assert result.exit_code == 0, result.output


@pytest.fixture
def scratch_url(tmp_path) -> Iterator[str]:
    """``scratch_database`` as a fixture: an empty database of the test's own, outside the
    rolled-back transaction (for other processes and faults)."""
    with scratch_database(tmp_path) as url:
        yield url


@pytest.fixture
def inbox(app, monkeypatch) -> Iterator[Inbox]:
    """A real SMTP server on a loopback port, set as the app's mail server: what the
    directory sends arrives in this inbox."""
    with smtp_server() as (received, port):
        for key, value in mail_settings(port).items():
            monkeypatch.setitem(app.config, key, value)
        yield received


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Tests marked ``engine_independent`` use no test database (the packaging tests install
    the wheel into a host of their own on SQLite): the PostgreSQL pass of CI would run them
    again unchanged, so they run on the SQLite pass only, and are deselected, not skipped,
    on the others."""
    if DATABASE_URL.startswith("sqlite"):
        return
    kept, dropped = [], []
    for item in items:
        (dropped if item.get_closest_marker("engine_independent") else kept).append(item)
    if dropped:
        config.hook.pytest_deselected(items=dropped)
        items[:] = kept
