"""The text being imported, kept server-side between the preview and the confirm step.

The confirm step re-plans from the draft (see :mod:`.planning`), so what is written is what
the person was shown, unless the database changed meanwhile (:attr:`.plan.ImportPlan.fingerprint`).
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import delete
from sqlalchemy.orm import Session

from directory import models as m
from directory.models import ImportDraft


def create_draft(
    session: Session, person: m.Person, created_by: str, kind: str, source: str,
    filename: str | None, max_age_hours: int, base_url: str | None = None,
) -> ImportDraft:  # fmt: skip
    """Store ``source`` for preview; drafts older than ``max_age_hours`` are removed."""
    cutoff = m.utcnow() - timedelta(hours=max_age_hours)
    session.execute(delete(ImportDraft).where(ImportDraft.created_at < cutoff))
    draft = ImportDraft(
        person_id=person.id, created_by=created_by, kind=kind, source=source,
        filename=(filename or None) and filename[-255:], base_url=base_url or None,
    )  # fmt: skip
    session.add(draft)
    session.flush()
    return draft


def draft_expired(draft: ImportDraft, max_age_hours: int) -> bool:
    created = draft.created_at
    if created.tzinfo is None:  # SQLite hands back naive datetimes
        created = created.replace(tzinfo=m.utcnow().tzinfo)
    return created < m.utcnow() - timedelta(hours=max_age_hours)
