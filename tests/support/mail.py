"""A real SMTP server on a loopback port (aiosmtpd), whose inbox the tests read: the
directory's e-mail goes through smtplib to it exactly as to a department's mail server."""

from __future__ import annotations

import re
import socket
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from email import message_from_bytes
from email.message import EmailMessage
from email.policy import default
from typing import Any

from aiosmtpd.controller import Controller

#: Recipients the server refuses (550), to see a refusal reported for that person only.
REFUSED = re.compile(r"^refused", re.IGNORECASE)


@dataclass
class Inbox:
    """The aiosmtpd handler: keeps every accepted message, refuses REFUSED recipients."""

    messages: list[EmailMessage] = field(default_factory=list)

    async def handle_RCPT(self, server, session, envelope, address, options):  # noqa: N802
        if REFUSED.match(address):
            return "550 5.1.1 No such mailbox here"
        envelope.rcpt_tos.append(address)
        return "250 OK"

    async def handle_DATA(self, server, session, envelope):  # noqa: N802
        self.messages.append(message_from_bytes(envelope.content, policy=default))
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[EmailMessage]:
        return [message for message in self.messages if message["To"] == address]

    def clear(self) -> None:
        self.messages.clear()


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@contextmanager
def smtp_server() -> Iterator[tuple[Inbox, int]]:
    """(inbox, port) of an SMTP server listening on 127.0.0.1 for the block."""
    inbox = Inbox()
    port = free_port()
    controller = Controller(inbox, hostname="127.0.0.1", port=port)
    controller.start()
    try:
        yield inbox, port
    finally:
        controller.stop()


def mail_settings(port: int) -> dict[str, Any]:
    return {
        "DIRECTORY_MAIL_SERVER": "127.0.0.1",
        "DIRECTORY_MAIL_PORT": port,
        "DIRECTORY_MAIL_SENDER": "Directory <directory@cs.example.edu>",
        "DIRECTORY_MAIL_TIMEOUT": 5,
    }


def text_of(message: EmailMessage) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def html_of(message: EmailMessage) -> str:
    return message.get_body(preferencelist=("html",)).get_content()


def links_in(text: str) -> list[str]:
    return re.findall(r"https?://[^\s<>\"]+", text)
