"""The directory's e-mails, written from templates (``directory/mail/*.txt`` and ``.html``,
which a host may override like any page) with absolute links."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from flask import current_app, render_template, url_for

from directory import models as m
from directory.i18n import department_name, ngettext
from directory.i18n import gettext as _
from directory.services import mail
from directory.services.mail import Mail
from directory.services.unit_of_work import current_unit_of_work


def _department() -> str:
    return department_name()


def invitation_mail(person: m.Person, link: str, days: int) -> Mail:
    """The invitation to claim ``person``'s profile, with its link."""
    values = {"person": person, "link": link, "days": days, "department": _department()}
    return Mail(
        to=person.email or "",
        subject=_("Your profile in the %(department)s directory", department=_department()),
        text=render_template("directory/mail/invitation.txt", **values),
        html=render_template("directory/mail/invitation.html", **values),
    )


def reminder_mail(person: m.Person, token: str) -> Mail:
    """The reminder to check ``person``'s profile, with its one-click "still current" link
    (``token``) and a link to the editor."""
    values = {
        "person": person,
        "current_link": url_for("directory.still_current", token=token, _external=True),
        "edit_link": url_for("directory.me", _external=True),
        "profile_link": url_for("directory.profile", slug=person.slug, _external=True),
        "days": current_app.config["DIRECTORY_REMINDER_LINK_DAYS"],
        "department": _department(),
    }
    return Mail(
        to=person.email or "",
        subject=_(
            "Is your profile in the %(department)s directory still current?",
            department=_department(),
        ),
        text=render_template("directory/mail/reminder.txt", **values),
        html=render_template("directory/mail/reminder.html", **values),
    )


def send_invitations(
    people: list[m.Person], links: dict[int, str], days: int
) -> Callable[[], tuple[dict[int, str | None], str | None]]:
    """E-mail each person their invitation once the request's writes (the invitations) are
    committed. Returns what to ask afterwards: ({person id: problem or None}, a problem of the
    whole sending). The invitations exist either way; the pages show every link."""
    messages = [invitation_mail(person, links[person.id], days) for person in people]
    delivery = mail.send_after_commit(current_unit_of_work(), current_app.config, messages)

    def outcome() -> tuple[dict[int, str | None], str | None]:
        if delivery.failure is not None:
            return {}, delivery.failure
        answers = zip(people, delivery.results, strict=True)
        return {p.id: problem for p, (_mail, problem) in answers}, None

    return outcome


def send_invitation(person: m.Person, link: str, days: int) -> Callable[[], str | None]:
    """E-mail one invitation once it is committed. Returns what to ask afterwards: what went
    wrong, for the admin's page, or None once sent."""
    if not person.email:
        return lambda: _(
            "This person has no e-mail address, so nothing was sent: copy the link below."
        )
    outcome = send_invitations([person], {person.id: link}, days)

    def problem() -> str | None:
        sent, failure = outcome()
        if failure:
            return failure
        refused = sent[person.id]
        if refused is None:
            return None
        return _("Not sent to %(address)s: %(problem)s.", address=person.email, problem=refused)

    return problem


def digest_mail(person: m.Person, candidates: list[Any], token: str) -> Mail:
    """The claim queue's digest: how many papers were found for ``person``, the likeliest
    titles, and the signed link to their queue."""
    values = {
        "person": person,
        "count": len(candidates),
        "titles": [c.title for c in candidates[:10]],
        "link": url_for("directory.found_link", token=token, _external=True),
        "department": _department(),
    }
    return Mail(
        to=person.email or "",
        subject=ngettext(
            "%(num)s new paper found for you", "%(num)s new papers found for you", len(candidates)
        ),
        text=render_template("directory/mail/digest.txt", **values),
    )
