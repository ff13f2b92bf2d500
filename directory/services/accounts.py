"""The built-in login of the standalone (and demo) site: local accounts with hashed passwords,
sessions that end on the server when their owner signs out (that one session; "sign out of all
sessions" and a new password end every one), and a throttle on failed sign-ins.

The throttle counts failures under three keys (:class:`SignInThrottle`), whether or not the
name is an account, so that a real and an unknown name always get the same answers:

* a (username, source address) pair: DIRECTORY_LOGIN_MAX_ATTEMPTS failures within
  DIRECTORY_LOGIN_LOCKOUT_MINUTES block that pair for as long;
* a source address: SOURCE_FACTOR times as many, whatever the names tried;
* a username: ACCOUNT_FACTOR times as many, from all sources together (a guessing botnet).

A blocked key refuses even the right password. Since one address reaches its own limit long
before a name's, nobody can lock ``admin`` out from one address: only that address is blocked.
The source is ``request.remote_addr`` (behind a proxy, the host applies ProxyFix).

A host site never uses this: it signs people in itself and tells the directory who they are
(see :mod:`directory.services.identity`). Accounts are only consulted when
DIRECTORY_BUILTIN_LOGIN is on.
Usernames are stored lower-case; an account's username is the identity key that
``Person.user_key`` and DIRECTORY_ADMINS refer to.
"""

from __future__ import annotations

import hashlib
import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache

from flask import current_app
from sqlalchemy import delete, select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from directory.db import get_session
from directory.models import Person
from directory.models import accounts as account_model
from directory.models.accounts import (
    LocalAccount,
    SignInThrottle,
    _aware,
)
from directory.models.sign_in_sessions import SignInSession

#: A source address may fail this many times DIRECTORY_LOGIN_MAX_ATTEMPTS, over all names.
SOURCE_FACTOR = 4
#: A username may fail this many times DIRECTORY_LOGIN_MAX_ATTEMPTS, over all sources.
ACCOUNT_FACTOR = 10


def normalise_username(username: str | None) -> str:
    return (username or "").strip().lower()


def username_problem(username: str) -> str | None:
    if not username:
        return "A username is required."
    if len(username) > 254 or any(ch.isspace() for ch in username):
        return "A username has no spaces and at most 254 characters."
    return None


@cache
def _dummy_hash(method: str) -> str:
    return generate_password_hash(secrets.token_hex(16), method=method)


@dataclass(frozen=True)
class SignInOutcome:
    """What a sign-in attempt came to: an account, or why not."""

    account: LocalAccount | None = None
    #: Set when too many failures block this attempt: until when.
    locked_until: datetime | None = None

    @property
    def ok(self) -> bool:
        return self.account is not None


def throttle_limits(username: str, source: str, max_attempts: int) -> dict[str, int]:
    """The throttle's keys for an attempt and how many failures each may have."""
    return {
        f"pair:{username}\n{source}": max_attempts,
        f"source:{source}": max_attempts * SOURCE_FACTOR,
        f"name:{username}": max_attempts * ACCOUNT_FACTOR,
    }


def authenticate(
    session: Session,
    username: str,
    password: str,
    now: datetime,
    max_attempts: int,
    lockout: timedelta,
    source: str = "",
) -> SignInOutcome:
    """Check a username and password from ``source``, counting failures (see the module's
    docstring). Only flushes; the caller commits (the failure counts must be kept)."""
    username = normalise_username(username)
    limits = throttle_limits(username, source, max_attempts)
    rows = {
        row.key: row
        for row in session.scalars(select(SignInThrottle).where(SignInThrottle.key.in_(limits)))
    }
    blocked = [_aware(r.blocked_until) for r in rows.values() if r.blocked_at(now)]
    if blocked:
        return SignInOutcome(locked_until=max(blocked))
    account = session.scalar(select(LocalAccount).where(LocalAccount.username == username))
    if account is None:
        # Same work as for a real account, so response times don't reveal which names exist.
        check_password_hash(_dummy_hash(account_model.PASSWORD_HASH_METHOD), password)
    elif check_password_hash(account.password_hash, password):
        pair = next(iter(limits))
        if pair in rows:
            session.delete(rows[pair])
        account.last_login_at = now
        session.flush()
        return SignInOutcome(account=account)
    locked_until = None
    for key, limit in limits.items():
        row = rows.get(key)
        if row is None:
            row = SignInThrottle(key=key, failures=0)
            session.add(row)
        if row.window_started_at is None or now - _aware(row.window_started_at) > lockout:
            row.window_started_at, row.failures = now, 0
        row.failures += 1
        if row.failures >= limit:
            locked_until = row.blocked_until = now + lockout
            row.window_started_at, row.failures = None, 0
    session.flush()
    return SignInOutcome(locked_until=locked_until)


def sign_in(username: str, password: str, source: str) -> SignInOutcome:
    """:func:`authenticate` with the app's limits, on the request's session."""
    config = current_app.config
    return authenticate(
        get_session(),
        username,
        password,
        now=datetime.now(UTC),
        max_attempts=config["DIRECTORY_LOGIN_MAX_ATTEMPTS"],
        lockout=timedelta(minutes=config["DIRECTORY_LOGIN_LOCKOUT_MINUTES"]),
        source=source,
    )


def _token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def start_session(account: LocalAccount) -> str:
    """A new session of ``account``: the token its cookie carries (only its hash is stored).
    Only flushes."""
    token = secrets.token_urlsafe(32)
    session = get_session()
    session.add(SignInSession(token_hash=_token_hash(token), account_id=account.id))
    session.flush()
    return token


def signed_in_username(username: str | None, generation: object, token: object) -> str | None:
    """The username a built-in session names, if that account still exists, the session was
    issued in the account's current generation (no password change or "sign out of all
    sessions" since) and it is still open (not signed out)."""
    if not username or not isinstance(generation, int) or not isinstance(token, str):
        return None
    return get_session().scalar(
        select(LocalAccount.username)
        .join(SignInSession, SignInSession.account_id == LocalAccount.id)
        .where(
            LocalAccount.username == username,
            LocalAccount.session_generation == generation,
            SignInSession.token_hash == _token_hash(token),
        )
    )


def end_session(token: object) -> None:
    """End the session whose cookie carries ``token``: every copy of that cookie stops
    signing anyone in; the account's other sessions go on. Only flushes."""
    if isinstance(token, str):
        session = get_session()
        session.execute(delete(SignInSession).where(SignInSession.token_hash == _token_hash(token)))
        session.flush()


def end_sessions(username: str | None) -> None:
    """End every session of ``username`` on the server ("sign out of all sessions"): each
    copy of each cookie issued so far stops signing anyone in. Only flushes."""
    session = get_session()
    account = session.scalar(select(LocalAccount).where(LocalAccount.username == username))
    if account is not None:
        _end_all(session, account)


def _end_all(session: Session, account: LocalAccount) -> None:
    account.session_generation = (account.session_generation or 0) + 1
    if account.id is not None:
        session.execute(delete(SignInSession).where(SignInSession.account_id == account.id))
    session.flush()


def save_account(
    session: Session, username: str, password: str, person: Person | None = None
) -> tuple[LocalAccount, bool]:
    """Create the account, or give an existing one a new password and unlock it; bind
    ``person`` to it. Returns the account and whether it is new. Only flushes."""
    username = normalise_username(username)
    problem = username_problem(username)
    if problem:
        raise ValueError(problem)
    account = session.scalar(select(LocalAccount).where(LocalAccount.username == username))
    created = account is None
    if account is None:
        account = LocalAccount(username=username)
        session.add(account)
    account.set_password(password)
    # A new password ends every session of the old one and lifts the name's throttle.
    if created:
        account.session_generation = 0
    else:
        _end_all(session, account)
    session.execute(
        delete(SignInThrottle).where(
            SignInThrottle.key.like(f"pair:{username}\n%")
            | (SignInThrottle.key == f"name:{username}")
        )
    )
    if person is not None:
        if person.user_key not in (None, username):
            raise ValueError(
                f"{person.full_name} is already bound to the identity key {person.user_key!r}."
            )
        holder = session.scalar(select(Person).where(Person.user_key == username))
        if holder is not None and holder is not person:
            raise ValueError(f"The key {username!r} is already bound to {holder.full_name}.")
        person.user_key = username
    session.flush()
    return account, created


def new_password() -> str:
    """A random password for demo accounts: 16 URL-safe characters."""
    return secrets.token_urlsafe(12)


def bound_person_id(session: Session, user_key: str) -> int | None:
    """The person whose profile the sign-in identity ``user_key`` is bound to, if any."""
    return session.scalar(select(Person.id).where(Person.user_key == user_key))


def person_bound_to(session: Session, user_key: str) -> Person | None:
    """The person the sign-in identity ``user_key`` is bound to, if any."""
    return session.scalar(select(Person).where(Person.user_key == user_key))


def account_exists(session: Session, username: str) -> bool:
    """Whether there is a built-in login account ``username`` (however it was typed)."""
    found = session.scalar(
        select(LocalAccount.id).where(LocalAccount.username == normalise_username(username))
    )
    return found is not None
