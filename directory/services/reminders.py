"""Keeping profiles current: the stale report, reminder e-mails and their "still current" link.

A profile is *current since* the latest of: when it was created, when anything on it was last
changed (its history, invitations aside) and when its owner last confirmed it. It is stale
when that is longer ago than DIRECTORY_STALE_AFTER_MONTHS. Only people the department expects
to keep current are looked at (:func:`directory.services.access.kept_current`: alumni and
inactive people are not).

A reminder is a :class:`~directory.models.Reminder` row and an e-mail whose link carries a
token signed with the app's secret key (itsdangerous, with a salt used for nothing else),
naming that row. The link expires after DIRECTORY_REMINDER_LINK_DAYS and is used up once it
has confirmed the profile; a changed, truncated or foreign token is refused.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from typing import TYPE_CHECKING, Any

from itsdangerous import BadSignature, SignatureExpired, URLSafeTimedSerializer
from sqlalchemy import func, select
from sqlalchemy.orm import Session

from directory import models as m
from directory.models import ChangeRecord, Reminder
from directory.services import mail
from directory.services.access import kept_current
from directory.services.identity import Viewer
from directory.services.kinds import INVITATION, PERSON

if TYPE_CHECKING:
    from directory.services.unit_of_work import UnitOfWork

#: Only this purpose's tokens verify with this salt (not a session cookie, not a CSRF token).
SALT = "directory.reminder.still-current"
#: Who the history names for a confirmation made through the link (nobody is signed in).
BY_LINK = Viewer(key="still-current link", name="the still-current link of a reminder e-mail")
#: History kinds that do not change what a profile shows.
_NOT_EDITS = (INVITATION,)


def _aware(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment if moment.tzinfo else moment.replace(tzinfo=UTC)


@dataclass
class ProfileCurrency:
    """How current one profile is."""

    person: m.Person
    last_edited: datetime | None
    last_reminded: datetime | None

    @property
    def current_since(self) -> date:
        moments = [_aware(self.person.created_at).date()]
        if self.last_edited is not None:
            moments.append(self.last_edited.date())
        if self.person.last_confirmed is not None:
            moments.append(self.person.last_confirmed)
        return max(moments)


def stale_cutoff(months: int, today: date) -> date:
    return today - timedelta(days=round(months * 30.44))


def currency(session: Session, person_ids: Iterable[int] | None = None) -> list[ProfileCurrency]:
    """Every profile kept current (or those of ``person_ids``), with its last edit and last
    reminder, in two grouped subqueries."""
    edited = (
        select(ChangeRecord.person_id, func.max(ChangeRecord.created_at).label("at"))
        .where(ChangeRecord.entity_kind.notin_(_NOT_EDITS), ChangeRecord.person_id.isnot(None))
        .group_by(ChangeRecord.person_id)
        .subquery("last_edit")
    )
    reminded = (
        select(Reminder.person_id, func.max(Reminder.sent_at).label("at"))
        .group_by(Reminder.person_id)
        .subquery("last_reminder")
    )
    stmt = (
        select(m.Person, edited.c.at, reminded.c.at)
        .outerjoin(edited, edited.c.person_id == m.Person.id)
        .outerjoin(reminded, reminded.c.person_id == m.Person.id)
        .where(kept_current())
        .order_by(m.Person.sort_name)
    )
    if person_ids is not None:
        stmt = stmt.where(m.Person.id.in_(list(person_ids)))
    return [
        ProfileCurrency(person, _aware(last_edit), _aware(last_reminder))
        for person, last_edit, last_reminder in session.execute(stmt)
    ]


def stale_profiles(session: Session, months: int, today: date) -> list[ProfileCurrency]:
    """Profiles not current for ``months`` months, longest first."""
    cutoff = stale_cutoff(months, today)
    found = [c for c in currency(session) if c.current_since < cutoff]
    return sorted(found, key=lambda c: (c.current_since, c.person.sort_name))


def due_for_reminder(
    stale: list[ProfileCurrency], interval_days: int, now: datetime
) -> list[ProfileCurrency]:
    """Stale profiles with an address whose last reminder (if any) is ``interval_days`` old."""
    since = now - timedelta(days=interval_days)
    return [
        c for c in stale if c.person.email and (c.last_reminded is None or c.last_reminded <= since)
    ]


# ----------------------------------------------------------------------------- the link


def _serializer(secret_key: str | bytes) -> URLSafeTimedSerializer:
    if not secret_key:
        raise RuntimeError("Reminder links are signed with the app's SECRET_KEY; set one.")
    return URLSafeTimedSerializer(secret_key, salt=SALT)


def link_token(secret_key: str | bytes, reminder: Reminder) -> str:
    return _serializer(secret_key).dumps({"r": reminder.id, "p": reminder.person_id})


class LinkUnusable(Exception):
    """The link is not valid, expired or used; the message says which, for the visitor."""


def reminder_for(session: Session, secret_key: str | bytes, token: str, days: int) -> Reminder:
    """The reminder ``token`` names, still usable; raises :class:`LinkUnusable`."""
    try:
        data = _serializer(secret_key).loads(token, max_age=days * 86400)
    except SignatureExpired:
        raise LinkUnusable(
            f"This link has expired: links in reminder e-mails work for {days} days. "
            "Sign in and confirm your profile on its editor instead."
        ) from None
    except BadSignature:
        raise LinkUnusable(
            "This link is not valid. Check that it was copied whole from the e-mail."
        ) from None
    reminder = None
    if isinstance(data, dict) and isinstance(data.get("r"), int):
        reminder = session.get(Reminder, data["r"])
    if reminder is None or reminder.person_id != data.get("p"):
        raise LinkUnusable("This link is not valid any more: its reminder no longer exists.")
    if reminder.confirmed_at is not None:
        raise LinkUnusable(
            "This link has been used already: the profile was confirmed as current on "
            f"{_aware(reminder.confirmed_at):%-d %B %Y}."
        )
    return reminder


def confirm_by_link(uow: UnitOfWork, reminder: Reminder, today: date) -> None:
    """Mark the reminded profile current, recorded in its history as done through the link,
    and use the link up."""
    person = reminder.person
    # The link itself is what allows this: whoever holds it was sent it.
    changes = uow.change_set(person, approval_exempt=True, allowed=True, actor=BY_LINK)
    changes.update(PERSON, person)
    person.last_confirmed = today
    changes.finish()
    reminder.confirmed_at = datetime.now(UTC)
    uow.session.flush()


# ----------------------------------------------------------------------------- sending


@dataclass
class Sent:
    person: m.Person
    #: None: the server accepted the message; else why it was not sent.
    problem: str | None


@dataclass
class ReminderRun:
    """What a reminder run did, known once its unit of work committed and the messages went
    out: one :class:`Sent` per person, or ``failure`` when no message could be sent (then no
    reminder is kept)."""

    results: list[Sent] = field(default_factory=list)
    failure: str | None = None


def send_reminders(
    uow: UnitOfWork,
    config: Any,
    people: list[m.Person],
    compose: Callable[[m.Person, str], mail.Mail],
) -> ReminderRun:
    """E-mail each of ``people`` a reminder (``compose(person, token)`` writes the message),
    after the unit of work commits the reminders their links name. A reminder is kept only if
    its message was accepted (the others are deleted and committed again), so a run that
    failed for someone tries them again next time. People without an address are reported,
    not sent anything. Raises :class:`~directory.services.mail.MailNotConfigured` (nothing
    written); a server that cannot be reached is the run's ``failure`` (nothing kept)."""
    if not mail.is_configured(config):
        raise mail.MailNotConfigured(mail.NOT_CONFIGURED)
    session = uow.session
    run = ReminderRun()
    outgoing: list[tuple[m.Person, Reminder, mail.Mail]] = []
    for person in people:
        if not person.email:
            run.results.append(Sent(person, "no e-mail address"))
            continue
        reminder = Reminder(person_id=person.id, sent_to=person.email, sent_by_key=uow.viewer.key)
        session.add(reminder)
        session.flush()
        token = link_token(config["SECRET_KEY"], reminder)
        outgoing.append((person, reminder, compose(person, token)))

    def record(delivery: mail.Delivery) -> None:
        unsent = []
        if delivery.failure is not None:
            run.failure = delivery.failure
            unsent = [reminder for _person, reminder, _message in outgoing]
        answers = zip(outgoing, delivery.results, strict=False)
        for (person, reminder, _message), (_mail, problem) in answers:
            run.results.append(Sent(person, problem))
            if problem is not None:
                unsent.append(reminder)
        for reminder in unsent:  # the unit commits these deletions after this action
            session.delete(reminder)

    mail.send_after_commit(uow, config, [message for _p, _r, message in outgoing], record)
    return run
