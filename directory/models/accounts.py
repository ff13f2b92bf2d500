"""Local accounts of the built-in login (standalone and demo site only)."""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import (
    DateTime,
    Integer,
    String,
)
from sqlalchemy.orm import Mapped, mapped_column
from werkzeug.security import generate_password_hash

from directory.models.base import Base, TimestampMixin

MIN_PASSWORD_LENGTH = 10
#: Werkzeug's hashing method for new passwords (stored hashes name their own method).
PASSWORD_HASH_METHOD = "scrypt"  # noqa: S105 - a method name, not a password


class LocalAccount(TimestampMixin, Base):
    """A username and password for the built-in login."""

    __tablename__ = "directory_local_accounts"

    id: Mapped[int] = mapped_column(primary_key=True)
    username: Mapped[str] = mapped_column(String(254), unique=True, nullable=False)
    password_hash: Mapped[str] = mapped_column(String(255), nullable=False)
    last_login_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: Every session cookie carries the generation it was issued in; signing out (or a new
    #: password) moves it on, which ends every copy of every earlier cookie.
    session_generation: Mapped[int] = mapped_column(
        Integer, default=0, server_default="0", nullable=False
    )

    def __repr__(self) -> str:
        return f"<LocalAccount {self.username!r}>"

    def set_password(self, password: str) -> None:
        problem = password_problem(password)
        if problem:
            raise ValueError(problem)
        self.password_hash = generate_password_hash(password, method=PASSWORD_HASH_METHOD)


class SignInThrottle(Base):
    """Failed sign-ins counted under one key: a (username, source address) pair, a source
    address, or a username. Kept for names that are no account too, so that an unknown name
    is throttled exactly like a real one and the answers never tell them apart."""

    __tablename__ = "directory_sign_in_throttle"

    key: Mapped[str] = mapped_column(String(320), primary_key=True)
    #: Failures since ``window_started_at``; the key is blocked when they reach its limit.
    failures: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    window_started_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    blocked_until: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    def __repr__(self) -> str:
        return f"<SignInThrottle {self.key!r} {self.failures}>"

    def blocked_at(self, now: datetime) -> bool:
        return self.blocked_until is not None and _aware(self.blocked_until) > now


def _aware(moment: datetime) -> datetime:
    """SQLite hands back naive datetimes; everything stored here is UTC."""
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


def password_problem(password: str) -> str | None:
    if len(password) < MIN_PASSWORD_LENGTH:
        return f"A password needs at least {MIN_PASSWORD_LENGTH} characters."
    return None
