"""``flask directory check`` on a healthy host and on hosts with each misconfiguration it
claims to catch; the same configuration problems stop ``Directory(app)`` at start-up."""

from __future__ import annotations

import pytest
from click.testing import CliRunner
from flask import Flask
from flask.cli import FlaskGroup
from sqlalchemy import text
from werkzeug.security import generate_password_hash

from directory import migrate
from directory.services.health import DirectoryConfigError
from directory.services.identity import IdentityAttributeMissing
from tests.conftest import make_app, scratch_database
from tests.hosts.deptsite import User
from tests.hosts.deptsite import create_app as create_deptsite
from tests.hosts.deptsite import db as deptsite_db
from tests.hosts.flaskr import create_app as create_flaskr
from tests.hosts.flaskr.db import get_db, init_db


def check(app: Flask, *args: str):
    return app.test_cli_runner().invoke(args=["directory", "check", *args])


def lines(result, check_name: str) -> list[str]:
    """The output lines of one check (``ok  routes: ...`` or ``PROBLEM  routes: ...``)."""
    return [line for line in result.output.splitlines() if f"  {check_name}: " in line]


@pytest.fixture
def own_database(tmp_path):
    with scratch_database(tmp_path) as url:
        yield url


def migrated_host(url: str, **config) -> Flask:
    app = make_app(DIRECTORY_DATABASE_URL=url, **config)
    migrate.upgrade(app.extensions["directory"].db.engine)
    return app


@pytest.fixture
def healthy(own_database):
    app = migrated_host(own_database)
    result = app.test_cli_runner().invoke(args=["directory", "load-demo"])
    assert result.exit_code == 0, result.output
    yield app
    app.extensions["directory"].db.dispose()


def test_a_healthy_host_passes_every_check(healthy) -> None:
    result = check(healthy)
    assert result.exit_code == 0, result.output
    for name in ("settings", "routes", "database", "migrations", "identity", "headers", "search"):
        (line,) = lines(result, name)
        assert line.startswith("ok  "), line
    assert "PROBLEM" not in result.output
    assert "All checks passed." in result.output


def test_an_empty_database_needs_its_migrations(own_database) -> None:
    app = make_app(DIRECTORY_DATABASE_URL=own_database)
    result = check(app)
    assert result.exit_code == 1
    (line,) = lines(result, "migrations")
    assert line.startswith("PROBLEM") and "run `flask directory db upgrade`" in line
    assert "not checked: fix the database first" in result.output
    app.extensions["directory"].db.dispose()


def test_a_database_that_cannot_be_reached_is_named(tmp_path) -> None:
    app = make_app(DIRECTORY_DATABASE_URL=f"sqlite:///{tmp_path}/no/such/folder/d.sqlite3")
    result = check(app)
    assert result.exit_code == 1
    (line,) = lines(result, "database")
    assert line.startswith("PROBLEM  database: cannot reach sqlite:///")
    assert "DIRECTORY_DATABASE_URL" in line


def test_a_search_index_out_of_step_asks_for_a_reindex(healthy) -> None:
    engine = healthy.extensions["directory"].db.engine
    with engine.begin() as conn:  # behind the plugin's back, as a host's own script might
        conn.execute(text("UPDATE directory_people SET title = 'Dean' WHERE slug = 'xingda-wei'"))
    result = check(healthy)
    assert result.exit_code == 1
    assert lines(result, "search") == [
        "PROBLEM  search: index out of step (1 people): run `flask directory reindex`"
    ]
    assert healthy.test_cli_runner().invoke(args=["directory", "reindex"]).exit_code == 0
    assert check(healthy).exit_code == 0


def test_security_headers_turned_off_without_the_hosts_own(own_database) -> None:
    app = migrated_host(own_database, DIRECTORY_SECURITY_HEADERS=False)
    result = check(app)
    assert result.exit_code == 1
    (line,) = lines(result, "headers")
    assert "lacks Content-Security-Policy" in line and "DIRECTORY_SECURITY_HEADERS off" in line
    app.extensions["directory"].db.dispose()

    app = migrated_host(own_database, DIRECTORY_SECURITY_HEADERS=False)

    @app.after_request
    def own_headers(response):  # a host that sets them itself passes
        response.headers.update(
            {
                "Content-Security-Policy": "default-src 'self'",
                "X-Content-Type-Options": "nosniff",
                "Referrer-Policy": "same-origin",
                "X-Frame-Options": "DENY",
            }
        )
        return response

    assert check(app).exit_code == 0
    app.extensions["directory"].db.dispose()


def test_a_callable_identity_returning_no_string_is_reported(own_database) -> None:
    app = migrated_host(own_database, DIRECTORY_IDENTITY_CALLABLE=lambda: 42)
    result = check(app)
    assert result.exit_code == 1
    (line,) = lines(result, "identity")
    assert "returned int; it must return the key as a string, or None" in line
    app.extensions["directory"].db.dispose()


# ----------------------------------------------------------------------------- at start-up


@pytest.mark.parametrize(
    ("settings", "message"),
    [
        (
            {"DIRECTORY_URL_PREFX": "/people"},
            "unknown setting DIRECTORY_URL_PREFX; did you mean DIRECTORY_URL_PREFIX?",
        ),
        ({"DIRECTORY_PAGE_SIZE": "50"}, "DIRECTORY_PAGE_SIZE must be a whole number"),
        ({"DIRECTORY_PAGE_SIZE": 0}, "DIRECTORY_PAGE_SIZE must be a positive number"),
        ({"DIRECTORY_BUILTIN_LOGIN": "yes"}, "DIRECTORY_BUILTIN_LOGIN must be True or False"),
        ({"DIRECTORY_ADMINS": "chair"}, "DIRECTORY_ADMINS is a string; give a list"),
        ({"DIRECTORY_IDENTITY_SOURCE": "ldap"}, "DIRECTORY_IDENTITY_SOURCE must be one of"),
    ],
)
def test_a_setting_that_cannot_work_stops_the_app(settings, message) -> None:
    with pytest.raises(DirectoryConfigError, match="misconfigured") as raised:
        make_app(**settings)
    assert message in str(raised.value)


def test_every_problem_is_named_at_once() -> None:
    with pytest.raises(DirectoryConfigError) as raised:
        make_app(DIRECTORY_URL_PREFX="/people", DIRECTORY_PAGE_SIZE="50")
    assert "2 problem(s)" in str(raised.value)
    assert len(raised.value.findings) == 2


def test_the_command_line_says_the_problem_and_fails() -> None:
    """`flask directory check` on such a host: the app does not load, and the error names the
    setting and the fix (Flask prints it), with a non-zero exit status."""
    cli = FlaskGroup(create_app=lambda: make_app(DIRECTORY_CACHE_SECOND=60))
    result = CliRunner().invoke(cli, ["directory", "check"])
    assert result.exit_code != 0
    assert "unknown setting DIRECTORY_CACHE_SECOND; did you mean DIRECTORY_CACHE_SECONDS?" in (
        result.output + str(result.exception)
    )


def flaskr_host(tmp_path, url: str, **config) -> Flask:
    """The Flask tutorial's site with one user, ada, and the directory in ``url``."""
    app = create_flaskr(
        {"TESTING": True, "DATABASE": str(tmp_path / "flaskr.sqlite"),
         "DIRECTORY_DATABASE_URL": url, **config},
        instance_path=str(tmp_path / "instance"),
    )  # fmt: skip
    with app.app_context():
        init_db()
        get_db().execute(
            "INSERT INTO user (username, password) VALUES ('ada', ?)",
            (generate_password_hash("pw", "pbkdf2:sha256:1000"),),
        )
        get_db().commit()
    migrate.upgrade(app.extensions["directory"].db.engine)
    return app


def test_prefix_root_next_to_the_hosts_own_root_is_refused(tmp_path, own_database) -> None:
    """The Flask tutorial registers its "/" before Directory(app): both answer "/"."""
    with pytest.raises(DirectoryConfigError) as raised:
        flaskr_host(tmp_path, own_database, DIRECTORY_URL_PREFIX="/")
    assert "the host's / (index) and the directory's / (directory.index) answer the same URL" in (
        str(raised.value)
    )


def test_a_route_the_host_adds_later_fails_its_first_request(own_database) -> None:
    app = migrated_host(own_database, DIRECTORY_URL_PREFIX="/people")

    @app.route("/people/")
    def host_people() -> str:
        return "the host's own people page"

    with pytest.raises(DirectoryConfigError, match=r"the host's /people/ \(host_people\)"):
        app.test_client().get("/people/")
    result = check(app)
    assert result.exit_code == 1
    assert lines(result, "routes")[0].startswith("PROBLEM  routes: the host's /people/")
    app.extensions["directory"].db.dispose()


def test_the_identity_attribute_missing_on_a_sqlite_row(tmp_path, own_database) -> None:
    """The Flask tutorial's g.user is a sqlite3.Row: "user_name" is not one of its keys."""
    app = flaskr_host(tmp_path, own_database, DIRECTORY_IDENTITY_ATTRIBUTE="user_name")
    result = check(app, "--session", "user_id=1")
    assert result.exit_code == 1
    (line,) = lines(result, "identity")
    assert "has no 'user_name'. Did you mean 'username'?" in line

    # On a request, the signed-in user is refused loudly instead of being anonymous.
    client = app.test_client()
    with client.session_transaction() as sess:
        sess["user_id"] = 1
    with pytest.raises(IdentityAttributeMissing, match="Did you mean 'username'"):
        client.get("/directory/")
    app.extensions["directory"].db.dispose()


def test_the_flaskr_host_resolves_its_user(tmp_path, own_database) -> None:
    app = flaskr_host(tmp_path, own_database)
    result = check(app, "--session", "user_id=1")
    assert result.exit_code == 0, result.output
    assert lines(result, "identity") == ["ok  identity: source 'g': the test user's key is 'ada'"]
    nobody = check(app, "--session", "user_id=99")
    assert nobody.exit_code == 1
    assert "nobody is signed in with the session {'user_id': 99}" in nobody.output
    app.extensions["directory"].db.dispose()


def test_a_flask_login_host_resolves_its_user_or_says_which_attribute(tmp_path) -> None:
    with scratch_database(tmp_path) as url:
        for attribute, ok in (("username", True), ("email", False)):
            app = create_deptsite(
                {"TESTING": True, "SQLALCHEMY_DATABASE_URI": url,
                 "DIRECTORY_IDENTITY_ATTRIBUTE": attribute},
            )  # fmt: skip
            with app.app_context():
                deptsite_db.create_all()
                if deptsite_db.session.get(User, 1) is None:
                    user = User(username="ada", role="member")
                    user.set_password("pw", "pbkdf2:sha256:1000")
                    deptsite_db.session.add(user)
                    deptsite_db.session.commit()
                migrate.upgrade(deptsite_db.engine)
            result = check(app, "--session", "_user_id=1")
            (line,) = lines(result, "identity")
            if ok:
                assert result.exit_code == 0, result.output
                assert line == "ok  identity: source 'flask_login': the test user's key is 'ada'"
            else:
                assert result.exit_code == 1
                assert "the host's signed-in user (User) has no 'email'" in line
            with app.app_context():
                deptsite_db.engine.dispose()


def test_a_flask_login_source_without_a_login_manager(own_database) -> None:
    app = migrated_host(own_database, DIRECTORY_IDENTITY_SOURCE="flask_login")
    result = check(app)
    assert result.exit_code == 1
    assert "the app has no LoginManager" in lines(result, "identity")[0]
    app.extensions["directory"].db.dispose()
