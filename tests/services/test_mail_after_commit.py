"""Mail leaves only after COMMIT (services/unit_of_work.py's after-commit actions): when the
commit of the request or command that wrote an invitation or a reminder fails, nothing was
written and no message reached the mail server (a real SMTP server on a loopback port), so no
one holds a link to something that does not exist.

Each way the directory sends mail is enumerated below (invitations from the admin's page and
from the onboarding import, reminders from the stale report and from ``remind-stale``)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import event, func, select
from sqlalchemy.exc import OperationalError

from directory import models as m
from directory.models import Invitation, Reminder
from tests.conftest import login
from tests.services.test_keeping_current import LONG_AGO
from tests.services.test_onboarding import confirm, upload
from tests.support.editing import post


class CommitRefused(Exception):
    """Stands for what makes a COMMIT fail after a clean flush (a deferred constraint, a
    serialization failure, the disk)."""


@pytest.fixture
def failing_commit(app) -> Iterator[None]:
    """Every COMMIT of the directory's sessions (not the test's own) fails."""
    maker = app.extensions["directory"].db.sessionmaker

    def refuse(session) -> None:
        if not session.in_nested_transaction() and not session.info.get("arranges"):
            raise OperationalError("COMMIT", {}, CommitRefused("disk I/O error"))

    event.listen(maker, "before_commit", refuse)
    yield
    event.remove(maker, "before_commit", refuse)


def count(db, model) -> int:
    db.expire_all()
    return db.scalar(select(func.count()).select_from(model))


@pytest.fixture
def stale(make_person) -> m.Person:
    return make_person("Olga Old", email="olga@x.org", created_at=LONG_AGO)


def invite_from_admin_page(client, app, runner, person) -> None:
    login(client, "admin")
    post(client, f"/directory/admin/people/{person.slug}/invite")


def invite_from_onboarding(client, app, runner, person) -> None:
    login(client, "admin")
    preview = upload(client, b"Name,Email,Role\nNew Comer,new@x.org,Faculty\n")
    confirm(client, preview.get_data(as_text=True))


def remind_from_report(client, app, runner, person) -> None:
    login(client, "admin")
    post(client, "/directory/admin/stale/remind", {"people": str(person.id)})


def remind_from_command_line(client, app, runner, person) -> None:
    runner.invoke(args=["directory", "remind-stale", "--url", "https://directory.test"])


SENDERS = {
    invite_from_admin_page: Invitation,
    invite_from_onboarding: Invitation,
    remind_from_report: Reminder,
    remind_from_command_line: Reminder,
}


@pytest.mark.parametrize("send", SENDERS, ids=lambda send: send.__name__)
def test_the_mail_is_sent_after_commit(send, app, client, runner, db, inbox, stale) -> None:
    send(client, app, runner, stale)
    assert len(inbox.messages) == 1
    assert count(db, SENDERS[send]) == 1


@pytest.mark.parametrize("send", SENDERS, ids=lambda send: send.__name__)
def test_a_failed_commit_sends_no_mail(
    send, app, client, runner, db, inbox, stale, failing_commit
) -> None:
    app.config["PROPAGATE_EXCEPTIONS"] = False
    try:
        send(client, app, runner, stale)
    finally:
        app.config["PROPAGATE_EXCEPTIONS"] = None
    assert inbox.messages == []
    assert count(db, SENDERS[send]) == 0


def test_every_message_goes_through_send_after_commit() -> None:
    """No module of the package sends mail itself: SENDERS above cover every way out."""
    package = Path(m.__file__).resolve().parents[1]
    senders = sorted(
        str(path.relative_to(package))
        for path in package.rglob("*.py")
        if re.search(r"\bmail\.send\(|\bsend_message\(", path.read_text(encoding="utf-8"))
    )
    assert senders == ["services/mail.py"]
