"""The search index: one document per searchable thing."""

from __future__ import annotations

from datetime import date

from sqlalchemy import (
    Boolean,
    Date,
    Integer,
    String,
    Text,
    UniqueConstraint,
)
from sqlalchemy.orm import Mapped, mapped_column

from directory.models.base import Base


class SearchDocument(Base):
    """One searchable thing, as it is shown in results and with the tokens it is found by."""

    __tablename__ = "directory_search_documents"
    __table_args__ = (UniqueConstraint("kind", "object_id"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    object_id: Mapped[int] = mapped_column(Integer, nullable=False)
    #: The person who may always see it (the profile's person, the notice's or paper's owner).
    owner_id: Mapped[int | None] = mapped_column(Integer, index=True)
    #: The strictest of the thing's own visibility and its owner's profile visibility.
    visibility: Mapped[str] = mapped_column(String(16), nullable=False)
    #: False for inactive people and their notices: never listed.
    listed: Mapped[bool] = mapped_column(Boolean, nullable=False)
    #: Recruiting notices stop being found on this day.
    expires_on: Mapped[date | None] = mapped_column(Date)
    #: Where it lives: the person's slug (people, notices) or the publication's uid.
    ref: Mapped[str] = mapped_column(String(120), nullable=False)
    title: Mapped[str] = mapped_column(String(1000), nullable=False)
    summary: Mapped[str] = mapped_column(Text, nullable=False, default="")
    #: Plain text the snippet is cut from.
    body: Mapped[str] = mapped_column(Text, nullable=False, default="")
    title_tokens: Mapped[str] = mapped_column(Text, nullable=False, default="")
    body_tokens: Mapped[str] = mapped_column(Text, nullable=False, default="")
