"""Someone not signed in who opens a page that needs it is sent to sign in, not refused."""

from __future__ import annotations

from tests.conftest import make_app


def test_without_a_login_url_an_anonymous_visitor_sees_the_refusal(client) -> None:
    response = client.get("/directory/me")
    assert response.status_code == 403
    assert "Not allowed" in response.get_data(as_text=True)


def test_the_host_login_url_receives_the_page_to_come_back_to(connection) -> None:
    app = make_app(DIRECTORY_LOGIN_URL="/accounts/login?next={next}")
    response = app.test_client().get("/directory/me")
    assert response.status_code == 302
    assert response.headers["Location"] == "/accounts/login?next=%2Fdirectory%2Fme"


def test_the_builtin_login_is_used_when_enabled(connection) -> None:
    app = make_app(DIRECTORY_BUILTIN_LOGIN=True, DIRECTORY_IDENTITY_SOURCE="builtin")
    response = app.test_client().get("/directory/me")
    assert response.status_code == 302
    assert response.headers["Location"].startswith("/directory/login?next=")


def test_a_refused_post_is_never_redirected(runner, demo) -> None:
    app = runner.app
    app.config["DIRECTORY_LOGIN_URL"] = "/accounts/login?next={next}"
    try:
        response = app.test_client().post("/directory/people/xingda-wei/edit/confirm")
    finally:
        app.config["DIRECTORY_LOGIN_URL"] = None
    assert response.status_code == 403
