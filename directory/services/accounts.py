"""The built-in login of the standalone (and demo) site: local accounts with hashed passwords
and a lockout after repeated failures.

A host site never uses this: it signs people in itself and tells the directory who they are
(see :mod:`directory.services.identity`). Accounts are only consulted when
DIRECTORY_BUILTIN_LOGIN is on.
Usernames are stored lower-case; an account's username is the identity key that
``Person.user_key`` and DIRECTORY_ADMINS refer to.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache

from flask import current_app
from sqlalchemy import select
from sqlalchemy.orm import Session
from werkzeug.security import check_password_hash, generate_password_hash

from directory.db import get_session
from directory.models import Person
from directory.models import accounts as account_model
from directory.models.accounts import (
    LocalAccount,
    _aware,
)


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
    #: Set when the account is locked: until when.
    locked_until: datetime | None = None

    @property
    def ok(self) -> bool:
        return self.account is not None


def authenticate(
    session: Session,
    username: str,
    password: str,
    now: datetime,
    max_attempts: int,
    lockout: timedelta,
) -> SignInOutcome:
    """Check a username and password, counting failures: ``max_attempts`` failures within
    ``lockout`` lock the account for ``lockout``. A locked account refuses even the right
    password. Only flushes; the caller commits (the failure count must be kept)."""
    account = session.scalar(
        select(LocalAccount).where(LocalAccount.username == normalise_username(username))
    )
    if account is None:
        # Same work as for a real account, so response times don't reveal which names exist.
        check_password_hash(_dummy_hash(account_model.PASSWORD_HASH_METHOD), password)
        return SignInOutcome()
    if account.locked_at(now):
        return SignInOutcome(locked_until=_aware(account.locked_until))
    if check_password_hash(account.password_hash, password):
        account.failed_attempts = 0
        account.first_failed_at = None
        account.locked_until = None
        account.last_login_at = now
        session.flush()
        return SignInOutcome(account=account)
    if account.first_failed_at is None or now - _aware(account.first_failed_at) > lockout:
        account.first_failed_at = now
        account.failed_attempts = 0
    account.failed_attempts += 1
    locked_until = None
    if account.failed_attempts >= max_attempts:
        locked_until = account.locked_until = now + lockout
        account.failed_attempts = 0
        account.first_failed_at = None
    session.flush()
    return SignInOutcome(locked_until=locked_until)


def sign_in(username: str, password: str) -> SignInOutcome:
    """:func:`authenticate` with the app's limits, on the request's session."""
    config = current_app.config
    return authenticate(
        get_session(),
        username,
        password,
        now=datetime.now(UTC),
        max_attempts=config["DIRECTORY_LOGIN_MAX_ATTEMPTS"],
        lockout=timedelta(minutes=config["DIRECTORY_LOGIN_LOCKOUT_MINUTES"]),
    )


def signed_in_username(username: str | None) -> str | None:
    """The username a built-in session names, if that account still exists."""
    if not username:
        return None
    return get_session().scalar(
        select(LocalAccount.username).where(LocalAccount.username == username)
    )


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
    account.failed_attempts = 0
    account.first_failed_at = None
    account.locked_until = None
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
