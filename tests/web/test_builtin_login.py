"""The standalone site's built-in login: hashed passwords, lockout, a fresh session on sign-in,
CSRF on both forms, no open redirect, and off (404) unless enabled."""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select

from directory import models as m
from directory.services.accounts import LocalAccount, save_account
from tests.conftest import make_app

PASSWORD = "correct horse battery"

pytestmark = pytest.mark.usefixtures("fast_password_hashing")


def csrf_token(html: str) -> str:
    return re.search(r'name="csrf_token"[^>]*value="([^"]+)"', html).group(1)


def standalone_site(test_engine, **config):
    """The standalone site of wsgi.py (built-in login on, "admin" is the admin)."""
    from wsgi import create_app

    return create_app(
        {
            "TESTING": True,
            "SECRET_KEY": "test",
            "DIRECTORY_ENGINE": test_engine,
            "DIRECTORY_LOGIN_MAX_ATTEMPTS": 3,
            "DIRECTORY_LOGIN_LOCKOUT_MINUTES": 15,
            **config,
        }
    )


@pytest.fixture
def site(test_engine, join_test_transaction):
    return join_test_transaction(standalone_site(test_engine))


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


def sign_in(
    client,
    username: str,
    password: str,
    next_url: str | None = None,
    source: str = "127.0.0.1",
    headers: dict | None = None,
):
    url = "/directory/login" + (f"?next={next_url}" if next_url else "")
    environ = {"REMOTE_ADDR": source}
    page = client.get(url, environ_base=environ, headers=headers)
    data = {"username": username, "password": password, "csrf_token": csrf_token(page.text)}
    return client.post(url, data=data, environ_base=environ, headers=headers)


def profile(client) -> str:
    return client.get("/directory/people/ada-lovelace").get_data(as_text=True)


def test_signing_in_shows_the_name_and_members_content(client, account) -> None:
    assert "members news" not in profile(client)
    assert "Sign in" in profile(client)

    response = sign_in(client, "Ada", PASSWORD)  # usernames are not case-sensitive
    assert response.status_code == 302
    # No page to come back to: Ada lands on her own editor.
    assert response.headers["Location"] == "/directory/me"

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


BLOCKED = "Too many failed sign-ins. Try again in 15 minutes."


def test_too_many_failures_block_even_the_right_password_until_the_block_runs_out(
    client, db, account
) -> None:
    for _ in range(3):
        html = sign_in(client, "ada", "guess").get_data(as_text=True)
    assert BLOCKED in html

    html = sign_in(client, "ada", PASSWORD).get_data(as_text=True)
    assert "Too many failed sign-ins" in html
    assert "members news" not in profile(client)

    # When the block has run out, the right password works again.
    for row in db.scalars(select(m.SignInThrottle)):
        row.blocked_until = datetime.now(UTC) - timedelta(seconds=1)
    db.commit()
    assert sign_in(client, "ada", PASSWORD).status_code == 302
    assert "members news" in profile(client)


def test_failures_spread_over_more_than_the_window_do_not_block(client, db, account) -> None:
    for _ in range(2):
        sign_in(client, "ada", "guess")
    for row in db.scalars(select(m.SignInThrottle)):
        row.window_started_at = datetime.now(UTC) - timedelta(minutes=16)
    db.commit()
    html = sign_in(client, "ada", "guess").get_data(as_text=True)
    assert "Wrong username or password." in html
    assert sign_in(client, "ada", PASSWORD).status_code == 302


def answers(client, username: str, attempts: int, source: str) -> list[str]:
    """The problem shown after each of ``attempts`` wrong passwords for ``username``."""
    found = []
    for _ in range(attempts):
        html = sign_in(client, username, "guess", source=source).get_data(as_text=True)
        found.append(re.search(r'role="alert"[^>]*>([^<]+)<', html).group(1).strip())
    return found


def test_a_real_and_an_unknown_name_get_the_same_answers_all_the_way(client, account) -> None:
    real = answers(client, "ada", 5, source="10.0.0.1")
    unknown = answers(client, "nobody", 5, source="10.0.0.2")
    assert real == unknown
    assert real[0] == "Wrong username or password." and real[-1] == BLOCKED


def test_failures_from_one_address_never_lock_admin_out_for_others(client, db) -> None:
    save_account(db, "admin", PASSWORD)
    db.commit()
    # 3 per name and 12 per address (DIRECTORY_LOGIN_MAX_ATTEMPTS = 3 in these tests).
    answers(client, "admin", 20, source="203.0.113.9")
    assert sign_in(client, "admin", PASSWORD, source="203.0.113.9").status_code == 200
    assert sign_in(client, "admin", PASSWORD, source="192.0.2.1").status_code == 302


def test_one_address_trying_many_names_is_blocked_for_every_name(client, account) -> None:
    for name in ("a", "b", "c", "d"):
        answers(client, name, 3, source="203.0.113.7")  # 12 failures: the address's limit
    html = sign_in(client, "ada", PASSWORD, source="203.0.113.7").get_data(as_text=True)
    assert BLOCKED in html
    assert sign_in(client, "ada", PASSWORD, source="192.0.2.1").status_code == 302


def test_a_name_guessed_from_many_addresses_is_blocked_for_all(client, account) -> None:
    for i in range(10):  # 30 failures: the name's limit over all sources
        answers(client, "ada", 3, source=f"198.51.100.{i}")
    html = sign_in(client, "ada", PASSWORD, source="192.0.2.1").get_data(as_text=True)
    assert BLOCKED in html


def sign_out(client, everywhere: bool = False):
    html = client.get("/directory/logout").get_data(as_text=True)
    data = {"csrf_token": csrf_token(html), **({"everywhere": "y"} if everywhere else {})}
    return client.post("/directory/logout", data=data)


def test_signing_out_ends_the_session_on_the_server(site, client, account) -> None:
    """A cookie copied before sign-out signs nobody in afterwards, and cannot write."""
    assert sign_in(client, "ada", PASSWORD).status_code == 302
    copied = client.get_cookie("session").value
    assert "members news" in profile(client)
    assert sign_out(client).status_code == 302

    thief = site.test_client()
    thief.set_cookie("session", copied)
    assert "members news" not in profile(thief)
    assert "Sign in" in profile(thief)
    assert thief.get("/directory/me").status_code == 302  # sent to sign in
    # Signing in again works, and only the new session counts.
    assert sign_in(client, "ada", PASSWORD).status_code == 302
    assert "members news" in profile(client)
    assert "members news" not in profile(thief)


def test_signing_out_ends_only_this_session(site, client, account) -> None:
    """Sign-out on one device leaves the account's other sessions signed in (the convention
    of Django, GitHub and Google); a copy of the ended cookie still signs nobody in."""
    laptop, phone = client, site.test_client()
    assert sign_in(laptop, "ada", PASSWORD).status_code == 302
    assert sign_in(phone, "ada", PASSWORD).status_code == 302
    copied = laptop.get_cookie("session").value
    assert sign_out(laptop).status_code == 302
    assert "members news" not in profile(laptop)
    assert "members news" in profile(phone)  # still signed in there
    thief = site.test_client()
    thief.set_cookie("session", copied)
    assert "members news" not in profile(thief)


def test_sign_out_of_all_sessions_is_an_explicit_button(site, client, account) -> None:
    laptop, phone = client, site.test_client()
    for browser in (laptop, phone):
        assert sign_in(browser, "ada", PASSWORD).status_code == 302
    copied = phone.get_cookie("session").value
    page = laptop.get("/directory/logout").get_data(as_text=True)
    assert '<button type="submit" class="button" name="everywhere" value="y">' in page
    # A POST with its token, like the other button: no other site can sign anyone out.
    assert laptop.post("/directory/logout", data={"everywhere": "y"}).status_code == 400
    assert "members news" in profile(phone)
    response = sign_out(laptop, everywhere=True)
    assert response.status_code == 302
    assert "signed out of all your sessions" in laptop.get("/directory/").get_data(as_text=True)
    for browser in (laptop, phone):
        assert "members news" not in profile(browser)
    thief = site.test_client()
    thief.set_cookie("session", copied)
    assert "members news" not in profile(thief)


def test_a_new_password_ends_every_session(site, client, db, account) -> None:
    laptop, phone = client, site.test_client()
    for browser in (laptop, phone):
        assert sign_in(browser, "ada", PASSWORD).status_code == 302
    save_account(db, "ada", "another long password", None)
    db.commit()
    for browser in (laptop, phone):
        assert "members news" not in profile(browser)
    assert sign_in(phone, "ada", "another long password").status_code == 302
    assert "members news" in profile(phone)


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
        # Anywhere else is ignored: Ada lands on her own editor, never off the site.
        ("//evil.example/", "/directory/me"),
        ("https://evil.example/", "/directory/me"),
        ("/\\evil.example", "/directory/me"),
    ],
)
def test_next_only_leads_to_this_site(client, account, target, expected) -> None:
    response = sign_in(client, "ada", PASSWORD, next_url=target)
    assert response.headers["Location"] == expected


def test_an_account_without_a_profile_lands_on_the_listing(client, db) -> None:
    save_account(db, "visitor", PASSWORD)
    db.commit()
    for target in (None, "https://evil.example/"):
        response = sign_in(client, "visitor", PASSWORD, next_url=target)
        assert response.headers["Location"] == "/directory/"


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


# ----------------------------------------------------------------------------- behind proxies


def via_proxy(visitor: str) -> dict:
    """What nginx in front of the site adds to a request from ``visitor``."""
    return {
        "X-Forwarded-For": visitor,
        "X-Forwarded-Proto": "https",
        "X-Forwarded-Host": "people.example.edu",
    }


def test_behind_a_trusted_proxy_the_throttle_counts_each_visitor(
    test_engine, join_test_transaction, db
) -> None:
    """Every request comes from the proxy's address; with TRUSTED_PROXIES=1 the throttle sees
    the visitor's (without, one guesser would block the sign-in of everyone behind the proxy)."""
    client = join_test_transaction(standalone_site(test_engine, TRUSTED_PROXIES=1)).test_client()
    save_account(db, "admin", PASSWORD)
    db.commit()
    for _ in range(20):
        sign_in(client, "admin", "guess", headers=via_proxy("203.0.113.9"))
    blocked = sign_in(client, "admin", PASSWORD, headers=via_proxy("203.0.113.9"))
    assert BLOCKED in blocked.text
    assert sign_in(client, "admin", PASSWORD, headers=via_proxy("192.0.2.1")).status_code == 302


def test_behind_a_trusted_proxy_links_are_https_on_the_public_host(
    test_engine, join_test_transaction
) -> None:
    client = join_test_transaction(standalone_site(test_engine, TRUSTED_PROXIES="1")).test_client()
    index = client.get("/directory/api/v1/", headers=via_proxy("192.0.2.1")).get_json()
    assert index["people"] == "https://people.example.edu/directory/api/v1/people"
    page = client.get("/directory/", headers=via_proxy("192.0.2.1")).text
    assert '<link rel="canonical" href="https://people.example.edu/directory/"' in page


def test_without_trusted_proxies_forwarded_headers_are_ignored(client, account) -> None:
    """A visitor talking to the app directly cannot pick its address or host by header."""
    for i in range(12):  # the address's limit (4 names x 3), each with another forged address
        sign_in(client, f"name{i % 4}", "guess", headers=via_proxy(f"198.51.100.{i}"))
    assert BLOCKED in sign_in(client, "ada", PASSWORD, headers=via_proxy("192.0.2.7")).text
    index = client.get("/directory/api/v1/", headers=via_proxy("192.0.2.1")).get_json()
    assert index["people"] == "http://localhost/directory/api/v1/people"


@pytest.mark.parametrize("value", ["one", "-1", "1.5", True])
def test_a_bad_trusted_proxies_value_stops_the_site(test_engine, value) -> None:
    with pytest.raises(ValueError, match="TRUSTED_PROXIES must be a whole number"):
        standalone_site(test_engine, TRUSTED_PROXIES=value)
