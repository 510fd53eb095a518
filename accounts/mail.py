"""The mail the service sends about an account: links (reset a password, verify an
address) and notices (the password or two-factor changed, a token made, the address
changed). Through Django's email backend (SMTP in production, the console in make
run), once the transaction that caused it has committed; a mail that cannot be sent is
logged (without its link) and does not fail the request."""

from __future__ import annotations

import logging
from typing import Any

from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.http import HttpRequest

logger = logging.getLogger(__name__)

SIGN_OFF = "\n\n— Klondike\n(You get this mail because it concerns your account. Nothing to do if it was you.)\n"


def site_url(request: HttpRequest | None) -> str:
    if settings.SITE_URL or request is None:
        return settings.SITE_URL or "http://127.0.0.1:8000"
    return request.build_absolute_uri("/").rstrip("/")


def send(to: str, subject: str, body: str) -> None:
    """Queue a mail for after the commit (at once outside a transaction)."""
    if not to:
        return

    def deliver() -> None:
        try:
            send_mail(f"Klondike: {subject}", body + SIGN_OFF, None, [to])
        except Exception as exc:  # noqa: BLE001 - mail trouble must not fail the account's request
            logger.warning("mail %r could not be sent: %r", subject, exc)

    transaction.on_commit(deliver)


def reset_link(user: Any, link: str) -> None:
    send(user.email, "reset your password",
         f"Hello {user.username},\n\nSomeone (we hope you) asked to reset the password of your account. "
         f"Follow this link within {settings.PASSWORD_RESET_TIMEOUT // 60} minutes to choose a new one; it works "
         f"once:\n\n{link}\n\nIf it was not you, ignore this mail: your password has not changed.")


def verify_link(user: Any, address: str, link: str) -> None:
    send(address, "verify your email address",
         f"Hello {user.username},\n\nFollow this link to confirm that {address} is yours. With a verified "
         f"address you can reset a forgotten password.\n\n{link}")


def password_changed(user: Any, how: str) -> None:
    send(user.email, "your password was changed",
         f"Hello {user.username},\n\nThe password of your account was {how}. If it was not you, reset it now "
         f"and check the sessions and access tokens on your account page.")


def token_created(user: Any, name: str, scope: str) -> None:
    send(user.email, "a new access token",
         f"Hello {user.username},\n\nAn access token named \"{name}\" (scope {scope}) was made for your account. "
         f"If it was not you, revoke it on your account page and change your password.")


def email_changed(user: Any, old_address: str) -> None:
    send(old_address, "your email address was changed",
         f"Hello {user.username},\n\nThe email address of your account was changed from {old_address} to "
         f"{user.email or '(none)'}. If it was not you, log in and change your password.")


def two_factor_changed(user: Any, state: str) -> None:
    send(user.email, f"two-factor sign-in {state}",
         f"Hello {user.username},\n\nTwo-factor sign-in was {state} for your account. If it was not you, "
         f"change your password and check your account page.")
