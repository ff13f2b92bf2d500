"""Host (c): single sign-on at the web server. Only the WSGI environ's REMOTE_USER counts; a
REMOTE_USER (or Remote-User, X-Remote-User) request header signs nobody in, through the test
client or a real HTTP server."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator

import pytest
from flask import Flask
from werkzeug.serving import make_server

from directory import models as m
from tests.hosts.sso import create_app

FORGED_HEADERS = {
    "REMOTE_USER": "ada@example.edu",
    "Remote-User": "ada@example.edu",
    "X-Remote-User": "ada@example.edu",
    "isMemberOf": "eng-directory-admins",
}


@pytest.fixture
def site(test_engine, join_test_transaction) -> Flask:
    return join_test_transaction(create_app({"TESTING": True, "DIRECTORY_ENGINE": test_engine}))


@pytest.fixture
def client(site):
    return site.test_client()


@pytest.fixture
def people(db, make_person):
    ada = make_person("Ada Lovelace", user_key="ada@example.edu")
    make_person("Grace Hopper", visibility="private")
    for visibility in ("members", "private"):
        db.add(
            m.NewsItem(owner_id=ada.id, year=2026, body=f"{visibility} news", visibility=visibility)
        )
    db.commit()


def sso(user: str, groups: str | None = None) -> dict[str, str]:
    """What the web server's SSO module puts in the environ."""
    environ = {"REMOTE_USER": user}
    if groups is not None:
        environ["isMemberOf"] = groups
    return environ


def test_the_hosts_own_page_still_works(client) -> None:
    html = client.get("/about", environ_base=sso("bob@example.edu")).get_data(as_text=True)
    assert '<p class="sso-who">bob@example.edu</p>' in html
    assert "Signed in as bob@example.edu" in html


def test_the_directory_is_the_home_page_inside_the_host_layout(client, people) -> None:
    html = client.get("/").get_data(as_text=True)
    assert '<div class="sso-banner">' in html
    assert "<title>People · School of Engineering</title>" in html
    assert '<a href="/people/ada-lovelace">Ada Lovelace</a>' in html
    assert 'href="/assets/directory.css"' in html


def test_an_anonymous_visitor_is_anonymous(client, people) -> None:
    html = client.get("/people/ada-lovelace").get_data(as_text=True)
    assert "Not signed in" in html
    assert "members news" not in html


def test_remote_user_from_the_environ_signs_in_by_eppn(client, people) -> None:
    html = client.get("/people/ada-lovelace", environ_base=sso("ada@example.edu"))
    html = html.get_data(as_text=True)
    assert "Signed in as Ada Lovelace" in html
    assert "private news" in html


def test_group_membership_from_the_environ_makes_an_admin(client, people) -> None:
    member = sso("bob@example.edu", "eng-staff;eng-faculty")
    assert client.get("/people/grace-hopper", environ_base=member).status_code == 404
    admin = sso("bob@example.edu", "eng-staff;eng-directory-admins")
    assert client.get("/people/grace-hopper", environ_base=admin).status_code == 200


def test_forged_headers_sign_nobody_in(client, people) -> None:
    response = client.get("/people/ada-lovelace", headers=FORGED_HEADERS)
    html = response.get_data(as_text=True)
    assert "Not signed in" in html
    assert "members news" not in html
    assert client.get("/people/grace-hopper", headers=FORGED_HEADERS).status_code == 404


@pytest.fixture
def live_server(site) -> Iterator[tuple[str, int]]:
    server = make_server("127.0.0.1", 0, site, threaded=False)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield "127.0.0.1", server.server_port
    finally:
        server.shutdown()
        server.server_close()
        thread.join()


def test_forged_headers_sign_nobody_in_over_real_http(live_server, people) -> None:
    connection = http.client.HTTPConnection(*live_server, timeout=10)
    try:
        connection.request("GET", "/people/ada-lovelace", headers=FORGED_HEADERS)
        response = connection.getresponse()
        html = response.read().decode()
    finally:
        connection.close()
    assert response.status == 200
    assert "Not signed in" in html
    assert "members news" not in html
