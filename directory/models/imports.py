"""Publication imports waiting between preview and confirm."""

from __future__ import annotations

from datetime import datetime

from sqlalchemy import (
    DateTime,
    ForeignKey,
    String,
    Text,
)
from sqlalchemy.orm import Mapped, mapped_column

from directory.models.base import Base, new_uid, utcnow


class ImportDraft(Base):
    """An uploaded or pasted file waiting for its preview to be confirmed."""

    __tablename__ = "directory_import_drafts"

    id: Mapped[int] = mapped_column(primary_key=True)
    token: Mapped[str] = mapped_column(String(32), unique=True, default=new_uid, nullable=False)
    person_id: Mapped[int] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), index=True, nullable=False
    )
    #: The host identity key of who uploaded it: only they may confirm it.
    created_by: Mapped[str] = mapped_column(String(254), nullable=False)
    #: "bibtex" or "orcid".
    kind: Mapped[str] = mapped_column(String(16), nullable=False)
    filename: Mapped[str | None] = mapped_column(String(255))
    source: Mapped[str] = mapped_column(Text, nullable=False)
    #: The site relative links of the file are resolved against (al-folio's ``pdf = {p.pdf}``).
    base_url: Mapped[str | None] = mapped_column(String(1000))
    created_at: Mapped[datetime] = mapped_column(
        DateTime(timezone=True), default=utcnow, index=True, nullable=False
    )
