"""Who is signed in, as told by the host, and what that makes them in the directory.

The plugin never logs anyone in itself (except the optional built-in login of the standalone
site): it asks the host through the source chosen by ``DIRECTORY_IDENTITY_SOURCE`` for a
*stable key* (username, eppn or email) and maps it to a :class:`~directory.models.Person`
through ``Person.user_key``.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from flask import current_app, g, request, session
from sqlalchemy import select

from .db import get_session
from .models import Person

BUILTIN_SESSION_KEY = "_directory_user"


@dataclass(frozen=True)
class Viewer:
    """The person looking at a page: anonymous, a signed-in member, possibly an admin."""

    key: str | None
    person_id: int | None = None
    is_admin: bool = False

    @property
    def is_authenticated(self) -> bool:
        return self.key is not None


ANONYMOUS = Viewer(key=None)


def _key_from_user(user: Any) -> str | None:
    if user is None or not getattr(user, "is_authenticated", True):
        return None
    attribute = current_app.config["DIRECTORY_IDENTITY_ATTRIBUTE"]
    value = user.get(attribute) if isinstance(user, dict) else getattr(user, attribute, None)
    return str(value) if value else None


def host_identity_key() -> str | None:
    """The signed-in user's stable key according to the configured source, or None."""
    source = current_app.config["DIRECTORY_IDENTITY_SOURCE"]
    if source == "flask_login":
        from flask_login import current_user

        return _key_from_user(current_user)
    if source == "remote_user":
        # Only the WSGI environ, which the web server's SSO module sets; never a request
        # header, which any client can send.
        value = request.environ.get("REMOTE_USER")
        return value.strip() if value and value.strip() else None
    if source == "g":
        return _key_from_user(g.get("user"))
    if source == "callable":
        fn = current_app.config["DIRECTORY_IDENTITY_CALLABLE"]
        value = fn() if fn else None
        return str(value) if value else None
    if source == "builtin":
        return session.get(BUILTIN_SESSION_KEY)
    raise ValueError(f"Unknown DIRECTORY_IDENTITY_SOURCE {source!r}")


def is_admin_key(key: str | None) -> bool:
    """Whether the host says ``key`` belongs to a department admin (default: nobody)."""
    if not key:
        return False
    admins = current_app.config["DIRECTORY_ADMINS"]
    if admins is None:
        return False
    if callable(admins):
        return bool(admins(key))
    return key in admins


def current_viewer() -> Viewer:
    """The viewer of the current request (computed once per request)."""
    viewer = g.get("_directory_viewer")
    if viewer is None:
        key = host_identity_key()
        if key is None:
            viewer = ANONYMOUS
        else:
            person_id = get_session().scalar(select(Person.id).where(Person.user_key == key))
            viewer = Viewer(key=key, person_id=person_id, is_admin=is_admin_key(key))
        g._directory_viewer = viewer
    return viewer
