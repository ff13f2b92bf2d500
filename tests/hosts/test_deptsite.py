"""Host (a): Flask-Login + Flask-SQLAlchemy + Flask-Migrate + CSRFProtect, one shared database.

The host's schema comes from its own ``flask db init/migrate/upgrade``, the directory's from
``flask directory db upgrade``; then the host's ``flask db migrate`` must see no change."""

from __future__ import annotations

import re
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import date, timedelta
from pathlib import Path

import flask_migrate
import pytest
from flask import Flask
from sqlalchemy import delete, func, inspect, select

from directory import models as m
from directory.db import get_session
from directory.formats.names import make_slug, sort_name
from directory.migrate import VERSION_TABLE
from directory.web.csrf import DirectoryForm
from tests.conftest import scratch_database
from tests.hosts.deptsite import Announcement, User, create_app, db

CHEAP_HASH = "pbkdf2:sha256:1000"


def csrf_token(html: str) -> str:
    return re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html).group(1)


@contextmanager
def flask_migrate_env() -> Iterator[None]:
    """The env.py that ``flask db init`` writes calls Flask-SQLAlchemy's deprecated
    ``get_engine()`` first; a host whose tests run Flask-Migrate with warnings as errors needs
    this filter with or without the directory."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "'get_engine' is deprecated", DeprecationWarning)
        yield


@pytest.fixture(scope="module")
def migrations(tmp_path_factory) -> Iterator[tuple[Flask, str]]:
    """The host app on a database of its own, migrated the way the host would do it."""
    folder = tmp_path_factory.mktemp("deptsite")
    with scratch_database(folder) as url:
        app = create_app(
            {
                "TESTING": True,
                "SQLALCHEMY_DATABASE_URI": url,
                "PASSWORD_HASH_METHOD": CHEAP_HASH,
                "FEATURED_PERSON": "ada-lovelace",
            }
        )
        versions = str(folder / "migrations")
        with app.app_context(), flask_migrate_env():
            flask_migrate.init(directory=versions)
            flask_migrate.migrate(directory=versions, message="host tables")
            flask_migrate.upgrade(directory=versions)
        result = app.test_cli_runner().invoke(args=["directory", "db", "upgrade"])
        assert result.exit_code == 0, result.output
        try:
            yield app, versions
        finally:
            with app.app_context():
                db.engine.dispose()


@pytest.fixture
def host(migrations) -> Iterator[Flask]:
    """The migrated host; every row any test wrote is deleted afterwards."""
    app, _ = migrations
    yield app
    with app.app_context(), db.engine.begin() as conn:
        for table in reversed(m.Base.metadata.sorted_tables):
            conn.execute(delete(table))
        for table in reversed(db.metadata.sorted_tables):
            conn.execute(delete(table))


@pytest.fixture
def client(host):
    return host.test_client()


def add_user(host: Flask, username: str, password: str = "password", role: str = "member"):
    with host.app_context():
        user = User(username=username, role=role)
        user.set_password(password, CHEAP_HASH)
        db.session.add(user)
        db.session.commit()


def add_person(host: Flask, full_name: str, **values) -> None:
    """Through the directory's own session, on the host's engine."""
    with host.app_context():
        session = get_session()
        person = m.Person(
            full_name=full_name, slug=make_slug(full_name), sort_name=sort_name(full_name),
            role="faculty", **values,
        )  # fmt: skip
        session.add(person)
        session.flush()
        for visibility in ("members", "private"):
            session.add(
                m.NewsItem(
                    owner_id=person.id, year=2026, visibility=visibility,
                    body=f"{visibility} news of {full_name}",
                )
            )  # fmt: skip
        session.add(
            m.RecruitingNotice(
                owner_id=person.id, level="phd", description="Join us",
                term="Fall 2027", deadline=date.today() + timedelta(days=30),
            )
        )  # fmt: skip
        session.commit()


def log_in(client, username: str, password: str = "password"):
    token = csrf_token(client.get("/login").get_data(as_text=True))
    return client.post(
        "/login", data={"username": username, "password": password, "csrf_token": token}
    )


# ----------------------------------------------------------------------------- the host's own tests


def test_host_login_and_logout(client, host) -> None:
    add_user(host, "ada")
    assert "Unknown user or wrong password." in log_in(client, "ada", "nope").get_data(as_text=True)
    assert log_in(client, "ada").status_code == 302
    home = client.get("/").get_data(as_text=True)
    assert '<span class="deptsite-user">ada</span>' in home
    client.post("/logout", data={"csrf_token": csrf_token(home)})
    assert "Log in</a>" in client.get("/").get_data(as_text=True)


def test_host_announcements_need_the_chair_and_a_csrf_token(client, host) -> None:
    assert client.get("/announcements/new").status_code == 302  # login_required
    add_user(host, "chair", role="chair")
    log_in(client, "chair")
    assert client.post("/announcements/new", data={"title": "No token"}).status_code == 400
    token = csrf_token(client.get("/announcements/new").get_data(as_text=True))
    client.post("/announcements/new", data={"title": "Colloquium", "csrf_token": token})
    assert "Colloquium" in client.get("/").get_data(as_text=True)
    with host.app_context():
        assert db.session.query(Announcement).count() == 1


# ----------------------------------------------------------------------------- the directory in it


def test_directory_pages_render_inside_the_host_layout(client, host) -> None:
    add_person(host, "Ada Lovelace")
    for url in ("/people/", "/people/people/ada-lovelace", "/people/people/nobody"):
        html = client.get(url).get_data(as_text=True)
        assert '<header class="deptsite-header">' in html, url
        assert "Example State University · Department of Physics</footer>" in html, url
        assert 'class="site-header"' not in html, url  # no standalone chrome
        assert html.count('href="/people/assets/directory.css"') == 1, url
    html = client.get("/people/people/ada-lovelace").get_data(as_text=True)
    assert "<title>Ada Lovelace · Department of Physics | Example State University</title>" in html
    assert '<link rel="canonical"' in html.split("</head>")[0]  # the page's head block


def test_an_anonymous_visitor_is_anonymous(client, host) -> None:
    add_person(host, "Ada Lovelace", user_key="ada")
    html = client.get("/people/people/ada-lovelace").get_data(as_text=True)
    assert "members news" not in html
    assert 'href="/login?next=/people/people/ada-lovelace">Log in</a>' in html


def test_the_signed_in_host_user_is_recognised_by_username(client, host) -> None:
    add_person(host, "Ada Lovelace", user_key="ada")
    add_user(host, "ada")
    add_user(host, "bob")

    log_in(client, "bob")
    html = client.get("/people/people/ada-lovelace").get_data(as_text=True)
    assert "members news of Ada Lovelace" in html
    assert "private news of Ada Lovelace" not in html

    other = host.test_client()
    log_in(other, "ada")
    html = other.get("/people/people/ada-lovelace").get_data(as_text=True)
    assert "private news of Ada Lovelace" in html  # her own


def test_the_hosts_chair_role_makes_a_directory_admin(client, host) -> None:
    add_person(host, "Grace Hopper", visibility="private")
    add_user(host, "member")
    add_user(host, "chair", role="chair")
    log_in(client, "member")
    assert client.get("/people/people/grace-hopper").status_code == 404
    chair = host.test_client()
    log_in(chair, "chair")
    assert chair.get("/people/people/grace-hopper").status_code == 200


def test_fragments_on_the_hosts_home_page(client, host) -> None:
    add_person(host, "Ada Lovelace")
    html = client.get("/").get_data(as_text=True)
    assert "<h2>Faculty recruiting now</h2>" in html
    assert 'href="/people/people/ada-lovelace#recruiting">Ada Lovelace</a>' in html
    assert "<h2>Our chair</h2>" in html


def test_removing_a_person_removes_their_entries_in_the_shared_database(host) -> None:
    add_person(host, "Ada Lovelace")
    with host.app_context():
        session = get_session()
        session.delete(session.scalar(select(m.Person)))
        session.commit()
        assert session.scalar(select(func.count()).select_from(m.NewsItem)) == 0
        assert session.scalar(select(func.count()).select_from(m.RecruitingNotice)) == 0


class ProbeForm(DirectoryForm):
    """Stands in for the directory's editing forms: the same base class."""


def test_directory_forms_and_the_hosts_csrfprotect_share_one_token(migrations, host) -> None:
    app = create_app(
        {"TESTING": True, "SQLALCHEMY_DATABASE_URI": host.config["SQLALCHEMY_DATABASE_URI"]}
    )

    @app.route("/probe", methods=["POST"])
    def probe() -> str:
        return "valid" if ProbeForm().validate_on_submit() else "invalid"

    client = app.test_client()
    # A token from the host's own page (its csrf_token() global) ...
    token = csrf_token(client.get("/login").get_data(as_text=True))
    assert client.post("/probe", data={"csrf_token": token}).get_data(as_text=True) == "valid"
    # ... and without one, CSRFProtect stops the request before any directory view runs.
    assert client.post("/probe").status_code == 400
    assert client.post("/people/login").status_code == 400


def test_the_hosts_flask_db_migrate_sees_no_directory_change(migrations, host) -> None:
    _, versions = migrations
    with host.app_context(), flask_migrate_env():
        tables = set(inspect(db.engine).get_table_names())
        assert {"users", "announcements", "directory_people", VERSION_TABLE} <= tables
        files = revision_files(versions)
        flask_migrate.migrate(directory=versions, message="should be empty")
        assert revision_files(versions) == files, "the host's autogenerate saw our tables"

        # Control: without the one-line filter, the host's autogenerate drops the directory.
        configure_args = host.extensions["migrate"].configure_args
        the_filter = configure_args.pop("include_object")
        try:
            flask_migrate.migrate(directory=versions, message="without the filter")
        finally:
            configure_args["include_object"] = the_filter
        (new_file,) = revision_files(versions) - files
        script = new_file.read_text()
        new_file.unlink()
        assert "op.drop_table('directory_people')" in script
        assert f"op.drop_table('{VERSION_TABLE}')" in script


def revision_files(versions: str) -> set[Path]:
    return set((Path(versions) / "versions").glob("*.py"))
