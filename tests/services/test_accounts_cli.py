"""``flask directory create-account`` and ``create-demo-accounts`` (what ``make run`` prints)."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import select

from directory import models as m
from directory.services.accounts import LocalAccount
from tests.conftest import login
from tests.web.test_builtin_login import sign_in


@pytest.fixture
def site(test_engine, join_test_transaction):
    from wsgi import create_app

    return join_test_transaction(
        create_app({"TESTING": True, "SECRET_KEY": "test", "DIRECTORY_ENGINE": test_engine})
    )


@pytest.fixture
def runner(site):
    return site.test_cli_runner()


def test_create_account_asks_for_the_password_twice_and_binds_the_person(
    runner, site, db, make_person
) -> None:
    make_person()
    result = runner.invoke(
        args=["directory", "create-account", "Ada", "--person", "ada-lovelace"],
        input="too short\ntoo short\na long passphrase\na long passphrase\n",
    )
    assert result.exit_code == 0, result.output
    assert "at least 10 characters" in result.output
    assert "Created the account 'ada', bound to Ada Lovelace." in result.output
    assert db.scalar(select(m.Person.user_key).where(m.Person.slug == "ada-lovelace")) == "ada"
    # The real hashing method, not the tests' cheap one.
    stored = db.scalar(select(LocalAccount.password_hash).where(LocalAccount.username == "ada"))
    assert stored.startswith("scrypt:")

    client = site.test_client()
    assert sign_in(client, "ada", "a long passphrase").status_code == 302


@pytest.mark.usefixtures("fast_password_hashing")
def test_an_existing_account_needs_reset_for_a_new_password(runner, site) -> None:
    runner.invoke(args=["directory", "create-account", "bob"], input="first password\n" * 2)
    again = runner.invoke(args=["directory", "create-account", "bob"], input="other password\n" * 2)
    assert again.exit_code == 1
    assert "add --reset" in again.output

    reset = runner.invoke(
        args=["directory", "create-account", "bob", "--reset"], input="second password\n" * 2
    )
    assert reset.exit_code == 0, reset.output
    assert "Reset the account 'bob'." in reset.output
    client = site.test_client()
    assert sign_in(client, "bob", "first password").status_code == 200
    assert sign_in(client, "bob", "second password").status_code == 302


def test_account_commands_refuse_when_builtin_login_is_off(app, connection) -> None:
    runner = app.test_cli_runner()  # the test host: identity from a callable
    for args in (["create-account", "ada"], ["create-demo-accounts"]):
        result = runner.invoke(args=["directory", *args], input="a long passphrase\n" * 2)
        assert result.exit_code == 1
        assert "The built-in login is off" in result.output


@pytest.mark.usefixtures("fast_password_hashing")
def test_demo_accounts_sign_in_with_the_printed_passwords_and_run_again(runner, site) -> None:
    assert runner.invoke(args=["directory", "load-demo"]).exit_code == 0
    first = runner.invoke(args=["directory", "create-demo-accounts"])
    assert first.exit_code == 0, first.output
    logins = dict(re.findall(r"^  (\S+)\s+(\S+)\s+", first.output, re.MULTILINE))
    assert set(logins) == {"xingda-wei", "danyang-zhuo", "jiangfei-duan", "alexander-du", "admin"}
    assert "department admin" in first.output

    client = site.test_client()
    assert sign_in(client, "xingda-wei", logins["xingda-wei"]).status_code == 302
    home = client.get("/directory/").get_data(as_text=True)
    assert "Signed in as <strong>Xingda Wei</strong>" in home

    # Running it again (make run twice) works and gives new passwords.
    second = runner.invoke(args=["directory", "create-demo-accounts"])
    assert second.exit_code == 0, second.output
    again = dict(re.findall(r"^  (\S+)\s+(\S+)\s+", second.output, re.MULTILINE))
    assert again["admin"] != logins["admin"]
    fresh = site.test_client()
    assert sign_in(fresh, "admin", logins["admin"]).status_code == 200
    assert sign_in(fresh, "admin", again["admin"]).status_code == 302


def test_bind_user_maps_a_host_identity_to_a_person(app, connection, db, make_person) -> None:
    make_person()
    make_person("Alan Turing", user_key="alan@example.edu")
    runner = app.test_cli_runner()
    result = runner.invoke(args=["directory", "bind-user", "ada-lovelace", "ada@example.edu"])
    assert result.exit_code == 0, result.output
    assert "Ada Lovelace is now whoever signs in as 'ada@example.edu'." in result.output

    taken = runner.invoke(args=["directory", "bind-user", "ada-lovelace", "alan@example.edu"])
    assert taken.exit_code == 1
    assert "already bound to Alan Turing" in taken.output

    client = app.test_client()
    login(client, "ada@example.edu")
    html = client.get("/directory/").get_data(as_text=True)
    assert "Signed in as <strong>Ada Lovelace</strong>" in html
    db.expire_all()
    assert db.scalar(select(m.Person.user_key).where(m.Person.slug == "ada-lovelace")) == (
        "ada@example.edu"
    )
    unbound = runner.invoke(args=["directory", "bind-user", "ada-lovelace", "--unbind"])
    assert unbound.exit_code == 0
    db.expire_all()
    assert db.scalar(select(m.Person.user_key).where(m.Person.slug == "ada-lovelace")) is None
