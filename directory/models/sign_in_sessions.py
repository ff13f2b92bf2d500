"""The sessions of the built-in login, one row per sign-in (standalone and demo site only).

A session cookie carries a random token whose hash is a row here: signing out deletes that
row, so that session (every copy of its cookie) ends and the account's other sessions go
on. "Sign out of all sessions" and a new password delete every row of the account (and move
its ``session_generation`` on)."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import DateTime, ForeignKey, String
from sqlalchemy.orm import Mapped, mapped_column

from directory.models.base import Base, utcnow


class SignInSession(Base):
    """One signed-in session of a built-in account."""

    __tablename__ = "directory_sign_in_sessions"

    id: Mapped[int] = mapped_column(primary_key=True)
    #: SHA-256 of the token in the session cookie (the token itself is never stored).
    token_hash: Mapped[str] = mapped_column(String(64), unique=True, nullable=False)
    account_id: Mapped[int] = mapped_column(
        # Named here: the convention's name would pass PostgreSQL's 63 characters.
        ForeignKey(
            "directory_local_accounts.id",
            ondelete="CASCADE",
            name="fk_directory_sign_in_sessions_account_id",
        ),
        nullable=False,
        index=True,
    )
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)

    def __repr__(self) -> str:
        return f"<SignInSession {self.id} of account {self.account_id}>"
