"""The standalone site's built-in login: hashed passwords, lockout, a fresh session on sign-in,
CSRF on both forms, no open redirect, and off (404) unless enabled."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from directory import models as m
from directory.services.accounts import LocalAccount, save_account

from .conftest import make_app

PASSWORD = "correct horse battery"

pytestmark = pytest.mark.usefixtures("fast_password_hashing")


def csrf_token(html: str) -> str:
    return re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html).group(1)


@pytest.fixture
def site(test_engine, join_test_transaction):
    """The standalone site of wsgi.py (built-in login on, "admin" is the admin)."""
    from wsgi import create_app

    app = create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "test",
            "DIRECTORY_ENGINE": test_engine,
            "DIRECTORY_LOGIN_MAX_ATTEMPTS": 3,
            "DIRECTORY_LOGIN_LOCKOUT_MINUTES": 15,
        }
    )
    return join_test_transaction(app)


@pytest.fixture
def client(site):
    return site.test_client()


@pytest.fixture
def account(db, make_person):
    """Ada's account, bound to her profile, which has a members-only news item."""
    person = make_person(user_key=None)
    db.add(m.NewsItem(owner_id=person.id, year=2026, body="members news", visibility="members"))
    save_account(db, "ada", PASSWORD, person)
    db.commit()
    return person


def sign_in(client, username: str, password: str, next_url: str | None = None):
    url = "/directory/login" + (f"?next={next_url}" if next_url else "")
    token = csrf_token(client.get(url).get_data(as_text=True))
    return client.post(url, data={"username": username, "password": password, "csrf_token": token})


def profile(client) -> str:
    return client.get("/directory/people/ada-lovelace").get_data(as_text=True)


def test_signing_in_shows_the_name_and_members_content(client, account) -> None:
    assert "members news" not in profile(client)
    assert "Sign in" in profile(client)

    response = sign_in(client, "Ada", PASSWORD)  # usernames are not case-sensitive
    assert response.status_code == 302
    assert response.headers["Location"] == "/directory/"

    html = profile(client)
    assert "members news" in html
    assert "Signed in as <strong>Ada Lovelace</strong>" in html
    assert "Sign out" in html


def test_the_password_is_stored_hashed(db, account) -> None:
    stored = db.scalar(select(LocalAccount.password_hash).where(LocalAccount.username == "ada"))
    assert PASSWORD not in stored
    assert stored.startswith("pbkdf2:sha256:1000$")  # the tests' cheap method; scrypt otherwise


def test_wrong_password_and_unknown_user_get_the_same_answer(client, account) -> None:
    wrong = sign_in(client, "ada", "not the password").get_data(as_text=True)
    unknown = sign_in(client, "nobody", "not the password").get_data(as_text=True)
    for html in (wrong, unknown):
        assert "Wrong username or password." in html
    assert 'value="ada"' in wrong  # the username typed is kept
    assert "members news" not in profile(client)


def test_too_many_failures_lock_the_account_even_against_the_right_password(
    client, db, account
) -> None:
    for _ in range(3):
        html = sign_in(client, "ada", "guess").get_data(as_text=True)
    assert "Too many failed sign-ins for this account. Try again in 15 minutes." in html

    html = sign_in(client, "ada", PASSWORD).get_data(as_text=True)
    assert "Too many failed sign-ins" in html
    assert "members news" not in profile(client)

    # When the lock has run out, the right password works again.
    row = db.scalar(select(LocalAccount).where(LocalAccount.username == "ada"))
    row.locked_until = datetime.now(UTC) - timedelta(seconds=1)
    db.commit()
    assert sign_in(client, "ada", PASSWORD).status_code == 302
    assert "members news" in profile(client)


def test_failures_spread_over_more_than_the_window_do_not_lock(client, db, account) -> None:
    for _ in range(2):
        sign_in(client, "ada", "guess")
    row = db.scalar(select(LocalAccount).where(LocalAccount.username == "ada"))
    row.first_failed_at = datetime.now(UTC) - timedelta(minutes=16)
    db.commit()
    html = sign_in(client, "ada", "guess").get_data(as_text=True)
    assert "Wrong username or password." in html
    assert sign_in(client, "ada", PASSWORD).status_code == 302


def test_signing_in_starts_a_fresh_session(client, account) -> None:
    with client.session_transaction() as session:
        session["planted"] = "by an attacker"
    sign_in(client, "ada", PASSWORD)
    with client.session_transaction() as session:
        assert "planted" not in session
        assert session["_directory_user"] == "ada"


@pytest.mark.parametrize(
    "target, expected",
    [
        ("/directory/people/ada-lovelace", "/directory/people/ada-lovelace"),
        ("//evil.example/", "/directory/"),
        ("https://evil.example/", "/directory/"),
        ("/\\evil.example", "/directory/"),
    ],
)
def test_next_only_leads_to_this_site(client, account, target, expected) -> None:
    response = sign_in(client, "ada", PASSWORD, next_url=target)
    assert response.headers["Location"] == expected


def test_the_sign_in_link_comes_back_to_the_page(client) -> None:
    html = client.get("/directory/").get_data(as_text=True)
    assert 'href="/directory/login?next=/directory/"' in html


def test_a_sign_in_without_csrf_token_is_refused(client, account) -> None:
    client.get("/directory/login")
    response = client.post("/directory/login", data={"username": "ada", "password": PASSWORD})
    assert response.status_code == 400
    assert "did not come from this site" in response.get_data(as_text=True)
    assert "members news" not in profile(client)


def test_forms_check_their_token_even_if_the_host_turns_wtf_csrf_off(
    test_engine, join_test_transaction, account
) -> None:
    from wsgi import create_app

    site = join_test_transaction(
        create_app({"TESTING": True, "WTF_CSRF_ENABLED": False, "DIRECTORY_ENGINE": test_engine})
    )
    client = site.test_client()
    response = client.post("/directory/login", data={"username": "ada", "password": PASSWORD})
    assert response.status_code == 400
    assert "members news" not in profile(client)


def test_signing_out_is_a_post_with_a_token(client, account) -> None:
    sign_in(client, "ada", PASSWORD)
    page = client.get("/directory/logout")
    assert page.status_code == 200
    assert "You are signed in as <strong>Ada Lovelace</strong>" in page.get_data(as_text=True)

    assert client.post("/directory/logout").status_code == 400
    assert "members news" in profile(client)

    token = csrf_token(page.get_data(as_text=True))
    response = client.post("/directory/logout", data={"csrf_token": token})
    assert response.status_code == 302
    assert "members news" not in profile(client)
    assert "Sign in" in profile(client)


def test_a_deleted_account_is_signed_out(client, db, account) -> None:
    sign_in(client, "ada", PASSWORD)
    db.delete(db.scalar(select(LocalAccount).where(LocalAccount.username == "ada")))
    db.commit()
    assert "members news" not in profile(client)


def test_the_standalone_admin_is_the_account_named_admin(client, db, make_person) -> None:
    make_person("Grace Hopper", visibility="private")
    save_account(db, "admin", PASSWORD)
    db.commit()
    assert client.get("/directory/people/grace-hopper").status_code == 404
    sign_in(client, "admin", PASSWORD)
    assert client.get("/directory/people/grace-hopper").status_code == 200


def test_without_builtin_login_there_is_no_login_page() -> None:
    host = make_app()  # a host: identity from a callable, built-in login off
    client = host.test_client()
    assert client.get("/directory/login").status_code == 404
    assert client.post("/directory/logout").status_code == 404


def test_builtin_login_cannot_be_combined_with_a_host_identity_source() -> None:
    with pytest.raises(ValueError, match="DIRECTORY_BUILTIN_LOGIN is only for the standalone"):
        make_app(DIRECTORY_BUILTIN_LOGIN=True)


def test_a_session_key_means_nothing_while_builtin_login_is_off(
    test_engine, join_test_transaction, db, account
) -> None:
    host = join_test_transaction(
        make_app(
            DIRECTORY_ENGINE=test_engine,
            DIRECTORY_IDENTITY_SOURCE="builtin",
            DIRECTORY_BUILTIN_LOGIN=False,
        )
    )
    client = host.test_client()
    with client.session_transaction() as session:
        session["_directory_user"] = "ada"
    assert "members news" not in profile(client)
