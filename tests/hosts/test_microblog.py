"""Host (d): the mega-tutorial's microblog (tests/hosts/microblog), its own users and
migrations, Flask-Babel with a locale selector that reads the request (or ``g``, the
``session``, the signed-in user), Flask-WTF forms and a Bootstrap layout with inline scripts.

Every ``flask directory`` command, enumerated from the click group, runs inside it: none may
call the host's selector outside one of the host's requests (docs/translating.md)."""

from __future__ import annotations

import json
import re
import shutil
import warnings
from collections.abc import Iterator
from pathlib import Path

import click
import flask_migrate
import pytest
from flask import Flask

from directory.cli import directory_cli
from directory.resources import resource_dir
from tests.conftest import scratch_database
from tests.hosts.microblog import SELECTORS, User, create_app, db

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def csrf_token(html: str) -> str:
    return re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html).group(1)


def command_paths(group: click.Group, prefix: tuple[str, ...] = ()) -> list[tuple[str, ...]]:
    """Every command under ``group``, as the words that name it (``("db", "upgrade")``)."""
    found = []
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            found.extend(command_paths(command, (*prefix, name)))
        else:
            found.append((*prefix, name))
    return found


def build(folder: Path, url: str, **config) -> Flask:
    """The microblog migrated the way its tutorial says (``flask db init/migrate/upgrade``),
    then the directory's tables (``flask directory db upgrade``)."""
    app = create_app({"TESTING": True, "SQLALCHEMY_DATABASE_URI": url, **config})
    versions = str(folder / "host-migrations")
    with app.app_context(), warnings.catch_warnings():
        warnings.filterwarnings("ignore", "'get_engine' is deprecated", DeprecationWarning)
        flask_migrate.init(directory=versions)
        flask_migrate.migrate(directory=versions, message="users and posts")
        flask_migrate.upgrade(directory=versions)
    return app


@pytest.fixture
def microblog(tmp_path, request) -> Iterator[Flask]:
    selector = getattr(request, "param", "request")
    with scratch_database(tmp_path) as url:
        app = build(tmp_path, url, LOCALE_SELECTOR=selector)
        try:
            yield app
        finally:
            with app.app_context():
                db.engine.dispose()


def profile_document() -> dict:
    return {
        "format": "faculty-directory-profile",
        "format_version": 1,
        "person": {"slug": "grace-hopper", "full_name": "Grace Hopper", "role": "faculty"},
    }


def invocations(tmp_path: Path) -> dict[tuple[str, ...], tuple[list[str], str]]:
    """Minimal valid arguments of each command, and the input it reads. A command added later
    without an entry here fails the test that enumerates them."""
    profile = tmp_path / "grace.json"
    profile.write_text(json.dumps(profile_document()), encoding="utf-8")
    bib = str(FIXTURES / "bibtex" / "alfolio.bib")
    orcid = str(FIXTURES / "orcid" / "record.json")
    return {
        ("db", "current"): ([], ""),
        ("db", "history"): ([], ""),
        ("db", "downgrade"): ([], ""),
        ("db", "upgrade"): ([], ""),
        ("db", "revision"): (["-m", "probe", "--empty"], ""),
        ("load-demo",): (["--if-empty"], ""),
        ("reindex",): ([], ""),
        ("bind-user",): (["xingda-wei", "ada"], ""),
        ("import-profile",): ([str(profile)], ""),
        ("export-profile",): (["grace-hopper", "-o", str(tmp_path / "out.json")], ""),
        ("export",): (["--all", str(tmp_path / "backup")], ""),
        ("import-bibtex",): (
            ["--person", "xingda-wei", "--yes", "--duplicates", "new", "--skip-invalid", bib],
            "",
        ),  # fmt: skip
        ("import-orcid",): (
            [
                "--person",
                "danyang-zhuo",
                "--yes",
                "--duplicates",
                "new",
                "--skip-invalid",
                orcid,
            ],
            "",
        ),  # fmt: skip
        ("remind-stale",): (["--dry-run", "--url", "https://microblog.example"], ""),
        # The demo's people hold no identifiers: the run asks no source (no network here).
        ("harvest",): (["--dry-run"], ""),
        ("create-account",): (["ada"], "a long enough pass phrase\n" * 2),
        ("create-demo-accounts",): ([], ""),
        ("check",): (["--session", "_user_id=1"], ""),
        ("cv",): (["xingda-wei", "-o", str(tmp_path / "cv.pdf")], ""),
    }


#: Commands this host refuses by design (it signs people in itself), and the reason they give.
REFUSED_HERE = {
    ("create-account",): "The built-in login is off",
    ("create-demo-accounts",): "The built-in login is off",
}


def test_every_command_has_a_known_invocation(tmp_path) -> None:
    assert sorted(invocations(tmp_path)) == command_paths(directory_cli)


@pytest.mark.parametrize("microblog", sorted(SELECTORS), indirect=True)
def test_every_command_runs_under_the_hosts_locale_selector(
    microblog, tmp_path, monkeypatch
) -> None:
    # `db revision` writes a migration file: into a copy of the migrations, not the package's.
    copy = tmp_path / "directory-migrations"
    shutil.copytree(resource_dir("migrations"), copy)
    runner = microblog.test_cli_runner()
    with microblog.app_context():
        user = User(username="ada", locale="es")
        user.set_password("password")
        db.session.add(user)
        db.session.commit()
    calls = invocations(tmp_path)
    # In the order of `invocations` (each command finds what the ones before it left).
    order = [("db", "upgrade"), *calls, ("check",)]
    for path in order:
        args, given = calls[path]
        with monkeypatch.context() as patch:
            if path == ("db", "revision"):
                patch.setattr("directory.migrate.resource_dir", lambda name: copy)
            result = runner.invoke(args=["directory", *path, *args], input=given)
        words = " ".join(path)
        assert "outside of request context" not in result.output, words
        assert result.exception is None or isinstance(result.exception, SystemExit), (
            words,
            repr(result.exception),
        )
        if path in REFUSED_HERE:
            assert result.exit_code == 1 and REFUSED_HERE[path] in result.output, words
        else:
            assert result.exit_code == 0, (words, result.output, result.exception)
    assert "All checks passed." in result.output
    assert (tmp_path / "cv.pdf").read_bytes().startswith(b"%PDF")
    assert len(list((tmp_path / "backup").glob("*.json"))) == 24  # the demo's 23 and Grace


def test_the_directorys_own_request_contexts_go_through_i18n() -> None:
    """A request context the directory makes up (a command building URLs, the checks) is
    pushed by i18n.command_request_context, which pins the command's locale first."""
    package = resource_dir("migrations").parent / "directory"
    callers = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if "test_request_context(" in path.read_text(encoding="utf-8")
    )
    assert callers == ["i18n.py"]


@pytest.mark.parametrize("microblog", ["request"], indirect=True)
def test_the_directory_inside_the_microblog(microblog) -> None:
    """The README's embedding steps in this host: its layout, its sign-in, its language."""
    runner = microblog.test_cli_runner()
    for args in (["db", "upgrade"], ["load-demo"], ["bind-user", "xingda-wei", "ada"]):
        assert runner.invoke(args=["directory", *args]).exit_code == 0, args
    with microblog.app_context():
        user = User(username="ada", locale="es")
        user.set_password("password")
        db.session.add(user)
        db.session.commit()
    client = microblog.test_client()
    page = client.get("/login").get_data(as_text=True)
    signed = client.post(
        "/login",
        data={"username": "ada", "password": "password", "csrf_token": csrf_token(page)},
    )
    assert signed.headers["Location"] == "/index"
    html = client.get("/directory/people/xingda-wei", headers={"Accept-Language": "es"}).get_data(
        as_text=True
    )
    assert '<html lang="es">' in html  # the host's selector chose, in the host's layout
    assert 'class="navbar navbar-expand-lg bg-body-tertiary microblog-nav"' in html
    assert "Logout ada" in html
    assert '<p class="profile__edit">' in html  # the host's user owns this profile


# ----------------------------------------------------------------------------- its inline code


def nonce_of(html: str) -> str | None:
    found = re.search(r'<script nonce="([^"]+)">', html)
    return found.group(1) if found else None


@pytest.mark.parametrize("microblog", ["request"], indirect=True)
def test_check_warns_of_the_layouts_inline_code_without_the_nonce(microblog) -> None:
    runner = microblog.test_cli_runner()
    assert runner.invoke(args=["directory", "db", "upgrade"]).exit_code == 0
    result = runner.invoke(args=["directory", "check"])
    assert result.exit_code == 0, result.output  # a warning, not a problem
    [line] = [line for line in result.output.splitlines() if " layout: " in line]
    assert line.startswith("WARNING  layout: /directory/ renders inline code")
    assert re.search(r"<script> on line \d+", line)
    assert 'nonce="{{ directory_csp_nonce() }}"' in line


@pytest.mark.parametrize("microblog", ["request"], indirect=True)
def test_a_nonce_for_the_hosts_inline_code(microblog) -> None:
    microblog.config.update(LAYOUT_NONCE=True, DIRECTORY_CACHE_SECONDS=60)
    runner = microblog.test_cli_runner()
    assert runner.invoke(args=["directory", "db", "upgrade"]).exit_code == 0
    client = microblog.test_client()
    nonces = []
    for _ in range(2):
        response = client.get("/directory/")
        nonce = nonce_of(response.get_data(as_text=True))
        policy = dict(
            (part.split()[0], part.split()[1:])
            for part in response.headers["Content-Security-Policy"].split(";")
        )
        for directive in ("script-src", "style-src"):
            assert f"'nonce-{nonce}'" in policy[directive], directive
        assert "'unsafe-inline'" not in policy["script-src"]
        assert response.headers.get("X-Directory-Cache") != "hit"  # never a stored nonce
        nonces.append(nonce)
    assert nonces[0] != nonces[1] and all(len(n) >= 22 for n in nonces)
    result = runner.invoke(args=["directory", "check"])
    assert "ok  layout: /directory/: no inline code the policy blocks" in result.output
    # A page whose layout uses no nonce is cached and its policy names none.
    microblog.config["LAYOUT_NONCE"] = False
    for _ in range(2):
        plain = client.get("/directory/")
        assert "nonce-" not in plain.headers["Content-Security-Policy"]
    assert plain.headers["X-Directory-Cache"] == "hit"
