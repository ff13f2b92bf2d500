"""Answers to the claim queue: accept a candidate (the paper goes on the profile, through a
change set: recorded, held for approval where the policy says so), reject it (it sticks),
accept every candidate one identifier found, and ask for a harvest at the next run."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select

from directory import models as m
from directory.services.changes import PENDING, UNCHANGED
from directory.services.claims.queue import (
    REJECTED,
    remember_rejection,
    unlink_member,
    work_from_dict,
)
from directory.services.kinds import PUBLICATION
from directory.services.publications import AuthorIndex
from directory.services.snapshots import apply_snapshot
from directory.services.unit_of_work import UnitOfWork

#: Who decided a candidate the department's policy accepted.
POLICY = "policy"


def _position(uow: UnitOfWork, person: m.Person, names: list[str], orcids: list[Any]) -> int | None:
    """Which printed author is ``person``: by ORCID iD, else by name."""
    if person.orcid:
        for i, orcid in enumerate(orcids):
            if orcid and str(orcid).upper().endswith(person.orcid):
                return i
    index = AuthorIndex([(person.id, person.full_name, person.name_variants, person.native_name)])
    return next((i for i, name in enumerate(names) if index.matches_person(name, person.id)), None)


def _new_paper_state(work: Any, position: int | None, person_id: int) -> dict[str, Any]:
    authors = [
        {"name": a.name, "person_id": person_id if i == position else None, "role": "author"}
        for i, a in enumerate(work.authors)
    ]
    return {
        "title": work.title, "year": work.year, "month": work.month, "venue": work.venue,
        "type": work.type, "status": "published" if work.type != "preprint" else "preprint",
        "doi": work.doi, "arxiv_id": work.arxiv_id, "abstract": work.abstract,
        "authors": authors, "links": [{"kind": "paper", "url": work.url}] if work.url else [],
        "listing": {},
    }  # fmt: skip


def accept(uow: UnitOfWork, person: m.Person, candidate: m.ClaimCandidate, *,
           decided_by: str | None = None) -> str:  # fmt: skip
    """The candidate is the person's: the paper goes on their profile (a new record of it
    when the directory has none). Returns the change set's outcome."""
    changes = uow.change_set(person)
    pub = candidate.publication
    if pub is None:
        work = work_from_dict(candidate.work)
        pub = m.Publication(created_by_id=person.id)
        changes.create(PUBLICATION, pub)
        position = _position(uow, person, [a.name for a in work.authors],
                             [a.orcid for a in work.authors])  # fmt: skip
        apply_snapshot(uow.session, PUBLICATION, pub, _new_paper_state(work, position, person.id),
                       person.id)  # fmt: skip
    else:
        changes.update(PUBLICATION, pub)
        names = [a.name for a in pub.authorships]
        position = _position(uow, person, names, [None] * len(names))
        for authorship in pub.authorships:
            if authorship.position == position and authorship.person_id is None:
                authorship.person_id = person.id
                authorship.suggested_person_id = None
        apply_snapshot(uow.session, PUBLICATION, pub, {"listing": {}}, person.id)
    outcome = changes.finish()
    if outcome == PENDING:
        # Held for approval: the proposal carries the paper; the candidate waits on it (not
        # asked again) until an approver answers (services.claims.queue.proposal_decided).
        proposal = next((p for p in changes.pending if p.entity_kind == PUBLICATION),
                        changes.pending[0])  # fmt: skip
        candidate.state = m.CLAIM_WAITING
        candidate.pending_change_id = proposal.id
        uow.session.flush()
        return outcome
    _decide(uow, candidate, m.CLAIM_ACCEPTED, decided_by)
    candidate.publication_id = pub.id
    uow.session.flush()
    return outcome


def reject(uow: UnitOfWork, person: m.Person, candidate: m.ClaimCandidate) -> str:
    """The candidate is not the person's: never offered again, and a printed name of the
    directory's paper no longer points at them. A statement about oneself: not held."""
    remember_rejection(uow.session, person.id, candidate.keys or [candidate.work_key],
                       candidate.title, REJECTED)  # fmt: skip
    outcome = UNCHANGED
    if candidate.publication is not None:
        changes = uow.change_set(person, approval_exempt=True)
        changes.update(PUBLICATION, candidate.publication)
        unlink_member(candidate.publication, person.id)
        outcome = changes.finish()
    _decide(uow, candidate, m.CLAIM_REJECTED, None)
    uow.session.flush()
    return outcome


def accept_all_found_by(uow: UnitOfWork, person: m.Person, found_by: str) -> int:
    """Accept every pending candidate that ``found_by`` (one of the person's identifiers)
    found ("every paper DBLP lists under my pid is mine"). Returns how many."""
    pending = list(uow.session.scalars(
        select(m.ClaimCandidate).where(
            m.ClaimCandidate.person_id == person.id, m.ClaimCandidate.state == m.CLAIM_PENDING,
            m.ClaimCandidate.found_by == found_by,
        ).order_by(m.ClaimCandidate.id)
    ))  # fmt: skip
    for candidate in pending:
        accept(uow, person, candidate)
    return len(pending)


def request_harvest(uow: UnitOfWork, person: m.Person) -> bool:
    """ "Check now": the next harvest run takes this person first. Returns False when a
    request is already waiting."""
    session = uow.session
    if session.get(m.HarvestRequest, person.id) is not None:
        return False
    session.add(m.HarvestRequest(person_id=person.id, requested_by=uow.viewer.key))
    session.flush()
    return True


def _decide(uow: UnitOfWork, candidate: m.ClaimCandidate, state: str, by: str | None) -> None:
    candidate.state = state
    candidate.decided_at = m.utcnow()
    candidate.decided_by = by or uow.viewer.key
