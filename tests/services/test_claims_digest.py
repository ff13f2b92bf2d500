"""Who the weekly digest of found papers goes to (services/claims/digest.due_digests): people
with an address, active, with a candidate not told of yet and no digest within the week; the
people are read in one statement whatever their number."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from directory import models as m
from directory.services.claims.digest import DIGEST_EVERY, due_digests
from tests.support.statements import count_statements


def _candidate(person: m.Person, n: int, notified_at: datetime | None = None) -> m.ClaimCandidate:
    return m.ClaimCandidate(
        person_id=person.id, work_key=f"doi:10.1234/w{n}", keys=[f"doi:10.1234/w{n}"],
        title=f"Work {n}", year=2024, source="orcid", found_by="orcid", work={},
        evidence=[], score=n, notified_at=notified_at,
    )  # fmt: skip


def test_the_digest_goes_to_people_due_and_reads_them_in_one_statement(
    app, db, make_person
) -> None:
    engine = app.extensions["directory"].db.engine
    now = datetime.now(UTC)
    due = [make_person(f"Due Person {n}", email=f"due{n}@example.edu") for n in range(6)]
    no_address = make_person("No Address", email=None)
    inactive = make_person("Gone Away", email="gone@example.edu", active=False)
    told = make_person("Told Lately", email="told@example.edu")
    db.flush()
    works = [_candidate(p, 10 * i + k) for i, p in enumerate(due) for k in range(2)]
    works += [_candidate(no_address, 100), _candidate(inactive, 101), _candidate(told, 102)]
    works.append(_candidate(told, 103, notified_at=now - DIGEST_EVERY + timedelta(hours=1)))
    db.add_all(works)
    db.commit()
    db.expunge_all()  # as in the weekly job: nobody loaded yet

    with count_statements(engine) as log:
        result = due_digests(db, now)

    assert [person.full_name for person, _ in result] == [p.full_name for p in due]
    assert all(len(candidates) == 2 for _, candidates in result)
    assert len(log.statements) == 3, log.statements
    # A week after the last digest, the one told lately is due again.
    later = [p.full_name for p, _ in due_digests(db, now + timedelta(days=1))]
    assert "Told Lately" in later
