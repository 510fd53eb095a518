"""A real SMTP server (aiosmtpd) on a free local port that the service's mail goes to
in the tests, and the mail read back from it."""

from __future__ import annotations

import email
import email.policy
import re
import socket
import time
from email.message import EmailMessage
from typing import Any, Iterator

import pytest
from aiosmtpd.controller import Controller


class Mailbox:
    """aiosmtpd's handler: every message it accepts, parsed."""

    def __init__(self) -> None:
        self.messages: list[EmailMessage] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        message["X-Envelope-To"] = ", ".join(envelope.rcpt_tos)
        self.messages.append(message)
        return "250 OK"

    def to(self, address: str) -> list[EmailMessage]:
        return [m for m in self.messages if address in m["X-Envelope-To"]]

    def wait_for(self, address: str, subject: str, timeout: float = 10.0) -> EmailMessage:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for message in self.to(address):
                if subject in message["Subject"]:
                    return message
            time.sleep(0.05)
        raise AssertionError(f"no mail {subject!r} to {address}; got {[(m['X-Envelope-To'], m['Subject']) for m in self.messages]}")


def body_of(message: EmailMessage) -> str:
    return message.get_body(preferencelist=("plain",)).get_content()


def link_in(message: EmailMessage) -> str:
    found = re.search(r"https?://\S+", body_of(message))
    assert found, body_of(message)
    return found.group(0)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture
def mailbox(settings: Any) -> Iterator[Mailbox]:
    """The SMTP server, and Django's email backend pointed at it (this process)."""
    box = Mailbox()
    controller = Controller(box, hostname="127.0.0.1", port=free_port())
    controller.start()
    settings.EMAIL_BACKEND = "django.core.mail.backends.smtp.EmailBackend"
    settings.EMAIL_HOST, settings.EMAIL_PORT, settings.EMAIL_USE_TLS = "127.0.0.1", controller.port, False
    settings.EMAIL_HOST_USER = settings.EMAIL_HOST_PASSWORD = ""
    box.port = controller.port  # type: ignore[attr-defined]
    yield box
    controller.stop()
