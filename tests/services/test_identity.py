"""How the host's user becomes a directory viewer: the stable key (never the primary key), and
who is an admin (a list, a callable or a role of the host's user; nobody by default)."""

from __future__ import annotations

import sqlite3
from types import SimpleNamespace
from typing import Any

import pytest
from flask import g

from directory import models as m
from tests.conftest import make_app

#: What the "g" host below puts on ``g.user`` for the next requests.
SIGNED_IN: dict[str, Any] = {}


@pytest.fixture
def host_factory(test_engine, join_test_transaction):
    """A host keeping its user on ``flask.g`` (flaskr style), signed in as SIGNED_IN["user"]."""
    SIGNED_IN.clear()

    def factory(**config: Any):
        config.setdefault("DIRECTORY_IDENTITY_SOURCE", "g")
        config.setdefault("DIRECTORY_ADMINS", None)
        app = make_app(DIRECTORY_ENGINE=test_engine, **config)

        @app.before_request
        def load_user() -> None:
            g.user = SIGNED_IN.get("user")

        return join_test_transaction(app)

    return factory


@pytest.fixture
def people(db, make_person):
    """Ada (user key "ada", a private news item) and Grace (a private profile)."""
    ada = make_person("Ada Lovelace", user_key="ada")
    make_person("Grace Hopper", visibility="private", user_key="7")
    db.add(m.NewsItem(owner_id=ada.id, year=2026, body="private note", visibility="private"))
    db.commit()


def sees_private_profile(client) -> bool:
    return client.get("/directory/people/grace-hopper").status_code == 200


def sees_own_private_note(client) -> bool:
    return "private note" in client.get("/directory/people/ada-lovelace").get_data(as_text=True)


def test_a_host_user_maps_to_a_person_by_the_stable_key_not_the_primary_key(
    host_factory, people
) -> None:
    client = host_factory().test_client()
    # id 7 is Grace's user key: the plugin must not look at it.
    SIGNED_IN["user"] = SimpleNamespace(id=7, username="ada")
    assert sees_own_private_note(client)
    assert not sees_private_profile(client)


def sqlite_row_user() -> sqlite3.Row:
    """A user row the way flaskr's ``load_logged_in_user`` puts it on ``g.user``."""
    connection = sqlite3.connect(":memory:")
    connection.row_factory = sqlite3.Row
    row = connection.execute("select 1 as id, 'ada' as username").fetchone()
    connection.close()
    return row


@pytest.mark.parametrize("make_user", [lambda: {"id": 1, "username": "ada"}, sqlite_row_user])
def test_mapping_and_row_users_work(host_factory, people, make_user) -> None:
    SIGNED_IN["user"] = make_user()
    assert sees_own_private_note(host_factory().test_client())


def test_another_attribute_can_be_the_key(host_factory, db, people) -> None:
    client = host_factory(DIRECTORY_IDENTITY_ATTRIBUTE="email").test_client()
    SIGNED_IN["user"] = SimpleNamespace(username="someone-else", email="ada")
    assert sees_own_private_note(client)


def test_an_unauthenticated_user_object_is_anonymous(host_factory, people) -> None:
    SIGNED_IN["user"] = SimpleNamespace(username="ada", is_authenticated=False)
    assert not sees_own_private_note(host_factory().test_client())


def test_nobody_is_an_admin_by_default(host_factory, people) -> None:
    SIGNED_IN["user"] = SimpleNamespace(username="chair", role="admin", roles=["admin"])
    assert not sees_private_profile(host_factory().test_client())


def test_admins_from_a_list_or_a_callable(host_factory, people) -> None:
    SIGNED_IN["user"] = SimpleNamespace(username="chair")
    assert sees_private_profile(host_factory(DIRECTORY_ADMINS=["chair"]).test_client())
    assert sees_private_profile(
        host_factory(DIRECTORY_ADMINS=lambda key: key.startswith("ch")).test_client()
    )
    assert not sees_private_profile(host_factory(DIRECTORY_ADMINS=["dean"]).test_client())


class FlaskSecurityStyleUser:
    username = "chair"

    def has_role(self, role: str) -> bool:
        return role == "directory-admin"


@pytest.mark.parametrize(
    "user, is_admin",
    [
        (FlaskSecurityStyleUser(), True),
        (SimpleNamespace(username="chair", roles=[SimpleNamespace(name="directory-admin")]), True),
        (SimpleNamespace(username="chair", roles=["staff", "directory-admin"]), True),
        (SimpleNamespace(username="chair", roles="staff;directory-admin"), True),
        (SimpleNamespace(username="chair", role="directory-admin"), True),
        ({"username": "chair", "role": "directory-admin"}, True),
        (SimpleNamespace(username="chair", roles=["staff"]), False),
        (SimpleNamespace(username="chair", roles=["directory-administrator"]), False),
        (SimpleNamespace(username="chair", role="staff"), False),
        (SimpleNamespace(username="chair"), False),
    ],
)
def test_admins_from_a_role_of_the_host_user(host_factory, people, user, is_admin) -> None:
    SIGNED_IN["user"] = user
    client = host_factory(DIRECTORY_ADMIN_ROLE="directory-admin").test_client()
    assert sees_private_profile(client) is is_admin


def test_a_callable_source_gives_the_key(test_engine, join_test_transaction, people) -> None:
    current = {"key": "  ada  "}
    host = join_test_transaction(
        make_app(
            DIRECTORY_ENGINE=test_engine,
            DIRECTORY_IDENTITY_CALLABLE=lambda: current["key"],
            DIRECTORY_ADMINS=None,
        )
    )
    client = host.test_client()
    assert sees_own_private_note(client)
    current["key"] = ""
    assert not sees_own_private_note(client)


@pytest.mark.parametrize(
    "config, message",
    [
        ({"DIRECTORY_IDENTITY_SOURCE": "cookie"}, "DIRECTORY_IDENTITY_SOURCE must be one of"),
        ({"DIRECTORY_IDENTITY_CALLABLE": None}, "needs DIRECTORY_IDENTITY_CALLABLE"),
    ],
)
def test_settings_that_cannot_work_are_refused_at_start_up(config, message) -> None:
    with pytest.raises(ValueError, match=message):
        make_app(**config)
