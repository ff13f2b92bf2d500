"""The reads of the profile editor and its pages (history, delegates, answers to
suggestions): what a page of ``<prefix>/people/<slug>/edit`` shows, by a name each. The read
rules themselves are :mod:`directory.services.access`'s."""

from __future__ import annotations

from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session, selectinload

from directory import models as m
from directory.models import ChangeRecord, Delegation, PendingChange
from directory.services import access
from directory.services.identity import Viewer


def publication_by_id(session: Session, pub_id: int) -> m.Publication | None:
    return session.get(m.Publication, pub_id)


def profile_publication(
    session: Session, person: m.Person, pub_id: int
) -> m.ProfilePublication | None:
    """How ``person``'s profile lists the paper ``pub_id`` (None when it does not)."""
    return session.get(m.ProfilePublication, (person.id, pub_id))


def advising_relation(session: Session, relation_id: int) -> m.AdvisingRelation | None:
    return session.get(m.AdvisingRelation, relation_id)


def authorship(session: Session, authorship_id: int) -> m.Authorship | None:
    return session.get(m.Authorship, authorship_id)


def change_record(session: Session, record_id: int) -> ChangeRecord | None:
    return session.get(ChangeRecord, record_id)


def delegation(session: Session, delegation_id: int) -> Delegation | None:
    return session.get(Delegation, delegation_id)


def projects_of(session: Session, owner: m.Person) -> list[m.ResearchProject]:
    """``owner``'s research projects in their order (the "Part of" picker)."""
    return list(
        session.scalars(
            select(m.ResearchProject)
            .where(m.ResearchProject.owner_id == owner.id)
            .order_by(m.ResearchProject.position)
        )
    )


def people_to_pick(session: Session, viewer: Viewer, owner: m.Person) -> list[m.Person]:
    """Everyone but ``owner`` that ``viewer`` may see anywhere else, by name: a picker must
    not reveal a private profile's name."""
    return list(
        session.scalars(
            select(m.Person)
            .where(m.Person.id != owner.id, access.person_clause(viewer, m.Person))
            .order_by(m.Person.sort_name)
        )
    )


def relations_to_confirm(session: Session, viewer: Viewer, person: m.Person) -> list[Any]:
    """Advising relations someone else entered with ``person`` on the unconfirmed side, that
    the viewer may confirm."""
    relations = session.scalars(
        select(m.AdvisingRelation).where(
            m.AdvisingRelation.owner_id != person.id,
            (
                (m.AdvisingRelation.student_id == person.id)
                & m.AdvisingRelation.student_confirmed.is_(False)
            )
            | (
                (m.AdvisingRelation.advisor_id == person.id)
                & m.AdvisingRelation.advisor_confirmed.is_(False)
            ),
        )
    )
    return [rel for rel in relations if access.can_confirm_advising(viewer, rel)]


def suggested_authorships(session: Session, viewer: Viewer, person: m.Person) -> list[Any]:
    """Printed author names an import suggested may be ``person``, newest papers first."""
    return list(
        session.scalars(
            select(m.Authorship)
            .join(m.Publication)
            .where(access.suggested_authorship_clause(viewer, person))
            .options(selectinload(m.Authorship.publication))
            .order_by(m.Publication.year.desc().nulls_last(), m.Publication.id)
        )
    )


def recent_proposals(session: Session, person: m.Person, limit: int = 20) -> list[PendingChange]:
    """The latest proposals for ``person``'s profile, newest first."""
    return _latest(session, PendingChange, person, limit)


def history_records(session: Session, person: m.Person, limit: int = 200) -> list[ChangeRecord]:
    """The latest changes recorded in ``person``'s history, newest first."""
    return _latest(session, ChangeRecord, person, limit)


def _latest(session: Session, model: Any, person: m.Person, limit: int) -> list[Any]:
    return list(
        session.scalars(
            select(model).where(model.person_id == person.id).order_by(model.id.desc()).limit(limit)
        )
    )


def actor_names(session: Session, records: list[Any]) -> dict[int, str]:
    """Who made each of ``records`` (by record id): a member's name, else the key recorded."""
    ids = {r.actor_person_id for r in records if r.actor_person_id}
    names = (
        dict(
            session.execute(
                select(m.Person.id, m.Person.full_name).where(m.Person.id.in_(ids))
            ).all()
        )
        if ids
        else {}
    )
    return {
        r.id: names.get(r.actor_person_id) or r.actor_key or "a command-line tool" for r in records
    }


def delegations_of(session: Session, person: m.Person) -> list[Delegation]:
    return list(
        session.scalars(
            select(Delegation)
            .where(Delegation.person_id == person.id)
            .options(selectinload(Delegation.delegate))
        )
    )


def delegate_candidates(session: Session, viewer: Viewer, taken: set[int]) -> list[m.Person]:
    """Active people the viewer may see, but those ``taken`` (the profile's own person and
    its delegates)."""
    people = session.scalars(
        select(m.Person)
        .where(m.Person.active.is_(True), access.person_clause(viewer, m.Person))
        .order_by(m.Person.sort_name)
    )
    return [p for p in people if p.id not in taken]


#: At most this many candidates on the queue's page at once (the rest wait their turn).
QUEUE_PAGE = 50


def claim_queue(session: Session, viewer: Viewer, person: m.Person) -> list[m.ClaimCandidate]:
    """The candidates of ``person``'s claim queue, likeliest first: those asked, and those
    answered "mine" that wait for approval (none when ``viewer`` may not answer them)."""
    if not access.can_answer_claims(viewer, person):
        return []
    return list(
        session.scalars(
            select(m.ClaimCandidate)
            .where(
                m.ClaimCandidate.person_id == person.id,
                m.ClaimCandidate.state.in_((m.CLAIM_PENDING, m.CLAIM_WAITING)),
            )
            .order_by(m.ClaimCandidate.score.desc(), m.ClaimCandidate.id)
            .limit(QUEUE_PAGE)
        )
    )


def claim_candidate(
    session: Session, person: m.Person, candidate_id: int
) -> m.ClaimCandidate | None:
    """The pending candidate ``candidate_id`` of ``person``'s queue, if there is one."""
    candidate = session.get(m.ClaimCandidate, candidate_id)
    if candidate is None or candidate.person_id != person.id:
        return None
    return candidate if candidate.state == m.CLAIM_PENDING else None


def harvest_requested(session: Session, person: m.Person) -> bool:
    """Whether a "check now" of ``person`` waits for the next run."""
    return session.get(m.HarvestRequest, person.id) is not None
