"""Who is signed in, as told by the host, and what that makes them in the directory.

The plugin never logs anyone in itself (except the optional built-in login of the standalone
site): it asks the host through the source chosen by ``DIRECTORY_IDENTITY_SOURCE`` for a
*stable key* (username, eppn or email) and maps it to a :class:`~directory.models.Person`
through ``Person.user_key``. Whether that key is a department admin also comes from the host:
``DIRECTORY_ADMINS`` (a list of keys or a callable) or ``DIRECTORY_ADMIN_ROLE`` (a role of the
host's user). Nobody is an admin unless one of them says so.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from difflib import get_close_matches
from typing import Any

from flask import current_app, g, request, session
from sqlalchemy import select

from directory.db import get_session
from directory.i18n import gettext as _
from directory.models import Person
from directory.services.accounts import signed_in_username

BUILTIN_SESSION_KEY = "_directory_user"
#: The account's session generation the built-in session was issued in (see end_sessions).
BUILTIN_GENERATION_KEY = "_directory_session_generation"
#: The token of the built-in session's row (see accounts.start_session and end_session).
BUILTIN_TOKEN_KEY = "_directory_session_token"  # noqa: S105 - a cookie key, not a secret
IDENTITY_SOURCES = ("flask_login", "remote_user", "g", "callable", "builtin")


@dataclass(frozen=True)
class Viewer:
    """The person looking at a page: anonymous, a signed-in member, possibly an admin."""

    key: str | None
    person_id: int | None = None
    is_admin: bool = False
    #: The department's chair (DIRECTORY_CHAIRS, DIRECTORY_CHAIR_ROLE): sees the department's
    #: report, counted as what they may see; no admin rights.
    is_chair: bool = False
    #: The bound person's full name, when the key is bound to a person.
    name: str | None = None

    @property
    def is_authenticated(self) -> bool:
        return self.key is not None

    @property
    def display_name(self) -> str:
        """What to call the viewer on a page: their name, else their key."""
        return self.name or self.key or ""


ANONYMOUS = Viewer(key=None)
#: Who a `flask directory` command acts as: an admin without an account.
COMMAND_LINE = Viewer(key=None, is_admin=True, name="command line")


class IdentityAttributeMissing(LookupError):
    """The host's signed-in user object has no DIRECTORY_IDENTITY_ATTRIBUTE: a configuration
    error, raised instead of treating everyone as anonymous without a word."""


def settings_problems(config: dict[str, Any]) -> list[str]:
    """Identity settings that cannot work, each as the fix to make (empty: none)."""
    problems = []
    source = config["DIRECTORY_IDENTITY_SOURCE"]
    if source not in IDENTITY_SOURCES:
        problems.append(
            _(
                "DIRECTORY_IDENTITY_SOURCE must be one of %(sources)s; got %(source)r.",
                sources=", ".join(IDENTITY_SOURCES),
                source=source,
            )
        )
    if source == "callable" and not callable(config["DIRECTORY_IDENTITY_CALLABLE"]):
        problems.append(
            _(
                'DIRECTORY_IDENTITY_SOURCE = "callable" needs DIRECTORY_IDENTITY_CALLABLE, a '
                "function returning the signed-in user's key or None."
            )
        )
    if config["DIRECTORY_BUILTIN_LOGIN"] and source != "builtin":
        problems.append(
            _(
                "DIRECTORY_BUILTIN_LOGIN is only for the standalone site; with "
                "DIRECTORY_IDENTITY_SOURCE = %(source)r the host signs people in.",
                source=source,
            )
        )
    return problems


_MISSING = object()


def _attribute(user: Any, name: str, default: Any = None) -> Any:
    """``user.name``, or ``user[name]`` for mappings and rows (dict, ``sqlite3.Row``)."""
    if hasattr(user, "keys") and hasattr(user, "__getitem__"):
        try:
            return user[name]
        except (KeyError, IndexError):
            return default
    return getattr(user, name, default)


def _fields(user: Any) -> list[str]:
    """The names a user object offers, for the message that names the missing one."""
    if hasattr(user, "keys") and hasattr(user, "__getitem__"):
        return [str(key) for key in user.keys()]  # noqa: SIM118 - a Row iterates its values
    return sorted(name for name in dir(user) if not name.startswith("_"))


def key_from_user(user: Any, attribute: str) -> str | None:
    """The stable key of the host's user object (None when nobody is signed in).

    Raises :class:`IdentityAttributeMissing` when a signed-in user has no ``attribute``."""
    if user is None or not getattr(user, "is_authenticated", True):
        return None
    unwrap = getattr(user, "_get_current_object", None)  # Flask-Login's current_user proxy
    user = unwrap() if callable(unwrap) else user
    value = _attribute(user, attribute, _MISSING)
    if value is _MISSING:
        close = get_close_matches(attribute, _fields(user), n=1)
        hint = f" Did you mean {close[0]!r}?" if close else ""
        raise IdentityAttributeMissing(
            f"DIRECTORY_IDENTITY_ATTRIBUTE = {attribute!r}, but the host's signed-in user "
            f"({type(user).__name__}) has no {attribute!r}.{hint} Set it to the attribute "
            "holding the user's stable key (username, eppn or email)."
        )
    return _clean(value)


def _key_from_user(user: Any) -> str | None:
    return key_from_user(user, current_app.config["DIRECTORY_IDENTITY_ATTRIBUTE"])


def _clean(value: Any) -> str | None:
    text = str(value).strip() if value is not None else ""
    return text or None


def host_user() -> Any:
    """The host's user object for the ``flask_login`` and ``g`` sources, else None."""
    source = current_app.config["DIRECTORY_IDENTITY_SOURCE"]
    if source == "flask_login":
        from flask_login import current_user

        return current_user
    if source == "g":
        return g.get("user")
    return None


def host_identity_key() -> str | None:
    """The signed-in user's stable key according to the configured source, or None."""
    source = current_app.config["DIRECTORY_IDENTITY_SOURCE"]
    if source in ("flask_login", "g"):
        return _key_from_user(host_user())
    if source == "remote_user":
        # Only the WSGI environ, which the web server's SSO module sets; never a request
        # header, which any client can send (a "Remote-User" header arrives as
        # HTTP_REMOTE_USER and is ignored).
        return _clean(request.environ.get("REMOTE_USER"))
    if source == "callable":
        return _clean(current_app.config["DIRECTORY_IDENTITY_CALLABLE"]())
    if source == "builtin":
        if not current_app.config["DIRECTORY_BUILTIN_LOGIN"]:
            return None
        return signed_in_username(
            session.get(BUILTIN_SESSION_KEY),
            session.get(BUILTIN_GENERATION_KEY),
            session.get(BUILTIN_TOKEN_KEY),
        )
    raise ValueError(f"Unknown DIRECTORY_IDENTITY_SOURCE {source!r}")


def _split_roles(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [part for part in re.split(r"[;,]", value) if part.strip()]
    return [str(getattr(item, "name", item)) for item in value]


def host_has_role(role: str) -> bool:
    """Whether the host says the signed-in user has ``role``.

    For a user object (Flask-Login, ``g.user``): its ``has_role(role)`` method if it has one
    (Flask-Security, Flask-User), else its ``roles`` (strings, or objects with a ``name``), else
    its ``role``. For ``remote_user``: the environ variable DIRECTORY_REMOTE_ROLES_VARIABLE set
    by the SSO module (e.g. Shibboleth's ``isMemberOf``), values separated by ";" or ",".
    """
    config = current_app.config
    if config["DIRECTORY_IDENTITY_SOURCE"] == "remote_user":
        variable = config["DIRECTORY_REMOTE_ROLES_VARIABLE"]
        values = request.environ.get(variable) if variable else None
        return role in (part.strip() for part in _split_roles(values))
    user = host_user()
    if user is None or not getattr(user, "is_authenticated", True):
        return False
    has_role = getattr(user, "has_role", None)
    if callable(has_role):
        return bool(has_role(role))
    roles = _attribute(user, "roles")
    if roles is not None:
        return role in (part.strip() for part in _split_roles(roles))
    return _attribute(user, "role") == role


def is_admin_key(key: str | None) -> bool:
    """Whether DIRECTORY_ADMINS names ``key`` as a department admin (default: nobody)."""
    if not key:
        return False
    admins = current_app.config["DIRECTORY_ADMINS"]
    if admins is None:
        return False
    if callable(admins):
        return bool(admins(key))
    return key in admins


def host_says_admin(key: str | None) -> bool:
    """Whether the host makes the signed-in ``key`` a department admin, by DIRECTORY_ADMINS
    or by DIRECTORY_ADMIN_ROLE."""
    if not key:
        return False
    role = current_app.config["DIRECTORY_ADMIN_ROLE"]
    return is_admin_key(key) or bool(role and host_has_role(role))


def host_says_chair(key: str | None) -> bool:
    """Whether the host makes the signed-in ``key`` the department's chair, by
    DIRECTORY_CHAIRS (keys or a callable, as DIRECTORY_ADMINS) or DIRECTORY_CHAIR_ROLE."""
    if not key:
        return False
    chairs = current_app.config["DIRECTORY_CHAIRS"]
    named = bool(chairs(key)) if callable(chairs) else key in (chairs or ())
    role = current_app.config["DIRECTORY_CHAIR_ROLE"]
    return named or bool(role and host_has_role(role))


def current_viewer() -> Viewer:
    """The viewer of the current request (computed once per request)."""
    viewer = g.get("_directory_viewer")
    if viewer is None:
        key = host_identity_key()
        if key is None:
            viewer = ANONYMOUS
        else:
            row = (
                get_session()
                .execute(select(Person.id, Person.full_name).where(Person.user_key == key))
                .first()
            )
            viewer = Viewer(
                key=key,
                person_id=row.id if row else None,
                is_admin=host_says_admin(key),
                is_chair=host_says_chair(key),
                name=row.full_name if row else None,
            )
        g._directory_viewer = viewer
    return viewer
