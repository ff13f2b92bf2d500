"""A student's "Mine" held for approval: the candidate waits (shown as waiting, not offered
again, nothing to answer twice), is accepted when the proposal is approved, and is asked
again when the approver rejects the proposal."""

from __future__ import annotations

from sqlalchemy import select

from directory import models as m
from directory.formats.harvest.works import HarvestedAuthor, HarvestedWork
from directory.services.claims.evidence import member_index, person_facts
from directory.services.claims.queue import Offered, Offering
from tests.conftest import login
from tests.support.editing import post
from tests.support.pages import get
from tests.web.test_approvals_page import advised  # noqa: F401 - the fixture

PREFIX = "/directory"
TITLE = "Engines of Difference"


def _offer(db, person, source: str = "dblp", doi: str = "10.1234/engines") -> Offered:
    """A harvest from ``source`` finds the paper for ``person``."""
    person = db.get(m.Person, person.id)
    offering = Offering(db, person, person_facts(db, person, None), member_index(db))
    work = HarvestedWork(source=source, source_key="k1", title=TITLE, year=2026, doi=doi,
                         authors=(HarvestedAuthor("Bob Builder"),), found_by=source)  # fmt: skip
    offered = offering.offer([work])
    db.commit()
    return offered


def _state(db, candidate_id: int) -> m.ClaimCandidate:
    db.expire_all()
    return db.get(m.ClaimCandidate, candidate_id)


def _listed(db, person) -> bool:
    db.expire_all()
    return TITLE in set(db.scalars(
        select(m.Publication.title).join(m.ProfilePublication)
        .where(m.ProfilePublication.person_id == person.id)
    ))  # fmt: skip


def _held_mine(client, db, bob) -> tuple[int, m.PendingChange]:
    candidate_id = _offer(db, bob).candidates[0].id
    login(client, "bob")
    url = f"{PREFIX}/people/bob-builder/edit/found/{candidate_id}/accept"
    assert post(client, url).status_code == 302
    pending = db.scalars(select(m.PendingChange).where(m.PendingChange.status == "pending")).one()
    return candidate_id, pending


def test_a_held_mine_waits_and_is_not_offered_again(client, db, advised) -> None:  # noqa: F811
    _ada, bob = advised
    candidate_id, pending = _held_mine(client, db, bob)
    candidate = _state(db, candidate_id)
    assert (candidate.state, candidate.pending_change_id) == (m.CLAIM_WAITING, pending.id)
    assert not _listed(db, bob)
    editor = get(client, f"{PREFIX}/me")
    found = editor.split('id="found"')[1].split("</section>")[0]
    assert TITLE in found and "Waiting for approval" in found
    assert f"/found/{candidate_id}/accept" not in found  # no second "Mine" to press
    url = f"{PREFIX}/people/bob-builder/edit/found/{candidate_id}/accept"
    assert post(client, url).status_code == 404
    assert db.scalars(select(m.PendingChange)).all() == [pending]
    # Found again by a later harvest: known, not a new question.
    again = _offer(db, bob, "openalex", "10.1234/ENGINES")
    assert (again.fetched, again.new, again.known) == (1, 0, 1)


def test_approving_the_proposal_accepts_the_candidate(client, db, advised) -> None:  # noqa: F811
    _ada, bob = advised
    candidate_id, pending = _held_mine(client, db, bob)
    login(client, "ada")
    response = post(client, f"{PREFIX}/approvals/{pending.id}/approve", {"reason": ""})
    assert response.status_code == 302
    candidate = _state(db, candidate_id)
    assert candidate.state == m.CLAIM_ACCEPTED and candidate.pending_change_id is None
    assert candidate.decided_by == "ada"
    assert _listed(db, bob)
    assert candidate.publication is not None and candidate.publication.title == TITLE


def test_a_rejected_proposal_asks_again(client, db, advised) -> None:  # noqa: F811
    _ada, bob = advised
    candidate_id, pending = _held_mine(client, db, bob)
    login(client, "ada")
    response = post(client, f"{PREFIX}/approvals/{pending.id}/reject",
                    {"reason": "Not yours: another Bob."})  # fmt: skip
    assert response.status_code == 302
    candidate = _state(db, candidate_id)
    assert (candidate.state, candidate.pending_change_id) == (m.CLAIM_PENDING, None)
    assert candidate.decided_at is None and not _listed(db, bob)
    login(client, "bob")
    found = get(client, f"{PREFIX}/me").split('id="found"')[1].split("</section>")[0]
    assert f"/found/{candidate_id}/accept" in found and "Waiting for approval" not in found
