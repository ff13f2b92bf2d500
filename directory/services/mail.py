"""E-mail through the host's SMTP server (DIRECTORY_MAIL_*), with the standard library only.

Invitations and reminders are built as :class:`email.message.EmailMessage` (plain text, with
an HTML alternative when given) and sent through :mod:`smtplib`. Sending never decides
whether a write happens: the caller writes first (the invitation, the reminder) and shows
the link itself when mail is not configured or the server refuses, so nothing is lost.

A message about something written in this request is sent with :func:`send_after_commit`:
after the unit of work's COMMIT, never before it (a failed commit would leave a mail whose
link leads nowhere).
"""

from __future__ import annotations

import smtplib
import ssl
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from email.message import EmailMessage
from email.utils import make_msgid
from typing import Any


class MailNotConfigured(Exception):
    """DIRECTORY_MAIL_SERVER or DIRECTORY_MAIL_SENDER is not set."""


class MailFailed(Exception):
    """The SMTP server could not be reached, or refused the message; the text says which."""


@dataclass(frozen=True)
class Mail:
    """One message to one recipient."""

    to: str
    subject: str
    text: str
    html: str | None = None


@dataclass
class Delivery:
    """Messages sent once a unit of work commits, and what the server answered: ``results``
    as :func:`send` returns them, or ``failure`` (not configured, not reached); ``done``
    once the sending ran (never, if the commit failed)."""

    mails: list[Mail]
    results: list[tuple[Mail, str | None]] = field(default_factory=list)
    failure: str | None = None
    done: bool = False


def send_after_commit(
    uow: Any, config: Any, mails: Iterable[Mail], then: Callable[[Delivery], None] | None = None
) -> Delivery:
    """Send ``mails`` after ``uow`` commits (:meth:`UnitOfWork.after_commit`), then call
    ``then(delivery)``; the returned :class:`Delivery` is filled in at that moment."""
    delivery = Delivery(list(mails))

    def deliver() -> None:
        try:
            delivery.results = send(config, delivery.mails)
        except (MailNotConfigured, MailFailed) as problem:
            delivery.failure = str(problem)
        delivery.done = True
        if then is not None:
            then(delivery)

    uow.after_commit(deliver)
    return delivery


def is_configured(config: Any) -> bool:
    """Whether the settings name a server and a sender to send from."""
    return bool(config["DIRECTORY_MAIL_SERVER"] and config["DIRECTORY_MAIL_SENDER"])


NOT_CONFIGURED = (
    "E-mail is not set up (DIRECTORY_MAIL_SERVER and DIRECTORY_MAIL_SENDER), so nothing was "
    "sent: copy the link below to the person yourself."
)


def build(config: Any, mail: Mail) -> EmailMessage:
    """The message as it goes out: From the configured sender, plain text first."""
    message = EmailMessage()
    message["From"] = config["DIRECTORY_MAIL_SENDER"]
    message["To"] = mail.to
    message["Subject"] = mail.subject
    sender = str(config["DIRECTORY_MAIL_SENDER"])
    message["Message-ID"] = make_msgid(domain=sender.rpartition("@")[2].strip("> ") or None)
    message.set_content(mail.text)
    if mail.html:
        message.add_alternative(mail.html, subtype="html")
    return message


def _connect(config: Any) -> smtplib.SMTP:
    host, port = config["DIRECTORY_MAIL_SERVER"], config["DIRECTORY_MAIL_PORT"]
    timeout = config["DIRECTORY_MAIL_TIMEOUT"]
    if config["DIRECTORY_MAIL_USE_SSL"]:
        return smtplib.SMTP_SSL(host, port, timeout=timeout, context=ssl.create_default_context())
    smtp = smtplib.SMTP(host, port, timeout=timeout)
    if config["DIRECTORY_MAIL_USE_TLS"]:
        smtp.starttls(context=ssl.create_default_context())
    return smtp


def send(config: Any, mails: Iterable[Mail]) -> list[tuple[Mail, str | None]]:
    """Send each message over one connection. Returns (mail, problem) for each: problem is
    None when the server accepted it, else what went wrong for that recipient. Raises
    :class:`MailNotConfigured`, or :class:`MailFailed` when no connection could be made."""
    mails = list(mails)
    if not is_configured(config):
        raise MailNotConfigured(NOT_CONFIGURED)
    if not mails:
        return []
    where = f"{config['DIRECTORY_MAIL_SERVER']}:{config['DIRECTORY_MAIL_PORT']}"
    try:
        smtp = _connect(config)
    except (OSError, smtplib.SMTPException) as error:
        raise MailFailed(f"The mail server {where} could not be reached ({error}).") from error
    results: list[tuple[Mail, str | None]] = []
    try:
        if config["DIRECTORY_MAIL_USERNAME"]:
            smtp.login(config["DIRECTORY_MAIL_USERNAME"], config["DIRECTORY_MAIL_PASSWORD"] or "")
        for mail in mails:
            try:
                refused = smtp.send_message(build(config, mail))
            except smtplib.SMTPRecipientsRefused as error:
                results.append((mail, _refusal(error.recipients.get(mail.to))))
            except smtplib.SMTPResponseException as error:
                results.append((mail, _refusal((error.smtp_code, error.smtp_error))))
            else:
                results.append((mail, _refusal(refused[mail.to]) if mail.to in refused else None))
    except smtplib.SMTPAuthenticationError as error:
        raise MailFailed(
            f"The mail server {where} refused the sign-in of DIRECTORY_MAIL_USERNAME "
            f"({_refusal((error.smtp_code, error.smtp_error))})."
        ) from error
    except (OSError, smtplib.SMTPException) as error:
        done = {id(mail) for mail, _ in results}
        results += [(m, f"not sent: {error}") for m in mails if id(m) not in done]
    finally:
        try:
            smtp.quit()
        except (OSError, smtplib.SMTPException):
            smtp.close()
    return results


def _refusal(reply: tuple[int, bytes | str] | None) -> str:
    if reply is None:
        return "refused by the mail server"
    code, text = reply
    if isinstance(text, bytes):
        text = text.decode("utf-8", "replace")
    return f"refused by the mail server: {code} {text}"
