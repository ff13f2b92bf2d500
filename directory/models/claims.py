"""The claim queue: works a harvest (or a co-author's import) found that may be a person's,
waiting for their answer, and the answers that stick; the harvest's runs, its lock and the
"check now" requests.

A work is known by its *keys* (``doi:…``, ``arxiv:…``, ``dblp:…``, ``openalex:…`` and
``title:<normalised title>|<year>``, made by ``formats.claim_keys``): a rejection is one
row per key, so the same work found again by any of them, from any source, is not asked
about again."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from sqlalchemy import JSON, DateTime, ForeignKey, Index, Integer, String, UniqueConstraint
from sqlalchemy.orm import Mapped, mapped_column, relationship

from directory.models.base import Base, utcnow
from directory.models.people import Person
from directory.models.publications import Publication

#: The states of a candidate: asked, answered "mine" and held for approval (waiting), accepted
#: or rejected.
CLAIM_PENDING, CLAIM_ACCEPTED, CLAIM_REJECTED = "pending", "accepted", "rejected"
CLAIM_WAITING = "waiting"


class ClaimCandidate(Base):
    """A work that may be ``person``'s, with the evidence that it is and its score."""

    __tablename__ = "directory_claim_candidates"
    __table_args__ = (
        UniqueConstraint("person_id", "work_key"),
        Index("ix_directory_claim_candidates_queue", "person_id", "state"),
    )

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), nullable=False
    )
    #: The work's first key (see the module's docstring): one candidate per work and person.
    work_key: Mapped[str] = mapped_column(String(300), nullable=False)
    #: Every key of the work, for matching it again from another source.
    keys: Mapped[list[str]] = mapped_column(JSON, default=list)
    #: The directory's paper this work is, when it has one already (a co-author's paper).
    publication_id: Mapped[int | None] = mapped_column(
        ForeignKey("directory_publications.id", ondelete="CASCADE"), index=True
    )
    #: The work as harvested (formats.harvest.works.HarvestedWork, as a dict).
    work: Mapped[dict[str, Any]] = mapped_column(JSON, default=dict)
    title: Mapped[str] = mapped_column(String(1000), nullable=False)
    year: Mapped[int | None] = mapped_column(Integer)
    #: Where it was found ("orcid", "dblp", ..., or "coauthor" for a co-author's import).
    source: Mapped[str] = mapped_column(String(32), nullable=False)
    #: What found it: an identifier of the person ("orcid", "dblp", "openalex",
    #: "semantic_scholar") or their "name".
    found_by: Mapped[str] = mapped_column(String(32), nullable=False)
    #: [{"code": ..., "weight": n, "detail": ...}]: each reason for (or against) it.
    evidence: Mapped[list[dict[str, Any]]] = mapped_column(JSON, default=list)
    score: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    state: Mapped[str] = mapped_column(String(16), default=CLAIM_PENDING, nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    decided_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    #: Who answered (the host's identity key), or "policy" for an automatic acceptance.
    decided_by: Mapped[str | None] = mapped_column(String(254))
    #: The proposal (a PendingChange) a "mine" held for approval waits on; approving it
    #: accepts the candidate, rejecting it asks again.
    pending_change_id: Mapped[int | None] = mapped_column(Integer, index=True)
    #: When a digest e-mail last told the person of it (None: not yet).
    notified_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))

    person: Mapped[Person] = relationship()
    publication: Mapped[Publication | None] = relationship()


class ClaimRejection(Base):
    """``person`` said a work is not theirs (or took it off their profile): no harvest,
    import or co-author's edit puts it there or asks again. One row per key of the work."""

    __tablename__ = "directory_claim_rejections"
    __table_args__ = (UniqueConstraint("person_id", "work_key"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), nullable=False
    )
    work_key: Mapped[str] = mapped_column(String(300), nullable=False)
    #: The work's title when it was rejected, to show in the history and the admin's view.
    title: Mapped[str | None] = mapped_column(String(1000))
    #: "rejected" (answered in the queue) or "removed" (taken off the profile).
    reason: Mapped[str] = mapped_column(String(16), default="rejected", nullable=False)
    created_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HarvestRun(Base):
    """One source's run for one person: what it fetched, what was new, what failed."""

    __tablename__ = "directory_harvest_runs"
    __table_args__ = (Index("ix_directory_harvest_runs_person", "person_id", "source"),)

    id: Mapped[int] = mapped_column(primary_key=True)
    person_id: Mapped[int] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), nullable=False
    )
    source: Mapped[str] = mapped_column(String(32), nullable=False)
    started_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    finished_at: Mapped[datetime | None] = mapped_column(DateTime(timezone=True))
    fetched: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    new: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    known: Mapped[int] = mapped_column(Integer, default=0, nullable=False)
    #: Each fault in words.
    errors: Mapped[list[str]] = mapped_column(JSON, default=list)


class HarvestLock(Base):
    """The harvest's lock: one row per lock name, held by one run at a time (an insert that
    a second run's insert of the same name cannot pass, on every engine)."""

    __tablename__ = "directory_harvest_locks"

    name: Mapped[str] = mapped_column(String(40), primary_key=True)
    holder: Mapped[str] = mapped_column(String(200), nullable=False)
    acquired_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)


class HarvestRequest(Base):
    """A person asked "check now": the next run harvests them first."""

    __tablename__ = "directory_harvest_requests"

    person_id: Mapped[int] = mapped_column(
        ForeignKey("directory_people.id", ondelete="CASCADE"), primary_key=True
    )
    requested_at: Mapped[datetime] = mapped_column(DateTime(timezone=True), default=utcnow)
    requested_by: Mapped[str | None] = mapped_column(String(254))


__all__ = [
    "CLAIM_ACCEPTED", "CLAIM_PENDING", "CLAIM_REJECTED", "CLAIM_WAITING", "ClaimCandidate",
    "ClaimRejection", "HarvestLock", "HarvestRequest", "HarvestRun",
]  # fmt: skip
