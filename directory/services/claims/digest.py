"""The claim queue's digest e-mail: "3 new papers found for you", to people who have
candidates they were not told of yet, at most once a week, through the department's mail
settings (:mod:`directory.services.mail`), with a signed link to their queue."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from directory import models as m
from directory.services import mail
from directory.services.unit_of_work import UnitOfWork

#: At most one digest a person in this long.
DIGEST_EVERY = timedelta(days=7)
#: How long a digest's link works.
LINK_DAYS = 30
_SALT = "directory-claim-digest"


def _aware(moment: datetime | None) -> datetime | None:
    if moment is not None and moment.tzinfo is None:
        return moment.replace(tzinfo=m.utcnow().tzinfo)
    return moment


def due_digests(session: Session, now: datetime) -> list[tuple[m.Person, list[m.ClaimCandidate]]]:
    """The people to tell, with their candidates not told of yet: those with an address
    whose last digest is a week old or more."""
    last = dict(session.execute(
        select(m.ClaimCandidate.person_id, func.max(m.ClaimCandidate.notified_at))
        .group_by(m.ClaimCandidate.person_id)
    ).all())  # fmt: skip
    fresh: dict[int, list[m.ClaimCandidate]] = defaultdict(list)
    for candidate in session.scalars(
        select(m.ClaimCandidate)
        .where(m.ClaimCandidate.state == m.CLAIM_PENDING, m.ClaimCandidate.notified_at.is_(None))
        .order_by(m.ClaimCandidate.score.desc(), m.ClaimCandidate.id)
    ):
        fresh[candidate.person_id].append(candidate)
    waiting = [
        person_id
        for person_id in sorted(fresh)
        if (told := _aware(last.get(person_id))) is None or now - told >= DIGEST_EVERY
    ]
    # The people in one statement, not one look-up each (a weekly job over a whole department).
    people = {
        person.id: person
        for person in session.scalars(select(m.Person).where(m.Person.id.in_(waiting)))
        if person.email and person.active
    }
    return [(people[person_id], fresh[person_id]) for person_id in waiting if person_id in people]


def link_token(secret_key: str | bytes, person: m.Person) -> str:
    return URLSafeTimedSerializer(secret_key, salt=_SALT).dumps(person.slug)


def slug_for(secret_key: str | bytes, token: str) -> str | None:
    """The slug a digest's link was made for; None when the link is altered or expired."""
    try:
        return URLSafeTimedSerializer(secret_key, salt=_SALT).loads(
            token, max_age=LINK_DAYS * 86400
        )
    except (BadSignature, SignatureExpired):
        return None


@dataclass(frozen=True)
class Told:
    person: m.Person
    count: int
    problem: str | None


@dataclass
class DigestRun:
    """What the digests' sending did, filled in once the unit has committed and the mail
    server has answered: each person told (or the server's refusal), or the whole sending's
    failure."""

    told: list[Told] = field(default_factory=list)
    failure: str | None = None


def send_digests(
    uow: UnitOfWork,
    config: Any,
    compose: Callable[[m.Person, list[m.ClaimCandidate], str], mail.Mail],
    now: datetime | None = None,
) -> DigestRun:
    """E-mail each person due a digest (``compose(person, candidates, token)`` writes it)
    once ``uow`` commits; their candidates are marked told only when the server accepted the
    message (the unit commits that mark after the sending). Raises
    :class:`~directory.services.mail.MailNotConfigured` when mail is not set up."""
    if not mail.is_configured(config):
        raise mail.MailNotConfigured(mail.NOT_CONFIGURED)
    now = now or m.utcnow()
    due = due_digests(uow.session, now)
    run = DigestRun()
    if not due:
        return run
    outgoing = [compose(p, c, link_token(config["SECRET_KEY"], p)) for p, c in due]

    def record(delivery: mail.Delivery) -> None:
        if delivery.failure is not None:
            run.failure = delivery.failure
            return
        for (person, candidates), (_mail, problem) in zip(due, delivery.results, strict=True):
            if problem is None:
                for candidate in candidates:
                    candidate.notified_at = now
            run.told.append(Told(person, len(candidates), problem))

    mail.send_after_commit(uow, config, outgoing, then=record)
    return run
