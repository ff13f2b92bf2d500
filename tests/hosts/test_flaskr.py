"""Host (b): the Flask tutorial's shape (raw sqlite3, ``g.user`` a ``sqlite3.Row``), no
Flask-WTF CSRFProtect, the directory in a database of its own."""

from __future__ import annotations

import re

import pytest
from flask import Flask, render_template_string
from werkzeug.security import generate_password_hash

from directory import models as m
from directory.web.csrf import DirectoryForm
from tests.hosts.flaskr import create_app
from tests.hosts.flaskr.db import get_db, init_db


@pytest.fixture
def site(tmp_path, test_engine, join_test_transaction) -> Flask:
    app = create_app(
        {
            "TESTING": True,
            "DATABASE": str(tmp_path / "flaskr.sqlite"),
            # The test database stands in for the directory's own database file.
            "DIRECTORY_ENGINE": test_engine,
        },
        instance_path=str(tmp_path / "instance"),
    )
    with app.app_context():
        init_db()
        db = get_db()
        for username in ("ada", "bob", "chair"):
            db.execute(
                "INSERT INTO user (username, password) VALUES (?, ?)",
                (username, generate_password_hash("password", "pbkdf2:sha256:1000")),
            )
        db.commit()
    return join_test_transaction(app)


@pytest.fixture
def client(site):
    return site.test_client()


@pytest.fixture
def people(db, make_person):
    ada = make_person(
        "Ada Lovelace", user_key="ada", areas=[m.ResearchArea(slug="databases", name="Databases")]
    )
    make_person("Grace Hopper", visibility="private")
    for visibility in ("members", "private"):
        db.add(
            m.NewsItem(owner_id=ada.id, year=2026, body=f"{visibility} news", visibility=visibility)
        )
    db.commit()


def log_in(client, username: str, password: str = "password"):
    return client.post("/auth/login", data={"username": username, "password": password})


# ----------------------------------------------------------------------------- the host's own tests


def test_register_then_log_in(client) -> None:
    assert client.get("/auth/register").status_code == 200
    response = client.post("/auth/register", data={"username": "new", "password": "pw"})
    assert response.headers["Location"] == "/auth/login"
    again = client.post("/auth/register", data={"username": "new", "password": "pw"})
    assert "already registered" in again.get_data(as_text=True)
    assert log_in(client, "new", "pw").headers["Location"] == "/"
    assert "<span>new</span>" in client.get("/").get_data(as_text=True)


def test_wrong_password_and_logout(client) -> None:
    assert "Incorrect username or password." in log_in(client, "ada", "x").get_data(as_text=True)
    log_in(client, "ada")
    client.get("/auth/logout")
    assert "Log In</a>" in client.get("/").get_data(as_text=True)


def test_writing_a_post_needs_a_login(client) -> None:
    assert client.get("/create").headers["Location"] == "/auth/login"
    log_in(client, "ada")
    client.post("/create", data={"title": "Hello", "body": "First post"})
    assert "First post" in client.get("/").get_data(as_text=True)


# ----------------------------------------------------------------------------- the directory in it


def test_directory_pages_render_inside_the_flaskr_layout(client, people) -> None:
    html = client.get("/directory/people/ada-lovelace").get_data(as_text=True)
    assert '<nav class="flaskr-nav">' in html
    assert "<title>Ada Lovelace · Department of Computer Science - Flaskr</title>" in html
    assert '<div class="directory profile">' in html
    assert 'class="site-header"' not in html


def test_anonymous_visitors_are_anonymous(client, people) -> None:
    html = client.get("/directory/people/ada-lovelace").get_data(as_text=True)
    assert "members news" not in html
    assert "Log In</a>" in html


def test_g_user_is_recognised(client, people) -> None:
    log_in(client, "bob")
    html = client.get("/directory/people/ada-lovelace").get_data(as_text=True)
    assert "members news" in html and "private news" not in html
    log_in(client, "ada")
    assert "private news" in client.get("/directory/people/ada-lovelace").get_data(as_text=True)


def test_the_admin_list_names_the_chair(client, people) -> None:
    log_in(client, "bob")
    assert client.get("/directory/people/grace-hopper").status_code == 404
    log_in(client, "chair")
    assert client.get("/directory/people/grace-hopper").status_code == 200


def test_the_hosts_template_at_the_same_path_overrides_the_directorys(client) -> None:
    response = client.get("/directory/people/nobody")
    assert response.status_code == 404
    html = response.get_data(as_text=True)
    assert "Nobody here by that name." in html
    assert "<title>No such person - Flaskr</title>" in html


def test_the_people_of_an_area_on_the_hosts_own_page(client, people) -> None:
    html = client.get("/").get_data(as_text=True)
    assert "<h2>Working on databases</h2>" in html
    assert '<a href="/directory/people/ada-lovelace">Ada Lovelace</a>' in html


class ProbeForm(DirectoryForm):
    """Stands in for the directory's editing forms: the same base class."""


def test_directory_forms_check_csrf_without_the_hosts_csrfprotect(site) -> None:
    @site.route("/probe", methods=["GET", "POST"])
    def probe() -> str:
        form = ProbeForm()
        if form.validate_on_submit():
            return "valid"
        return render_template_string("{{ form.hidden_tag() }}", form=form)

    client = site.test_client()
    token = re.search(r'value="([^"]+)"', client.get("/probe").get_data(as_text=True)).group(1)
    assert client.post("/probe", data={"csrf_token": token}).get_data(as_text=True) == "valid"
    assert client.post("/probe").get_data(as_text=True) != "valid"
    assert client.post("/probe", data={"csrf_token": "forged"}).get_data(as_text=True) != "valid"
